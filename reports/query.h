/* Named report queries: SQL kept as files in reports/sql/ (embedded at
 * build time), run with bound parameters into a table of text cells, so
 * every number a report shows can be reproduced in the sqlite3 shell.
 *
 * Every named query takes the same parameters, each NULL for "all":
 *   ?1  a campaign id
 *   ?2  a plugin name
 *   ?3  how many rows per campaign, where the query ranks (top)
 * A query that does not use a parameter ignores it. */
#ifndef SKYTUNE_QUERY_H
#define SKYTUNE_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

enum { QUERY_PARAM_CAMPAIGN = 0, QUERY_PARAM_PLUGIN = 1, QUERY_PARAM_LIMIT = 2, QUERY_N_PARAMS = 3 };

/* The SQLite storage class of a cell, so that writers can tell numbers from
 * text (JSON output keeps numbers numbers). */
typedef enum query_type {
    QUERY_NULL = 0,
    QUERY_INTEGER = 1,
    QUERY_REAL = 2,
    QUERY_TEXT = 3
} query_type;

typedef struct query_table {
    size_t n_cols, n_rows;
    char **cols;            /* column names */
    char **cells;           /* row-major n_rows × n_cols; NULL for SQL NULL */
    unsigned char *types;   /* row-major n_rows × n_cols; query_type of each cell */
} query_table;

typedef struct query_def {
    const char *name;      /* as `skytune query NAME` knows it, e.g. "by-param" */
    const char *file;      /* its file in reports/sql/, e.g. "by_param.sql" */
    const char *sql;
    const char *summary;   /* one line for help texts */
} query_def;

/* The named query, or NULL when there is none by that name. */
const query_def *query_find(const char *name);
/* Every named query, in a stable order: for k < query_count(). */
size_t query_count(void);
const query_def *query_at(size_t k);

/* The SQL of a named query, or NULL when there is none by that name. */
const char *query_sql(const char *name);
/* Names of every query, for help texts: "best, measurements, ...". */
void query_names(char *buf, size_t len);

/* Run `sql` on an open database (a sqlite3 *) with text parameters ?1..?n
 * (a NULL parameter binds SQL NULL; parameters beyond those the SQL uses
 * are ignored). */
int query_run(void *db, const char *sql, const char *const *params, size_t n_params,
              query_table *out, skytune_error *err);
/* query_run of a named query. */
int query_run_named(void *db, const char *name, const char *const *params, size_t n_params,
                    query_table *out, skytune_error *err);
void query_table_free(query_table *t);

/* The index of a column, or t->n_cols when there is none by that name. */
size_t query_column(const query_table *t, const char *name);
/* A cell by row and column name; NULL for SQL NULL or an unknown column. */
const char *query_cell(const query_table *t, size_t row, const char *column);
/* A cell's number; false (and *value untouched) for NULL, text or an
 * unknown column. */
bool query_number(const query_table *t, size_t row, const char *column, double *value);

#endif
