#include "report.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busy_wait.h"
#include "read_in_place.h"
#include "winner_verdict.h"

/* Query names by report_query. */
static const char *const query_names_by_part[REPORT_N_QUERIES] = {
    [REPORT_CAMPAIGNS] = "campaigns",
    [REPORT_FAILURES] = "failures",
    [REPORT_TIME_SPLIT] = "time-split",
    [REPORT_TOP] = "top",
    [REPORT_BEST_SO_FAR] = "best-so-far",
    [REPORT_EVALUATIONS] = "evaluations",
    [REPORT_DISTRIBUTION] = "distribution",
    [REPORT_SNR] = "snr",
    [REPORT_BY_PARAM] = "by-param",
    [REPORT_INDEPENDENCE] = "independence",
    [REPORT_PARTS] = "parts",
    [REPORT_ROOFLINE] = "roofline",
    [REPORT_INSTANCES] = "instances",
    [REPORT_SCALING] = "scaling",
    [REPORT_FIXED_VS_TUNED] = "fixed-vs-tuned",
    [REPORT_IMPORTANCE] = "importance",
    [REPORT_INTERACTIONS] = "interactions",
    [REPORT_REJECTIONS] = "rejections",
    [REPORT_STOP_ADVICE] = "stop-advice",
    [REPORT_PORTABILITY] = "portability",
    [REPORT_CONFIRMATIONS] = "confirmations",
    [REPORT_TOP_SAMPLES] = "top-samples",
};

static bool is_across(report_query q)
{
    return q == REPORT_INSTANCES || q == REPORT_SCALING || q == REPORT_FIXED_VS_TUNED ||
           q == REPORT_PORTABILITY;
}

void report_free(report_data *d)
{
    if (!d) return;
    for (size_t k = 0; k < REPORT_N_QUERIES; k++) query_table_free(&d->tables[k]);
    memset(d, 0, sizeof *d);
}

/* Debian's SQLite has them; a build without SQLITE_ENABLE_MATH_FUNCTIONS
 * would fail deep inside a query with a less helpful message. */
static int check_math_functions(sqlite3 *db, skytune_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT sqrt(4.0), ln(1.0), exp(0.0)", -1, &s, NULL);
    sqlite3_finalize(s);
    if (rc != SQLITE_OK)
        return err_set(err, "this SQLite (%s) lacks the math functions sqrt, ln and exp that the "
                       "report queries use; build SQLite with SQLITE_ENABLE_MATH_FUNCTIONS "
                       "(Debian's libsqlite3 has them)", sqlite3_libversion());
    return 0;
}

/* The scope must hold a campaign: a typo in --campaign or --plugin should
 * say so instead of giving an empty report. */
static int check_scope(const report_data *d, sqlite3 *db, skytune_error *err)
{
    if (d->tables[REPORT_CAMPAIGNS].n_rows > 0) return 0;
    const report_options *o = &d->options;
    if (o->campaign && o->plugin)
        return err_set(err, "campaign %s is not a campaign of plugin '%s'", o->campaign, o->plugin);
    if (o->campaign) return err_set(err, "there is no campaign %s (see skytune best)", o->campaign);
    if (!o->plugin) return err_set(err, "the database holds no campaigns yet");
    query_table names;
    skytune_error list_err = {0};
    if (query_run(db, "SELECT group_concat(name, ', ') FROM (SELECT DISTINCT p.name FROM campaigns c "
                      "JOIN plugins p ON p.id = c.plugin_id ORDER BY p.name)",
                  NULL, 0, &names, &list_err) != 0)
        return err_set(err, "there are no campaigns of plugin '%s'", o->plugin);
    const char *list = names.n_rows ? names.cells[0] : NULL;
    err_set(err, "there are no campaigns of plugin '%s'; the database has campaigns of: %s",
            o->plugin, list ? list : "(none)");
    query_table_free(&names);
    return -1;
}

/* The report's queries, costliest first (as measured by bench/bench_report
 * over 10^5 configurations), so that parallel workers finish together. */
static const report_query cost_order[REPORT_N_QUERIES] = {
    REPORT_BY_PARAM,     REPORT_INDEPENDENCE,   REPORT_INTERACTIONS,   REPORT_FIXED_VS_TUNED,
    REPORT_EVALUATIONS,  REPORT_IMPORTANCE,     REPORT_BEST_SO_FAR,    REPORT_SNR,
    REPORT_PORTABILITY,  REPORT_INSTANCES,      REPORT_SCALING,        REPORT_TOP_SAMPLES,
    REPORT_DISTRIBUTION, REPORT_ROOFLINE,       REPORT_STOP_ADVICE,    REPORT_FAILURES,
    REPORT_TOP,          REPORT_TIME_SPLIT,     REPORT_PARTS,          REPORT_REJECTIONS,
    REPORT_CONFIRMATIONS, REPORT_CAMPAIGNS,
};

#define MAX_WORKERS 4

/* Workers take the next query from a shared position until none is left;
 * each has its own read connection, as an SQLite connection runs one
 * statement at a time. */
typedef struct work_queue {
    pthread_mutex_t lock;
    size_t next;
    report_data *out;
    const char *const *params;
    /* The same scope with ?3 the places the runner-up verdict reads
     * (winner_verdict.h), not the top table's length. */
    const char *const *verdict_params;
    int failed;                 /* set once: the first failure's message is kept */
    skytune_error error;
} work_queue;

typedef struct worker {
    work_queue *queue;
    sqlite3 *db;
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    work_queue *q = w->queue;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t k = q->next < REPORT_N_QUERIES && !q->failed ? q->next++ : REPORT_N_QUERIES;
        pthread_mutex_unlock(&q->lock);
        if (k == REPORT_N_QUERIES) return NULL;
        report_query part = cost_order[k];
        if (part == REPORT_CAMPAIGNS) continue; /* loaded first, to check the scope */
        if (is_across(part) && !q->out->across) continue;
        skytune_error err = {0};
        query_table t;
        const char *const *params = part == REPORT_TOP_SAMPLES ? q->verdict_params : q->params;
        if (query_run_named(w->db, query_names_by_part[part], params, QUERY_N_PARAMS, &t,
                            &err) != 0) {
            pthread_mutex_lock(&q->lock);
            if (!q->failed) {
                q->failed = 1;
                q->error = err;
            }
            pthread_mutex_unlock(&q->lock);
            return NULL;
        }
        q->out->tables[part] = t; /* each part is written by one worker only */
    }
}

/* Extra read-only connections to the same file; none for an in-memory or
 * temporary database, whose contents another connection cannot see. Each
 * waits for a lock as long as the main connection (--busy-timeout). */
static size_t open_helpers(sqlite3 *db, sqlite3 **helpers, size_t wanted)
{
    const char *file = sqlite3_db_filename(db, "main");
    size_t n = 0;
    if (!file || !*file) return 0;
    double wait_s = db_busy_wait_s(db);
    while (n < wanted) {
        /* Read in place as the main connection does: a plain read-only
         * open would create -wal and -shm files beside the database. */
        char *uri = db_readonly_uri(file);
        sqlite3 *h = NULL;
        int opened = uri ? sqlite3_open_v2(uri, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
                                                        SQLITE_OPEN_URI, NULL)
                         : SQLITE_NOMEM;
        free(uri);
        if (opened != SQLITE_OK) {
            sqlite3_close(h);
            break;
        }
        db_busy_wait_set(h, wait_s);
        helpers[n++] = h;
    }
    return n;
}

/* Run every query, in parallel on up to MAX_WORKERS connections where the
 * machine has the cores: the costliest queries do not depend on each
 * other. */
static int run_queries(sqlite3 *db, report_data *out, const char *const *params,
                       const char *const *verdict_params, skytune_error *err)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t wanted = cores > 1 ? (size_t)(cores < MAX_WORKERS ? cores : MAX_WORKERS) - 1 : 0;
    sqlite3 *helpers[MAX_WORKERS];
    size_t n_helpers = open_helpers(db, helpers, wanted);
    work_queue q = {.next = 0, .out = out, .params = params, .verdict_params = verdict_params};
    if (pthread_mutex_init(&q.lock, NULL) != 0) {
        for (size_t k = 0; k < n_helpers; k++) sqlite3_close(helpers[k]);
        return err_set(err, "cannot create a lock for the report's workers");
    }
    worker workers[MAX_WORKERS];
    pthread_t threads[MAX_WORKERS];
    bool started[MAX_WORKERS] = {false};
    for (size_t k = 0; k < n_helpers; k++) {
        workers[k] = (worker){.queue = &q, .db = helpers[k]};
        started[k] = pthread_create(&threads[k], NULL, run_worker, &workers[k]) == 0;
    }
    worker self = {.queue = &q, .db = db};
    run_worker(&self);
    for (size_t k = 0; k < n_helpers; k++) {
        if (started[k]) pthread_join(threads[k], NULL);
        sqlite3_close(helpers[k]);
    }
    pthread_mutex_destroy(&q.lock);
    if (q.failed) {
        if (err) *err = q.error;
        return -1;
    }
    return 0;
}

int report_load(void *db, const report_options *options, report_data *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    out->options = *options;
    if (out->options.top == 0) out->options.top = 20;
    if (check_math_functions(db, err) != 0) return -1;
    char limit[32];
    snprintf(limit, sizeof limit, "%u", out->options.top);
    const char *params[QUERY_N_PARAMS] = {
        [QUERY_PARAM_CAMPAIGN] = options->campaign,
        [QUERY_PARAM_PLUGIN] = options->plugin,
        [QUERY_PARAM_LIMIT] = limit,
    };
    char places[16];
    snprintf(places, sizeof places, "%d", VERDICT_PLACES);
    const char *verdict_params[QUERY_N_PARAMS] = {
        [QUERY_PARAM_CAMPAIGN] = options->campaign,
        [QUERY_PARAM_PLUGIN] = options->plugin,
        [QUERY_PARAM_LIMIT] = places,
    };
    /* One campaign asked for: no comparison across campaigns. */
    out->across = options->campaign == NULL;
    for (size_t k = 0; k < REPORT_N_QUERIES; k++) {
        out->queries[k] = query_find(query_names_by_part[k]);
        if (!out->queries[k]) {
            report_free(out);
            return err_set(err, "report query '%s' is missing", query_names_by_part[k]);
        }
    }
    /* The campaigns first: an empty scope is an error, not an empty report. */
    if (query_run_named(db, query_names_by_part[REPORT_CAMPAIGNS], params, QUERY_N_PARAMS,
                        &out->tables[REPORT_CAMPAIGNS], err) != 0 ||
        check_scope(out, db, err) != 0) {
        report_free(out);
        return -1;
    }
    if (run_queries(db, out, params, verdict_params, err) != 0) {
        report_free(out);
        return -1;
    }
    return 0;
}

void report_campaign_rows(const query_table *t, long long campaign_id, size_t *first, size_t *end)
{
    size_t column = query_column(t, "campaign");
    size_t r = *first;
    if (column == t->n_cols) {
        *first = *end = r;
        return;
    }
    while (r < t->n_rows) {
        const char *cell = t->cells[r * t->n_cols + column];
        if (cell && strtoll(cell, NULL, 10) >= campaign_id) break;
        r++;
    }
    *first = r;
    while (r < t->n_rows) {
        const char *cell = t->cells[r * t->n_cols + column];
        if (!cell || strtoll(cell, NULL, 10) != campaign_id) break;
        r++;
    }
    *end = r;
}
