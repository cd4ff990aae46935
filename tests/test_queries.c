/* The report's named queries against the hand-built fixture database
 * (report_fixture.h), each figure checked against its value worked out by
 * hand from the fixture's table. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measurement.h"
#include "query.h"
#include "report.h"
#include "rank_sum.h"
#include "report_fixture.h"
#include "store.h"
#include "winner_verdict.h"

static char tmp_dir[64];
static char db_path[128];
static store *st;

static void open_fixture(bool with_peaks)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/skytune_test_queries_XXXXXX");
    cr_assert_not_null(mkdtemp(tmp_dir));
    snprintf(db_path, sizeof db_path, "%s/fixture.db", tmp_dir);
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create(db_path, with_peaks, &err), 0, "%s", err.message);
    cr_assert_eq(store_open(db_path, false, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
}

static void setup(void)
{
    open_fixture(true);
}

static void teardown(void)
{
    if (st) store_close(st);
    st = NULL;
    /* The fixture and whatever databases a test opened instead. */
    DIR *dir = opendir(tmp_dir);
    for (struct dirent *e; dir && (e = readdir(dir));) {
        if (e->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
        unlink(path);
    }
    if (dir) closedir(dir);
    rmdir(tmp_dir);
}

TestSuite(queries, .init = setup, .fini = teardown);

/* Run a named query with campaign, plugin and limit (each may be NULL). */
static query_table run(const char *name, const char *campaign, const char *plugin,
                       const char *limit)
{
    const char *params[QUERY_N_PARAMS] = {campaign, plugin, limit};
    query_table t;
    skytune_error err = {0};
    cr_assert_eq(query_run_named(store_handle(st), name, params, QUERY_N_PARAMS, &t, &err), 0,
                 "query %s: %s", name, err.message);
    return t;
}

static const char *cell(const query_table *t, size_t row, const char *column)
{
    cr_assert_lt(row, t->n_rows, "row %zu of %zu", row, t->n_rows);
    cr_assert_lt(query_column(t, column), t->n_cols, "no column %s", column);
    return query_cell(t, row, column);
}

static double number(const query_table *t, size_t row, const char *column)
{
    double v = NAN;
    cell(t, row, column);
    cr_assert(query_number(t, row, column, &v), "column %s row %zu is not a number (%s)", column,
              row, query_cell(t, row, column) ? query_cell(t, row, column) : "NULL");
    return v;
}

static void assert_text(const query_table *t, size_t row, const char *column, const char *want)
{
    const char *got = cell(t, row, column);
    cr_assert(got && strcmp(got, want) == 0, "%s row %zu: '%s', expected '%s'", column, row,
              got ? got : "NULL", want);
}

static void assert_near(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want)), "%s: %.17g, expected %.17g", what,
              got, want);
}

/* First row where `column` is `value`, within a campaign when given. */
static size_t find_row(const query_table *t, const char *campaign, const char *column,
                       const char *value)
{
    for (size_t r = 0; r < t->n_rows; r++) {
        if (campaign && strcmp(query_cell(t, r, "campaign"), campaign) != 0) continue;
        const char *v = query_cell(t, r, column);
        if (v && strcmp(v, value) == 0) return r;
    }
    cr_assert_fail("no row with %s = %s%s%s", column, value, campaign ? " in campaign " : "",
                   campaign ? campaign : "");
    return 0;
}

/* Close the fixture's store and open another database in its folder
 * instead, as st: a new one, or one a fixture function made at path. */
static void open_instead(const char *name, bool create, char *path, size_t len)
{
    store_close(st);
    st = NULL;
    snprintf(path, len, "%s/%s", tmp_dir, name);
    skytune_error err = {0};
    if (!create) cr_assert_eq(report_fixture_create_noisy(path, &err), 0, "%s", err.message);
    cr_assert_eq(store_open(path, create, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
}

#define HOSTILE_CONFIG(wg) "wg=" wg ",mode=" REPORT_FIXTURE_HOSTILE

Test(queries, campaigns_describe_each_campaign_with_its_counts)
{
    query_table t = run("campaigns", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 3);
    assert_text(&t, 0, "plugin", "toy");
    assert_text(&t, 0, "problem", REPORT_FIXTURE_PROBLEM_A);
    assert_text(&t, 0, "seed", "7");
    assert_text(&t, 0, "status", "done");
    assert_near(number(&t, 0, "evaluated"), 6, "campaign 1 evaluated");
    assert_near(number(&t, 0, "ok"), 4, "campaign 1 ok");
    assert_near(number(&t, 0, "failed"), 2, "campaign 1 failed");
    assert_near(number(&t, 2, "measured"), 0, "campaign 3 measured");
    assert_near(number(&t, 2, "reused"), 2, "campaign 3 reused");
    assert_near(number(&t, 0, "peak_gflops"), REPORT_FIXTURE_PEAK_GFLOPS, "peak GFLOP/s");
    /* Each run with its budget; campaign 3's was not recorded. */
    const char *runs = query_cell(&t, 0, "invocations");
    cr_assert(runs && strstr(runs, "Z: --budget 6, 0 → 6 evaluations (budget)"), "%s",
              runs ? runs : "NULL");
    cr_assert_null(query_cell(&t, 2, "invocations"));
    query_table_free(&t);

    t = run("campaigns", "2", NULL, NULL);
    cr_assert_eq(t.n_rows, 1);
    assert_text(&t, 0, "problem", REPORT_FIXTURE_PROBLEM_B);
    query_table_free(&t);
    t = run("campaigns", NULL, "no_such_plugin", NULL);
    cr_assert_eq(t.n_rows, 0);
    query_table_free(&t);
}

Test(queries, top_ranks_each_campaign_by_median_and_its_first_place_is_the_best)
{
    query_table t = run("top", NULL, NULL, NULL);
    /* Campaign 1's four that passed, fastest first. */
    static const char *const order[] = {"wg=64,mode=plain", "wg=128,mode=plain",
                                        "wg=32,mode=plain", HOSTILE_CONFIG("32")};
    static const double medians[] = {500, 800, 1000, 2000};
    for (size_t k = 0; k < 4; k++) {
        assert_text(&t, k, "campaign", "1");
        assert_near(number(&t, k, "place"), (double)k + 1, "place");
        assert_text(&t, k, "configuration", order[k]);
        assert_near(number(&t, k, "median_ns"), medians[k], "median");
        assert_near(number(&t, k, "relative"), 500.0 / medians[k], "relative");
    }
    assert_near(number(&t, 0, "min_ns"), 490, "min of the best");
    assert_near(number(&t, 0, "gflops"), 4000, "GFLOP/s of the best");
    assert_near(number(&t, 0, "evaluation"), 4, "the best was the fourth evaluation");
    size_t r = find_row(&t, "2", "place", "1");
    assert_text(&t, r, "configuration", "wg=128,mode=plain");
    r = find_row(&t, "3", "place", "1");
    assert_text(&t, r, "configuration", "wg=128,mode=plain");
    assert_text(&t, r, "cached", "1");
    query_table_free(&t);

    t = run("top", "2", NULL, "2");
    cr_assert_eq(t.n_rows, 2, "--limit 2 gives 2 rows, not %zu", t.n_rows);
    assert_text(&t, 1, "configuration", "wg=64,mode=plain");
    query_table_free(&t);
}

Test(queries, best_query_agrees_with_top)
{
    query_table t = run("best", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 3);
    assert_text(&t, 0, "configuration", "wg=64,mode=plain");
    assert_text(&t, 1, "configuration", "wg=128,mode=plain");
    query_table_free(&t);
}

Test(queries, time_split_sums_the_phases_of_the_campaigns_own_measurements)
{
    query_table t = run("time-split", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 3);
    assert_near(number(&t, 0, "build_s"), 6.0, "build");
    assert_near(number(&t, 0, "verify_s"), 3.0, "verify");
    assert_near(number(&t, 0, "bench_s"), 1.5, "bench");
    assert_near(number(&t, 0, "overhead_s"), 0.75, "overhead");
    assert_near(number(&t, 0, "total_s"), 11.25, "total");
    assert_near(number(&t, 0, "build_percent"), 100.0 * 6 / 11.25, "build share");
    /* Campaign 3 only reused measurements: it spent nothing. */
    assert_near(number(&t, 2, "measured"), 0, "campaign 3 measured");
    assert_near(number(&t, 2, "total_s"), 0, "campaign 3 total");
    query_table_free(&t);
}

Test(queries, failures_count_each_status_with_its_first_message)
{
    query_table t = run("failures", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 6, "statuses: 3 + 2 + 1 rows, got %zu", t.n_rows);
    assert_text(&t, 0, "status", "ok");
    assert_near(number(&t, 0, "evaluations"), 4, "campaign 1 ok");
    size_t r = find_row(&t, "1", "status", "compile");
    assert_near(number(&t, r, "evaluations"), 1, "campaign 1 compile");
    assert_text(&t, r, "first_message", "error: <b>wg</b> too large & unsupported");
    r = find_row(&t, "1", "status", "wrong_result");
    assert_near(number(&t, r, "percent"), 100.0 / 6, "wrong_result share");
    r = find_row(&t, "2", "status", "compile");
    assert_near(number(&t, r, "evaluations"), 1, "campaign 2 compile");
    query_table_free(&t);
}

Test(queries, by_param_aggregates_each_value)
{
    query_table t = run("by-param", "1", NULL, NULL);
    cr_assert_eq(t.n_rows, 5, "wg has 3 values and mode 2, got %zu rows", t.n_rows);
    /* Parameters in the order of the configuration text, values ascending. */
    assert_text(&t, 0, "parameter", "wg");
    assert_text(&t, 0, "value", "32");
    assert_text(&t, 1, "value", "64");
    assert_text(&t, 2, "value", "128");
    assert_text(&t, 3, "parameter", "mode");
    cr_assert_eq(t.types[0 * t.n_cols + query_column(&t, "value")], QUERY_INTEGER,
                 "wg's values are integers");
    /* wg=32: c1 (1000 ns) and c4 (2000 ns) passed. */
    assert_near(number(&t, 0, "evaluated"), 2, "wg=32 evaluated");
    assert_near(number(&t, 0, "ok"), 2, "wg=32 ok");
    assert_near(number(&t, 0, "best_median_ns"), 1000, "wg=32 best");
    assert_near(number(&t, 0, "geomean_median_ns"), sqrt(1000.0 * 2000.0), "wg=32 geomean");
    assert_near(number(&t, 0, "best_relative"), 0.5, "wg=32 best relative");
    /* wg=64: c2 passed (500 ns, the optimum), c5 did not compile. */
    assert_near(number(&t, 1, "failed"), 1, "wg=64 failed");
    assert_near(number(&t, 1, "compile"), 1, "wg=64 compile");
    assert_near(number(&t, 1, "best_relative"), 1.0, "wg=64 reaches the optimum");
    /* The hostile mode: c4 passed, c5 compile, c6 wrong result. */
    size_t r = find_row(&t, "1", "value", REPORT_FIXTURE_HOSTILE);
    assert_near(number(&t, r, "failed"), 2, "hostile failed");
    assert_near(number(&t, r, "wrong_result"), 1, "hostile wrong_result");
    assert_near(number(&t, r, "failed_percent"), 200.0 / 3, "hostile failed share");
    r = find_row(&t, "1", "value", "plain");
    assert_near(number(&t, r, "geomean_median_ns"), cbrt(1000.0 * 500.0 * 800.0), "plain geomean");
    query_table_free(&t);
}

Test(queries, best_so_far_traces_the_improvements)
{
    query_table t = run("best-so-far", "1", NULL, NULL);
    /* c1 (1000 ns) first, c2 (500 ns) fourth, then the last evaluation. */
    cr_assert_eq(t.n_rows, 3, "%zu rows", t.n_rows);
    static const double evaluation[] = {1, 4, 6}, best[] = {1000, 500, 500},
                        wall[] = {1.875, 7.5, 11.25};
    for (size_t k = 0; k < 3; k++) {
        assert_near(number(&t, k, "evaluation"), evaluation[k], "evaluation");
        assert_near(number(&t, k, "best_median_ns"), best[k], "best so far");
        assert_near(number(&t, k, "wall_s"), wall[k], "wall time");
    }
    assert_text(&t, 1, "configuration", "wg=64,mode=plain");
    assert_text(&t, 2, "improved", "0");
    query_table_free(&t);

    /* Reused evaluations cost the campaign no time. */
    t = run("best-so-far", "3", NULL, NULL);
    assert_near(number(&t, t.n_rows - 1, "wall_s"), 0.0, "campaign 3 wall time");
    query_table_free(&t);
}

Test(queries, evaluations_are_every_evaluation_with_its_status_time_and_wall_time)
{
    query_table t = run("evaluations", "1", NULL, NULL);
    /* Campaign 1 evaluates c1 c4 c5 c2 c6 c3. */
    static const char *const status[] = {"ok", "ok", "compile", "ok", "wrong_result", "ok"};
    static const double median[] = {1000, 2000, NAN, 500, NAN, 800};
    cr_assert_eq(t.n_rows, 6, "%zu rows", t.n_rows);
    for (size_t k = 0; k < 6; k++) {
        assert_near(number(&t, k, "evaluation"), (double)k + 1, "evaluation");
        assert_text(&t, k, "status", status[k]);
        assert_near(number(&t, k, "wall_s"), 1.875 * (double)(k + 1), "wall time");
        assert_near(number(&t, k, "evaluations"), 1, "evaluations in the point");
        if (isnan(median[k]))
            cr_expect_null(cell(&t, k, "median_ns"), "a failed evaluation has a time");
        else
            assert_near(number(&t, k, "median_ns"), median[k], "median");
    }
    query_table_free(&t);
    /* Reused evaluations cost the campaign no time. */
    t = run("evaluations", "3", NULL, NULL);
    cr_assert_eq(t.n_rows, 2);
    assert_near(number(&t, 1, "wall_s"), 0.0, "campaign 3 wall time");
    query_table_free(&t);
}

Test(queries, evaluations_merge_into_cells_past_a_thousand)
{
    char path[160];
    open_instead("long.db", true, path, sizeof path);
    skytune_error err = {0};
    static const char *const names[] = {"k"};
    int64_t device_id, plugin_id, problem_id, campaign_id;
    bool resumed;
    skytune_device_info dev = {.is_gpu = 1};
    snprintf(dev.platform, sizeof dev.platform, "P");
    snprintf(dev.name, sizeof dev.name, "D");
    snprintf(dev.driver_version, sizeof dev.driver_version, "1");
    cr_assert_eq(store_device_id(st, &dev, &device_id, &err), 0, "%s", err.message);
    cr_assert_eq(store_plugin_id(st, "long", "1", "h",
                                 &(store_param_names){.tuning = names, .n_tuning = 1}, &plugin_id,
                                 &err),
                 0, "%s", err.message);
    cr_assert_eq(store_problem_id(st, plugin_id, "", &problem_id, &err), 0, "%s", err.message);
    store_campaign_spec spec = {.plugin_id = plugin_id, .device_id = device_id,
                                .problem_id = problem_id, .strategy = "random", .settings = "",
                                .command = "", .host = "h"};
    cr_assert_eq(store_campaign_open(st, &spec, &campaign_id, &resumed, &err), 0, "%s",
                 err.message);
    /* 1500 evaluations: every tenth fails, the others take 1000 to 1600 ns. */
    enum { N = 1500 };
    for (int k = 0; k < N; k++) {
        measurement m;
        measurement_init(&m);
        if (k % 10 == 9) {
            m.status = MEAS_COMPILE;
        } else {
            double x = 1000 + 100 * (k % 7);
            cr_assert_eq(measurement_set_samples(&m, &x, 1), 0);
        }
        char text[32], value[16];
        snprintf(value, sizeof value, "%d", k);
        snprintf(text, sizeof text, "k=%d", k);
        const char *values[1] = {value};
        int64_t id;
        cr_assert_eq(store_record_measurement(st, campaign_id, k, text, (uint64_t)k + 1, names,
                                              values, 1, &m, &id, &err),
                     0, "%s", err.message);
        measurement_clear(&m);
    }
    query_table t = run("evaluations", NULL, NULL, NULL);
    /* 100 columns of 15 evaluations; in each, the failures are one cell and
     * the times (1000-1600 ns, ln * 4 from 27.6 to 29.5) at most three. */
    cr_expect_leq(t.n_rows, 400, "%zu rows for %d evaluations", t.n_rows, N);
    cr_expect_geq(t.n_rows, 200, "%zu rows", t.n_rows);
    double total = 0, failed = 0;
    for (size_t r = 0; r < t.n_rows; r++) {
        double n = number(&t, r, "evaluations"), e = number(&t, r, "evaluation");
        total += n;
        cr_expect(e >= 1 && e <= N, "evaluation %g", e);
        if (strcmp(cell(&t, r, "status"), "ok") == 0) {
            double ns = number(&t, r, "median_ns");
            cr_expect(ns >= 1000 - 1e-6 && ns <= 1600 + 1e-6, "a cell's time %g", ns);
        } else {
            failed += n;
        }
    }
    assert_near(total, N, "evaluations in all cells");
    assert_near(failed, N / 10, "failed evaluations");
    query_table_free(&t);
    store_close(st);
    st = NULL;
}

Test(queries, noisy_is_a_standard_deviation_above_a_tenth_of_the_median)
{
    char path[160];
    open_instead("noisy.db", false, path, sizeof path);
    /* sd / median: wg=32 58.8 %, wg=64 0.9 %, wg=128 9.5 %, hostile 10.5 %. */
    query_table t = run("top", NULL, NULL, NULL);
    static const char *const noisy_by_place[] = {"1", "0", "0", "1"};
    cr_assert_eq(t.n_rows, 4);
    for (size_t k = 0; k < 4; k++) assert_text(&t, k, "noisy", noisy_by_place[k]);
    assert_text(&t, 0, "configuration", REPORT_FIXTURE_NOISY_BEST);
    assert_near(number(&t, 0, "median_ns"), 3.07e6, "median of the noisy best");
    query_table_free(&t);
    t = run("best", NULL, NULL, NULL);
    assert_text(&t, 0, "noisy", "1");
    query_table_free(&t);
    /* The campaign evaluated them fastest first, so in the same order. */
    t = run("measurements", NULL, NULL, NULL);
    for (size_t k = 0; k < 4; k++) assert_text(&t, k, "noisy", noisy_by_place[k]);
    query_table_free(&t);
    t = run("instances", NULL, NULL, NULL);
    assert_text(&t, 0, "noisy", "1");
    query_table_free(&t);
}

/* The noisy fixture's runs (report_fixture.h) in ns, by place. */
static const double noisy_runs_ns[4][7] = {
    {1.2e6, 1.5e6, 2.9e6, 3.07e6, 3.3e6, 5.4e6, 6.0e6},
    {3.45e6, 3.48e6, 3.5e6, 3.5e6, 3.5e6, 3.52e6, 3.55e6},
    {3.62e6, 4.0e6, 4.38e6},
    {4.0275e6, 4.5e6, 4.9725e6},
};
static const size_t noisy_counts[4] = {7, 7, 3, 3};

/* Every configuration's interval is the order statistics of its runs:
 * seven runs give the whole range at 1 - 2/128 (the 2nd and 6th would hold
 * the median with only 87.5 %), three runs the range at 75 %. */
Test(queries, the_interval_of_each_median_is_the_order_statistics_of_its_runs)
{
    char path[160];
    open_instead("noisy_ci.db", false, path, sizeof path);
    query_table t = run("top", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 4);
    for (size_t k = 0; k < 4; k++) {
        size_t n = noisy_counts[k];
        assert_near(number(&t, k, "ci_low_ns"), noisy_runs_ns[k][0], "lowest run");
        assert_near(number(&t, k, "ci_high_ns"), noisy_runs_ns[k][n - 1], "highest run");
        assert_near(number(&t, k, "ci_coverage"), n == 7 ? 1.0 - 2.0 / 128.0 : 0.75, "coverage");
    }
    query_table_free(&t);
    t = run("best", NULL, NULL, NULL);
    assert_near(number(&t, 0, "ci_low_ns"), 1.2e6, "best's interval");
    assert_near(number(&t, 0, "ci_coverage"), 1.0 - 2.0 / 128.0, "best's coverage");
    query_table_free(&t);
}

/* The verdict tests the best's own runs against each runner-up's own, in
 * place order: its p-values are the rank-sum test's of the fixture's runs,
 * and at 95 % none of the three is told apart from the noisy best. */
Test(queries, the_verdict_tests_the_best_runs_against_each_runner_up)
{
    char path[160];
    open_instead("noisy_verdict.db", false, path, sizeof path);
    winner_verdict v;
    skytune_error err = {0};
    cr_assert_eq(winner_verdict_of(store_handle(st), "1", &v, &err), 0, "%s", err.message);
    cr_assert_eq(v.best_samples, 7);
    cr_assert_eq(v.n, 3);
    for (size_t k = 0; k < 3; k++) {
        const verdict_runner_up *u = &v.runner_ups[k];
        cr_expect_eq(u->place, k + 2);
        cr_expect_eq(u->n_samples, noisy_counts[k + 1]);
        double p = rank_sum_p(noisy_runs_ns[0], 7, noisy_runs_ns[k + 1], noisy_counts[k + 1]);
        cr_expect(fabs(u->p - p) < 1e-12, "place %zu: p %g, expected %g", u->place, u->p, p);
        cr_expect_eq(u->indistinguishable, p >= VERDICT_ALPHA);
    }
    cr_expect_str_eq(v.runner_ups[0].configuration, "wg=64,mode=plain");
    cr_expect_eq(v.indistinguishable, 3, "the noisy best is told apart from none");
    /* A campaign that is not there has no runner-ups. */
    cr_assert_eq(winner_verdict_of(store_handle(st), "9", &v, &err), 0, "%s", err.message);
    cr_expect_eq(v.n, 0);
}

Test(queries, distribution_bins_the_performance_of_the_configurations_that_passed)
{
    query_table t = run("distribution", "1", NULL, NULL);
    cr_assert_eq(t.n_rows, 40);
    assert_text(&t, 0, "metric", "GFLOP/s");
    /* 1000, 2000, 2500 and 4000 GFLOP/s over [1000, 4000] in 40 bins of 75. */
    double total = 0;
    for (size_t r = 0; r < t.n_rows; r++) {
        double n = number(&t, r, "configurations");
        total += n;
        bool filled = r == 0 || r == 13 || r == 20 || r == 39;
        assert_near(n, filled ? 1 : 0, "bin count");
    }
    assert_near(total, 4, "configurations in the histogram");
    assert_near(number(&t, 0, "bin_low"), 1000, "lowest bin");
    assert_near(number(&t, 39, "bin_high"), 4000, "highest bin");
    query_table_free(&t);
}

Test(queries, snr_is_the_optimums_distance_from_the_mean_in_standard_deviations)
{
    query_table t = run("snr", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 3);
    /* Campaign 1: 1000, 2000, 2500, 4000 GFLOP/s: mean 2375, population
     * variance 1171875, optimum 1625 above the mean. */
    double sd = sqrt(1171875.0);
    assert_near(number(&t, 0, "mean"), 2375, "mean");
    assert_near(number(&t, 0, "sd"), sd, "sd");
    assert_near(number(&t, 0, "optimum"), 4000, "optimum");
    assert_near(number(&t, 0, "snr"), 1625 / sd, "snr");
    assert_near(number(&t, 0, "chebyshev_bound"), 1171875.0 / (1625.0 * 1625.0), "bound");
    assert_near(number(&t, 0, "observed_share"), 0.25, "observed share");
    /* Campaign 2: 2000, 3200, 4000, 800, 2000: two lie 1600 from the mean 2400. */
    assert_near(number(&t, 1, "mean"), 2400, "campaign 2 mean");
    assert_near(number(&t, 1, "observed_share"), 0.4, "campaign 2 observed share");
    query_table_free(&t);
}

Test(queries, without_flop_counts_performance_is_runs_per_second)
{
    cr_assert_eq(sqlite3_exec(store_handle(st), "UPDATE measurements SET gflops = NULL", NULL,
                              NULL, NULL),
                 SQLITE_OK);
    query_table t = run("snr", "1", NULL, NULL);
    assert_text(&t, 0, "metric", "runs/s");
    /* 1e9 / (1000, 2000, 800, 500) ns: the same shape, so the same k. */
    assert_near(number(&t, 0, "optimum"), 2e6, "optimum runs/s");
    assert_near(number(&t, 0, "snr"), 1625 / sqrt(1171875.0), "snr");
    query_table_free(&t);

    t = run("fixed-vs-tuned", NULL, NULL, NULL);
    assert_text(&t, 0, "basis", "relative");
    /* c2 scores 500/500 + 2000/2500 = 1.8, the most. */
    assert_text(&t, 0, "fixed_configuration", "wg=64,mode=plain");
    assert_near(number(&t, 0, "fixed_score"), 1.8, "relative score");
    query_table_free(&t);
}

Test(queries, roofline_places_configurations_by_intensity_with_the_peaks)
{
    query_table t = run("roofline", "1", NULL, NULL);
    cr_assert_eq(t.n_rows, 4, "four configurations passed, each in its own cell");
    for (size_t r = 0; r < t.n_rows; r++) {
        assert_near(number(&t, r, "intensity"), 2.0, "FLOP per byte");
        assert_near(number(&t, r, "peak_gbs"), REPORT_FIXTURE_PEAK_GBS, "peak GB/s");
    }
    query_table_free(&t);
}

Test(queries, instances_give_the_best_configuration_per_problem)
{
    query_table t = run("instances", NULL, "toy", NULL);
    cr_assert_eq(t.n_rows, 2);
    assert_text(&t, 0, "problem", REPORT_FIXTURE_PROBLEM_A);
    assert_text(&t, 0, "configuration", "wg=64,mode=plain");
    assert_near(number(&t, 0, "median_ns"), 500, "A's best");
    assert_text(&t, 1, "configuration", "wg=128,mode=plain");
    assert_near(number(&t, 1, "measured"), 6, "B measured");
    assert_near(number(&t, 1, "ok"), 5, "B ok");
    /* Campaign 3 only reused B's measurements; campaign 2 made them. */
    assert_text(&t, 1, "campaigns", "2");
    query_table_free(&t);
}

Test(queries, scaling_follows_the_problem_parameter_that_varies)
{
    query_table t = run("scaling", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 2, "n varies over two instances; batch does not");
    assert_text(&t, 0, "parameter", "n");
    assert_near(number(&t, 0, "x"), 1000, "x of A");
    assert_near(number(&t, 1, "x"), 4000, "x of B");
    assert_near(number(&t, 1, "gflops"), 4000, "B's best GFLOP/s");
    query_table_free(&t);
}

Test(queries, fixed_configuration_maximises_summed_gflops_over_the_instances)
{
    query_table t = run("fixed-vs-tuned", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 2);
    /* Passed on both: c1 4000, c2 7200, c3 6500, c4 1800 summed GFLOP/s. */
    for (size_t r = 0; r < 2; r++) {
        assert_text(&t, r, "fixed_configuration", "wg=64,mode=plain");
        assert_text(&t, r, "basis", "gflops");
        assert_near(number(&t, r, "fixed_score"), 7200, "fixed score");
        assert_near(number(&t, r, "candidates"), 4, "candidates");
        assert_near(number(&t, r, "instances"), 2, "instances");
    }
    assert_text(&t, 0, "tuned_configuration", "wg=64,mode=plain");
    assert_near(number(&t, 0, "speedup"), 1.0, "A: the fixed configuration is A's optimum");
    assert_text(&t, 1, "tuned_configuration", "wg=128,mode=plain");
    assert_near(number(&t, 1, "speedup"), 2500.0 / 2000.0, "B's speedup");
    query_table_free(&t);
}

Test(queries, wisdom_gives_typed_problem_and_configuration)
{
    query_table t = run("wisdom", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 2);
    json_error_t error;
    json_t *problem = json_loads(cell(&t, 0, "problem_values"), 0, &error);
    json_t *config = json_loads(cell(&t, 0, "configuration_values"), 0, &error);
    cr_assert(json_is_object(problem) && json_is_object(config));
    cr_assert_eq(json_integer_value(json_object_get(problem, "n")), 1000);
    cr_assert_eq(json_integer_value(json_object_get(config, "wg")), 64);
    cr_assert_str_eq(json_string_value(json_object_get(config, "mode")), "plain");
    json_decref(problem);
    json_decref(config);
    query_table_free(&t);
}

Test(queries, t4_rows_map_statuses_to_t4_invalidity)
{
    query_table t = run("t4", "1", NULL, NULL);
    cr_assert_eq(t.n_rows, 6);
    assert_text(&t, 0, "invalidity", "correct");
    assert_near(number(&t, 0, "time_ms"), 1000e-6, "median in ms");
    assert_text(&t, 0, "runtimes_ms", "[0.00099,0.001,0.001,0.00101,0.00102]");
    assert_text(&t, 2, "invalidity", "compile");
    assert_text(&t, 4, "invalidity", "correctness");
    assert_near(number(&t, 4, "correctness"), 0, "correctness of a wrong result");
    query_table_free(&t);
}

Test(queries, independence_tells_a_ranking_that_holds_from_one_that_flips)
{
    char grid_path[160];
    snprintf(grid_path, sizeof grid_path, "%s/grid.db", tmp_dir);
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create_grid(grid_path, &err), 0, "%s", err.message);
    store *grid;
    cr_assert_eq(store_open(grid_path, false, STORE_BUSY_TIMEOUT_S, &grid, &err),
                 0, "%s", err.message);
    query_table t;
    const char *params[QUERY_N_PARAMS] = {NULL, NULL, NULL};
    cr_assert_eq(query_run_named(store_handle(grid), "independence", params, QUERY_N_PARAMS, &t,
                                 &err),
                 0, "%s", err.message);
    /* wg across mode: the reference is plain (the fastest configuration's
     * mode), and the three pairs of wg values are compared under fast. */
    size_t a = find_row(&t, "1", "ranked", "wg");
    assert_text(&t, a, "across", "mode");
    assert_near(number(&t, a, "comparisons"), 3, "campaign 1 comparisons");
    assert_near(number(&t, a, "agreement"), 1.0, "campaign 1 agreement");
    assert_near(number(&t, a, "decisive_flips"), 0, "campaign 1 flips");
    assert_text(&t, a, "independent", "1");
    size_t b = find_row(&t, "2", "ranked", "wg");
    assert_near(number(&t, b, "comparisons"), 3, "campaign 2 comparisons");
    assert_near(number(&t, b, "agreement"), 0.0, "campaign 2 agreement");
    assert_near(number(&t, b, "decisive_flips"), 3, "campaign 2 flips");
    assert_text(&t, b, "independent", "0");
    /* mode across wg in campaign 2: plain wins at wg 32 (the reference) and
     * 64, fast at 128: one of two comparisons holds. */
    size_t c = find_row(&t, "2", "ranked", "mode");
    assert_near(number(&t, c, "comparisons"), 2, "mode across wg comparisons");
    assert_near(number(&t, c, "agreement"), 0.5, "mode across wg agreement");
    query_table_free(&t);
    store_close(grid);
}

Test(queries, parts_split_the_best_configurations_run_by_label)
{
    /* Campaign 1's best measurement gets three labelled parts, a slower
     * measurement of the same campaign two others that must not show. */
    query_table best = run("best", "1", NULL, NULL);
    long long best_id = 0;
    {
        sqlite3_stmt *s = NULL;
        cr_assert_eq(sqlite3_prepare_v2(store_handle(st),
                                        "SELECT m.id FROM measurements m JOIN configurations c ON "
                                        "c.id = m.configuration_id WHERE c.text = ?1",
                                        -1, &s, NULL),
                     SQLITE_OK);
        sqlite3_bind_text(s, 1, cell(&best, 0, "configuration"), -1, SQLITE_STATIC);
        cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
        best_id = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    query_table_free(&best);
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO measurement_parts (measurement_id, part, label, median_ns) VALUES "
             "(%lld, 0, 'fir', 100), (%lld, 1, 'transpose', 300), (%lld, 2, 'beamformer', 600);"
             "INSERT INTO measurement_parts (measurement_id, part, label, median_ns) "
             "SELECT e.measurement_id, 0, 'other', 5 FROM evaluations e "
             "WHERE e.campaign_id = 1 AND e.measurement_id <> %lld;",
             best_id, best_id, best_id, best_id);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(store_handle(st), sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg);
    query_table t = run("parts", NULL, NULL, NULL);
    cr_assert_eq(t.n_rows, 3, "only the best configuration's parts: %zu rows", t.n_rows);
    assert_text(&t, 0, "label", "fir");
    assert_text(&t, 1, "label", "transpose");
    assert_text(&t, 2, "label", "beamformer");
    assert_near(number(&t, 0, "percent"), 10.0, "fir share");
    assert_near(number(&t, 1, "percent"), 30.0, "transpose share");
    assert_near(number(&t, 2, "percent"), 60.0, "beamformer share");
    assert_near(number(&t, 2, "measurement"), (double)best_id, "the best measurement");
    query_table_free(&t);
}

Test(queries, every_named_query_runs_on_an_empty_database)
{
    char path[160];
    open_instead("empty.db", true, path, sizeof path);
    for (size_t k = 0; k < query_count(); k++) {
        query_table t = run(query_at(k)->name, "1", NULL, NULL);
        cr_assert_eq(t.n_rows, 0, "%s gives %zu rows", query_at(k)->name, t.n_rows);
        query_table_free(&t);
    }
    store_close(st);
    st = NULL;
}

Test(queries, report_load_refuses_an_empty_scope_naming_it)
{
    report_data d;
    skytune_error err = {0};
    report_options o = {.campaign = "99", .source = db_path};
    cr_assert_neq(report_load(store_handle(st), &o, &d, &err), 0);
    cr_assert(strstr(err.message, "no campaign 99"), "%s", err.message);
    report_options p = {.plugin = "nosuch", .source = db_path};
    cr_assert_neq(report_load(store_handle(st), &p, &d, &err), 0);
    cr_assert(strstr(err.message, "nosuch") && strstr(err.message, "toy"), "%s", err.message);
    report_options all = {.source = db_path};
    cr_assert_eq(report_load(store_handle(st), &all, &d, &err), 0, "%s", err.message);
    cr_assert_eq(d.tables[REPORT_CAMPAIGNS].n_rows, 3);
    cr_assert(d.across);
    cr_assert_eq(d.tables[REPORT_FIXED_VS_TUNED].n_rows, 2);
    report_free(&d);
}
