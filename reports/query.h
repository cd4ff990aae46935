/* Named report queries: SQL kept as files in reports/sql/ (embedded at
 * build time), run with bound parameters into a table of text cells, so
 * every number a report shows can be reproduced in the sqlite3 shell. */
#ifndef SKYTUNE_QUERY_H
#define SKYTUNE_QUERY_H

#include <stddef.h>

#include "error.h"

typedef struct query_table {
    size_t n_cols, n_rows;
    char **cols;    /* column names */
    char **cells;   /* row-major n_rows × n_cols; NULL for SQL NULL */
} query_table;

/* The SQL of a named query, or NULL when there is none by that name. */
const char *query_sql(const char *name);
/* Names of every query, for help texts: "best, measurements". */
void query_names(char *buf, size_t len);

/* Run `sql` on an open database (a sqlite3 *) with text parameters ?1..?n
 * (a NULL parameter binds SQL NULL). */
int query_run(void *db, const char *sql, const char *const *params, size_t n_params,
              query_table *out, skytune_error *err);
void query_table_free(query_table *t);

#endif
