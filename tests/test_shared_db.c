/* Two `skytune run` processes on one database at once.
 *
 * The same command twice: both continue one campaign, both exit 0, and
 * between them every configuration is measured exactly once (what one
 * measured the other reuses). Two strategies on one problem at once
 * (exhaustive over part of the space, random over all of it): two
 * campaigns, both done, every configuration either evaluated measured
 * exactly once, whichever campaign met it first. Either way the database
 * passes SQLite's own checks. */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
