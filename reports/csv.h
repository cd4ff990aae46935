/* CSV output (RFC 4180): fields with a comma, quote or line break are
 * quoted, quotes doubled; SQL NULL is an empty field; lines end in "\n",
 * which spreadsheets and CSV readers accept. A text a spreadsheet would
 * run as a formula (starting with =, +, -, @, a tab or a carriage return,
 * and not a number) is quoted after a single quote. */
#ifndef SKYTUNE_CSV_H
#define SKYTUNE_CSV_H

#include <stdio.h>

#include "query.h"

void csv_write_field(FILE *f, const char *text);
/* Header line, then one line per row. Returns -1 on a write error. */
int csv_write_table(FILE *f, const query_table *t);

#endif
