/* The queries and report sections that explain a space: parameter
 * importance and interactions, what the constraints removed, the
 * portability of one device's best configuration to another, and the
 * estimate of what more evaluations would gain. Each on a real SQLite
 * database built here with the store, whose figures follow from its
 * construction. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "gain_estimate.h"
#include "measurement.h"
#include "query.h"
#include "space_fixtures.h"
#include "store.h"
#include "store_invocations.h"
#include "store_spaces.h"

static char *tmp_dir;
static char *db_path;

static void setup(void)
{
    tmp_dir = cli_make_temp_dir();
    db_path = cli_path(tmp_dir, "explain.db");
}

static void teardown(void)
{
    cli_remove_tree(tmp_dir);
    free(tmp_dir);
    free(db_path);
}

TestSuite(explain, .init = setup, .fini = teardown);

/* ------------------------------------------------------------ the database */

static const char *const param_names[] = {"tile", "unroll"};
static const char *const problem_names[] = {"n"};
static const store_param_names toy_params = {
    .tuning = param_names, .n_tuning = 2, .problem = problem_names, .n_problem = 1};

static skytune_device_info device_named(const char *name)
{
    skytune_device_info d = {0};
    snprintf(d.platform, sizeof d.platform, "Explain Platform");
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.vendor, sizeof d.vendor, "Explain Vendor");
    snprintf(d.driver_version, sizeof d.driver_version, "1.0");
    snprintf(d.opencl_version, sizeof d.opencl_version, "OpenCL 3.0");
    d.is_gpu = 1;
    d.compute_units = 16;
    d.max_clock_mhz = 1000;
    d.global_mem_size = INT64_C(1) << 32;
    d.local_mem_size = 65536;
    d.max_constant_size = 65536;
    d.max_mem_alloc_size = INT64_C(1) << 30;
    d.max_work_group_size = 1024;
    d.max_work_item_sizes[0] = d.max_work_item_sizes[1] = d.max_work_item_sizes[2] = 1024;
    return d;
}

typedef struct toy_db {
    store *st;
    int64_t plugin_id, problem_id;
} toy_db;

static toy_db open_toy(void)
{
    toy_db db = {0};
    skytune_error err = {0};
    cr_assert_eq(store_open(db_path, true, STORE_BUSY_TIMEOUT_S, &db.st, &err), 0, "%s",
                 err.message);
    cr_assert_eq(store_plugin_id(db.st, "toy", "1.0", "toyhash", &toy_params, &db.plugin_id,
                                 &err), 0, "%s", err.message);
    cr_assert_eq(store_problem_id(db.st, db.plugin_id, "n=1024", &db.problem_id, &err), 0, "%s",
                 err.message);
    return db;
}

/* A campaign on `device` with one measurement per (tile, unroll) of the 4 x 4
 * grid tile, unroll in {1, 2, 4, 8}, timed by time_of (ns; 0: failed to
 * compile). Returns the campaign's id. */
static int64_t record_grid(toy_db *db, const char *device, const char *strategy,
                           double (*time_of)(int tile, int unroll))
{
    skytune_error err = {0};
    skytune_device_info dev = device_named(device);
    int64_t device_id, campaign_id;
    bool resumed;
    cr_assert_eq(store_device_id(db->st, &dev, &device_id, &err), 0, "%s", err.message);
    store_campaign_spec spec = {
        .plugin_id = db->plugin_id, .device_id = device_id, .problem_id = db->problem_id,
        .strategy = strategy, .settings = "runs=1;strategy:", .seed = 1,
        .command = "skytune run --plugin toy", .host = "explain-host",
    };
    cr_assert_eq(store_campaign_open(db->st, &spec, &campaign_id, &resumed, &err), 0, "%s",
                 err.message);
    int seq = 0;
    for (int a = 1; a <= 8; a *= 2)
        for (int b = 1; b <= 8; b *= 2) {
            double t = time_of(a, b);
            char tile[8], unroll[8], text[64];
            snprintf(tile, sizeof tile, "%d", a);
            snprintf(unroll, sizeof unroll, "%d", b);
            snprintf(text, sizeof text, "tile=%d,unroll=%d", a, b);
            const char *values[2] = {tile, unroll};
            measurement m;
            measurement_init(&m);
            m.status = t > 0 ? MEAS_OK : MEAS_COMPILE;
            if (t > 0) cr_assert_eq(measurement_set_samples(&m, &t, 1), 0);
            int64_t id;
            cr_assert_eq(store_record_measurement(db->st, campaign_id, seq++, text,
                                                  (uint64_t)(a * 16 + b), param_names, values, 2,
                                                  &m, &id, &err),
                         0, "%s", err.message);
            measurement_clear(&m);
        }
    cr_assert_eq(store_campaign_close(db->st, campaign_id, "done", &err), 0, "%s", err.message);
    return campaign_id;
}

static query_table run_query(const char *name, const char *campaign, const char *plugin)
{
    store *st;
    skytune_error err = {0};
    cr_assert_eq(store_open(db_path, false, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s",
                 err.message);
    const char *params[QUERY_N_PARAMS] = {campaign, plugin, NULL};
    query_table t;
    cr_assert_eq(query_run_named(store_handle(st), name, params, QUERY_N_PARAMS, &t, &err), 0,
                 "query %s: %s", name, err.message);
    store_close(st);
    return t;
}

/* The row whose `column` is `value`, failing the test when there is none. */
static size_t row_where(const query_table *t, const char *column, const char *value)
{
    for (size_t r = 0; r < t->n_rows; r++) {
        const char *cell = query_cell(t, r, column);
        if (cell && strcmp(cell, value) == 0) return r;
    }
    cr_assert_fail("no row with %s = %s among %zu", column, value, t->n_rows);
    return 0;
}

static double number(const query_table *t, size_t row, const char *column)
{
    double v = NAN;
    cr_assert(query_number(t, row, column, &v), "%s of row %zu is not a number", column, row);
    return v;
}

/* ------------------------------------------------------------ importance */

/* The time doubles with tile and does not depend on unroll at all. */
static double tile_decides(int tile, int unroll)
{
    (void)unroll;
    return 1000.0 * tile;
}

/* Fast where exactly one of tile and unroll is small: neither matters
 * alone (each value of either meets fast and slow cells equally), both
 * together decide everything. */
static double pair_decides(int tile, int unroll)
{
    return (tile <= 2) != (unroll <= 2) ? 1000.0 : 4000.0;
}

Test(explain, importance_gives_the_deciding_parameter_all_and_the_idle_one_nothing)
{
    toy_db db = open_toy();
    record_grid(&db, "Device A", "exhaustive", tile_decides);
    store_close(db.st);
    query_table t = run_query("importance", NULL, NULL);
    cr_assert_eq(t.n_rows, 2);
    /* Largest share first. */
    cr_assert_str_eq(query_cell(&t, 0, "parameter"), "tile");
    cr_assert_float_eq(number(&t, 0, "share"), 1.0, 1e-9);
    cr_assert_float_eq(number(&t, 0, "adjusted_share"), 1.0, 1e-9);
    cr_assert_eq((int)number(&t, 0, "values"), 4);
    cr_assert_eq((int)number(&t, 0, "configurations"), 16);
    cr_assert_str_eq(query_cell(&t, 1, "parameter"), "unroll");
    cr_assert_float_eq(number(&t, 1, "share"), 0.0, 1e-9);
    cr_assert_float_eq(number(&t, 1, "adjusted_share"), 0.0, 1e-9);
    query_table_free(&t);
}

Test(explain, interactions_find_a_pair_that_decides_together_what_neither_does_alone)
{
    toy_db db = open_toy();
    record_grid(&db, "Device A", "exhaustive", pair_decides);
    store_close(db.st);
    query_table main_effects = run_query("importance", NULL, NULL);
    cr_assert_eq(main_effects.n_rows, 2);
    for (size_t r = 0; r < 2; r++)
        cr_assert_float_eq(number(&main_effects, r, "share"), 0.0, 1e-9, "%s",
                           query_cell(&main_effects, r, "parameter"));
    query_table_free(&main_effects);
    query_table pairs = run_query("interactions", NULL, NULL);
    cr_assert_eq(pairs.n_rows, 1);
    cr_assert_str_eq(query_cell(&pairs, 0, "parameter"), "tile");
    cr_assert_str_eq(query_cell(&pairs, 0, "with"), "unroll");
    cr_assert_float_eq(number(&pairs, 0, "share"), 1.0, 1e-9);
    cr_assert_float_eq(number(&pairs, 0, "joint_share"), 1.0, 1e-9);
    cr_assert_eq((int)number(&pairs, 0, "cells"), 16);
    query_table_free(&pairs);
}

/* With noise, the idle parameter's raw share is what chance gives it, and
 * the adjusted share takes that away: it stays near 0, far below the
 * deciding parameter's. */
static double tile_decides_noisy(int tile, int unroll)
{
    /* A fixed pseudo-random factor per configuration within +-5 %. */
    unsigned h = (unsigned)(tile * 2654435761u) ^ (unsigned)(unroll * 40503u);
    return 1000.0 * tile * (1.0 + 0.05 * ((double)(h % 1001) / 500.0 - 1.0));
}

Test(explain, importance_keeps_a_parameter_of_no_effect_near_zero_under_noise)
{
    toy_db db = open_toy();
    record_grid(&db, "Device A", "exhaustive", tile_decides_noisy);
    store_close(db.st);
    query_table t = run_query("importance", NULL, NULL);
    size_t tile = row_where(&t, "parameter", "tile"), unroll = row_where(&t, "parameter", "unroll");
    cr_assert_gt(number(&t, tile, "share"), 0.99);
    cr_assert_lt(number(&t, unroll, "adjusted_share"), 0.01);
    query_table_free(&t);
}

Test(explain, importance_counts_only_what_passed)
{
    /* A failed configuration has no time: it neither adds spread nor counts. */
    toy_db db = open_toy();
    record_grid(&db, "Device A", "exhaustive", tile_decides);
    store_close(db.st);
    cr_assert_eq(cli_shell("sqlite3 '%s' \"UPDATE measurements SET status = 'compile', "
                           "median_ns = NULL WHERE configuration_id IN (SELECT configuration_id "
                           "FROM config_params WHERE name = 'tile' AND value = '8')\"",
                           db_path),
                 0);
    query_table t = run_query("importance", NULL, NULL);
    size_t tile = row_where(&t, "parameter", "tile");
    cr_assert_eq((int)number(&t, tile, "configurations"), 12);
    cr_assert_eq((int)number(&t, tile, "values"), 3);
    cr_assert_float_eq(number(&t, tile, "share"), 1.0, 1e-9);
    query_table_free(&t);
}

/* ------------------------------------------------------------ rejections */

Test(explain, rejections_count_what_each_constraint_removed_first)
{
    toy_db db = open_toy();
    int64_t campaign = record_grid(&db, "Device A", "exhaustive", tile_decides);
    /* 4 x 4 values; "p0 <= p1" removes the 6 with p0 > p1, "p1 < 3" the 4
     * with p1 = 3 (none of which has p0 > p1): 6 of 16 remain. */
    static const char *const constraints[] = {"p0 <= p1", "p1 < 3"};
    space *sp = fixture_space(2, 4, constraints, 2);
    skytune_error err = {0};
    cr_assert_eq(store_record_space(db.st, campaign, sp, &err), 0, "%s", err.message);
    /* Recorded again (a rerun of the campaign): replaced, not added. */
    cr_assert_eq(store_record_space(db.st, campaign, sp, &err), 0, "%s", err.message);
    space_free(sp);
    store_close(db.st);
    query_table t = run_query("rejections", NULL, NULL);
    cr_assert_eq(t.n_rows, 2);
    cr_assert_float_eq(number(&t, 0, "cartesian"), 16, 1e-9);
    cr_assert_float_eq(number(&t, 0, "valid"), 6, 1e-9);
    cr_assert_str_eq(query_cell(&t, 0, "rule"), "p0 <= p1");
    cr_assert_str_eq(query_cell(&t, 0, "kind"), "constraint");
    cr_assert_float_eq(number(&t, 0, "ruled_out"), 6, 1e-9);
    cr_assert_float_eq(number(&t, 0, "share"), 6.0 / 16, 1e-9);
    cr_assert_str_eq(query_cell(&t, 1, "rule"), "p1 < 3");
    cr_assert_float_eq(number(&t, 1, "ruled_out"), 4, 1e-9);
    query_table_free(&t);
}

Test(explain, rejections_of_a_space_without_constraints_say_nothing_was_removed)
{
    toy_db db = open_toy();
    int64_t campaign = record_grid(&db, "Device A", "exhaustive", tile_decides);
    space *sp = fixture_space(2, 4, NULL, 0);
    skytune_error err = {0};
    cr_assert_eq(store_record_space(db.st, campaign, sp, &err), 0, "%s", err.message);
    space_free(sp);
    store_close(db.st);
    query_table t = run_query("rejections", NULL, NULL);
    cr_assert_eq(t.n_rows, 1);
    cr_assert_float_eq(number(&t, 0, "valid_share"), 1.0, 1e-9);
    cr_assert_null(query_cell(&t, 0, "kind"));
    query_table_free(&t);
}

/* ------------------------------------------------------------ portability */

/* Device A's optimum is tile=1,unroll=1; device B's is tile=8,unroll=8,
 * where A's best takes 4 times B's best. */
static double on_a(int tile, int unroll)
{
    return 1000.0 * tile * unroll;
}

static double on_b(int tile, int unroll)
{
    return 64000.0 / (tile * unroll) + (tile == 1 && unroll == 1 ? 3000.0 * 64 : 0);
}

Test(explain, portability_is_the_share_of_the_other_optimum_kept)
{
    toy_db db = open_toy();
    record_grid(&db, "Device A", "exhaustive", on_a);
    record_grid(&db, "Device B", "exhaustive", on_b);
    store_close(db.st);
    query_table t = run_query("portability", NULL, "toy");
    cr_assert_eq(t.n_rows, 2);
    size_t a_on_b = row_where(&t, "from_device", "Device A");
    cr_assert_str_eq(query_cell(&t, a_on_b, "on_device"), "Device B");
    cr_assert_str_eq(query_cell(&t, a_on_b, "from_best"), "tile=1,unroll=1");
    /* B's optimum 1000 ns; A's best there 64000 + 192000 ns. */
    cr_assert_float_eq(number(&t, a_on_b, "on_best_ns"), 1000, 1e-6);
    cr_assert_float_eq(number(&t, a_on_b, "from_best_on_ns"), 256000, 1e-6);
    cr_assert_float_eq(number(&t, a_on_b, "kept"), 1000.0 / 256000, 1e-12);
    cr_assert_str_eq(query_cell(&t, a_on_b, "on_status"), "ok");
    size_t b_on_a = row_where(&t, "from_device", "Device B");
    cr_assert_str_eq(query_cell(&t, b_on_a, "from_best"), "tile=8,unroll=8");
    /* A's optimum 1000 ns; B's best there 64000 ns. */
    cr_assert_float_eq(number(&t, b_on_a, "kept"), 1000.0 / 64000, 1e-12);
    query_table_free(&t);
}

/* Device B never measured A's best (it failed to compile there): no share,
 * and the status says why. */
static double on_b_failing_a_best(int tile, int unroll)
{
    return tile == 1 && unroll == 1 ? 0 : 1000.0;
}

Test(explain, portability_says_when_the_other_device_could_not_run_the_best)
{
    toy_db db = open_toy();
    record_grid(&db, "Device A", "exhaustive", on_a);
    record_grid(&db, "Device B", "exhaustive", on_b_failing_a_best);
    store_close(db.st);
    query_table t = run_query("portability", NULL, NULL);
    size_t a_on_b = row_where(&t, "from_device", "Device A");
    cr_assert_null(query_cell(&t, a_on_b, "kept"));
    cr_assert_str_eq(query_cell(&t, a_on_b, "on_status"), "compile");
    query_table_free(&t);
}

Test(explain, portability_needs_two_devices)
{
    toy_db db = open_toy();
    record_grid(&db, "Device A", "exhaustive", on_a);
    store_close(db.st);
    query_table t = run_query("portability", NULL, NULL);
    cr_assert_eq(t.n_rows, 0);
    query_table_free(&t);
}

/* ------------------------------------------------------------ the report */

static char *report_of(const char *const *extra)
{
    char *html = cli_path(tmp_dir, "report.html");
    const char *args[16] = {"report", "--db", db_path, "--html", html};
    size_t n = 5;
    for (size_t k = 0; extra && extra[k]; k++) args[n++] = extra[k];
    args[n] = NULL;
    cli_result r = cli_run(args);
    cr_assert_eq(r.status, 0, "report: %s\n%s", cli_status_text(r.status), r.err);
    cli_result_free(&r);
    size_t len;
    char *text = (char *)cli_read_file(html, &len);
    cr_assert_not_null(text);
    free(html);
    return text;
}

Test(explain, report_has_the_sections_that_explain_a_space)
{
    toy_db db = open_toy();
    int64_t campaign = record_grid(&db, "Device A", "exhaustive", on_a);
    record_grid(&db, "Device B", "exhaustive", on_b);
    static const char *const constraints[] = {"p0 <= p1"};
    space *sp = fixture_space(2, 4, constraints, 1);
    skytune_error err = {0};
    cr_assert_eq(store_record_space(db.st, campaign, sp, &err), 0, "%s", err.message);
    space_free(sp);
    store_close(db.st);
    char *html = report_of(NULL);
    cr_assert_not_null(strstr(html, "Which parameters matter"));
    cr_assert_not_null(strstr(html, "skytune query importance"));
    cr_assert_not_null(strstr(html, "Pairs of parameters that act together"));
    cr_assert_not_null(strstr(html, "What the constraints removed"));
    cr_assert_not_null(strstr(html, "<code>p0 &lt;= p1</code>"));
    cr_assert_not_null(strstr(html, "Portability between devices"));
    cr_assert_not_null(strstr(html, "Would more evaluations help?"));
    /* 16 of 16 measured: nothing left to gain. */
    cr_assert_not_null(strstr(html, "Nothing more to evaluate"));
    /* The settings as rows, not the raw text. */
    cr_assert_not_null(strstr(html, "timed runs per configuration"));
    cr_assert_null(strstr(html, "runs=1;strategy:"));
    /* Campaign 2 recorded no space: said plainly. */
    cr_assert_not_null(strstr(html, "was not recorded"));
    /* Self-contained: the only address is the SVG namespace's. */
    for (const char *p = strstr(html, "http"); p; p = strstr(p + 1, "http"))
        cr_expect(strncmp(p, "http://www.w3.org/2000/svg", 26) == 0, "an address: %.40s", p);
    free(html);
}

Test(explain, report_says_plainly_why_a_small_campaign_explains_nothing)
{
    toy_db db = open_toy();
    skytune_error err = {0};
    skytune_device_info dev = device_named("CPU A");
    dev.is_gpu = 0;
    int64_t device_id, campaign_id;
    bool resumed;
    cr_assert_eq(store_device_id(db.st, &dev, &device_id, &err), 0, "%s", err.message);
    store_campaign_spec spec = {.plugin_id = db.plugin_id, .device_id = device_id,
                                .problem_id = db.problem_id, .strategy = "random",
                                .settings = "runs=1;strategy:", .seed = 1};
    cr_assert_eq(store_campaign_open(db.st, &spec, &campaign_id, &resumed, &err), 0);
    const char *values[2] = {"1", "1"};
    measurement m;
    measurement_init(&m);
    m.status = MEAS_OK;
    double t = 1000;
    cr_assert_eq(measurement_set_samples(&m, &t, 1), 0);
    int64_t id;
    cr_assert_eq(store_record_measurement(db.st, campaign_id, 0, "tile=1,unroll=1", 17,
                                          param_names, values, 2, &m, &id, &err),
                 0, "%s", err.message);
    measurement_clear(&m);
    store_close(db.st);
    char *html = report_of(NULL);
    cr_assert_not_null(strstr(html, "Fewer than 3 configurations passed"));
    cr_assert_not_null(strstr(html, "Empty, because this campaign has no pair of configurations"));
    cr_assert_not_null(strstr(html, "No estimate: 1 configurations passed"));
    /* A CPU device's unknown peaks are said to be unknown, as a CPU's. */
    cr_assert_not_null(strstr(html, "This CPU device&#39;s peaks are unknown"), "%s", html);
    free(html);
}

/* ------------------------------------------------------------ the estimate */

Test(explain, gain_estimate_follows_the_gaps_between_the_fastest)
{
    gain_estimate g;
    gain_estimate_init(&g);
    /* 20 passed with times 100, 110, 120, ...: fastest six 100..150, log
     * gaps averaging ln(1.5)/5; 20 failures. */
    for (int k = 19; k >= 0; k--) {
        gain_estimate_add(&g, 100.0 + 10 * k);
        gain_estimate_add(&g, 0);
    }
    double gain;
    uint64_t more;
    cr_assert(gain_estimate_expected(&g, UINT64_MAX, &gain, &more));
    cr_assert_eq(more, 40);
    /* 40 more, half of them expected to pass: 20 / (20 + 20) = 1/2. */
    double gap = log(1.5) / 5;
    cr_assert_float_eq(gain, 0.5 * (1 - exp(-gap)), 1e-12);
    /* With 10 configurations left: 5 expected to pass, 5 / 25. */
    cr_assert(gain_estimate_expected(&g, 10, &gain, &more));
    cr_assert_eq(more, 10);
    cr_assert_float_eq(gain, 0.2 * (1 - exp(-gap)), 1e-12);
    /* None left: nothing to gain. */
    cr_assert(gain_estimate_expected(&g, 0, &gain, &more));
    cr_assert_eq(more, 0);
    cr_assert_float_eq(gain, 0, 1e-15);
}

Test(explain, gain_estimate_waits_for_enough_passed)
{
    gain_estimate g;
    gain_estimate_init(&g);
    for (int k = 0; k < GAIN_MIN_PASSED - 1; k++) gain_estimate_add(&g, 100.0 + k);
    for (int k = 0; k < 50; k++) gain_estimate_add(&g, -1);
    double gain;
    uint64_t more;
    cr_assert_not(gain_estimate_expected(&g, UINT64_MAX, &gain, &more));
    gain_estimate_add(&g, 500);
    cr_assert(gain_estimate_expected(&g, UINT64_MAX, &gain, &more));
}

/* ------------------------------------------------------------ migration */

/* Version 8 copies the invocations into a table that allows 'gain_below':
 * committed databases of versions 1 and 5 (the latter without an
 * invocations table) come forward, every campaign kept, and take the new
 * stop reason and the space tables. */
static void migrates(const char *committed)
{
    char *source = cli_path(cli_source_dir(), committed);
    cr_assert_eq(cli_shell("cp '%s' '%s'", source, db_path), 0);
    free(source);
    long long campaigns = cli_db_int(db_path, "SELECT COUNT(*) FROM campaigns");
    long long invocations = cli_db_int(db_path, "SELECT COUNT(*) FROM sqlite_master WHERE name = "
                                                "'invocations'") > 0
                                ? cli_db_int(db_path, "SELECT COUNT(*) FROM invocations")
                                : 0;
    store *st;
    skytune_error err = {0};
    cr_assert_eq(store_open(db_path, false, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s: %s",
                 committed, err.message);
    store_invocation_spec spec = {.campaign_id = 1, .gain_below = 0.05};
    int64_t id;
    store_invocation_before before;
    cr_assert_eq(store_invocation_begin(st, &spec, &id, &before, &err), 0, "%s", err.message);
    cr_assert_eq(store_invocation_end(st, id, "gain_below", &err), 0, "%s", err.message);
    store_close(st);
    cr_assert_eq(cli_db_int(db_path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    cr_assert_eq(cli_db_int(db_path, "SELECT COUNT(*) FROM campaigns"), campaigns);
    cr_assert_eq(cli_db_int(db_path, "SELECT COUNT(*) FROM invocations"), invocations + 1);
    cr_assert_eq(cli_db_int(db_path, "SELECT COUNT(*) FROM invocations WHERE ended = "
                                     "'gain_below' AND gain_below = 0.05"),
                 1);
    cr_assert_eq(cli_db_int(db_path, "SELECT COUNT(*) FROM campaign_spaces"), 0);
    cr_assert_eq(cli_db_int(db_path, "SELECT COUNT(*) FROM space_rejections"), 0);
}

Test(explain, a_version_1_database_comes_forward_to_take_the_new_stop_reason)
{
    migrates("docs/results/correlator-h100.db");
}

Test(explain, a_version_5_database_without_invocations_comes_forward)
{
    migrates("docs/results/beamformer-h200-exhaustive.db");
}
