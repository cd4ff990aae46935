/* Two `skytune run` processes on one database at once.
 *
 * The same command twice: both continue one campaign, both exit 0, and
 * between them every configuration is measured exactly once (what one
 * measured the other reuses). Two strategies on one problem at once
 * (exhaustive over part of the space, random over all of it): two
 * campaigns, both done, every configuration either evaluated measured
 * exactly once, whichever campaign met it first. Either way the database
 * passes SQLite's own checks.
 *
 * A claim another host left: taken over at once when its run renewed
 * nothing for the bound, waited on (saying so) while it is fresh, and a
 * live run's heartbeat moves on while it measures. */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile_harness.h"

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

TestSuite(shared_db, .init = make_scratch, .fini = remove_scratch);

typedef struct finished_run {
    int status;
    char *out, *err;
} finished_run;

/* Start both commands, as nearly together as two forks go, and wait for
 * both. */
static void run_both(const hostile_args *a, const hostile_args *b, finished_run *done)
{
    const hostile_args *commands[2] = {a, b};
    pid_t pids[2];
    char *out_paths[2], *err_paths[2];
    for (int k = 0; k < 2; k++) {
        char name[32];
        snprintf(name, sizeof name, "run%d.out", k);
        out_paths[k] = cli_path(scratch, name);
        snprintf(name, sizeof name, "run%d.err", k);
        err_paths[k] = cli_path(scratch, name);
    }
    for (int k = 0; k < 2; k++) pids[k] = cli_start(commands[k]->items, out_paths[k], err_paths[k]);
    for (int k = 0; k < 2; k++) {
        done[k].status = cli_wait(pids[k], CLI_TIMEOUT_S);
        done[k].out = hostile_read_text(out_paths[k]);
        done[k].err = hostile_read_text(err_paths[k]);
        free(out_paths[k]);
        free(err_paths[k]);
    }
    for (int k = 0; k < 2; k++)
        cr_assert_eq(done[k].status, 0,
                     "run %d of two at once ended with %s\nstdout:\n%s\nstderr:\n%s", k,
                     cli_status_text(done[k].status), done[k].out, done[k].err);
}

static void finished_run_free(finished_run *r)
{
    free(r->out);
    free(r->err);
}

/* No configuration has two rows, each row has exactly one evaluation that
 * measured it (cached = 0) — in the campaign recorded as having measured
 * it — and every other evaluation of it is marked as reused. */
static void assert_measured_once(const char *db)
{
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"),
                 cli_db_int(db, "SELECT COUNT(DISTINCT configuration_id) FROM measurements"),
                 "a configuration was measured twice");
    cr_assert_eq(cli_db_int(db,
                            "SELECT COUNT(*) FROM measurements m WHERE"
                            " (SELECT COUNT(*) FROM evaluations e"
                            "  WHERE e.measurement_id = m.id AND e.cached = 0) != 1"
                            " OR NOT EXISTS (SELECT 1 FROM evaluations e"
                            "  WHERE e.measurement_id = m.id AND e.cached = 0"
                            "  AND e.campaign_id = m.campaign_id)"),
                 0, "a measurement was not measured exactly once, by its own campaign");
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status != 'ok'"), 0,
                 "a harmless configuration failed: %s",
                 cli_db_text(db, "SELECT group_concat(status || ': ' || COALESCE(message, ''),"
                                 " char(10)) FROM measurements WHERE status != 'ok'"));
}

static void assert_done(const char *db, long long campaign)
{
    char *status = cli_db_text(db, "SELECT status FROM campaigns WHERE id = %lld", campaign);
    cr_assert_str_eq(status, "done", "campaign %lld is %s", campaign, status);
    free(status);
}

Test(shared_db, same_command_twice_at_once_measures_each_configuration_once)
{
    enum { CONFIGURATIONS = 16 };
    char *db = cli_path(scratch, "same.db");
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--set", "values=16"));
    finished_run runs[2];
    run_both(&args, &args, runs);

    hostile_summary s[2] = {hostile_parse_summary(runs[0].out), hostile_parse_summary(runs[1].out)};
    cr_assert_eq(s[0].campaign, s[1].campaign,
                 "the same command made two campaigns (%lld and %lld)", s[0].campaign,
                 s[1].campaign);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), 1);
    for (int k = 0; k < 2; k++)
        cr_assert_eq(s[k].evaluated, CONFIGURATIONS, "run %d stopped early:\n%s", k, runs[k].out);
    cr_assert_eq(s[0].measured + s[1].measured, CONFIGURATIONS,
                 "the two runs measured %lld and %lld of %d configurations", s[0].measured,
                 s[1].measured, CONFIGURATIONS);
    hostile_assert_each_measured_once(db, s[0].campaign, CONFIGURATIONS);
    assert_measured_once(db);
    assert_done(db, s[0].campaign);
    hostile_assert_database_sound(db);
    for (int k = 0; k < 2; k++) finished_run_free(&runs[k]);
    free(db);
}

Test(shared_db, two_strategies_at_once_measure_the_union_once)
{
    enum { CONFIGURATIONS = 20, EXHAUSTIVE = 10, BUDGET = 8 };
    char *db = cli_path(scratch, "two.db");
    /* Exhaustive over x < 10, random over all 20: they meet on some
     * configurations and each has some of its own. */
    hostile_args exhaustive = hostile_run_args("exhaustive", db);
    hostile_args_add(&exhaustive, CLI_ARGS("--runs", "3", "--seed", "1", "--set", "values=20",
                                           "--restrict", "x < 10"));
    hostile_args random_search = hostile_run_args("random", db);
    hostile_args_add(&random_search, CLI_ARGS("--runs", "3", "--seed", "5", "--set", "values=20",
                                              "--budget", "8"));
    finished_run runs[2];
    run_both(&exhaustive, &random_search, runs);

    hostile_summary s[2] = {hostile_parse_summary(runs[0].out), hostile_parse_summary(runs[1].out)};
    cr_assert_neq(s[0].campaign, s[1].campaign);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), 2);
    cr_assert_eq(s[0].evaluated, EXHAUSTIVE, "%s", runs[0].out);
    cr_assert_eq(s[1].evaluated, BUDGET, "%s", runs[1].out);
    for (int k = 0; k < 2; k++) {
        assert_done(db, s[k].campaign);
        cr_assert_eq(cli_db_int(db,
                                "SELECT COUNT(DISTINCT measurement_id) FROM evaluations"
                                " WHERE campaign_id = %lld",
                                s[k].campaign),
                     s[k].evaluated, "campaign %lld evaluated a configuration twice",
                     s[k].campaign);
        cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE campaign_id = %lld",
                                s[k].campaign),
                     s[k].measured,
                     "campaign %lld says it measured %lld configurations; the database says "
                     "otherwise",
                     s[k].campaign, s[k].measured);
    }
    /* The exhaustive campaign covered x < 10, as restricted. */
    cr_assert_eq(cli_db_int(db,
                            "SELECT COUNT(*) FROM evaluations e"
                            " JOIN measurements m ON m.id = e.measurement_id"
                            " JOIN config_params p ON p.configuration_id = m.configuration_id"
                            " WHERE e.campaign_id = %lld AND p.name = 'x'"
                            " AND CAST(p.value AS INTEGER) < 10",
                            s[0].campaign),
                 EXHAUSTIVE);
    /* The union of what they evaluated is what was measured, once. */
    long long evaluated_union =
        cli_db_int(db, "SELECT COUNT(DISTINCT measurement_id) FROM evaluations");
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), evaluated_union);
    cr_assert_eq(s[0].measured + s[1].measured, evaluated_union,
                 "the runs measured %lld and %lld; they evaluated %lld configurations between "
                 "them",
                 s[0].measured, s[1].measured, evaluated_union);
    cr_assert_geq(evaluated_union, EXHAUSTIVE);
    cr_assert_leq(evaluated_union, EXHAUSTIVE + BUDGET);
    assert_measured_once(db);
    hostile_assert_database_sound(db);
    for (int k = 0; k < 2; k++) finished_run_free(&runs[k]);
    free(db);
}

/* ------------------------------------------------------------ claims */

/* Unix time in seconds, with its fraction. */
#define NOW_SQL "((julianday('now') - 2440587.5) * 86400.0)"

/* A database whose campaign measured x = 0 of four configurations, and a
 * claim on x = 1 as process 4242 of host other-node would have left it,
 * last renewed heartbeat_age_s ago. */
static char *db_with_foreign_claim(const char *name, double heartbeat_age_s)
{
    char *db = cli_path(scratch, name);
    hostile_args first = hostile_run_args("exhaustive", db);
    hostile_args_add(&first, CLI_ARGS("--runs", "3", "--set", "values=4", "--budget", "1"));
    cli_result r = hostile_run_ok(&first, "the first run");
    cli_result_free(&r);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 1);
    char *x0 = cli_db_text(db, "SELECT text FROM configurations");
    cr_assert_str_eq(x0, "x=0", "the configuration texts changed: %s", x0);
    free(x0);
    cr_assert_eq(cli_shell("sqlite3 '%s' \"INSERT INTO claims (plugin_id, device_id, problem_id,"
                           " config_text, campaign_id, pid, host, claimed_at, heartbeat_at)"
                           " SELECT plugin_id, device_id, problem_id, 'x=1', id, 4242,"
                           " 'other-node', %s - 2000, %s - %g"
                           " FROM campaigns\"",
                           db, NOW_SQL, NOW_SQL, heartbeat_age_s),
                 0, "cannot insert the claim");
    return db;
}

static cli_result run_after_claim(const char *db, const char *stale_s, double *took_s)
{
    hostile_args second = hostile_run_args("exhaustive", db);
    hostile_args_add(&second, CLI_ARGS("--runs", "3", "--set", "values=4"));
    char env[64];
    snprintf(env, sizeof env, "SKYTUNE_CLAIM_STALE_S=%s", stale_s);
    double start = hostile_now_s();
    cli_result r = cli_run_env(CLI_ARGS(env), second.items);
    *took_s = hostile_now_s() - start;
    cr_assert_eq(r.status, 0, "the second run ended with %s\nstdout:\n%s\nstderr:\n%s",
                 cli_status_text(r.status), r.out, r.err);
    /* It measured the claimed configuration and the rest, once each. */
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 4, "%s", r.out);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM claims"), 0, "claims were left behind");
    assert_measured_once(db);
    return r;
}

/* A claim whose run has renewed nothing for longer than the bound (another
 * host's: its process cannot be looked at) is taken over at once, and the
 * run says whose it was and when that run was last seen. The default bound
 * (90 s) holds: the claim is some 1000 s silent. */
Test(shared_db, a_silent_claim_of_another_host_is_taken_over_naming_it)
{
    char *db = db_with_foreign_claim("silent.db", 1000);
    double took;
    cli_result r = run_after_claim(db, "", &took);
    cr_expect(strstr(r.err, "configuration x=1 was claimed by process 4242 on host other-node, "
                            "last seen 10"),
              "no notice of the takeover:\n%s", r.err);
    cr_expect(strstr(r.err, "taking it over"), "%s", r.err);
    cr_expect_null(strstr(r.err, "waiting"), "it waited on a dead run's claim:\n%s", r.err);
    cr_expect_lt(took, 60, "the run took %.1f s", took);
    cli_result_free(&r);
    free(db);
}

/* A claim another host renewed a moment ago is waited on, with a notice
 * naming that host and process, until its heartbeat is older than the bound
 * (SKYTUNE_CLAIM_STALE_S, 3 s here); then it is taken over, and the
 * wait is not counted as the configuration's time. */
Test(shared_db, a_live_claim_of_another_host_is_waited_on_then_taken_over)
{
    char *db = db_with_foreign_claim("live.db", 0);
    double took;
    cli_result r = run_after_claim(db, "3", &took);
    const char *wait = strstr(r.err, "configuration x=1 is being measured by process 4242 on "
                                     "host other-node");
    cr_expect(wait, "no notice of the wait:\n%s", r.err);
    const char *takeover = strstr(r.err, "configuration x=1 was claimed by process 4242 on host "
                                         "other-node, last seen 3 s ago");
    cr_expect(takeover, "no notice of the takeover:\n%s", r.err);
    cr_expect(!wait || !takeover || wait < takeover, "%s", r.err);
    cr_expect_geq(took, 2.5, "the claim was taken over after %.1f s, not the bound's 3 s", took);
    /* The wait is not the configuration's time: its engine overhead (and
     * so the estimate the first configuration makes) leaves it out. */
    long long overhead_ms = cli_db_int(db, "SELECT CAST(m.overhead_s * 1000 AS INTEGER) FROM"
                                           " measurements m JOIN configurations c ON c.id ="
                                           " m.configuration_id WHERE c.text = 'x=1'");
    cr_expect_lt(overhead_ms, 1500, "x=1's overhead of %lld ms holds the wait on the claim",
                 overhead_ms);
    cli_result_free(&r);
    free(db);
}

/* The first run's invocation as a run still going (or killed) leaves it:
 * not ended. */
static void leave_invocation_open(const char *db)
{
    cr_assert_eq(cli_shell("sqlite3 '%s' \"UPDATE invocations SET ended = NULL, ended_at = NULL,"
                           " evaluations_after = NULL\"",
                           db),
                 0, "cannot reopen the invocation");
}

/* run_after_claim's second run, with its start printed (not --quiet). */
static cli_result run_told_after_claim(const char *db, const char *stale_s)
{
    char env[64];
    snprintf(env, sizeof env, "SKYTUNE_CLAIM_STALE_S=%s", stale_s);
    cli_result r = cli_run_env(CLI_ARGS(env), CLI_ARGS("run", "--plugin", hostile_plugin_path(),
                                                       "--strategy", "exhaustive", "--db", db,
                                                       "--runs", "3", "--set", "values=4"));
    cr_assert_eq(r.status, 0, "the second run ended with %s\nstdout:\n%s\nstderr:\n%s",
                 cli_status_text(r.status), r.out, r.err);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 4, "%s", r.out);
    assert_measured_once(db);
    return r;
}

/* A run that joins a campaign another run measures now (a claim in it
 * renewed a moment ago) says whose work it shares, and does not take that
 * run's open invocation for a killed one's; a claim silent past the bound
 * is a killed run's, and is told as one. */
Test(shared_db, a_run_joining_a_live_campaign_says_so)
{
    char *db = db_with_foreign_claim("joined.db", 0);
    leave_invocation_open(db);
    cli_result r = run_told_after_claim(db, "3");
    cr_expect(strstr(r.out, "\n  campaign 1 is being measured by process 4242 on host "
                            "other-node; sharing its work\n"),
              "the run does not say it joins a live campaign:\n%s", r.out);
    cr_expect(strstr(r.out, "evaluated before (the last run: --budget 1, still running)"),
              "%s", r.out);
    cr_expect_null(strstr(r.out, "killed before it ended"), "%s", r.out);
    cli_result_free(&r);
    free(db);

    db = db_with_foreign_claim("killed.db", 1000);
    leave_invocation_open(db);
    r = run_told_after_claim(db, "");
    cr_expect_null(strstr(r.out, "is being measured by process"), "%s", r.out);
    cr_expect(strstr(r.out, "evaluated before (the last run: --budget 1, killed before it "
                            "ended)"),
              "%s", r.out);
    cli_result_free(&r);
    free(db);
}

/* The same, end to end: a second run started while the first measures a
 * configuration (it hangs until the watchdog) names the first's process
 * and host at its start. */
Test(shared_db, a_run_started_beside_a_live_one_names_it)
{
    char *db = cli_path(scratch, "beside.db");
#define BESIDE_ARGS                                                                               \
    "run", "--plugin", hostile_plugin_path(), "--strategy", "exhaustive", "--db", db, "--runs",   \
        "3", "--set", "values=2", "--set", "fault=hang", "--set", "where=prepare", "--set",       \
        "bad=0", "--timeout-floor", "20s", "--timeout-cap", "20s"
    char *out_a = cli_path(scratch, "a.out"), *err_a = cli_path(scratch, "a.err");
    char *out_b = cli_path(scratch, "b.out"), *err_b = cli_path(scratch, "b.err");
    pid_t a = cli_start(CLI_ARGS(BESIDE_ARGS, "--quiet"), out_a, err_a);
    double start = hostile_now_s();
    long long claims = 0;
    while (hostile_now_s() - start < 15 && claims == 0) {
        hostile_sleep_ms(100);
        char *row = NULL;
        char msg[256];
        if (cli_db_query(db, "SELECT COUNT(*) FROM claims", &row, msg, sizeof msg) == 0 && row)
            claims = atoll(row);
        free(row);
    }
    cr_assert_gt(claims, 0, "the first run claimed nothing in 15 s:\n%s", hostile_read_text(err_a));
    pid_t b = cli_start(CLI_ARGS(BESIDE_ARGS), out_b, err_b);
#undef BESIDE_ARGS
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char said[512];
    snprintf(said, sizeof said,
             "\n  campaign 1 is being measured by process %lld on host %s; sharing its work\n",
             (long long)a, host);
    char *text = NULL;
    start = hostile_now_s();
    while (hostile_now_s() - start < 15) {
        hostile_sleep_ms(100);
        free(text);
        text = hostile_read_text(out_b);
        if (text && strstr(text, "evaluated before")) break;
    }
    kill(b, SIGINT);
    kill(a, SIGINT);
    cli_wait(b, CLI_TIMEOUT_S);
    cli_wait(a, CLI_TIMEOUT_S);
    free(text);
    text = hostile_read_text(out_b);
    cr_expect(text && strstr(text, said), "the second run does not say '%s':\n%s\n%s", said,
              text ? text : "", hostile_read_text(err_b));
    cr_expect(text && strstr(text, "(the last run: no --budget, still running)"), "%s",
              text ? text : "");
    cr_expect(text && !strstr(text, "killed before it ended"), "%s", text ? text : "");
    free(text);
    free(out_a);
    free(err_a);
    free(out_b);
    free(err_b);
    free(db);
}

/* A live run renews its claims: while the configuration it measures hangs
 * (until the watchdog), its claim's heartbeat moves on every third of the
 * bound (1.2 s here, so every 0.4 s). */
Test(shared_db, a_live_run_renews_its_claim)
{
    char *db = cli_path(scratch, "beat.db");
    hostile_args a = hostile_run_args("exhaustive", db);
    hostile_args_add(&a, CLI_ARGS("--runs", "3", "--set", "values=2", "--set", "fault=hang",
                                  "--set", "where=prepare", "--set", "bad=0", "--timeout-floor",
                                  "20s", "--timeout-cap", "20s"));
    setenv("SKYTUNE_CLAIM_STALE_S", "1.2", 1);
    char *out = cli_path(scratch, "beat.out"), *err = cli_path(scratch, "beat.err");
    pid_t pid = cli_start(a.items, out, err);
    unsetenv("SKYTUNE_CLAIM_STALE_S");
    double start = hostile_now_s(), first_seen = -1, first_beat = 0, last_beat = 0;
    while (hostile_now_s() - start < 15) {
        hostile_sleep_ms(100);
        char *row = NULL;
        char msg[256];
        if (cli_db_query(db, "SELECT claimed_at || ' ' || heartbeat_at FROM claims", &row, msg,
                         sizeof msg) != 0 || !row || !*row) {
            free(row);
            continue;
        }
        double claimed = 0, beat = 0;
        sscanf(row, "%lf %lf", &claimed, &beat);
        free(row);
        if (first_seen < 0) {
            first_seen = hostile_now_s();
            first_beat = beat;
        }
        last_beat = beat;
        if (last_beat - first_beat >= 1.0) break;
    }
    kill(pid, SIGINT);
    cli_wait(pid, CLI_TIMEOUT_S);
    cr_assert_geq(first_seen, 0, "no claim appeared in 15 s:\n%s", hostile_read_text(err));
    cr_expect_geq(last_beat - first_beat, 1.0,
                  "the claim's heartbeat moved %.2f s in %.1f s of measuring",
                  last_beat - first_beat, hostile_now_s() - first_seen);
    free(out);
    free(err);
    free(db);
}
