/* Pieces the HTML report is built from: tables declared as column specs,
 * key-value lists, notes naming the SQL a figure comes from. Internal to
 * the report writers. */
#ifndef SKYTUNE_HTML_PARTS_H
#define SKYTUNE_HTML_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "query.h"
#include "report_format.h"

typedef struct html_column {
    const char *column;    /* in the query's result */
    const char *header;
    report_format format;
    bool code;             /* configuration or problem text: monospace */
} html_column;

/* A table of rows [first, end) of t, one column per spec. */
void html_table(FILE *f, const query_table *t, size_t first, size_t end, const html_column *cols,
                size_t n_cols);
/* The same in parts, for tables of several row ranges. */
void html_table_open(FILE *f, const html_column *cols, size_t n_cols);
void html_table_rows(FILE *f, const query_table *t, size_t first, size_t end,
                     const html_column *cols, size_t n_cols);
void html_table_close(FILE *f);

/* "From reports/sql/FILE (skytune query NAME)." under a figure. */
void html_source_note(FILE *f, const query_def *q);

/* Key-value tables: open, rows, close. */
void html_kv_open(FILE *f);
void html_kv_row(FILE *f, const char *key, const char *value, bool code);
void html_kv_close(FILE *f);

/* A heading <hN id="ID">text</hN>; id may be NULL. */
void html_heading(FILE *f, int level, const char *id, const char *text);

/* A paragraph of escaped text. */
void html_paragraph(FILE *f, const char *css_class, const char *text);

#endif
