/* Escaping text for HTML and SVG (XML): the one way any string from a
 * database or a plugin reaches a report. */
#ifndef SKYTUNE_HTML_ESCAPE_H
#define SKYTUNE_HTML_ESCAPE_H

#include <stdio.h>

/* Write text with & < > " ' replaced by entities, so it is inert both as
 * element content and inside a quoted attribute. Bytes that XML 1.0 does not
 * allow (control characters other than tab, line feed, carriage return)
 * become U+FFFD, so that an embedded SVG still parses as XML. NULL writes
 * nothing. */
void html_escape_write(FILE *f, const char *text);

#endif
