#include "query.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy_wait.h"

extern const char report_sql_best[];
extern const char report_sql_measurements[];
extern const char report_sql_campaign_summary[];
extern const char report_sql_top[];
extern const char report_sql_time_split[];
extern const char report_sql_failures[];
extern const char report_sql_by_param[];
extern const char report_sql_best_so_far[];
extern const char report_sql_evaluations[];
extern const char report_sql_distribution[];
extern const char report_sql_snr[];
extern const char report_sql_roofline[];
extern const char report_sql_instances[];
extern const char report_sql_scaling[];
extern const char report_sql_fixed_vs_tuned[];
extern const char report_sql_wisdom[];
extern const char report_sql_t4[];
extern const char report_sql_independence[];
extern const char report_sql_parts[];
extern const char report_sql_importance[];
extern const char report_sql_interactions[];
extern const char report_sql_portability[];
extern const char report_sql_rejections[];
extern const char report_sql_stop_advice[];
extern const char report_sql_top_samples[];
extern const char report_sql_confirmations[];

static const query_def queries[] = {
    {"campaigns", "campaign_summary.sql", report_sql_campaign_summary,
     "what each campaign tuned: plugin, device, problem, strategy, seed, status, counts"},
    {"best", "best.sql", report_sql_best, "the best configuration of each campaign"},
    {"top", "top.sql", report_sql_top,
     "each campaign's fastest configurations (--limit, default 20) with their figures"},
    {"top-samples", "top_samples.sql", report_sql_top_samples,
     "the timed runs of each campaign's fastest configurations (--limit, default 6)"},
    {"confirmations", "confirmations.sql", report_sql_confirmations,
     "each confirmation of a campaign's winner: its configurations, campaign and confirmed medians"},
    {"time-split", "time_split.sql", report_sql_time_split,
     "each campaign's time in build, verification, timed runs and engine overhead"},
    {"failures", "failures.sql", report_sql_failures,
     "each campaign's evaluations counted by status, with the first message"},
    {"by-param", "by_param.sql", report_sql_by_param,
     "per tuning parameter value: best and typical time, failures by status"},
    {"independence", "independence.sql", report_sql_independence,
     "per pair of tuning parameters: whether one's ranking holds whatever the other's value"},
    {"importance", "importance.sql", report_sql_importance,
     "per tuning parameter: the share of the variance of log-time its value explains"},
    {"interactions", "interactions.sql", report_sql_interactions,
     "the pairs of tuning parameters that explain log-time together beyond each alone"},
    {"rejections", "rejections.sql", report_sql_rejections,
     "how much of the Cartesian space each constraint removed"},
    {"stop-advice", "stop_advice.sql", report_sql_stop_advice,
     "what the estimate of more evaluations' gain reads: counts, fastest times, how it ended"},
    {"parts", "parts.sql", report_sql_parts,
     "the best configuration's time per labelled kernel (a pipeline's stages), with shares"},
    {"best-so-far", "best_so_far.sql", report_sql_best_so_far,
     "the best time found against evaluations and cumulative wall time"},
    {"evaluations", "evaluations.sql", report_sql_evaluations,
     "every evaluation's time or status against its number and wall time (cells past 1000)"},
    {"distribution", "distribution.sql", report_sql_distribution,
     "histogram of performance over the configurations that passed"},
    {"snr", "snr.sql", report_sql_snr,
     "the optimum's distance from the mean in standard deviations, Chebyshev bound"},
    {"roofline", "roofline.sql", report_sql_roofline,
     "GFLOP/s against arithmetic intensity, with the device's peaks"},
    {"instances", "instances.sql", report_sql_instances,
     "the best configuration per plugin build, device and problem"},
    {"scaling", "scaling.sql", report_sql_scaling,
     "each instance's best performance against the problem parameter that varies"},
    {"fixed-vs-tuned", "fixed_vs_tuned.sql", report_sql_fixed_vs_tuned,
     "each instance's tuned optimum against the best fixed configuration"},
    {"portability", "portability.sql", report_sql_portability,
     "per plugin and problem: the share of each device's optimum another device's best keeps"},
    {"wisdom", "wisdom.sql", report_sql_wisdom,
     "the best configuration per plugin, device and problem, as typed JSON"},
    {"t4", "t4.sql", report_sql_t4, "a campaign's evaluations in T4 terms (--campaign required)"},
    {"measurements", "measurements.sql", report_sql_measurements,
     "every evaluation with its statistics, phase times and verification"},
};

#define N_QUERIES (sizeof queries / sizeof queries[0])

size_t query_count(void)
{
    return N_QUERIES;
}

const query_def *query_at(size_t k)
{
    return k < N_QUERIES ? &queries[k] : NULL;
}

const query_def *query_find(const char *name)
{
    for (size_t k = 0; k < N_QUERIES; k++)
        if (strcmp(queries[k].name, name) == 0) return &queries[k];
    return NULL;
}

const char *query_sql(const char *name)
{
    const query_def *q = query_find(name);
    return q ? q->sql : NULL;
}

void query_names(char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0) return;
    buf[0] = '\0';
    for (size_t k = 0; k < N_QUERIES && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", queries[k].name);
}

void query_table_free(query_table *t)
{
    if (!t) return;
    for (size_t k = 0; k < t->n_cols; k++) free(t->cols[k]);
    for (size_t k = 0; k < t->n_rows * t->n_cols; k++) free(t->cells[k]);
    free(t->cols);
    free(t->cells);
    free(t->types);
    memset(t, 0, sizeof *t);
}

static query_type cell_type(int sqlite_type)
{
    switch (sqlite_type) {
    case SQLITE_INTEGER: return QUERY_INTEGER;
    case SQLITE_FLOAT: return QUERY_REAL;
    case SQLITE_NULL: return QUERY_NULL;
    default: return QUERY_TEXT;
    }
}

int query_run(void *db, const char *sql, const char *const *params, size_t n_params,
              query_table *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *stmt = NULL;
    char why[DB_ERROR_TEXT];
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
        return err_set(err, "query does not prepare: %s", db_error_text(db, why, sizeof why));
    size_t used = (size_t)sqlite3_bind_parameter_count(stmt);
    for (size_t k = 0; k < n_params && k < used; k++) {
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
    size_t capacity = 0, width = n_cols ? n_cols : 1;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (out->n_rows == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            char **grown = realloc(out->cells, capacity * width * sizeof *grown);
            if (!grown) goto oom;
            out->cells = grown;
            unsigned char *grown_types = realloc(out->types, capacity * width);
            if (!grown_types) goto oom;
            out->types = grown_types;
        }
        char **row = out->cells + out->n_rows * n_cols;
        unsigned char *types = out->types + out->n_rows * n_cols;
        for (size_t k = 0; k < n_cols; k++) {
            row[k] = NULL;
            types[k] = QUERY_NULL;
        }
        out->n_rows++;
        for (size_t k = 0; k < n_cols; k++) {
            int type = sqlite3_column_type(stmt, (int)k);
            if (type == SQLITE_NULL) continue;
            const unsigned char *text = sqlite3_column_text(stmt, (int)k);
            if (!text || !(row[k] = strdup((const char *)text))) goto oom;
            types[k] = (unsigned char)cell_type(type);
        }
    }
    if (rc != SQLITE_DONE) {
        err_set(err, "query failed: %s", db_error_text(db, why, sizeof why));
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

int query_run_named(void *db, const char *name, const char *const *params, size_t n_params,
                    query_table *out, skytune_error *err)
{
    const query_def *q = query_find(name);
    if (!q) {
        memset(out, 0, sizeof *out);
        char names[512];
        query_names(names, sizeof names);
        return err_set(err, "no query named '%s'; the queries are: %s", name, names);
    }
    if (query_run(db, q->sql, params, n_params, out, err) != 0)
        return err_prefix(err, "reports/sql/%s", q->file);
    return 0;
}

size_t query_column(const query_table *t, const char *name)
{
    for (size_t k = 0; k < t->n_cols; k++)
        if (strcmp(t->cols[k], name) == 0) return k;
    return t->n_cols;
}

const char *query_cell(const query_table *t, size_t row, const char *column)
{
    size_t k = query_column(t, column);
    if (k == t->n_cols || row >= t->n_rows) return NULL;
    return t->cells[row * t->n_cols + k];
}

bool query_number(const query_table *t, size_t row, const char *column, double *value)
{
    size_t k = query_column(t, column);
    if (k == t->n_cols || row >= t->n_rows) return false;
    unsigned char type = t->types[row * t->n_cols + k];
    if (type != QUERY_INTEGER && type != QUERY_REAL) return false;
    *value = strtod(t->cells[row * t->n_cols + k], NULL);
    return true;
}
