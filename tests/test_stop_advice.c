/* --stop-when-gain-below end to end: a replay of a committed campaign (the
 * correlator's exhaustive H200 space, 630 configurations) under a random
 * strategy stops once more evaluations are expected to gain less than the
 * fraction asked for; the database records why, and the report says so. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"

static char *tmp_dir;
static char *db_path;
static char *recorded;

static void setup(void)
{
    tmp_dir = cli_make_temp_dir();
    db_path = cli_path(tmp_dir, "advice.db");
    recorded = cli_path(cli_source_dir(), "docs/results/correlator-h200-exhaustive.db");
}

static void teardown(void)
{
    cli_remove_tree(tmp_dir);
    free(tmp_dir);
    free(db_path);
    free(recorded);
}

TestSuite(stop_advice, .init = setup, .fini = teardown);

#define RECORDED_CONFIGURATIONS 630

static cli_result replay(const char *gain_below)
{
    return cli_run(CLI_ARGS("run", "--replay", recorded, "--space", "recorded", "--strategy",
                            "random", "--seed", "3", "--db", db_path, "--stop-when-gain-below",
                            gain_below));
}

Test(stop_advice, a_campaign_stops_once_more_evaluations_would_gain_too_little)
{
    cli_result r = replay("0.01");
    cr_assert_eq(r.status, 0, "%s\n%s\n%s", cli_status_text(r.status), r.out, r.err);
    cr_assert_not_null(strstr(r.out, "expected gain below the threshold"), "%s", r.out);
    /* The last estimate, printed with the summary, is below 1 %. */
    char *advice = cli_line_after(r.out, "more evaluations: ");
    cr_assert_not_null(advice, "%s", r.out);
    double gain = 100;
    cr_assert_neq(strstr(advice, "lower the best time by "), NULL, "%s", advice);
    cr_assert_eq(sscanf(strstr(advice, "by ") + 3, "%lf", &gain), 1, "%s", advice);
    cr_assert_lt(gain, 1.0, "%s", advice);
    free(advice);
    /* Without a terminal, the log said when the estimate fell below 5 %
     * and then below 1 %, once each, before the run stopped. */
    cr_assert_not_null(strstr(r.out, "(below 5 %)"), "%s", r.out);
    const char *below_1 = strstr(r.out, "(below 1 %)");
    cr_assert_not_null(below_1, "%s", r.out);
    cr_assert_null(strstr(below_1 + 1, "(below 1 %)"), "%s", r.out);
    cr_assert_lt(strstr(r.out, "(below 5 %)"), below_1);
    cli_result_free(&r);
    long long evaluated = cli_db_int(db_path, "SELECT COUNT(*) FROM evaluations");
    cr_assert_lt(evaluated, RECORDED_CONFIGURATIONS, "it did not stop early");
    cr_assert_geq(evaluated, 10);
    char *ended = cli_db_text(db_path, "SELECT ended FROM invocations ORDER BY id DESC LIMIT 1");
    cr_assert_str_eq(ended, "gain_below");
    free(ended);
    char *asked = cli_db_text(db_path, "SELECT gain_below FROM invocations ORDER BY id DESC");
    cr_assert_str_eq(asked, "0.01");
    free(asked);
    /* The space was recorded with the campaign: the report's estimate knows
     * what is left. */
    cr_assert_eq(cli_db_int(db_path, "SELECT CAST(valid AS INTEGER) FROM campaign_spaces"),
                 RECORDED_CONFIGURATIONS);

    char *html = cli_path(tmp_dir, "report.html");
    r = cli_run(CLI_ARGS("report", "--db", db_path, "--html", html));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    size_t len;
    char *text = (char *)cli_read_file(html, &len);
    cr_assert_not_null(text);
    cr_assert_not_null(strstr(text, "Its last run stopped there: --stop-when-gain-below 0.01"));
    free(text);
    free(html);
}

Test(stop_advice, a_stricter_threshold_runs_longer)
{
    cli_result r = replay("1%");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    long long loose = cli_db_int(db_path, "SELECT COUNT(*) FROM evaluations");
    /* The same campaign (stopping rules are not settings), continued with a
     * threshold ten times lower: it goes on from where it stopped. */
    r = replay("0.001");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    long long strict = cli_db_int(db_path, "SELECT COUNT(*) FROM evaluations");
    cr_assert_gt(strict, loose);
    cr_assert_eq(cli_db_int(db_path, "SELECT COUNT(*) FROM invocations"), 2);
}

Test(stop_advice, a_threshold_that_is_not_a_fraction_is_refused)
{
    static const char *const bad[] = {"0", "1", "1.5", "-0.1", "abc", "150%", "0.01x"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cli_result r = replay(bad[k]);
        cr_assert_eq(r.status, 2, "%s: %s", bad[k], cli_status_text(r.status));
        cr_assert_not_null(strstr(r.err, "--stop-when-gain-below"), "%s", r.err);
        cli_result_free(&r);
        cr_assert_not(cli_file_exists(db_path), "%s created the database", bad[k]);
    }
}

/* The same spellings as a campaign file's stop_when_gain_below
 * (quantity_fraction): a bad one is refused before anything runs. */
Test(stop_advice, a_threshold_that_is_no_fraction_is_refused)
{
    static const char *const bad[] = {"0", "1", "100%", "-0.1", "1 %", "a little"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cli_result r = replay(bad[k]);
        cr_expect_eq(r.status, 2, "'%s': %s", bad[k], cli_status_text(r.status));
        char said[128];
        snprintf(said, sizeof said,
                 "--stop-when-gain-below '%s' is not a fraction between 0 and 1 (e.g. 0.01, or "
                 "1%%)",
                 bad[k]);
        cr_expect(strstr(r.err, said), "'%s' not in: %s", said, r.err);
        cr_expect(!cli_file_exists(db_path), "'%s' made the database", bad[k]);
        cli_result_free(&r);
    }
}
