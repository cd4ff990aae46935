/* Text from outside (the command line, a plugin, a file) quoted in a
 * message. A message goes to a terminal, so what it quotes must not be able
 * to move the cursor, change colours or hide the rest of the message; and a
 * message has a fixed-size buffer, so a pasted megabyte must not push the
 * reason out of it. */
#ifndef SKYTUNE_QUOTE_H
#define SKYTUNE_QUOTE_H

#include <stddef.h>

/* Room for a quoted excerpt: enough to recognise the text, short enough that
 * a message has room for its reason after it. */
#define QUOTE_EXCERPT 160

/* Write `text` into buf (len bytes, len >= 16) as it could be typed back:
 * control characters, DEL and bytes that are not valid UTF-8 as C escapes
 * (\n, \t, \r, \x1b), a backslash as \\ and a single quote as \', everything
 * else (printable ASCII, UTF-8 text) as it is. When the escaped text does not
 * fit, its beginning and its end are kept around "...". Returns buf, so that
 * it can be an argument of err_set; NULL reads as "". */
const char *quote_text(const char *text, char *buf, size_t len);

#endif
