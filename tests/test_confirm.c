/* Honest winners end to end on PoCL: the interval of every figure, the
 * verdict on the runner-ups, and the confirmation of the winner at the end
 * of a campaign and later (`skytune confirm`), recorded and shown, with a
 * kernel that crashes during confirmation contained like any measurement.
 * The hostile test plugin (tests/hostile_plugin.c) is the kernel: its
 * configurations x = 0 .. values-1 all pass unless told to misbehave. */
#include <criterion/criterion.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile_harness.h"
#include "median_interval.h"

static char *scratch;

static void make_scratch(void)
{
    scratch = hostile_scratch_open();
}

static void remove_scratch(void)
{
    hostile_scratch_close(scratch);
    scratch = NULL;
}

TestSuite(confirm, .init = make_scratch, .fini = remove_scratch);

/* A campaign of `values` configurations with --runs 3, its other
 * arguments (NULL-terminated) after. */
static cli_result campaign(const char *db, const char *values, const char *const *more)
{
    hostile_args args = {.n = 0};
    hostile_args_add(&args, CLI_ARGS("run", "--plugin", hostile_plugin_path(), "--strategy",
                                     "exhaustive", "--db", db, "--runs", "3", "--set", "fault=none",
                                     "--measure-ahead", "0", "--compile-jobs", "0"));
    char set[32];
    snprintf(set, sizeof set, "values=%s", values);
    hostile_args_add(&args, CLI_ARGS("--set", set));
    if (more) hostile_args_add(&args, more);
    return hostile_run_ok(&args, "campaign");
}

/* On by default: the best 3 of 3 (fewer than K = 5 passed), 5 rounds, one
 * visit each per round, in the campaign's order, linked to the campaign;
 * the summary and `best` say so. */
Test(confirm, a_campaign_confirms_its_winner_by_default)
{
    char *db = cli_path(scratch, "default.db");
    cli_result r = campaign(db, "3", CLI_ARGS("--confirm-rounds", "4"));
    cr_expect(strstr(r.out, "confirmed: the best 3 timed again in 4 interleaved rounds"), "%s",
              r.out);
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmations WHERE campaign_id = 1"), 1);
    cr_expect_eq(cli_db_int(db, "SELECT top * 100 + rounds * 10 + runs FROM confirmations"), 343);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmation_entries"), 3);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmation_visits"), 12);
    /* Interleaved: round by round, each configuration once, in the
     * campaign's order (its place 1 first). */
    char *order = cli_db_text(db, "SELECT group_concat(v.round || ':' || e.campaign_place, ' ')"
                                  " FROM (SELECT * FROM confirmation_visits ORDER BY round, slot) v"
                                  " JOIN confirmation_entries e USING (confirmation_id,"
                                  " configuration_id)");
    cr_expect_str_eq(order, "1:1 1:2 1:3 2:1 2:2 2:3 3:1 3:2 3:3 4:1 4:2 4:3");
    free(order);
    /* Every visit timed its --runs, and the entries' figures are the
     * medians of their visits. */
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmation_visits WHERE status = 'ok'"
                                " AND n_samples = 3 AND median_ns > 0"),
                 12);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmation_entries WHERE ok_visits = 4"
                                " AND confirmed_place BETWEEN 1 AND 3 AND confirmed_median_ns > 0"),
                 3);
    /* The campaign's best is the one ranked first by the campaign. */
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmations cn JOIN"
                                " confirmation_entries e ON e.confirmation_id = cn.id AND"
                                " e.configuration_id = cn.campaign_best_id WHERE e.campaign_place = 1"),
                 1);
    cr_expect_eq(cli_db_int(db, "SELECT changed = (winner_id <> campaign_best_id) FROM"
                                " confirmations"),
                 1);
    r = cli_run(CLI_ARGS("best", "--db", db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "  confirmed  the best 3 timed again in 4 interleaved rounds: "), "%s",
              r.out);
    cli_result_free(&r);
    char *html = cli_path(scratch, "default.html");
    r = cli_run(CLI_ARGS("report", "--db", db, "--html", html));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    char *page = hostile_read_text(html);
    cr_expect(strstr(page, "Confirmation of the winner"), "the report has no confirmation");
    cr_expect(strstr(page, "95 % interval of the median"), "the report has no interval");
    free(page);
    free(html);

    /* The same command again measures nothing new: no second confirmation. */
    r = campaign(db, "3", CLI_ARGS("--confirm-rounds", "4"));
    cr_expect(strstr(r.out, "confirmed: no (confirmed before, and nothing new was measured"),
              "%s", r.out);
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmations"), 1);
    free(db);
}

/* `merge` carries a campaign's confirmation with it, entries and visits
 * mapped to the target's ids; merging the same database again adds
 * nothing. */
Test(confirm, a_merge_carries_the_confirmations)
{
    char *source = cli_path(scratch, "merge-source.db"), *target = cli_path(scratch, "merge-target.db");
    cli_result r = campaign(source, "3", CLI_ARGS("--confirm-rounds", "2"));
    cli_result_free(&r);
    r = campaign(target, "4", CLI_ARGS("--no-confirm"));
    cli_result_free(&r);
    for (int k = 0; k < 2; k++) {
        r = cli_run(CLI_ARGS("merge", target, source));
        cr_assert_eq(r.status, 0, "merge %d: %s\n%s", k + 1, r.out, r.err);
        cli_result_free(&r);
        cr_expect_eq(cli_db_int(target, "SELECT count(*) FROM confirmations"), 1,
                     "after merge %d", k + 1);
        cr_expect_eq(cli_db_int(target, "SELECT count(*) FROM confirmation_entries"), 3);
        cr_expect_eq(cli_db_int(target, "SELECT count(*) FROM confirmation_visits"), 6);
    }
    /* Linked to the merged campaign and to the target's configurations:
     * the same texts as in the source. */
    char *merged = cli_db_text(target,
                               "SELECT group_concat(c.text, ' ') FROM (SELECT cf.text FROM"
                               " confirmation_entries e JOIN confirmations cn ON cn.id ="
                               " e.confirmation_id JOIN campaigns ca ON ca.id = cn.campaign_id"
                               " JOIN configurations cf ON cf.id = e.configuration_id"
                               " WHERE ca.id <> 1 ORDER BY e.campaign_place) c");
    char *original = cli_db_text(source,
                                 "SELECT group_concat(c.text, ' ') FROM (SELECT cf.text FROM"
                                 " confirmation_entries e JOIN configurations cf ON cf.id ="
                                 " e.configuration_id ORDER BY e.campaign_place) c");
    cr_expect_str_eq(merged, original);
    free(merged);
    free(original);
    free(source);
    free(target);
}

Test(confirm, no_confirm_turns_it_off_and_one_configuration_has_nothing_to_confirm)
{
    char *db = cli_path(scratch, "off.db");
    cli_result r = campaign(db, "3", CLI_ARGS("--no-confirm"));
    cr_expect(!strstr(r.out, "confirmed"), "%s", r.out);
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmations"), 0);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmation_visits"), 0);
    free(db);

    db = cli_path(scratch, "one.db");
    r = campaign(db, "1", NULL);
    cr_expect(strstr(r.out, "confirmed: no (one configuration passed verification: nothing to "
                            "confirm)"),
              "%s", r.out);
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmations"), 0);
    free(db);

    /* Bad values name the option and what is valid; nothing is written. */
    db = cli_path(scratch, "bad.db");
    const char *const *bad[] = {CLI_ARGS("--confirm", "1"), CLI_ARGS("--confirm-rounds", "0"),
                                CLI_ARGS("--no-confirm", "--confirm", "3")};
    const char *const needles[][2] = {{"--confirm must be between 2 and 50", NULL},
                                      {"--confirm-rounds must be between 1 and 1000", NULL},
                                      {"--no-confirm contradicts --confirm", NULL}};
    for (size_t k = 0; k < 3; k++) {
        hostile_args args = {.n = 0};
        hostile_args_add(&args, CLI_ARGS("run", "--plugin", hostile_plugin_path(), "--db", db));
        hostile_args_add(&args, bad[k]);
        cli_result refused = cli_run(args.items);
        cr_expect_eq(refused.status, 2, "%s", refused.err);
        cr_expect(strstr(refused.err, needles[k][0]), "%s", refused.err);
        cli_result_free(&refused);
        cr_expect_eq(access(db, F_OK), -1, "the database was created");
    }
    free(db);
}

/* Every ok measurement carries its interval: the order statistics of its
 * own samples, as median_interval_of gives them; three runs cover 75 %. */
Test(confirm, every_measurement_carries_the_interval_of_its_samples)
{
    char *db = cli_path(scratch, "ci.db");
    cli_result r = campaign(db, "4", CLI_ARGS("--no-confirm", "--runs", "7"));
    cli_result_free(&r);
    long long n = cli_db_int(db, "SELECT count(*) FROM measurements WHERE status = 'ok'");
    cr_assert_eq(n, 4);
    for (long long id = 1; id <= n; id++) {
        double x[7];
        for (int run = 0; run < 7; run++) {
            char *t = cli_db_text(db, "SELECT time_ns FROM samples WHERE measurement_id = %lld"
                                      " AND run = %d", id, run);
            x[run] = strtod(t, NULL);
            free(t);
        }
        median_interval ci;
        cr_assert_eq(median_interval_of(x, 7, MEDIAN_INTERVAL_LEVEL, &ci), 0);
        char *low = cli_db_text(db, "SELECT ci_low_ns FROM measurements WHERE id = %lld", id);
        char *high = cli_db_text(db, "SELECT ci_high_ns FROM measurements WHERE id = %lld", id);
        char *coverage = cli_db_text(db, "SELECT ci_coverage FROM measurements WHERE id = %lld", id);
        cr_expect_eq(strtod(low, NULL), ci.low, "measurement %lld", id);
        cr_expect_eq(strtod(high, NULL), ci.high, "measurement %lld", id);
        /* Seven runs: the smallest and largest, 1 - 2/128. */
        cr_expect(fabs(strtod(coverage, NULL) - (1.0 - 2.0 / 128.0)) < 1e-12, "%s", coverage);
        free(low);
        free(high);
        free(coverage);
    }
    r = cli_run(CLI_ARGS("best", "--db", db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, ", 95 % interval "), "%s", r.out);
    cr_expect(strstr(r.out, "(7 runs)"), "%s", r.out);
    cr_expect(strstr(r.out, "  verdict    "), "%s", r.out);
    cli_result_free(&r);
    /* Three runs: the range, and best says it holds the median with only
     * 75 %; three runs each can never be told apart at 95 %. */
    char *few = cli_path(scratch, "few.db");
    r = campaign(few, "3", CLI_ARGS("--no-confirm"));
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(few, "SELECT count(*) FROM measurements WHERE ci_coverage = 0.75"
                                 " AND ci_low_ns = min_ns AND ci_high_ns = max_ns"),
                 3);
    r = cli_run(CLI_ARGS("best", "--db", few));
    cr_expect(strstr(r.out, "holds it with only 75 % (3 runs: too few for 95 %)"), "%s", r.out);
    cr_expect(strstr(r.out, "  verdict    indistinguishable from all 2 of the next 2 at 95 %"),
              "%s", r.out);
    cli_result_free(&r);
    free(few);
    free(db);
}

/* The exports and the query carry the interval. */
Test(confirm, exports_and_queries_carry_the_interval)
{
    char *db = cli_path(scratch, "export.db");
    cli_result r = campaign(db, "3", CLI_ARGS("--no-confirm", "--runs", "6"));
    cli_result_free(&r);
    char *low = cli_db_text(db, "SELECT ci_low_ns FROM measurements m JOIN evaluations e ON"
                                " e.measurement_id = m.id ORDER BY m.median_ns, m.id LIMIT 1");
    r = cli_run(CLI_ARGS("export", "--db", db, "--format", "json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"ci_low_ns\": ") && strstr(r.out, "\"ci_high_ns\": ") &&
                  strstr(r.out, "\"ci_coverage\": 0.96875"),
              "%s", r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("export", "--db", db, "--format", "header"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "double ci_low_ns, ci_high_ns;"), "%s", r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("export", "--db", db, "--format", "t4", "--campaign", "1"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"time_ci_low\"") && strstr(r.out, "\"time_ci_high\""), "%s", r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("query", "top", "--db", db, "--format", "csv"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "ci_low_ns,ci_high_ns,ci_coverage"), "%s", r.out);
    cr_expect(strstr(r.out, low), "the best's ci_low_ns %s is not in:\n%s", low, r.out);
    cli_result_free(&r);
    free(low);
    free(db);
}

/* `skytune confirm` later, from the database alone; a kernel that crashes
 * on its 5th enqueue (never reached by the campaign's --runs 3, reached by
 * confirm's --runs 5) crashes in the measuring worker on every visit: the
 * visits are recorded as crashes, the worker is replaced, and the winner
 * is one of the others. */
Test(confirm, a_crash_during_confirmation_is_contained)
{
    char *db = cli_path(scratch, "crash.db");
    hostile_args args = {.n = 0};
    hostile_args_add(&args, CLI_ARGS("run", "--plugin", hostile_plugin_path(), "--strategy",
                                     "exhaustive", "--db", db, "--runs", "3", "--no-confirm",
                                     "--set", "values=3", "--set", "fault=segv", "--set",
                                     "where=enqueue", "--set", "bad=0", "--set", "nth=5",
                                     "--measure-ahead", "0", "--compile-jobs", "0"));
    cli_result r = hostile_run_ok(&args, "campaign");
    cli_result_free(&r);
    cr_assert_eq(cli_db_int(db, "SELECT count(*) FROM measurements WHERE status = 'ok'"), 3,
                 "the campaign never reaches the 5th enqueue");
    char *plugin_dir = strdup(hostile_plugin_path());
    r = cli_run(CLI_ARGS("confirm", "--db", db, "--campaign", "1", "--top", "3", "--rounds", "2",
                         "--runs", "5", "--plugin-dir", dirname(plugin_dir), "--timeout-floor",
                         "5s"));
    cr_assert_eq(r.status, 0, "confirm: %s\n%s\n%s", cli_status_text(r.status), r.out, r.err);
    cr_expect(strstr(r.out, "(2 visits failed)"), "%s", r.out);
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmation_visits v JOIN configurations c"
                                " ON c.id = v.configuration_id WHERE c.text = 'x=0' AND"
                                " v.status = 'crash' AND v.median_ns IS NULL"),
                 2);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmation_visits WHERE status = 'ok'"),
                 4);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmation_entries e JOIN configurations"
                                " c ON c.id = e.configuration_id WHERE c.text = 'x=0' AND"
                                " e.confirmed_place IS NULL AND e.ok_visits = 0"),
                 1);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM confirmations cn JOIN configurations c ON"
                                " c.id = cn.winner_id WHERE c.text <> 'x=0' AND cn.runs = 5"),
                 1);
    /* The campaign's own rows are as they were. */
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM measurements WHERE status = 'ok'"), 3);
    hostile_assert_database_sound(db);
    free(plugin_dir);

    /* A campaign that is not there is named, with the ids there are. */
    r = cli_run(CLI_ARGS("confirm", "--db", db, "--campaign", "7"));
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "has no campaign 7"), "%s", r.err);
    cli_result_free(&r);
    free(db);
}
