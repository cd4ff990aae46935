/* The result store against real SQLite files in a fresh temporary folder. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measurement.h"
#include "store.h"
#include "store_invocations.h"

static char tmp_dir[64];

static void make_tmp_dir(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/skytune_test_store_XXXXXX");
    cr_assert_not_null(mkdtemp(tmp_dir));
}

static void remove_tmp_dir(void)
{
    DIR *d = opendir(tmp_dir);
    if (!d) return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(tmp_dir);
}

TestSuite(store, .init = make_tmp_dir, .fini = remove_tmp_dir);

static const char *tmp_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    return path;
}

static bool file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* ------------------------------------------------------------ fixtures */

static skytune_device_info test_device(void)
{
    skytune_device_info d = { 0 };
    snprintf(d.platform, sizeof d.platform, "Test Platform");
    snprintf(d.name, sizeof d.name, "Test GPU 9000");
    snprintf(d.vendor, sizeof d.vendor, "Test Vendor");
    snprintf(d.driver_version, sizeof d.driver_version, "535.1");
    snprintf(d.opencl_version, sizeof d.opencl_version, "OpenCL 3.0");
    d.is_gpu = 1;
    d.compute_units = 132;
    d.max_clock_mhz = 1980;
    d.global_mem_size = INT64_C(85899345920);
    d.local_mem_size = 49152;
    d.max_constant_size = 65536;
    d.max_mem_alloc_size = INT64_C(21474836480);
    d.max_work_group_size = 1024;
    d.max_work_item_sizes[0] = 1024;
    d.max_work_item_sizes[1] = 1024;
    d.max_work_item_sizes[2] = 64;
    return d;
}

static const char *const param_names[] = { "wg", "mode", "scale" };
static const char *const problem_names[] = { "n" };
static const store_param_names vadd_params = { .tuning = param_names, .n_tuning = 3,
                                               .problem = problem_names, .n_problem = 1 };

/* An open store with one device, plugin, problem and campaign. */
typedef struct fixture {
    store *st;
    sqlite3 *db;
    int64_t device_id, plugin_id, problem_id, campaign_id;
} fixture;

static store_campaign_spec test_spec(const fixture *f, uint64_t seed)
{
    return (store_campaign_spec){
        .plugin_id = f->plugin_id,
        .device_id = f->device_id,
        .problem_id = f->problem_id,
        .strategy = "random",
        .settings = "budget=200,runs=10",
        .seed = seed,
        .command = "skytune run --plugin vadd",
        .host = "testhost",
        .replayed = false,
    };
}

static fixture open_fixture(const char *name)
{
    fixture f = { 0 };
    skytune_error err = { 0 };
    cr_assert_eq(store_open(tmp_path(name), true, STORE_BUSY_TIMEOUT_S, &f.st, &err),
                 0, "%s", err.message);
    f.db = store_handle(f.st);
    skytune_device_info dev = test_device();
    cr_assert_eq(store_device_id(f.st, &dev, &f.device_id, &err), 0, "%s", err.message);
    cr_assert_eq(store_plugin_id(f.st, "vadd", "1.0", "abc123", &vadd_params, &f.plugin_id, &err),
                 0, "%s", err.message);
    cr_assert_eq(store_problem_id(f.st, f.plugin_id, "n=1024", &f.problem_id, &err), 0, "%s",
                 err.message);
    store_campaign_spec spec = test_spec(&f, 42);
    bool resumed = true;
    cr_assert_eq(store_campaign_open(f.st, &spec, &f.campaign_id, &resumed, &err), 0, "%s",
                 err.message);
    cr_assert_not(resumed);
    return f;
}

/* A configuration "wg=W,mode=M,scale=S". */
typedef struct test_config {
    char text[64];
    char wg[16];
    const char *mode;
    const char *scale;
    const char *values[3];
} test_config;

static test_config make_config(int wg, const char *mode, const char *scale)
{
    test_config c;
    snprintf(c.wg, sizeof c.wg, "%d", wg);
    c.mode = mode;
    c.scale = scale;
    snprintf(c.text, sizeof c.text, "wg=%d,mode=%s,scale=%s", wg, mode, scale);
    return c;
}

static int record(fixture *f, int64_t campaign_id, int64_t seq, test_config *c,
                  const measurement *m, int64_t *id, skytune_error *err)
{
    c->values[0] = c->wg;
    c->values[1] = c->mode;
    c->values[2] = c->scale;
    return store_record_measurement(f->st, campaign_id, seq, c->text, UINT64_C(0xF00DFACE00000001),
                                    param_names, c->values, 3, m, id, err);
}

static void ok_measurement(measurement *m, double base)
{
    measurement_init(m);
    double samples[10];
    for (int k = 0; k < 10; k++) samples[k] = base + 10.0 * k + 0.25;
    cr_assert_eq(measurement_set_samples(m, samples, 10), 0);
    m->gflops = 123.5;
    m->gbs = 456.25;
    m->n_parts = 2;
    snprintf(m->parts[0].label, sizeof m->parts[0].label, "fir");
    m->parts[0].median_ns = base * 0.25;
    snprintf(m->parts[1].label, sizeof m->parts[1].label, "fft");
    m->parts[1].median_ns = base * 0.75;
    m->build_s = 0.5;
    m->verify_s = 0.125;
    m->bench_s = 0.0625;
    m->overhead_s = 0.001;
    m->max_abs_error = 1e-6;
    m->max_rel_error = 2e-7;
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

static char *query_text(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    const unsigned char *t = sqlite3_column_text(s, 0);
    char *copy = strdup(t ? (const char *)t : "(null)");
    sqlite3_finalize(s);
    return copy;
}

/* Counts of every table a record writes, to see that a refusal wrote nothing. */
static void table_counts(sqlite3 *db, int64_t counts[6])
{
    static const char *const sql[6] = {
        "SELECT count(*) FROM configurations", "SELECT count(*) FROM config_params",
        "SELECT count(*) FROM measurements",   "SELECT count(*) FROM samples",
        "SELECT count(*) FROM measurement_parts", "SELECT count(*) FROM evaluations",
    };
    for (int k = 0; k < 6; k++) counts[k] = query_int(db, sql[k]);
}

/* ------------------------------------------------------------ round trip */

typedef struct known_list {
    size_t count;
    store_known items[16];
    char texts[16][64];
} known_list;

static int collect_known(void *ctx, const store_known *k)
{
    known_list *list = ctx;
    cr_assert_lt(list->count, 16);
    list->items[list->count] = *k;
    snprintf(list->texts[list->count], sizeof list->texts[0], "%s", k->config_text);
    list->items[list->count].config_text = list->texts[list->count];
    list->count++;
    return 0;
}

Test(store, round_trip_ok_measurement_through_sql_and_known)
{
    fixture f = open_fixture("rt.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 1000.0);
    test_config c = make_config(64, "tiled", "1.5");
    int64_t id = 0;
    cr_assert_eq(record(&f, f.campaign_id, 0, &c, &m, &id, &err), 0, "%s", err.message);
    cr_assert_gt(id, 0);

    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(
                     f.db,
                     "SELECT device_id, plugin_id, problem_id, campaign_id, status, median_ns,"
                     " min_ns, max_ns, mean_ns, stddev_ns, gflops, gbs, n_samples, build_s,"
                     " verify_s, bench_s, overhead_s, max_abs_error, max_rel_error,"
                     " first_mismatch, message, replayed, measured_at, configuration_id"
                     " FROM measurements WHERE id = ?1",
                     -1, &s, NULL),
                 SQLITE_OK);
    sqlite3_bind_int64(s, 1, id);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    cr_expect_eq(sqlite3_column_int64(s, 0), f.device_id);
    cr_expect_eq(sqlite3_column_int64(s, 1), f.plugin_id);
    cr_expect_eq(sqlite3_column_int64(s, 2), f.problem_id);
    cr_expect_eq(sqlite3_column_int64(s, 3), f.campaign_id);
    cr_expect_str_eq((const char *)sqlite3_column_text(s, 4), "ok");
    cr_expect_eq(sqlite3_column_double(s, 5), m.median_ns);
    cr_expect_eq(sqlite3_column_double(s, 6), m.min_ns);
    cr_expect_eq(sqlite3_column_double(s, 7), m.max_ns);
    cr_expect_eq(sqlite3_column_double(s, 8), m.mean_ns);
    cr_expect_eq(sqlite3_column_double(s, 9), m.stddev_ns);
    cr_expect_eq(sqlite3_column_double(s, 10), 123.5);
    cr_expect_eq(sqlite3_column_double(s, 11), 456.25);
    cr_expect_eq(sqlite3_column_int64(s, 12), 10);
    cr_expect_eq(sqlite3_column_double(s, 13), 0.5);
    cr_expect_eq(sqlite3_column_double(s, 14), 0.125);
    cr_expect_eq(sqlite3_column_double(s, 15), 0.0625);
    cr_expect_eq(sqlite3_column_double(s, 16), 0.001);
    cr_expect_eq(sqlite3_column_double(s, 17), 1e-6);
    cr_expect_eq(sqlite3_column_double(s, 18), 2e-7);
    cr_expect_eq(sqlite3_column_type(s, 19), SQLITE_NULL, "first_mismatch -1 is stored as NULL");
    cr_expect_eq(sqlite3_column_type(s, 20), SQLITE_NULL);
    cr_expect_eq(sqlite3_column_int64(s, 21), 0);
    cr_expect_eq(strlen((const char *)sqlite3_column_text(s, 22)), strlen("2024-01-01T00:00:00Z"));
    int64_t config_id = sqlite3_column_int64(s, 23);
    sqlite3_finalize(s);

    /* Every sample, in run order, bit for bit. */
    cr_assert_eq(sqlite3_prepare_v2(f.db,
                                    "SELECT run, time_ns FROM samples WHERE measurement_id = ?1"
                                    " ORDER BY run",
                                    -1, &s, NULL),
                 SQLITE_OK);
    sqlite3_bind_int64(s, 1, id);
    size_t n = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        cr_assert_lt(n, m.n_samples);
        cr_expect_eq(sqlite3_column_int64(s, 0), (int64_t)n);
        cr_expect_eq(sqlite3_column_double(s, 1), m.samples_ns[n]);
        n++;
    }
    sqlite3_finalize(s);
    cr_expect_eq(n, 10);

    cr_assert_eq(sqlite3_prepare_v2(f.db,
                                    "SELECT part, label, median_ns FROM measurement_parts"
                                    " WHERE measurement_id = ?1 ORDER BY part",
                                    -1, &s, NULL),
                 SQLITE_OK);
    sqlite3_bind_int64(s, 1, id);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    cr_expect_str_eq((const char *)sqlite3_column_text(s, 1), "fir");
    cr_expect_eq(sqlite3_column_double(s, 2), 250.0);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    cr_expect_str_eq((const char *)sqlite3_column_text(s, 1), "fft");
    cr_expect_eq(sqlite3_column_double(s, 2), 750.0);
    cr_expect_eq(sqlite3_step(s), SQLITE_DONE);
    sqlite3_finalize(s);

    /* The configuration, its hash's bits and its parameters as text. */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT text FROM configurations WHERE id = %lld",
             (long long)config_id);
    char *text = query_text(f.db, sql);
    cr_expect_str_eq(text, "wg=64,mode=tiled,scale=1.5");
    free(text);
    snprintf(sql, sizeof sql, "SELECT hash FROM configurations WHERE id = %lld",
             (long long)config_id);
    cr_expect_eq((uint64_t)query_int(f.db, sql), UINT64_C(0xF00DFACE00000001));
    snprintf(sql, sizeof sql,
             "SELECT group_concat(name || '=' || value, ',') FROM (SELECT name, value FROM"
             " config_params WHERE configuration_id = %lld ORDER BY name)",
             (long long)config_id);
    text = query_text(f.db, sql);
    cr_expect_str_eq(text, "mode=tiled,scale=1.5,wg=64");
    free(text);

    cr_expect_eq(query_int(f.db, "SELECT seq FROM evaluations"), 0);
    cr_expect_eq(query_int(f.db, "SELECT cached FROM evaluations"), 0);

    known_list list = { 0 };
    cr_assert_eq(store_known_measurements(f.st, f.campaign_id, collect_known, &list, &err), 0,
                 "%s", err.message);
    cr_assert_eq(list.count, 1);
    cr_expect_eq(list.items[0].measurement_id, id);
    cr_expect_str_eq(list.items[0].config_text, c.text);
    cr_expect_eq(list.items[0].status, MEAS_OK);
    cr_expect_eq(list.items[0].median_ns, m.median_ns);
    cr_expect_eq(list.items[0].gflops, 123.5);
    cr_expect_eq(list.items[0].gbs, 456.25);
    cr_expect(list.items[0].in_campaign);
    cr_expect_eq(list.items[0].seq, 0);

    measurement_clear(&m);
    store_close(f.st);
}

Test(store, round_trip_failed_measurements_store_null_for_what_does_not_exist)
{
    fixture f = open_fixture("failed.db");
    skytune_error err = { 0 };

    measurement wrong;
    measurement_init(&wrong);
    wrong.status = MEAS_WRONG_RESULT;
    wrong.max_abs_error = 0.5;
    wrong.max_rel_error = INFINITY;
    wrong.first_mismatch = 17;
    wrong.build_s = 0.25;
    cr_assert_eq(measurement_set_message(&wrong, "element 17: got 1.5, want 1.0"), 0);
    test_config c1 = make_config(32, "naive", "1.0");
    int64_t id_wrong = 0;
    cr_assert_eq(record(&f, f.campaign_id, 0, &c1, &wrong, &id_wrong, &err), 0, "%s",
                 err.message);

    measurement compile;
    measurement_init(&compile);
    compile.status = MEAS_COMPILE;
    cr_assert_eq(measurement_set_message(&compile, "error: 'x' undeclared\nline 2"), 0);
    test_config c2 = make_config(2048, "naive", "1.0");
    int64_t id_compile = 0;
    cr_assert_eq(record(&f, f.campaign_id, 1, &c2, &compile, &id_compile, &err), 0, "%s",
                 err.message);

    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT status || '|' || ifnull(median_ns, 'NULL') || '|' || ifnull(gflops, 'NULL')"
             " || '|' || max_abs_error || '|' || max_rel_error || '|' || first_mismatch || '|'"
             " || message || '|' || n_samples || '|' || build_s FROM measurements WHERE id = %lld",
             (long long)id_wrong);
    char *row = query_text(f.db, sql);
    cr_expect_str_eq(row, "wrong_result|NULL|NULL|0.5|Inf|17|element 17: got 1.5, want 1.0|0|0.25");
    free(row);
    snprintf(sql, sizeof sql,
             "SELECT status || '|' || ifnull(median_ns, 'NULL') || '|' ||"
             " ifnull(max_abs_error, 'NULL') || '|' || ifnull(first_mismatch, 'NULL') || '|'"
             " || message FROM measurements WHERE id = %lld",
             (long long)id_compile);
    row = query_text(f.db, sql);
    cr_expect_str_eq(row, "compile|NULL|NULL|NULL|error: 'x' undeclared\nline 2");
    free(row);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM samples"), 0);

    known_list list = { 0 };
    cr_assert_eq(store_known_measurements(f.st, f.campaign_id, collect_known, &list, &err), 0,
                 "%s", err.message);
    cr_assert_eq(list.count, 2);
    cr_expect_eq(list.items[0].status, MEAS_WRONG_RESULT);
    cr_expect_eq(list.items[0].median_ns, 0.0);
    cr_expect_eq(list.items[1].status, MEAS_COMPILE);
    cr_expect_eq(list.items[1].seq, 1);

    measurement_clear(&wrong);
    measurement_clear(&compile);
    store_close(f.st);
}

Test(store, a_part_label_that_fills_its_array_is_stored_whole)
{
    fixture f = open_fixture("label.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 1000.0);
    m.n_parts = 1;
    memset(m.parts[0].label, 'k', sizeof m.parts[0].label); /* no terminating NUL */
    test_config c = make_config(64, "tiled", "1.5");
    cr_assert_eq(record(&f, f.campaign_id, 0, &c, &m, NULL, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT length(label) FROM measurement_parts"),
                 (int64_t)sizeof m.parts[0].label);
    measurement_clear(&m);
    store_close(f.st);
}

Test(store, data_survive_close_and_reopen_without_create)
{
    fixture f = open_fixture("reopen.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 500.0);
    test_config c = make_config(128, "tiled", "2.0");
    cr_assert_eq(record(&f, f.campaign_id, 0, &c, &m, NULL, &err), 0, "%s", err.message);
    store_close(f.st);
    /* A clean close checkpoints: everything is in the one file. */
    cr_expect_not(file_exists(tmp_path("reopen.db-wal")));
    cr_expect_not(file_exists(tmp_path("reopen.db-shm")));

    store *st = NULL;
    cr_assert_eq(store_open(tmp_path("reopen.db"), false, STORE_BUSY_TIMEOUT_S, &st, &err),
                 0, "%s", err.message);
    sqlite3 *db = store_handle(st);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM measurements"), 1);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM samples"), 10);
    cr_expect_eq(query_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    cr_expect_eq(query_int(db, "PRAGMA application_id"), STORE_APPLICATION_ID);
    measurement_clear(&m);
    store_close(st);
}

/* ------------------------------------------------------------ one per key */

Test(store, second_record_of_the_same_key_reuses_the_first)
{
    /* Another run recorded it meanwhile: the second result is not a second
     * row; the campaign's evaluation points at the first, marked cached. */
    fixture f = open_fixture("dup.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 800.0);
    test_config c = make_config(64, "tiled", "1.5");
    int64_t first = 0;
    cr_assert_eq(record(&f, f.campaign_id, 0, &c, &m, &first, &err), 0, "%s", err.message);
    measurement other;
    ok_measurement(&other, 500.0);
    int64_t second = -7;
    cr_assert_eq(record(&f, f.campaign_id, 1, &c, &other, &second, &err), 0, "%s", err.message);
    cr_expect_eq(second, first);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM measurements"), 1);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM samples"), 10, "no second set of samples");
    cr_expect_eq(query_int(f.db, "SELECT CAST(median_ns AS INTEGER) FROM measurements"), 845,
                 "the first result stands");
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM evaluations"), 1,
                 "the campaign holds that evaluation once");
    cr_expect(sqlite3_get_autocommit(f.db), "no transaction left open");
    measurement_clear(&m);
    measurement_clear(&other);
    store_close(f.st);
}

Test(store, retry_failed_replaces_a_failed_measurement_in_place)
{
    fixture f = open_fixture("retry.db");
    skytune_error err = { 0 };
    measurement crashed;
    measurement_init(&crashed);
    crashed.status = MEAS_CRASH;
    crashed.stage = STAGE_VERIFY;
    measurement_set_message(&crashed, "crash in stage verify");
    test_config c = make_config(64, "tiled", "1.5");
    int64_t first = 0;
    cr_assert_eq(record(&f, f.campaign_id, 0, &c, &crashed, &first, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM measurements WHERE stage = 'verify'"), 1);

    measurement good;
    ok_measurement(&good, 700.0);
    int64_t again = 0;
    /* Without --retry-failed the failure stands. */
    cr_assert_eq(record(&f, f.campaign_id, 1, &c, &good, &again, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM measurements WHERE status = 'crash'"), 1);
    store_set_retry_failed(f.st, true);
    cr_assert_eq(record(&f, f.campaign_id, 1, &c, &good, &again, &err), 0, "%s", err.message);
    cr_expect_eq(again, first, "the row keeps its id");
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM measurements"), 1);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM measurements WHERE status = 'ok' AND "
                                 "stage IS NULL AND message IS NULL"),
                 1);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM samples"), 10);
    /* An ok measurement is never replaced. */
    measurement later;
    ok_measurement(&later, 100.0);
    cr_assert_eq(record(&f, f.campaign_id, 2, &c, &later, NULL, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT CAST(median_ns AS INTEGER) FROM measurements"), 745);
    measurement_clear(&crashed);
    measurement_clear(&good);
    measurement_clear(&later);
    store_close(f.st);
}

Test(store, a_record_that_fails_late_rolls_everything_back)
{
    fixture f = open_fixture("atomic.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 800.0);
    test_config c1 = make_config(64, "tiled", "1.5");
    cr_assert_eq(record(&f, f.campaign_id, 0, &c1, &m, NULL, &err), 0, "%s", err.message);

    /* The evaluation, written after the configuration, measurement,
     * samples and parts, is refused: they must go with it. */
    cr_assert_eq(sqlite3_exec(f.db,
                              "CREATE TRIGGER refuse_evaluations BEFORE INSERT ON evaluations "
                              "BEGIN SELECT RAISE(ABORT, 'evaluations refused by the test'); END",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    int64_t before[6], after[6];
    table_counts(f.db, before);
    test_config c2 = make_config(256, "naive", "3.0");
    cr_assert_eq(record(&f, f.campaign_id, 1, &c2, &m, NULL, &err), -1);
    cr_expect(strstr(err.message, "evaluations refused by the test") != NULL, "%s", err.message);
    table_counts(f.db, after);
    for (int k = 0; k < 6; k++) cr_expect_eq(after[k], before[k], "table %d changed", k);

    /* And the store is usable afterwards. */
    cr_assert_eq(sqlite3_exec(f.db, "DROP TRIGGER refuse_evaluations", NULL, NULL, NULL),
                 SQLITE_OK);
    cr_assert_eq(record(&f, f.campaign_id, 1, &c2, &m, NULL, &err), 0, "%s", err.message);
    measurement_clear(&m);
    store_close(f.st);
}

Test(store, record_into_a_missing_campaign_is_refused)
{
    fixture f = open_fixture("nocampaign.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 800.0);
    test_config c = make_config(64, "tiled", "1.5");
    cr_assert_eq(record(&f, 999, 0, &c, &m, NULL, &err), -1);
    cr_expect(strstr(err.message, "no campaign 999") != NULL, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM configurations"), 0);
    measurement_clear(&m);
    store_close(f.st);
}

/* ------------------------------------------------------------ cached */

Test(store, record_cached_reuses_a_measurement_in_another_campaign)
{
    fixture f = open_fixture("cached.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 900.0);
    test_config a = make_config(64, "tiled", "1.5");
    test_config b = make_config(128, "tiled", "1.5");
    int64_t id_a = 0, id_b = 0;
    cr_assert_eq(record(&f, f.campaign_id, 0, &a, &m, &id_a, &err), 0, "%s", err.message);
    cr_assert_eq(record(&f, f.campaign_id, 1, &b, &m, &id_b, &err), 0, "%s", err.message);

    /* Another seed, same key: both measurements are known, none evaluated. */
    store_campaign_spec spec = test_spec(&f, 43);
    int64_t second = 0;
    bool resumed = true;
    cr_assert_eq(store_campaign_open(f.st, &spec, &second, &resumed, &err), 0, "%s", err.message);
    cr_assert_not(resumed);
    cr_assert_neq(second, f.campaign_id);
    known_list list = { 0 };
    cr_assert_eq(store_known_measurements(f.st, second, collect_known, &list, &err), 0, "%s",
                 err.message);
    cr_assert_eq(list.count, 2);
    cr_expect_eq(list.items[0].measurement_id, id_a);
    cr_expect_not(list.items[0].in_campaign);
    cr_expect_eq(list.items[1].measurement_id, id_b);
    cr_expect_not(list.items[1].in_campaign);

    /* The second campaign meets b first: b comes first from now on. */
    cr_assert_eq(store_record_cached(f.st, second, 0, id_b, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT cached FROM evaluations WHERE seq = 0 AND campaign_id = "
                                 "(SELECT max(id) FROM campaigns)"),
                 1);
    memset(&list, 0, sizeof list);
    cr_assert_eq(store_known_measurements(f.st, second, collect_known, &list, &err), 0, "%s",
                 err.message);
    cr_assert_eq(list.count, 2);
    cr_expect_eq(list.items[0].measurement_id, id_b);
    cr_expect(list.items[0].in_campaign);
    cr_expect_eq(list.items[0].seq, 0);
    cr_expect_eq(list.items[1].measurement_id, id_a);
    cr_expect_not(list.items[1].in_campaign);

    /* Twice the same measurement adds nothing (a run sharing the campaign
     * got there first); a seq another run used moves to the end. */
    cr_expect_eq(store_record_cached(f.st, second, 1, id_b, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM evaluations"), 3);
    cr_expect_eq(store_record_cached(f.st, second, 0, id_a, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM evaluations"), 4);
    cr_expect_eq(query_int(f.db, "SELECT seq FROM evaluations WHERE campaign_id = "
                                 "(SELECT max(id) FROM campaigns) AND measurement_id = "
                                 "(SELECT min(id) FROM measurements)"),
                 1);
    /* A measurement that does not exist. */
    cr_expect_eq(store_record_cached(f.st, second, 5, 12345, &err), -1);
    cr_expect(strstr(err.message, "not under the campaign's") != NULL, "%s", err.message);

    measurement_clear(&m);
    store_close(f.st);
}

Test(store, record_cached_refuses_a_measurement_of_another_problem)
{
    fixture f = open_fixture("cachedkey.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 900.0);
    test_config a = make_config(64, "tiled", "1.5");
    int64_t id_a = 0;
    cr_assert_eq(record(&f, f.campaign_id, 0, &a, &m, &id_a, &err), 0, "%s", err.message);

    int64_t other_problem = 0;
    cr_assert_eq(store_problem_id(f.st, f.plugin_id, "n=2048", &other_problem, &err), 0);
    store_campaign_spec spec = test_spec(&f, 42);
    spec.problem_id = other_problem;
    int64_t other = 0;
    bool resumed = true;
    cr_assert_eq(store_campaign_open(f.st, &spec, &other, &resumed, &err), 0, "%s", err.message);
    cr_assert_not(resumed);
    cr_expect_eq(store_record_cached(f.st, other, 0, id_a, &err), -1);
    cr_expect(strstr(err.message, "not under the campaign's device, plugin build and problem") !=
                  NULL,
              "%s", err.message);
    known_list list = { 0 };
    cr_assert_eq(store_known_measurements(f.st, other, collect_known, &list, &err), 0, "%s",
                 err.message);
    cr_expect_eq(list.count, 0, "another problem's measurements are not known to it");

    /* The configuration row is shared; its measurement is not. */
    int64_t id_other = 0;
    cr_assert_eq(record(&f, other, 0, &a, &m, &id_other, &err), 0, "%s", err.message);
    cr_expect_neq(id_other, id_a);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM configurations"), 1);
    measurement_clear(&m);
    store_close(f.st);
}

/* ------------------------------------------------------------ campaigns */

Test(store, campaign_find_or_create)
{
    fixture f = open_fixture("campaign.db");
    skytune_error err = { 0 };
    store_campaign_spec spec = test_spec(&f, 42);
    int64_t id = 0;
    bool resumed = false;
    cr_assert_eq(store_campaign_open(f.st, &spec, &id, &resumed, &err), 0, "%s", err.message);
    cr_expect(resumed);
    cr_expect_eq(id, f.campaign_id);

    cr_assert_eq(store_campaign_close(f.st, id, "interrupted", &err), 0, "%s", err.message);
    char *status = query_text(f.db, "SELECT status || ',' || (ended_at IS NOT NULL) FROM campaigns");
    cr_expect_str_eq(status, "interrupted,1");
    free(status);
    cr_assert_eq(store_campaign_open(f.st, &spec, &id, &resumed, &err), 0, "%s", err.message);
    cr_expect(resumed);
    status = query_text(f.db, "SELECT status || ',' || (ended_at IS NULL) FROM campaigns");
    cr_expect_str_eq(status, "running,1");
    free(status);

    /* Any of the six key fields differing makes a new campaign. */
    spec.settings = "budget=300,runs=10";
    int64_t other = 0;
    cr_assert_eq(store_campaign_open(f.st, &spec, &other, &resumed, &err), 0, "%s", err.message);
    cr_expect_not(resumed);
    cr_expect_neq(other, id);

    /* A seed above INT64_MAX keeps its bits and is found again. */
    store_campaign_spec big = test_spec(&f, UINT64_C(0xFEDCBA9876543210));
    int64_t big_id = 0;
    cr_assert_eq(store_campaign_open(f.st, &big, &big_id, &resumed, &err), 0, "%s", err.message);
    cr_expect_not(resumed);
    int64_t again = 0;
    cr_assert_eq(store_campaign_open(f.st, &big, &again, &resumed, &err), 0, "%s", err.message);
    cr_expect(resumed);
    cr_expect_eq(again, big_id);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT seed FROM campaigns WHERE id = %lld", (long long)big_id);
    cr_expect_eq((uint64_t)query_int(f.db, sql), UINT64_C(0xFEDCBA9876543210));

    cr_assert_eq(store_campaign_close(f.st, big_id, "done", &err), 0, "%s", err.message);
    cr_expect_eq(store_campaign_close(f.st, big_id, "finished", &err), -1);
    cr_expect(strstr(err.message, "done, interrupted or failed") != NULL, "%s", err.message);
    cr_expect_eq(store_campaign_close(f.st, 777, "done", &err), -1);
    cr_expect(strstr(err.message, "no such campaign") != NULL, "%s", err.message);
    store_close(f.st);
}

/* Each invocation is a row with its limits; the next one learns what the
 * campaign holds and what the previous one asked for and how it ended. */
Test(store, invocations_record_each_run_and_tell_the_next_what_came_before)
{
    fixture f = open_fixture("invocations.db");
    skytune_error err = { 0 };
    store_invocation_spec first = {.campaign_id = f.campaign_id, .command = "skytune run a",
                                   .host = "node1", .budget = 60, .time_limit_s = 0,
                                   .target = NULL};
    int64_t id1 = 0;
    store_invocation_before before;
    cr_assert_eq(store_invocation_begin(f.st, &first, &id1, &before, &err), 0, "%s", err.message);
    cr_expect_eq(before.evaluations, 0);
    cr_expect_not(before.had_previous);
    measurement m;
    ok_measurement(&m, 1000);
    for (int k = 0; k < 2; k++) {
        test_config c = make_config(32 << k, "tiled", "1.5");
        int64_t id;
        cr_assert_eq(record(&f, f.campaign_id, k, &c, &m, &id, &err), 0, "%s", err.message);
    }
    measurement_clear(&m);
    cr_assert_eq(store_invocation_end(f.st, id1, "budget", &err), 0, "%s", err.message);

    store_invocation_spec second = {.campaign_id = f.campaign_id, .command = "skytune run b",
                                    .host = "node1", .budget = 0, .time_limit_s = 3600,
                                    .target = "150 GFLOP/s"};
    int64_t id2 = 0;
    cr_assert_eq(store_invocation_begin(f.st, &second, &id2, &before, &err), 0, "%s", err.message);
    cr_expect_neq(id2, id1);
    cr_expect_eq(before.evaluations, 2);
    cr_expect(before.had_previous);
    cr_expect_eq(before.previous_budget, 60);
    cr_expect_str_eq(before.previous_ended, "budget");
    char *rows = query_text(f.db, "SELECT group_concat(line, ' | ') FROM (SELECT command || ','"
                                  " || COALESCE(budget, '-') || ',' || COALESCE(time_limit_s, '-')"
                                  " || ',' || COALESCE(target, '-') || ',' || evaluations_before"
                                  " || ',' || COALESCE(evaluations_after, '-') || ','"
                                  " || COALESCE(ended, '-') || ',' || (ended_at IS NULL) AS line"
                                  " FROM invocations ORDER BY id)");
    cr_expect_str_eq(rows, "skytune run a,60,-,-,0,2,budget,0 | "
                           "skytune run b,-,3600.0,150 GFLOP/s,2,-,-,1");
    free(rows);
    /* A third sees the second as not ended (a kill leaves it so). */
    int64_t id3 = 0;
    cr_assert_eq(store_invocation_begin(f.st, &first, &id3, &before, &err), 0, "%s", err.message);
    cr_expect(before.had_previous);
    cr_expect_eq(before.previous_budget, 0);
    cr_expect_str_eq(before.previous_ended, "");
    cr_expect_eq(store_invocation_end(f.st, id3, "finished", &err), -1, "a key the column refuses");
    cr_expect_eq(store_invocation_end(f.st, 999, "budget", &err), -1);
    cr_expect(strstr(err.message, "no invocation 999"), "%s", err.message);
    store_close(f.st);
}

Test(store, identities_are_found_again)
{
    fixture f = open_fixture("ids.db");
    skytune_error err = { 0 };
    skytune_device_info dev = test_device();
    int64_t id = 0;
    cr_assert_eq(store_device_id(f.st, &dev, &id, &err), 0, "%s", err.message);
    cr_expect_eq(id, f.device_id);
    snprintf(dev.driver_version, sizeof dev.driver_version, "545.0");
    cr_assert_eq(store_device_id(f.st, &dev, &id, &err), 0, "%s", err.message);
    cr_expect_neq(id, f.device_id, "a new driver is a new device");
    cr_expect_eq(query_int(f.db, "SELECT max_work_item_size_2 FROM devices WHERE id = 1"), 64);

    cr_assert_eq(store_plugin_id(f.st, "vadd", "1.0", "abc123", &vadd_params, &id, &err), 0);
    cr_expect_eq(id, f.plugin_id);
    cr_assert_eq(store_plugin_id(f.st, "vadd", "1.0", "def456", &vadd_params, &id, &err), 0);
    cr_expect_neq(id, f.plugin_id, "another kernel source is another build");
    cr_assert_eq(store_problem_id(f.st, f.plugin_id, "n=1024", &id, &err), 0);
    cr_expect_eq(id, f.problem_id);
    store_close(f.st);
}

Test(store, a_second_handle_sees_each_committed_record)
{
    /* A report or the sqlite3 shell reading while a campaign writes. */
    fixture f = open_fixture("two.db");
    skytune_error err = { 0 };
    store *reader = NULL;
    cr_assert_eq(store_open(tmp_path("two.db"), false, STORE_BUSY_TIMEOUT_S, &reader, &err),
                 0, "%s", err.message);
    measurement m;
    ok_measurement(&m, 300.0);
    for (int k = 0; k < 3; k++) {
        test_config c = make_config(8 << k, "tiled", "1.0");
        cr_assert_eq(record(&f, f.campaign_id, k, &c, &m, NULL, &err), 0, "%s", err.message);
        known_list list = { 0 };
        cr_assert_eq(store_known_measurements(reader, f.campaign_id, collect_known, &list, &err),
                     0, "%s", err.message);
        cr_expect_eq(list.count, (size_t)k + 1);
    }
    measurement_clear(&m);
    store_close(reader);
    store_close(f.st);
}

/* ------------------------------------------------------------ refusing */

static unsigned char *read_bytes(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "%s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)n + 1);
    cr_assert_not_null(data);
    cr_assert_eq(fread(data, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *size = (size_t)n;
    return data;
}

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    cr_assert_eq(fwrite(data, 1, size, fp), size);
    fclose(fp);
}

/* store_open must fail with a message holding `expected` and leave the
 * file's bytes exactly as they were, for both create_if_missing values; a
 * WAL file beside it too, and it must not leave -wal or -shm files behind
 * where there were none. */
static void expect_refused(const char *path, const char *expected)
{
    char wal[300], shm[300];
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    bool had_wal = file_exists(wal), had_shm = file_exists(shm);
    size_t size_before = 0, size_after = 0, wal_size_before = 0, wal_size_after = 0;
    unsigned char *before = read_bytes(path, &size_before);
    unsigned char *wal_before = had_wal ? read_bytes(wal, &wal_size_before) : NULL;
    for (int create = 0; create < 2; create++) {
        store *st = (store *)0x1;
        skytune_error err = { 0 };
        cr_expect_eq(store_open(path, create, STORE_BUSY_TIMEOUT_S, &st, &err), -1, "%s", path);
        cr_expect_null(st);
        cr_expect(strstr(err.message, expected) != NULL, "message '%s' lacks '%s'", err.message,
                  expected);
    }
    unsigned char *after = read_bytes(path, &size_after);
    cr_expect_eq(size_after, size_before);
    cr_expect(size_after == size_before && memcmp(before, after, size_before) == 0,
              "%s was modified", path);
    cr_expect_eq(file_exists(wal), had_wal, "-wal appeared or vanished");
    cr_expect_eq(file_exists(shm), had_shm, "-shm appeared or vanished");
    if (had_wal && file_exists(wal)) {
        unsigned char *wal_after = read_bytes(wal, &wal_size_after);
        cr_expect(wal_size_after == wal_size_before &&
                      memcmp(wal_before, wal_after, wal_size_before) == 0,
                  "%s was modified", wal);
        free(wal_after);
    }
    free(before);
    free(after);
    free(wal_before);
}

Test(store, refuses_a_text_file)
{
    const char *path = tmp_path("notes.txt");
    const char *text = "These are my notes about the LOFAR run, not a database.\n"
                       "They are long enough to fill more than a SQLite header would need, "
                       "so the check cannot pass by accident. 0123456789abcdef0123456789\n";
    write_bytes(path, text, strlen(text));
    char expected[300];
    snprintf(expected, sizeof expected, "%s is not a SQLite database", path);
    expect_refused(path, expected);
}

Test(store, refuses_random_bytes)
{
    const char *path = tmp_path("random.bin");
    unsigned char data[8192];
    uint32_t x = 2463534242u;
    for (size_t k = 0; k < sizeof data; k++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data[k] = (unsigned char)x;
    }
    write_bytes(path, data, sizeof data);
    char expected[300];
    snprintf(expected, sizeof expected, "%s is not a SQLite database", path);
    expect_refused(path, expected);
}

static void make_sqlite_file(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    sqlite3_close(db);
}

Test(store, refuses_a_database_of_another_application)
{
    const char *path = tmp_path("other.db");
    make_sqlite_file(path, "PRAGMA application_id = 1179796812;" /* 0x4652454C */
                           "CREATE TABLE patients (id INTEGER PRIMARY KEY, name TEXT);"
                           "INSERT INTO patients (name) VALUES ('Ada');");
    char expected[512];
    snprintf(expected, sizeof expected,
             "%s is a SQLite database of another application (application_id 0x4652454C), "
             "not a skytune result database",
             path);
    expect_refused(path, expected);
}

Test(store, refuses_a_database_with_tables_and_no_application_id)
{
    const char *path = tmp_path("plain.db");
    make_sqlite_file(path, "CREATE TABLE t (x); INSERT INTO t VALUES (1);");
    expect_refused(path, "application_id 0x00000000");
}

Test(store, refuses_a_wal_database_of_another_application_without_checkpointing_it)
{
    /* Another application's WAL database whose last commit is still only in
     * its -wal file: closing the refused file must not fold it in. */
    const char *path = tmp_path("other_wal.db");
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db,
                              "PRAGMA journal_mode = WAL; PRAGMA application_id = 7;"
                              "CREATE TABLE t (x); PRAGMA wal_checkpoint(TRUNCATE);",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA wal_autocheckpoint = 0; INSERT INTO t VALUES (1);",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(db);
    cr_assert_eq(access(tmp_path("other_wal.db-wal"), F_OK), 0, "the WAL should remain");
    path = tmp_path("other_wal.db");
    expect_refused(path, "application_id 0x00000007");
}

Test(store, refuses_a_schema_version_no_migration_leads_from)
{
    const char *path = tmp_path("old.db");
    store *st = NULL;
    skytune_error err = { 0 };
    cr_assert_eq(store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    store_close(st);
    make_sqlite_file(path, "PRAGMA user_version = 0;");
    char expected[128];
    snprintf(expected, sizeof expected, "no migration leads from schema version 0 to %d",
             STORE_SCHEMA_VERSION);
    expect_refused(path, expected);
}

Test(store, refuses_a_newer_schema)
{
    const char *path = tmp_path("newer.db");
    store *st = NULL;
    skytune_error err = { 0 };
    cr_assert_eq(store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    store_close(st);
    make_sqlite_file(path, "PRAGMA user_version = 99;");
    /* Give the bytes their final form: fold the WAL into the file. */
    make_sqlite_file(path, "PRAGMA wal_checkpoint(TRUNCATE);");
    char expected[512];
    snprintf(expected, sizeof expected,
             "%s has schema version 99, newer than this skytune (%d): upgrade skytune", path,
             STORE_SCHEMA_VERSION);
    expect_refused(path, expected);
}

Test(store, refuses_a_missing_file_without_create)
{
    const char *path = tmp_path("missing.db");
    store *st = NULL;
    skytune_error err = { 0 };
    cr_expect_eq(store_open(path, false, STORE_BUSY_TIMEOUT_S, &st, &err), -1);
    cr_expect_null(st);
    char expected[300];
    snprintf(expected, sizeof expected, "%s does not exist", path);
    cr_expect_str_eq(err.message, expected);
    cr_expect_neq(access(path, F_OK), 0, "the file must not be created");
}

/* A connection waits for a lock as long as it is asked to (--busy-timeout),
 * a reading one too; by default a minute or more. */
Test(store, waits_for_a_lock_as_long_as_asked)
{
    cr_expect_geq(STORE_BUSY_TIMEOUT_S, 60);
    const char *path = tmp_path("wait.db");
    store *st = NULL;
    skytune_error err = { 0 };
    cr_assert_eq(store_open(path, true, 1.5, &st, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(store_handle(st), "PRAGMA busy_timeout"), 1500);
    cr_expect_eq(store_busy_timeout_s(st), 1.5);
    store_close(st);
    cr_assert_eq(store_open_for_reading(path, 0.25, &st, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(store_handle(st), "PRAGMA busy_timeout"), 250);
    store_close(st);
}

/* When the wait runs out, the message says so in words: the database is
 * locked, for how long it waited and the option that sets the wait (the
 * holder here is this process, which names no one). */
Test(store, a_wait_that_runs_out_says_the_database_is_locked)
{
    fixture f = open_fixture("locked.db");
    store *other = NULL;
    skytune_error err = { 0 };
    cr_assert_eq(store_open(tmp_path("locked.db"), false, 0.2, &other, &err), 0, "%s",
                 err.message);
    cr_assert_eq(sqlite3_exec(f.db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    int64_t id;
    cr_expect_eq(store_plugin_id(other, "locked", "1", "0", NULL, &id, &err), -1);
    cr_expect(strstr(err.message, "the database is locked: waited 0.2 s"), "%s", err.message);
    cr_expect(strstr(err.message, "--busy-timeout"), "%s", err.message);
    cr_expect_not(strstr(err.message, "held by"), "%s", err.message);
    sqlite3_exec(f.db, "ROLLBACK", NULL, NULL, NULL);
    store_close(other);
    store_close(f.st);
}

Test(store, initialises_an_existing_empty_file)
{
    const char *path = tmp_path("empty.db");
    write_bytes(path, "", 0);
    store *st = NULL;
    skytune_error err = { 0 };
    cr_assert_eq(store_open(path, false, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(store_handle(st), "PRAGMA application_id"), STORE_APPLICATION_ID);
    store_close(st);
}

/* ------------------------------------------------------------ views */

Test(store, results_view_has_a_column_per_parameter)
{
    fixture f = open_fixture("view.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 700.0);
    test_config a = make_config(64, "tiled", "1.5");
    test_config b = make_config(128, "naive", "2.0");
    int64_t id_a = 0, id_b = 0;
    cr_assert_eq(record(&f, f.campaign_id, 0, &a, &m, &id_a, &err), 0, "%s", err.message);
    cr_assert_eq(record(&f, f.campaign_id, 1, &b, &m, &id_b, &err), 0, "%s", err.message);

    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(f.db, "SELECT * FROM results_vadd ORDER BY measurement_id",
                                    -1, &s, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(f.db));
    static const char *const columns[] = { "measurement_id", "campaign_id", "device", "problem",
                                           "status", "median_ns", "gflops", "gbs",
                                           "wg", "mode", "scale", "n" };
    cr_assert_eq(sqlite3_column_count(s), 12);
    for (int k = 0; k < 12; k++)
        cr_expect_str_eq(sqlite3_column_name(s, k), columns[k]);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    cr_expect_eq(sqlite3_column_int64(s, 0), id_a);
    cr_expect_eq(sqlite3_column_int64(s, 1), f.campaign_id);
    cr_expect_str_eq((const char *)sqlite3_column_text(s, 2), "Test GPU 9000");
    cr_expect_str_eq((const char *)sqlite3_column_text(s, 3), "n=1024");
    cr_expect_str_eq((const char *)sqlite3_column_text(s, 4), "ok");
    cr_expect_eq(sqlite3_column_double(s, 5), m.median_ns);
    cr_expect_eq(sqlite3_column_type(s, 8), SQLITE_INTEGER);
    cr_expect_eq(sqlite3_column_int64(s, 8), 64);
    cr_expect_str_eq((const char *)sqlite3_column_text(s, 9), "tiled");
    cr_expect_eq(sqlite3_column_type(s, 10), SQLITE_FLOAT);
    cr_expect_eq(sqlite3_column_double(s, 10), 1.5);
    /* The problem parameter, typed like the tuning parameters. */
    cr_expect_eq(sqlite3_column_type(s, 11), SQLITE_INTEGER);
    cr_expect_eq(sqlite3_column_int64(s, 11), 1024);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    cr_expect_eq(sqlite3_column_int64(s, 0), id_b);
    cr_expect_eq(sqlite3_column_int64(s, 8), 128);
    cr_expect_str_eq((const char *)sqlite3_column_text(s, 9), "naive");
    cr_expect_eq(sqlite3_column_double(s, 10), 2.0);
    cr_expect_eq(sqlite3_step(s), SQLITE_DONE);
    sqlite3_finalize(s);

    /* Typed values: a number compares as a number. */
    cr_expect_eq(query_int(f.db, "SELECT measurement_id FROM results_vadd WHERE wg = 128"), id_b);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM results_vadd WHERE scale > 1.7"), 1);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM results_vadd WHERE n = 1024"), 2);

    /* The overall results view: one row per evaluation. */
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM results WHERE plugin = 'vadd'"
                                 " AND problem = 'n=1024' AND cached = 0"),
                 2);
    char *best = query_text(f.db, "SELECT configuration FROM results ORDER BY median_ns, seq");
    cr_expect_str_eq(best, a.text);
    free(best);

    /* Registering the same build again leaves the view alone. */
    int64_t cookie = query_int(f.db, "PRAGMA schema_version");
    int64_t id = 0;
    cr_assert_eq(store_plugin_id(f.st, "vadd", "1.0", "abc123", &vadd_params, &id, &err), 0);
    cr_expect_eq(query_int(f.db, "PRAGMA schema_version"), cookie);

    measurement_clear(&m);
    store_close(f.st);
}

Test(store, results_view_follows_a_new_parameter_set_and_avoids_name_clashes)
{
    fixture f = open_fixture("view2.db");
    skytune_error err = { 0 };
    static const char *const names[] = { "wg", "status", "STATUS" };
    int64_t id = 0;
    cr_expect_eq(store_plugin_id(f.st, "vadd", "2.0", "abc123",
                                 &(store_param_names){ .tuning = names, .n_tuning = 3 }, &id, &err),
                 -1);
    cr_expect(strstr(err.message, "'STATUS'") != NULL, "%s", err.message);
    cr_assert_eq(store_plugin_id(f.st, "vadd", "2.0", "abc123",
                                 &(store_param_names){ .tuning = names, .n_tuning = 2 }, &id, &err),
                 0, "%s",
                 err.message);
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(f.db, "SELECT * FROM results_vadd", -1, &s, NULL), SQLITE_OK,
                 "%s", sqlite3_errmsg(f.db));
    cr_assert_eq(sqlite3_column_count(s), 10);
    cr_expect_str_eq(sqlite3_column_name(s, 4), "status");
    cr_expect_str_eq(sqlite3_column_name(s, 8), "wg");
    cr_expect_str_eq(sqlite3_column_name(s, 9), "param_status");
    sqlite3_finalize(s);

    /* A problem parameter that clashes with a fixed column, or with a
     * tuning parameter, takes the same way out. */
    static const char *const problem[] = { "device", "wg" };
    cr_assert_eq(store_plugin_id(f.st, "vadd", "3.0", "abc123",
                                 &(store_param_names){ .tuning = names, .n_tuning = 1,
                                                       .problem = problem, .n_problem = 2 },
                                 &id, &err),
                 0, "%s", err.message);
    cr_assert_eq(sqlite3_prepare_v2(f.db, "SELECT * FROM results_vadd", -1, &s, NULL), SQLITE_OK,
                 "%s", sqlite3_errmsg(f.db));
    cr_assert_eq(sqlite3_column_count(s), 11);
    cr_expect_str_eq(sqlite3_column_name(s, 8), "wg");
    cr_expect_str_eq(sqlite3_column_name(s, 9), "param_device");
    cr_expect_str_eq(sqlite3_column_name(s, 10), "param_wg");
    sqlite3_finalize(s);
    store_close(f.st);
}

Test(store, names_pasted_into_sql_must_be_identifiers)
{
    fixture f = open_fixture("names.db");
    skytune_error err = { 0 };
    int64_t id = 0;
    cr_expect_eq(store_plugin_id(f.st, "x\"; DROP TABLE samples; --", "1", "h", NULL, &id, &err),
                 -1);
    cr_expect(strstr(err.message, "is not an identifier") != NULL, "%s", err.message);
    static const char *const bad[] = { "wg", "a'b" };
    cr_expect_eq(store_plugin_id(f.st, "vadd", "1", "h",
                                 &(store_param_names){ .tuning = bad, .n_tuning = 2 }, &id, &err), -1);
    cr_expect(strstr(err.message, "'a'b' is not an identifier") != NULL, "%s", err.message);
    static const char *const digit[] = { "1wg" };
    cr_expect_eq(store_plugin_id(f.st, "vadd", "1", "h",
                                 &(store_param_names){ .problem = digit, .n_problem = 1 }, &id,
                                 &err), -1);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM sqlite_master WHERE name = 'samples'"), 1);
    store_close(f.st);
}

/* ------------------------------------------------------------ health */

Test(store, database_is_healthy_and_in_wal_mode)
{
    fixture f = open_fixture("health.db");
    skytune_error err = { 0 };
    measurement m;
    ok_measurement(&m, 600.0);
    for (int k = 0; k < 5; k++) {
        test_config c = make_config(16 << k, k % 2 ? "naive" : "tiled", "1.0");
        cr_assert_eq(record(&f, f.campaign_id, k, &c, &m, NULL, &err), 0, "%s", err.message);
    }
    char *check = query_text(f.db, "PRAGMA integrity_check");
    cr_expect_str_eq(check, "ok");
    free(check);
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(f.db, "PRAGMA foreign_key_check", -1, &s, NULL), SQLITE_OK);
    cr_expect_eq(sqlite3_step(s), SQLITE_DONE, "foreign_key_check reports violations");
    sqlite3_finalize(s);
    char *mode = query_text(f.db, "PRAGMA journal_mode");
    cr_expect_str_eq(mode, "wal");
    free(mode);
    cr_expect_eq(query_int(f.db, "PRAGMA foreign_keys"), 1);
    cr_expect_eq(query_int(f.db, "PRAGMA synchronous"), 1, "NORMAL");
    measurement_clear(&m);
    store_close(f.st);
}

/* ------------------------------------------------------------ version 1 */

Test(store, a_version_1_database_is_migrated_with_every_row_kept)
{
    /* A real campaign's database from the version 1 days (tests/fixtures). */
    const char *source = getenv("SKYTUNE_SOURCE_DIR");
    cr_assert_not_null(source, "SKYTUNE_SOURCE_DIR is not set: run through meson test");
    char from[1024], command[2200];
    snprintf(from, sizeof from, "%s/tests/fixtures/schema-version-1.db", source);
    const char *path = tmp_path("v1.db");
    snprintf(command, sizeof command, "cp '%s' '%s'", from, path);
    cr_assert_eq(system(command), 0);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(query_int(db, "PRAGMA user_version"), 1, "the fixture is no longer version 1");
    long long measurements = query_int(db, "SELECT count(*) FROM measurements");
    long long evaluations = query_int(db, "SELECT count(*) FROM evaluations");
    long long samples = query_int(db, "SELECT count(*) FROM samples");
    sqlite3_close(db);

    store *st = NULL;
    skytune_error err = { 0 };
    cr_assert_eq(store_open(path, false, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    db = store_handle(st);
    cr_expect_eq(query_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM measurements"), measurements);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM evaluations"), evaluations);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM samples"), samples);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM measurements WHERE degraded = 0 AND "
                               "stage IS NULL"),
                 measurements);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM results WHERE degraded = 0"), evaluations,
                 "the results view shows the new columns");
    /* Version 7: nothing measured before racing was raced. */
    cr_expect_eq(query_int(db, "SELECT count(*) FROM measurements WHERE raced = 0"), measurements);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM results WHERE raced = 0"), evaluations);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM pragma_table_info('duplicate_measurements')"
                               " WHERE name = 'raced'"),
                 1);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM claims"), 0);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'"), 0);
    store_close(st);
}

/* ------------------------------------------------------------ version 2 */

static void expect_problem(sqlite3 *db, int64_t id, const char *text, const char *params)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT text FROM problems WHERE id = %lld", (long long)id);
    char *got = query_text(db, sql);
    cr_expect_str_eq(got, text, "problem %lld", (long long)id);
    free(got);
    snprintf(sql, sizeof sql,
             "SELECT group_concat(name || ':' || value, ' ') FROM (SELECT name, value FROM"
             " problem_params WHERE problem_id = %lld ORDER BY position)",
             (long long)id);
    got = query_text(db, sql);   /* "(null)" when there are none */
    cr_expect_str_eq(got, *params ? params : "(null)", "parameters of problem %lld", (long long)id);
    free(got);
}

/* A database from the version 2 days (tests/fixtures/README.md), whose
 * problem texts wrote string values as they were, brought to the current
 * version: every row is kept; texts that read back unambiguously stay as
 * they were and get their parameters; "a=1,b=2,b=3", the text two different
 * problems shared, and "a=x=y,b=y" are marked ambiguous, so that no new
 * problem takes their measurements; a replayed dataset's problem (its name)
 * is left alone. */
Test(store, a_version_2_database_is_migrated_with_every_row_kept)
{
    const char *source = getenv("SKYTUNE_SOURCE_DIR");
    cr_assert_not_null(source, "SKYTUNE_SOURCE_DIR is not set: run through meson test");
    char from[1024], command[2200];
    snprintf(from, sizeof from, "%s/tests/fixtures/schema-version-2.db", source);
    const char *path = tmp_path("v2.db");
    snprintf(command, sizeof command, "cp '%s' '%s'", from, path);
    cr_assert_eq(system(command), 0);
    static const char *const tables[] = {"devices", "plugins", "problems", "campaigns",
                                         "configurations", "config_params", "measurements",
                                         "samples", "measurement_parts", "evaluations"};
    enum { N_TABLES = sizeof tables / sizeof tables[0] };
    long long before[N_TABLES];
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(query_int(db, "PRAGMA user_version"), 2, "the fixture is no longer version 2");
    char sql[256];
    for (size_t k = 0; k < N_TABLES; k++) {
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[k]);
        before[k] = query_int(db, sql);
    }
    sqlite3_close(db);

    store *st = NULL;
    skytune_error err = { 0 };
    cr_assert_eq(store_open(path, false, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    db = store_handle(st);
    cr_expect_eq(query_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    for (size_t k = 0; k < N_TABLES; k++) {
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[k]);
        cr_expect_eq(query_int(db, sql), before[k], "rows of %s", tables[k]);
    }
    expect_problem(db, 1, "n=65536", "n:65536");
    expect_problem(db, 2, "a=x,b=y", "a:x b:y");
    expect_problem(db, 3, "ambiguous before schema version 4: a=1,b=2,b=3", "");
    expect_problem(db, 4, "a=it's,b=y", "a:it's b:y");
    expect_problem(db, 5, "ambiguous before schema version 4: a=x=y,b=y", "");
    expect_problem(db, 6, "small", "");
    cr_expect_eq(query_int(db, "SELECT count(*) FROM measurements m JOIN problems pr"
                               " ON pr.id = m.problem_id"),
                 query_int(db, "SELECT count(*) FROM measurements"));
    cr_expect_eq(query_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE "
                               "integrity_check != 'ok'"), 0);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);

    /* What runs find now: the same problem for the texts that stayed, a new
     * one for either problem that shared "a=1,b=2,b=3". */
    int64_t strings_plugin = query_int(db, "SELECT id FROM plugins WHERE name = 'strings'");
    int64_t id = 0;
    cr_assert_eq(store_problem_id(st, strings_plugin, "a=x,b=y", &id, &err), 0, "%s", err.message);
    cr_expect_eq(id, 2);
    cr_assert_eq(store_problem_id(st, strings_plugin, "a=it's,b=y", &id, &err), 0, "%s",
                 err.message);
    cr_expect_eq(id, 4);
    cr_assert_eq(store_problem_id(st, strings_plugin, "a=1,b='2,b=3'", &id, &err), 0, "%s",
                 err.message);
    cr_expect_gt(id, 6);
    expect_problem(db, id, "a=1,b='2,b=3'", "a:1 b:2,b=3");
    store_close(st);

    /* Opened again, it is ready: nothing more changes. */
    cr_assert_eq(store_open(path, false, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(store_handle(st), "SELECT count(*) FROM problems"), before[2] + 1);

    /* Version 5's invocations: empty, and the same table a new database
     * gets, column by column. */
    static const char columns[] =
        "SELECT group_concat(name || ' ' || type || ' ' || \"notnull\" || ' ' ||"
        " COALESCE(dflt_value, '') || ' ' || pk, '; ') FROM pragma_table_info('invocations')";
    cr_expect_eq(query_int(store_handle(st), "SELECT count(*) FROM invocations"), 0);
    char *migrated = query_text(store_handle(st), columns);
    store_close(st);
    fixture fresh = open_fixture("fresh.db");
    char *made = query_text(fresh.db, columns);
    cr_expect(strstr(made, "evaluations_before INTEGER 1"), "%s", made);
    cr_expect_str_eq(migrated, made, "a migrated database's invocations differ from a new one's");
    free(made);
    free(migrated);
    store_close(fresh.st);
}

/* ------------------------------------------------------------ version 8 */

/* A database of version 8: one made now, with what version 9 added taken
 * away again (its columns dropped, its tables too) and its version set
 * back. Opened, it is migrated: every row is kept, each ok measurement's
 * interval is that of its samples again (one with a single sample has
 * none), and the confirmation tables are there, empty, as a new database
 * has them. */
Test(store, a_version_8_database_gets_intervals_and_the_confirmation_tables)
{
    fixture f = open_fixture("v8.db");
    skytune_error err = { 0 };
    measurement m;
    int64_t id;
    for (int k = 0; k < 3; k++) {
        ok_measurement(&m, 1000.0 * (k + 1));
        test_config c = make_config(16 << k, "fast", "1");
        cr_assert_eq(record(&f, f.campaign_id, k, &c, &m, &id, &err), 0, "%s", err.message);
        measurement_clear(&m);
    }
    measurement_init(&m);
    const double one = 5000.0;
    cr_assert_eq(measurement_set_samples(&m, &one, 1), 0);
    test_config single = make_config(128, "fast", "1");
    cr_assert_eq(record(&f, f.campaign_id, 3, &single, &m, &id, &err), 0, "%s", err.message);
    measurement_clear(&m);
    char *intervals = query_text(f.db, "SELECT group_concat(id || ':' || COALESCE(ci_low_ns, '-')"
                                       " || '-' || COALESCE(ci_high_ns, '-') || '@' ||"
                                       " COALESCE(ci_coverage, '-'), ' ') FROM (SELECT * FROM"
                                       " measurements ORDER BY id)");
    /* Ten samples base + 10 k + 0.25: the 2nd and 9th. */
    cr_expect(strstr(intervals, "1:1010.25-1080.25@0.978515625"), "%s", intervals);
    cr_expect(strstr(intervals, "4:---@-"), "one sample has no interval: %s", intervals);
    char *path = strdup(tmp_path("v8.db"));
    store_close(f.st);

    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db,
                              "DROP TABLE confirmation_visits; DROP TABLE confirmation_entries;"
                              " DROP TABLE confirmations;"
                              " ALTER TABLE measurements DROP COLUMN ci_low_ns;"
                              " ALTER TABLE measurements DROP COLUMN ci_high_ns;"
                              " ALTER TABLE measurements DROP COLUMN ci_coverage;"
                              " PRAGMA user_version = 8;",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    int64_t samples = query_int(db, "SELECT count(*) FROM samples");
    int64_t measurements = query_int(db, "SELECT count(*) FROM measurements");
    sqlite3_close(db);

    store *st = NULL;
    cr_assert_eq(store_open(path, false, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    db = store_handle(st);
    cr_expect_eq(query_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM samples"), samples);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM measurements"), measurements);
    char *migrated = query_text(db, "SELECT group_concat(id || ':' || COALESCE(ci_low_ns, '-')"
                                    " || '-' || COALESCE(ci_high_ns, '-') || '@' ||"
                                    " COALESCE(ci_coverage, '-'), ' ') FROM (SELECT * FROM"
                                    " measurements ORDER BY id)");
    cr_expect_str_eq(migrated, intervals, "the migration's intervals differ from the recorded ones");
    cr_expect_eq(query_int(db, "SELECT count(*) FROM confirmations"), 0);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM confirmation_entries"), 0);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM confirmation_visits"), 0);
    static const char columns[] =
        "SELECT group_concat(name || ' ' || type || ' ' || \"notnull\" || ' ' ||"
        " COALESCE(dflt_value, '') || ' ' || pk, '; ') FROM pragma_table_info('%s')";
    static const char *const tables[] = {"confirmations", "confirmation_entries",
                                         "confirmation_visits", "measurements"};
    fixture fresh = open_fixture("fresh8.db");
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) {
        char sql[512];
        snprintf(sql, sizeof sql, columns, tables[k]);
        char *a = query_text(db, sql), *b = query_text(fresh.db, sql);
        cr_expect_str_eq(a, b, "a migrated database's %s differs from a new one's", tables[k]);
        free(a);
        free(b);
    }
    store_close(fresh.st);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE "
                               "integrity_check != 'ok'"), 0);
    store_close(st);
    free(migrated);
    free(intervals);
    free(path);
}

/* ------------------------------------------------------------ claims */

static bool never_alive(void *ctx, int64_t pid, const char *host)
{
    (void)ctx, (void)pid, (void)host;
    return false;
}

Test(store, claims_are_ours_busy_measured_or_taken_over)
{
    fixture f = open_fixture("claims.db");
    skytune_error err = { 0 };
    test_config c = make_config(64, "tiled", "1.5");
    store_claim_result r;
    cr_assert_eq(store_claim(f.st, f.campaign_id, c.text, 1, 100, "hostA", 60, NULL, NULL, &r,
                             &err),
                 0, "%s", err.message);
    cr_expect_eq(r.kind, STORE_CLAIM_OURS);
    /* Our own claim again: still ours. */
    cr_assert_eq(store_claim(f.st, f.campaign_id, c.text, 1, 100, "hostA", 60, NULL, NULL, &r,
                             &err),
                 0, "%s", err.message);
    cr_expect_eq(r.kind, STORE_CLAIM_OURS);
    /* Another live process: busy, naming the holder. */
    cr_assert_eq(store_claim(f.st, f.campaign_id, c.text, 1, 200, "hostA", 60, NULL, NULL, &r,
                             &err),
                 0, "%s", err.message);
    cr_expect_eq(r.kind, STORE_CLAIM_BUSY);
    cr_expect_eq(r.holder_pid, 100);
    cr_expect_str_eq(r.holder_host, "hostA");
    /* The holder is gone: taken over. */
    cr_assert_eq(store_claim(f.st, f.campaign_id, c.text, 1, 200, "hostA", 60, never_alive, NULL,
                             &r, &err),
                 0, "%s", err.message);
    cr_expect_eq(r.kind, STORE_CLAIM_OURS);
    cr_expect_eq(query_int(f.db, "SELECT pid FROM claims"), 200);
    /* A claim older than the stale limit is taken over even from a live holder. */
    cr_assert_eq(store_claim(f.st, f.campaign_id, c.text, 1, 300, "hostB", 0, NULL, NULL, &r,
                             &err),
                 0, "%s", err.message);
    cr_expect_eq(r.kind, STORE_CLAIM_OURS);
    /* Recording the measurement removes the claim; then it is measured. */
    measurement m;
    ok_measurement(&m, 800.0);
    int64_t id = 0;
    cr_assert_eq(record(&f, f.campaign_id, 0, &c, &m, &id, &err), 0, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM claims"), 0);
    cr_assert_eq(store_claim(f.st, f.campaign_id, c.text, 1, 400, "hostA", 60, NULL, NULL, &r,
                             &err),
                 0, "%s", err.message);
    cr_expect_eq(r.kind, STORE_CLAIM_MEASURED);
    cr_expect_eq(r.known.measurement_id, id);
    cr_expect_eq(r.known.status, MEAS_OK);
    cr_expect(r.known.in_campaign);
    /* Releasing removes only the releasing process's claims. */
    test_config d = make_config(128, "tiled", "1.5");
    test_config e = make_config(256, "tiled", "1.5");
    store_claim(f.st, f.campaign_id, d.text, 2, 500, "hostA", 60, NULL, NULL, &r, &err);
    store_claim(f.st, f.campaign_id, e.text, 3, 600, "hostA", 60, NULL, NULL, &r, &err);
    cr_assert_eq(store_release_claims(f.st, 500, "hostA", &err), 0, "%s", err.message);
    cr_expect_eq(query_int(f.db, "SELECT count(*) FROM claims"), 1);
    cr_expect_eq(query_int(f.db, "SELECT pid FROM claims"), 600);
    measurement_clear(&m);
    store_close(f.st);
}

Test(store, a_failed_measurement_is_claimable_again_only_with_retry_failed)
{
    fixture f = open_fixture("claimretry.db");
    skytune_error err = { 0 };
    test_config c = make_config(64, "tiled", "1.5");
    measurement crashed;
    measurement_init(&crashed);
    crashed.status = MEAS_TIMEOUT;
    crashed.stage = STAGE_TIMED;
    cr_assert_eq(record(&f, f.campaign_id, 0, &c, &crashed, NULL, &err), 0, "%s", err.message);
    store_claim_result r;
    cr_assert_eq(store_claim(f.st, f.campaign_id, c.text, 1, 1, "h", 60, NULL, NULL, &r, &err), 0);
    cr_expect_eq(r.kind, STORE_CLAIM_MEASURED);
    cr_expect_eq(r.known.status, MEAS_TIMEOUT);
    store_set_retry_failed(f.st, true);
    cr_assert_eq(store_claim(f.st, f.campaign_id, c.text, 1, 1, "h", 60, NULL, NULL, &r, &err), 0);
    cr_expect_eq(r.kind, STORE_CLAIM_OURS);
    measurement_clear(&crashed);
    store_close(f.st);
}
