#include "query.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char report_sql_best[];
extern const char report_sql_measurements[];

static const struct {
    const char *name;
    const char *sql;
} queries[] = {
    {"best", report_sql_best},
    {"measurements", report_sql_measurements},
};

const char *query_sql(const char *name)
{
    for (size_t k = 0; k < sizeof queries / sizeof queries[0]; k++)
        if (strcmp(queries[k].name, name) == 0) return queries[k].sql;
    return NULL;
}

void query_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof queries / sizeof queries[0] && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", queries[k].name);
}

void query_table_free(query_table *t)
{
    if (!t) return;
    for (size_t k = 0; k < t->n_cols; k++) free(t->cols[k]);
    for (size_t k = 0; k < t->n_rows * t->n_cols; k++) free(t->cells[k]);
    free(t->cols);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

static char *copy_text(const unsigned char *text)
{
    return text ? strdup((const char *)text) : NULL;
}

int query_run(void *db, const char *sql, const char *const *params, size_t n_params,
              query_table *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
        return err_set(err, "query does not prepare: %s", sqlite3_errmsg(db));
    for (size_t k = 0; k < n_params; k++) {
        int rc = params[k] ? sqlite3_bind_text(stmt, (int)k + 1, params[k], -1, SQLITE_TRANSIENT)
                           : sqlite3_bind_null(stmt, (int)k + 1);
        if (rc != SQLITE_OK) {
            sqlite3_finalize(stmt);
            return err_set(err, "query parameter %zu: %s", k + 1, sqlite3_errmsg(db));
        }
    }
    size_t n_cols = (size_t)sqlite3_column_count(stmt);
    out->n_cols = n_cols;
    out->cols = calloc(n_cols + 1, sizeof *out->cols);
    if (!out->cols) goto oom;
    for (size_t k = 0; k < n_cols; k++)
        if (!(out->cols[k] = strdup(sqlite3_column_name(stmt, (int)k)))) goto oom;
    size_t capacity = 0;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (out->n_rows == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            char **grown = realloc(out->cells, capacity * (n_cols ? n_cols : 1) * sizeof *grown);
            if (!grown) goto oom;
            out->cells = grown;
        }
        char **row = out->cells + out->n_rows * n_cols;
        for (size_t k = 0; k < n_cols; k++) row[k] = NULL;
        out->n_rows++;
        for (size_t k = 0; k < n_cols; k++) {
            if (sqlite3_column_type(stmt, (int)k) == SQLITE_NULL) continue;
            if (!(row[k] = copy_text(sqlite3_column_text(stmt, (int)k)))) goto oom;
        }
    }
    if (rc != SQLITE_DONE) {
        err_set(err, "query failed: %s", sqlite3_errmsg(db));
        sqlite3_finalize(stmt);
        query_table_free(out);
        return -1;
    }
    sqlite3_finalize(stmt);
    return 0;
oom:
    sqlite3_finalize(stmt);
    query_table_free(out);
    return err_set(err, "out of memory reading query results");
}
