/* Text from an input file or a user, quoted in a message: printed as it is,
 * a control character in it would reach the terminal (ESC starts an escape
 * sequence that can recolour, move or rewrite what is shown) and a message
 * could not say where the text ends. */
#ifndef SKYTUNE_QUOTE_H
#define SKYTUNE_QUOTE_H

#include <stddef.h>

/* Room for a quoted text of a typical message, and for a quoted path. */
#define QUOTE_TEXT 256
#define QUOTE_PATH 1024

/* Writes `text` (NULL reads as "") into buf with every control character
 * (below 0x20, 0x7F, and the C1 controls U+0080..U+009F) and every byte
 * that is not UTF-8 escaped as \n, \t, \r or \xNN; other UTF-8 is kept.
 * A text too long for buf is cut at a character and ends in "...". Returns
 * buf, for use as a printf argument. */
const char *quote_text(const char *text, char *buf, size_t len);

/* The same for the first n bytes of text. */
const char *quote_span(const char *text, size_t n, char *buf, size_t len);

#endif
