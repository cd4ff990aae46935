/* How long `skytune report` takes over a large database: 10^5 measured
 * configurations (two campaigns of one plugin on two problem instances, 60
 * and 40 thousand configurations, about one in ten failing) with 11 timed
 * runs each, about 10^6 samples. The database is built in a temporary
 * folder with the store API for its fixed rows and direct inserts in one
 * transaction for the bulk. Prints each report query's time and the whole
 * report's (query + HTML), the median of 3.
 *
 * usage: bench_report [CONFIGURATIONS]   (default 100000) */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "html_report.h"
#include "query.h"
#include "report.h"
#include "store.h"

#define SAMPLES 11


static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* xorshift64*: the benchmark's data only needs to look irregular. */
static double uniform(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * UINT64_C(2685821657736338717)) >> 11) / 9007199254740992.0;
}

static void die(const char *what, const char *message)
{
    fprintf(stderr, "bench_report: %s: %s\n", what, message);
    exit(1);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) die(sql, sqlite3_errmsg(db));
    return s;
}

static void step(sqlite3 *db, sqlite3_stmt *s)
{
    if (sqlite3_step(s) != SQLITE_DONE) die("insert", sqlite3_errmsg(db));
    sqlite3_reset(s);
}

static const char *const param_names[] = {"wg", "tile", "unroll", "layout"};

/* Configuration k: wg, tile and unroll take 10 values each, layout 100. */
static void config_values(long k, char values[4][16], char *text, size_t len)
{
    snprintf(values[0], 16, "%ld", 4L << (k % 10));
    snprintf(values[1], 16, "%ld", (k / 10) % 10 + 1);
    snprintf(values[2], 16, "%ld", (k / 100) % 10 + 1);
    snprintf(values[3], 16, "L%02ld", (k / 1000) % 100);
    snprintf(text, len, "wg=%s,tile=%s,unroll=%s,layout=%s", values[0], values[1], values[2],
             values[3]);
}

static void build(const char *path, long n_configs)
{
    store *st;
    skytune_error err = {0};
    if (store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, &err) != 0) die(path, err.message);
    skytune_device_info dev = {0};
    snprintf(dev.platform, sizeof dev.platform, "Bench Platform");
    snprintf(dev.name, sizeof dev.name, "Bench GPU");
    snprintf(dev.vendor, sizeof dev.vendor, "Bench");
    snprintf(dev.driver_version, sizeof dev.driver_version, "1");
    snprintf(dev.opencl_version, sizeof dev.opencl_version, "OpenCL 3.0");
    dev.is_gpu = 1;
    dev.compute_units = 100;
    int64_t device_id, plugin_id, problems[2], campaigns[2];
    if (store_device_id(st, &dev, &device_id, &err) != 0 ||
        store_plugin_id(st, "bench", "1.0", "hash",
                        &(store_param_names){.tuning = param_names, .n_tuning = 4}, &plugin_id,
                        &err) != 0 ||
        store_problem_id(st, plugin_id, "n=1000000", &problems[0], &err) != 0 ||
        store_problem_id(st, plugin_id, "n=4000000", &problems[1], &err) != 0)
        die(path, err.message);
    for (int c = 0; c < 2; c++) {
        store_campaign_spec spec = {.plugin_id = plugin_id, .device_id = device_id,
                                    .problem_id = problems[c], .strategy = "exhaustive",
                                    .settings = "runs=11", .seed = 1};
        bool resumed;
        if (store_campaign_open(st, &spec, &campaigns[c], &resumed, &err) != 0)
            die(path, err.message);
    }
    sqlite3 *db = store_handle(st);
    sqlite3_exec(db, "UPDATE devices SET peak_gflops = 20000, peak_gbs = 2000", NULL, NULL, NULL);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    sqlite3_stmt *ins_config = prepare(db, "INSERT INTO configurations (id, plugin_name, text, hash) "
                                           "VALUES (?1, 'bench', ?2, ?1)");
    sqlite3_stmt *ins_param = prepare(db, "INSERT INTO config_params VALUES (?1, ?2, ?3)");
    sqlite3_stmt *ins_measurement = prepare(
        db, "INSERT INTO measurements (device_id, plugin_id, problem_id, configuration_id,"
            " campaign_id, status, median_ns, min_ns, max_ns, mean_ns, stddev_ns, gflops, gbs,"
            " n_samples, build_s, verify_s, bench_s, overhead_s, message)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
            " ?18, ?19)");
    sqlite3_stmt *ins_sample = prepare(db, "INSERT INTO samples VALUES (?1, ?2, ?3)");
    sqlite3_stmt *ins_evaluation = prepare(db, "INSERT INTO evaluations VALUES (?1, ?2, ?3, 0)");
    uint64_t rng = UINT64_C(0x9E3779B97F4A7C15);
    long per_campaign[2] = {n_configs * 6 / 10, n_configs - n_configs * 6 / 10};
    long configs_made = 0;
    for (int c = 0; c < 2; c++) {
        long n = per_campaign[c];
        double work = c == 0 ? 1e9 : 4e9; /* FLOP per run */
        for (long seq = 0; seq < n; seq++) {
            /* Visit configurations in a scrambled order, as a strategy would. */
            long k = (long)(((unsigned long long)seq * 7919ULL) % (unsigned long long)n);
            char values[4][16], text[128];
            config_values(k, values, text, sizeof text);
            if (k >= configs_made) {
                sqlite3_bind_int64(ins_config, 1, k + 1);
                sqlite3_bind_text(ins_config, 2, text, -1, SQLITE_TRANSIENT);
                step(db, ins_config);
                for (int p = 0; p < 4; p++) {
                    sqlite3_bind_int64(ins_param, 1, k + 1);
                    sqlite3_bind_text(ins_param, 2, param_names[p], -1, SQLITE_STATIC);
                    sqlite3_bind_text(ins_param, 3, values[p], -1, SQLITE_TRANSIENT);
                    step(db, ins_param);
                }
            }
            const char *status = k % 17 == 0 ? "compile" : k % 29 == 0 ? "wrong_result" : "ok";
            bool ok = strcmp(status, "ok") == 0;
            double median = work / 2000.0 * (1.0 + (double)((k % 10) - 4) * ((k % 10) - 4) * 0.08) *
                            (1.0 + 0.3 * fabs((double)((k / 10) % 10) - 5.5) / 5.5) *
                            (1.0 + 0.2 * (double)((k / 100) % 10) / 9.0) *
                            (1.0 + 0.5 * uniform(&rng));
            sqlite3_bind_int64(ins_measurement, 1, device_id);
            sqlite3_bind_int64(ins_measurement, 2, plugin_id);
            sqlite3_bind_int64(ins_measurement, 3, problems[c]);
            sqlite3_bind_int64(ins_measurement, 4, k + 1);
            sqlite3_bind_int64(ins_measurement, 5, campaigns[c]);
            sqlite3_bind_text(ins_measurement, 6, status, -1, SQLITE_STATIC);
            for (int col = 7; col <= 13; col++) sqlite3_bind_null(ins_measurement, col);
            if (ok) {
                sqlite3_bind_double(ins_measurement, 7, median);
                sqlite3_bind_double(ins_measurement, 8, median * 0.97);
                sqlite3_bind_double(ins_measurement, 9, median * 1.05);
                sqlite3_bind_double(ins_measurement, 10, median * 1.01);
                sqlite3_bind_double(ins_measurement, 11, median * 0.02);
                sqlite3_bind_double(ins_measurement, 12, work / median);
                sqlite3_bind_double(ins_measurement, 13, work / median / (1.0 + (double)(k % 7)));
            }
            sqlite3_bind_int(ins_measurement, 14, ok ? SAMPLES : 0);
            sqlite3_bind_double(ins_measurement, 15, 0.2 + 0.1 * uniform(&rng));
            sqlite3_bind_double(ins_measurement, 16, 0.05);
            sqlite3_bind_double(ins_measurement, 17, ok ? 12 * median * 1e-9 : 0.0);
            sqlite3_bind_double(ins_measurement, 18, 0.002);
            if (ok)
                sqlite3_bind_null(ins_measurement, 19);
            else
                sqlite3_bind_text(ins_measurement, 19, "build log: error", -1, SQLITE_STATIC);
            step(db, ins_measurement);
            int64_t measurement_id = sqlite3_last_insert_rowid(db);
            for (int r = 0; ok && r < SAMPLES; r++) {
                sqlite3_bind_int64(ins_sample, 1, measurement_id);
                sqlite3_bind_int(ins_sample, 2, r);
                sqlite3_bind_double(ins_sample, 3, median * (0.97 + 0.08 * uniform(&rng)));
                step(db, ins_sample);
            }
            sqlite3_bind_int64(ins_evaluation, 1, campaigns[c]);
            sqlite3_bind_int64(ins_evaluation, 2, seq);
            sqlite3_bind_int64(ins_evaluation, 3, measurement_id);
            step(db, ins_evaluation);
        }
        if (n > configs_made) configs_made = n;
    }
    sqlite3_finalize(ins_config);
    sqlite3_finalize(ins_param);
    sqlite3_finalize(ins_measurement);
    sqlite3_finalize(ins_sample);
    sqlite3_finalize(ins_evaluation);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) die("commit", sqlite3_errmsg(db));
    for (int c = 0; c < 2; c++)
        if (store_campaign_close(st, campaigns[c], "done", &err) != 0) die(path, err.message);
    store_close(st);
}

int main(int argc, char **argv)
{
    long n_configs = argc > 1 ? atol(argv[1]) : 100000;
    if (n_configs < 10) die("CONFIGURATIONS", "give at least 10");
    char dir[] = "/tmp/skytune_bench_report_XXXXXX";
    if (!mkdtemp(dir)) die("mkdtemp", "cannot make a temporary folder");
    char path[128], html[128];
    snprintf(path, sizeof path, "%s/bench.db", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    double t0 = clock_monotonic_s();
    build(path, n_configs);
    double built = clock_monotonic_s() - t0;

    store *st;
    skytune_error err = {0};
    if (store_open(path, false, STORE_BUSY_TIMEOUT_S, &st, &err) != 0) die(path, err.message);
    void *db = store_handle(st);
    query_table t;
    long long samples = 0;
    if (query_run(db, "SELECT count(*) FROM samples", NULL, 0, &t, &err) == 0) {
        samples = atoll(t.cells[0]);
        query_table_free(&t);
    }
    printf("database: %ld configurations, %lld samples, built in %.2f s\n", n_configs, samples,
           built);
    const char *params[QUERY_N_PARAMS] = {NULL, NULL, "20"};
    for (size_t k = 0; k < query_count(); k++) {
        const query_def *q = query_at(k);
        if (strcmp(q->name, "t4") == 0) params[QUERY_PARAM_CAMPAIGN] = "1";
        double start = clock_monotonic_s();
        if (query_run(db, q->sql, params, QUERY_N_PARAMS, &t, &err) != 0) die(q->name, err.message);
        printf("  query %-18s %8.3f s  %6zu rows\n", q->name, clock_monotonic_s() - start, t.n_rows);
        query_table_free(&t);
        params[QUERY_PARAM_CAMPAIGN] = NULL;
    }
    double runs[3];
    for (int r = 0; r < 3; r++) {
        double start = clock_monotonic_s();
        report_options opts = {.source = path};
        report_data data;
        if (report_load(db, &opts, &data, &err) != 0) die("report", err.message);
        if (html_report_save(&data, html, &err) != 0) die("report", err.message);
        report_free(&data);
        runs[r] = clock_monotonic_s() - start;
    }
    store_close(st);
    qsort(runs, 3, sizeof runs[0], compare_doubles);
    FILE *f = fopen(html, "rb");
    long size = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fclose(f);
    }
    printf("report (queries + HTML, %ld bytes): median %.3f s of 3 (%.3f, %.3f, %.3f)\n", size,
           runs[1], runs[0], runs[1], runs[2]);
    unlink(html);
    unlink(path);
    char side[160];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    rmdir(dir);
    return 0;
}
