/* `skytune campaign` and `skytune merge` end to end, on PoCL with the
 * hostile test plugin at fault=none (a quick kernel; its problem parameters
 * `values` and `n` make a two-parameter sweep):
 *
 *  - a sweep runs every instance, resumes after a SIGKILL of the engine,
 *    and `campaign status` reports each instance;
 *  - bad campaign files are refused naming the file, line and key, and no
 *    database is created;
 *  - a campaign sharded three ways and merged has exactly the unsharded
 *    campaign's configurations; merging again changes nothing; a foreign or
 *    newer database is refused and the target left as it was;
 *  - the cross-measurement step measures each instance's best in the other
 *    instances;
 *  - the SLURM scripts hold the job array, the shard of each task, the GPU
 *    request and the dependent merge. */
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

TestSuite(campaign_cli, .init = make_scratch, .fini = remove_scratch);

/* values 4 and 6 (configurations x = 0..values-1), n 1024 and 2048: four
 * instances, twenty configurations in all. */
static char *write_sweep(const char *name, const char *extra)
{
    char text[4096];
    snprintf(text, sizeof text,
             "# two swept problem parameters\n"
             "plugin: %s\n"
             "problem:\n"
             "  values: [4, 6]\n"
             "  n: [1024, 2048]\n"
             "strategy: exhaustive\n"
             "runs: 2\n"
             "%s",
             hostile_plugin_path(), extra ? extra : "");
    char *path = cli_path(scratch, name);
    cli_write_file(path, text, strlen(text));
    return path;
}

static cli_result campaign(const char *const *args)
{
    return cli_run(args);
}

static void expect_ok(const cli_result *r, const char *what)
{
    cr_assert_eq(r->status, 0, "%s: %s\nstdout:\n%s\nstderr:\n%s", what,
                 cli_status_text(r->status), r->out, r->err);
}

/* Every configuration of every instance measured exactly once, ok. */
static void expect_whole_sweep(const char *db)
{
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 20,
                 "4 + 4 + 6 + 6 configurations");
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status <> 'ok'"), 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(DISTINCT problem_id) FROM measurements"), 4);
    /* x < values in each instance, and nothing else. */
    cr_expect_eq(cli_db_int(db,
                            "SELECT COUNT(*) FROM measurements m JOIN problems p ON p.id ="
                            " m.problem_id JOIN configurations c ON c.id = m.configuration_id"
                            " WHERE CAST(substr(c.text, 3) AS INTEGER) >="
                            " CAST(substr(p.text, instr(p.text, 'values=') + 7) AS INTEGER)"),
                 0, "a configuration outside its instance's space was measured");
    hostile_assert_database_sound(db);
}

static size_t occurrences(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *at = strstr(text, what); at; at = strstr(at + 1, what)) n++;
    return n;
}

/* Every unit run names its campaign and the database when it starts and
 * when it ends. */
static void expect_units_name_campaign_and_database(const char *out, const char *db)
{
    char said[4200];
    snprintf(said, sizeof said, "\n  database %s\n", db);
    size_t units = occurrences(out, "== unit ");
    cr_expect_gt(units, 0, "%s", out);
    cr_expect_eq(occurrences(out, "\nstarting campaign ") +
                     occurrences(out, "\ncontinuing campaign "),
                 units, "%s", out);
    cr_expect_eq(occurrences(out, said), 2 * units, "'%s' is not said twice a unit:\n%s", said,
                 out);
    for (const char *end = strstr(out, "\ncampaign "); end; end = strstr(end + 1, "\ncampaign ")) {
        long long id;
        if (sscanf(end, "\ncampaign %lld:", &id) != 1) continue;
        const char *line_end = strchr(end + 1, '\n');
        cr_expect(line_end && strncmp(line_end, said, strlen(said)) == 0,
                  "campaign %lld's summary does not name the database:\n%s", id, out);
    }
}

Test(campaign_cli, sweep_runs_every_instance_resumes_after_a_kill_and_status_reports_it)
{
    char *file = write_sweep("sweep.yaml", NULL);
    char *db = cli_path(scratch, "sweep.db");
    char *out_path = cli_path(scratch, "run.out");
    char *err_path = cli_path(scratch, "run.err");

    /* Before anything ran: every instance remaining, no database made. */
    cli_result st = campaign(CLI_ARGS("campaign", "status", file));
    expect_ok(&st, "status before the run");
    cr_expect(strstr(st.out, "0 done, 0 running or stopped, 4 remaining"), "%s", st.out);
    cr_expect(!cli_file_exists(db), "status created the database");
    cli_result_free(&st);

    /* Killed once it has measured something. */
    pid_t pid = cli_start(CLI_ARGS("campaign", "run", file, "--compile-jobs", "0"), out_path,
                          err_path);
    hostile_wait_for_measurements(pid, db, 3, out_path, err_path);
    int status;
    cr_assert(!cli_poll_exit(pid, &status), "the campaign ended before the kill");
    hostile_process workers[64];
    size_t n_workers = hostile_children(pid, workers, 64);
    kill(pid, SIGKILL);
    cr_assert_eq(cli_wait(pid, 30), CLI_SIGNALED(SIGKILL));
    hostile_wait_until_gone(workers, n_workers, 10.0);
    long long before = hostile_count_measurements(db);
    cr_assert_lt(before, 20, "the kill came after the end");

    st = campaign(CLI_ARGS("campaign", "status", file));
    expect_ok(&st, "status after the kill");
    cr_expect(strstr(st.out, "running"), "the killed instance shows as running:\n%s", st.out);
    cr_expect(strstr(st.out, "remaining"), "later instances show as remaining:\n%s", st.out);
    cli_result_free(&st);

    /* The same command again finishes, measuring nothing twice. */
    cli_result r = campaign(CLI_ARGS("campaign", "run", file, "--compile-jobs", "0"));
    expect_ok(&r, "the resumed campaign");
    cr_expect(strstr(r.out, "4 units done, 0 failed, 0 left"), "%s", r.out);
    expect_units_name_campaign_and_database(r.out, db);
    cli_result_free(&r);
    expect_whole_sweep(db);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns WHERE status = 'done'"), 4);

    st = campaign(CLI_ARGS("campaign", "status", file));
    expect_ok(&st, "status at the end");
    cr_expect(strstr(st.out, "4 done, 0 running or stopped, 0 remaining"), "%s", st.out);
    cr_expect(strstr(st.out, "values=6,n=2048"), "instances are named by their values:\n%s",
              st.out);
    cr_expect(strstr(st.out, "6 evaluated (6 ok, 0 failed)"), "%s", st.out);
    cr_expect(strstr(st.out, "best so far x="), "%s", st.out);
    cli_result_free(&st);

    /* Running it once more measures nothing. */
    r = campaign(CLI_ARGS("campaign", "run", file, "--compile-jobs", "0"));
    expect_ok(&r, "a third run");
    cr_expect_eq(hostile_count_measurements(db), 20);
    cli_result_free(&r);

    st = campaign(CLI_ARGS("campaign", "status", "--db", db));
    expect_ok(&st, "status of a database");
    cr_expect(strstr(st.out, "values=4,n=1024"), "%s", st.out);
    cli_result_free(&st);
    free(file);
    free(db);
    free(out_path);
    free(err_path);
}

/* Each bad file: exit 1, the message names file:line and the key, and the
 * database the file names is not created. */
Test(campaign_cli, bad_campaign_files_are_refused_with_file_line_and_key)
{
    struct {
        const char *extra, *expect;
        bool replace_plugin;
    } cases[] = {
        {"budget: 10\nbugdet: 5\n", "sweep.yaml:9: key 'bugdet': unknown key", false},
        {"only:\n  x: [1, ..., 3]\n", "sweep.yaml:9: key 'only': instance values=4,n=1024: --only", false},
        {"only:\n  y: [1]\n", "sweep.yaml:9: key 'only.y': plugin hostile has no tuning parameter 'y'", false},
        {"only:\n  x: [5000]\n", "key 'only'", false},
        {"strategy_options:\n  popsize: 3\n", "sweep.yaml:9: key 'strategy_options'", false},
        {"stop_when_gain_below: 1.5\n",
         "sweep.yaml:8: key 'stop_when_gain_below': '1.5' is not a fraction between 0 and 1 (e.g. "
         "0.01, or 1%)", false},
        {"transfers: sometimes\n", "sweep.yaml:8: key 'transfers': 'sometimes' is not true or false",
         false},
        {"transfers: true\n",
         "sweep.yaml:8: key 'transfers': plugin hostile names no host-device transfers", false},
    };
    char *db = cli_path(scratch, "sweep.db");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *file = write_sweep("sweep.yaml", cases[k].extra);
        cli_result r = campaign(CLI_ARGS("campaign", "run", file));
        cr_expect_eq(r.status, 1, "case %zu: %s\n%s", k, cli_status_text(r.status), r.err);
        cr_expect(strstr(r.err, cases[k].expect), "case %zu: '%s' not in:\n%s", k,
                  cases[k].expect, r.err);
        cr_expect(!cli_file_exists(db), "case %zu created the database", k);
        cli_result_free(&r);
        free(file);
    }

    /* The problem: an unknown parameter, a value outside the plugin's
     * checks (at the value's own line), an unknown plugin. */
    struct {
        const char *text, *expect;
    } files[] = {
        {"plugin: %s\nproblem:\n  values: [4]\n  sizes: [1]\n",
         "bad.yaml:4: key 'problem.sizes': plugin hostile has no problem parameter 'sizes'"},
        {"plugin: %s\nproblem:\n  values:\n    - 4\n    - 5000\n",
         "bad.yaml:5: key 'problem.values': "},
        {"plugin: %s-missing.so\n", "bad.yaml:1: key 'plugin':"},
        {"plugin: %s\nproblem:\n  values: [2, 4, 8, ..., 100]\n",
         "bad.yaml:3: key 'problem.values': 100 is not a term"},
    };
    char *bad = cli_path(scratch, "bad.yaml");
    char *bad_db = cli_path(scratch, "bad.db");
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char text[4096];
        snprintf(text, sizeof text, files[k].text, hostile_plugin_path());
        cli_write_file(bad, text, strlen(text));
        cli_result r = campaign(CLI_ARGS("campaign", "run", bad));
        cr_expect_eq(r.status, 1, "file %zu: %s", k, cli_status_text(r.status));
        cr_expect(strstr(r.err, files[k].expect), "file %zu: '%s' not in:\n%s", k,
                  files[k].expect, r.err);
        cr_expect(!cli_file_exists(bad_db), "file %zu created the database", k);
        cli_result_free(&r);
    }

    char *missing = cli_path(scratch, "missing.yaml");
    cli_result r = campaign(CLI_ARGS("campaign", "run", missing));
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "missing.yaml") && strstr(r.err, "No such file"), "%s", r.err);
    cli_result_free(&r);

    /* A database that exists is left as it was. */
    char *file = write_sweep("sweep.yaml", "only:\n  x: [1, 2]\n");
    r = campaign(CLI_ARGS("campaign", "run", file, "--compile-jobs", "0"));
    expect_ok(&r, "a good campaign");
    cli_result_free(&r);
    cli_snapshot snap = cli_snapshot_take(db);
    char *broken = write_sweep("sweep.yaml", "only:\n  x: [1, 2]\nruns: none\n");
    r = campaign(CLI_ARGS("campaign", "run", broken));
    cr_expect_eq(r.status, 1);
    const char *diff = cli_snapshot_difference(&snap);
    cr_expect(diff == NULL, "the database changed: %s", diff);
    cli_snapshot_free(&snap);
    cli_result_free(&r);
    free(broken);
    free(file);
    free(missing);
    free(bad);
    free(bad_db);
    free(db);
}

/* stop_when_gain_below ends each instance's run as --stop-when-gain-below
 * does, and is recorded with the run; transfers times the plugin's copies
 * as parts of every run, as --transfers does. */
Test(campaign_cli, the_files_stop_rule_and_transfers_reach_every_run)
{
    /* 40 configurations an instance: after the 10 evaluations the estimate
     * needs, a campaign as long again cannot be expected to gain half. */
    char text[4096];
    snprintf(text, sizeof text,
             "plugin: %s\nproblem:\n  values: 40\n  n: [1024, 2048]\nstrategy: random\n"
             "runs: 2\nstop_when_gain_below: 50%%\n",
             hostile_plugin_path());
    char *file = cli_path(scratch, "stop.yaml");
    cli_write_file(file, text, strlen(text));
    char *db = cli_path(scratch, "stop.db");
    cli_result r = campaign(CLI_ARGS("campaign", "run", file, "--compile-jobs", "0"));
    expect_ok(&r, "the campaign with a stop rule");
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM invocations"), 2, "one run per instance");
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM invocations WHERE ended = 'gain_below' AND "
                                "gain_below = 0.5"),
                 2, "a run did not stop on the expected gain");
    long long most = cli_db_int(db, "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM evaluations "
                                    "GROUP BY campaign_id)");
    cr_expect(most >= 10 && most < 40, "an instance made %lld evaluations of 40", most);
    free(db);
    free(file);

    snprintf(text, sizeof text,
             "plugin: vector_add\npreset: small\nonly:\n  wg_size: [64]\n  per_item: [1, 2]\n"
             "strategy: exhaustive\nruns: 2\ntransfers: yes\n");
    file = cli_path(scratch, "transfers.yaml");
    cli_write_file(file, text, strlen(text));
    db = cli_path(scratch, "transfers.db");
    r = campaign(CLI_ARGS("campaign", "run", file, "--plugin-dir", cli_plugin_dir(),
                          "--compile-jobs", "0"));
    expect_ok(&r, "the campaign with transfers");
    cli_result_free(&r);
    char *versions = cli_db_text(db, "SELECT group_concat(DISTINCT p.version) FROM measurements m "
                                     "JOIN plugins p ON p.id = m.plugin_id");
    cr_expect_str_eq(versions, "1.0+transfers");
    free(versions);
    char *parts = cli_db_text(db, "SELECT group_concat(label, ' ') FROM (SELECT label FROM "
                                  "measurement_parts WHERE measurement_id = (SELECT MIN(id) FROM "
                                  "measurements) ORDER BY part)");
    cr_expect_str_eq(parts, "upload a upload b vector_add download c");
    free(parts);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), 2);
    free(db);
    free(file);
}

/* (problem, configuration, status) of every measurement, one per line. */
static char *measured_set(const char *db)
{
    return cli_db_text(db, "SELECT group_concat(line, char(10)) FROM (SELECT p.text || ' ' ||"
                           " c.text || ' ' || m.status AS line FROM measurements m"
                           " JOIN problems p ON p.id = m.problem_id"
                           " JOIN configurations c ON c.id = m.configuration_id ORDER BY line)");
}

/* Every problem's parameters (problem_params), by its text. */
static char *problem_params_text(const char *db)
{
    return cli_db_text(db, "SELECT group_concat(line, ' ') FROM (SELECT pr.text || ':' ||"
                           " pp.position || ':' || pp.name || '=' || pp.value AS line"
                           " FROM problem_params pp JOIN problems pr ON pr.id = pp.problem_id"
                           " ORDER BY line)");
}

/* Everything merging could change, to show a second merge changes nothing. */
static char *database_text(const char *db)
{
    return cli_db_text(db,
                       "SELECT (SELECT COUNT(*) FROM campaigns) || '/' ||"
                       " (SELECT COUNT(*) FROM measurements) || '/' ||"
                       " (SELECT COUNT(*) FROM samples) || '/' ||"
                       " (SELECT COUNT(*) FROM evaluations) || '/' ||"
                       " (SELECT COUNT(*) FROM duplicate_measurements) || '/' ||"
                       " (SELECT COUNT(*) FROM invocations) || '/' ||"
                       " (SELECT group_concat(campaign_id || ':' || seq || ':' ||"
                       " measurement_id || ':' || cached) FROM evaluations)");
}

Test(campaign_cli, three_shards_merged_equal_the_unsharded_campaign)
{
    char *file = write_sweep("sweep.yaml", NULL);
    char *whole = cli_path(scratch, "whole.db");
    cli_result r = campaign(CLI_ARGS("campaign", "run", file, "--db", whole, "--compile-jobs", "0",
                                     "--quiet"));
    expect_ok(&r, "the unsharded campaign");
    cli_result_free(&r);

    char *shard_dbs[3];
    for (int i = 0; i < 3; i++) {
        char shard[16], name[64];
        snprintf(shard, sizeof shard, "%d/3", i);
        r = campaign(CLI_ARGS("campaign", "run", file, "--shard", shard, "--compile-jobs", "0",
                              "--quiet"));
        expect_ok(&r, "a shard");
        cli_result_free(&r);
        snprintf(name, sizeof name, "sweep.shard-%d-of-3.db", i);
        shard_dbs[i] = cli_path(scratch, name);
        cr_assert(cli_file_exists(shard_dbs[i]), "shard %d wrote no %s", i, name);
        /* Disjoint: no shard holds what another does. */
        for (int j = 0; j < i; j++) {
            char *a = measured_set(shard_dbs[i]), *b = measured_set(shard_dbs[j]);
            for (char *line = strtok(a, "\n"); line; line = strtok(NULL, "\n"))
                cr_expect(!strstr(b, line), "shards %d and %d both measured %s", i, j, line);
            free(a);
            free(b);
        }
    }
    char *merged = cli_path(scratch, "merged.db");
    r = campaign(CLI_ARGS("merge", merged, shard_dbs[0], shard_dbs[1], shard_dbs[2]));
    expect_ok(&r, "merging the shards");
    cli_result_free(&r);
    char *want = measured_set(whole), *got = measured_set(merged);
    cr_expect_str_eq(got, want, "the merged shards measured another set than the whole run");
    expect_whole_sweep(merged);
    /* The problems came with their parameters. */
    char *want_params = problem_params_text(whole), *got_params = problem_params_text(merged);
    cr_expect(strstr(want_params, ":values="), "%s", want_params);
    cr_expect_str_eq(got_params, want_params);
    free(want_params);
    free(got_params);
    /* Every shard's runs came with their campaigns, under the same command. */
    long long shard_invocations = 0;
    for (int i = 0; i < 3; i++)
        shard_invocations += cli_db_int(shard_dbs[i], "SELECT COUNT(*) FROM invocations");
    cr_expect_gt(shard_invocations, 0);
    cr_expect_eq(cli_db_int(merged, "SELECT COUNT(*) FROM invocations i JOIN campaigns c"
                                    " ON c.id = i.campaign_id WHERE i.command = c.command"
                                    " AND i.command LIKE '%%--shard %%/3 %%' AND i.ended IS NOT NULL"),
                 shard_invocations);
    cr_expect_eq(cli_db_int(merged, "SELECT COUNT(*) FROM invocations"), shard_invocations);

    /* Merging again changes nothing. */
    char *once = database_text(merged);
    r = campaign(CLI_ARGS("merge", merged, shard_dbs[0], shard_dbs[1], shard_dbs[2]));
    expect_ok(&r, "merging the shards again");
    cr_expect(strstr(r.out, "0 campaigns, 0 measurements, 0 duplicates, 0 evaluations added"),
              "%s", r.out);
    cli_result_free(&r);
    char *twice = database_text(merged);
    cr_expect_str_eq(twice, once, "a second merge changed the database");

    /* The whole run merged in: its measurements are duplicates, kept whole;
     * again, nothing. */
    r = campaign(CLI_ARGS("merge", merged, whole));
    expect_ok(&r, "merging the whole run");
    cr_expect(strstr(r.out, "20 duplicates"), "%s", r.out);
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(merged, "SELECT COUNT(*) FROM measurements"), 20);
    cr_expect_eq(cli_db_int(merged, "SELECT COUNT(*) FROM duplicate_measurements"), 20);
    cr_expect_eq(cli_db_int(merged, "SELECT COUNT(*) FROM duplicate_samples"), 40,
                 "every duplicate keeps its 2 samples");
    char *before = database_text(merged);
    r = campaign(CLI_ARGS("merge", merged, whole));
    expect_ok(&r, "merging the whole run again");
    cli_result_free(&r);
    char *after = database_text(merged);
    cr_expect_str_eq(after, before);
    hostile_assert_database_sound(merged);

    /* A newer and a foreign database are refused; the target is as it was. */
    char *newer = cli_path(scratch, "newer.db");
    unsigned char *bytes;
    size_t len;
    bytes = cli_read_file(whole, &len);
    cli_write_file(newer, bytes, len);
    free(bytes);
    char sql_err[256];
    char *ignored = NULL;
    cli_db_query(newer, "SELECT 1", &ignored, sql_err, sizeof sql_err);
    free(ignored);
    /* user_version is bytes 60..63 of the header, big-endian. */
    bytes = cli_read_file(newer, &len);
    bytes[60] = 0, bytes[61] = 0, bytes[62] = 0, bytes[63] = 99;
    cli_write_file(newer, bytes, len);
    free(bytes);
    char *foreign = cli_path(scratch, "foreign.db");
    cli_write_file(foreign, "SQLite format 3", 16);
    cli_snapshot snap = cli_snapshot_take(merged);
    r = campaign(CLI_ARGS("merge", merged, newer));
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "schema version 99, newer than this skytune's"), "%s", r.err);
    cli_result_free(&r);
    r = campaign(CLI_ARGS("merge", merged, foreign));
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "foreign.db"), "%s", r.err);
    cli_result_free(&r);
    const char *diff = cli_snapshot_difference(&snap);
    cr_expect(diff == NULL, "a refused merge changed the target: %s", diff);
    cli_snapshot_free(&snap);

    for (int i = 0; i < 3; i++) free(shard_dbs[i]);
    free(want);
    free(got);
    free(once);
    free(twice);
    free(before);
    free(after);
    free(newer);
    free(foreign);
    free(merged);
    free(whole);
    free(file);
}

Test(campaign_cli, cross_measurement_measures_each_best_in_every_other_instance)
{
    /* Two instances, each with its own fastest configuration: after the
     * cross step each instance has measured the other's. values=6's best two
     * include at least one configuration of values=5's space (only x=5 is
     * not), so both instances have a cross run. */
    char text[1024];
    snprintf(text, sizeof text,
             "plugin: %s\nproblem:\n  values: [5, 6]\nstrategy: exhaustive\nruns: 2\n"
             "cross: {top: 2}\n",
             hostile_plugin_path());
    char *file = cli_path(scratch, "cross.yaml");
    cli_write_file(file, text, strlen(text));
    char *db = cli_path(scratch, "cross.db");
    cli_result r = campaign(CLI_ARGS("campaign", "run", file, "--compile-jobs", "0", "--quiet"));
    expect_ok(&r, "the campaign with its cross step");
    cr_expect(strstr(r.out, "cross-measurement done"), "%s", r.out);
    cli_result_free(&r);
    /* Two search campaigns and two cross campaigns. */
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns WHERE settings LIKE"
                                " '%%;configs=%%'"),
                 2);
    /* Every cross campaign evaluated only configurations that are another
     * instance's top two and lie in its own space, each reused (measured
     * by the sweep already, every configuration being measured there). */
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations e JOIN campaigns c ON"
                                " c.id = e.campaign_id WHERE c.settings LIKE '%%;configs=%%'"
                                " AND e.cached = 0"),
                 0);
    cr_expect_gt(cli_db_int(db, "SELECT COUNT(*) FROM evaluations e JOIN campaigns c ON"
                                " c.id = e.campaign_id WHERE c.settings LIKE '%%;configs=%%'"),
                 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 11,
                 "the cross step measured nothing the sweep had not");
    /* The fixed-vs-tuned query now has both instances. */
    r = campaign(CLI_ARGS("query", "--db", db, "fixed-vs-tuned"));
    expect_ok(&r, "the fixed-vs-tuned query");
    cr_expect(strstr(r.out, "values=5") && strstr(r.out, "values=6"), "%s", r.out);
    cli_result_free(&r);

    /* Running it again adds nothing. */
    long long campaigns = cli_db_int(db, "SELECT COUNT(*) FROM campaigns");
    r = campaign(CLI_ARGS("campaign", "run", file, "--compile-jobs", "0", "--quiet"));
    expect_ok(&r, "the campaign again");
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), campaigns);
    free(file);
    free(db);
}

Test(campaign_cli, slurm_placement_of_device_entries_makes_one_array_each)
{
    char *file = write_sweep("placed.yaml",
                             "devices:\n"
                             "  - {device: pthread, slurm: {constraint: cpu-a, gres: none}}\n"
                             "  - {device: Portable, slurm: {constraint: cpu-b, partition: b}}\n"
                             "slurm: {partition: main}\n");
    char *out_dir = cli_path(scratch, "placed");
    cli_result r = campaign(CLI_ARGS("campaign", "slurm", file, "--shards", "3", "--out", out_dir));
    cr_expect_eq(r.status, 1, "a shard across two placements is refused:\n%s", r.out);
    cr_expect(strstr(r.err, "key 'devices': with 3 shards, shard 0 runs on device entries "
                            "'pthread' and 'Portable'") &&
                  strstr(r.err, "give --shards a multiple of the 2 device entries"),
              "%s", r.err);
    cli_result_free(&r);
    r = campaign(CLI_ARGS("campaign", "slurm", file, "--shards", "4", "--out", out_dir));
    expect_ok(&r, "one array per placement");
    cli_result_free(&r);
    char *paths[3] = {cli_path(out_dir, "array-1.sbatch"), cli_path(out_dir, "array-2.sbatch"),
                      cli_path(out_dir, "submit.sh")};
    char *a1 = hostile_read_text(paths[0]), *a2 = hostile_read_text(paths[1]),
         *submit = hostile_read_text(paths[2]);
    cr_expect(strstr(a1, "#SBATCH --array=0,2\n") && strstr(a1, "--constraint=cpu-a") &&
                  strstr(a1, "--partition=main") && !strstr(a1, "--gres"),
              "%s", a1);
    cr_expect(strstr(a2, "#SBATCH --array=1,3\n") && strstr(a2, "--constraint=cpu-b") &&
                  strstr(a2, "--partition=b") && strstr(a2, "--gres=gpu:1"),
              "%s", a2);
    cr_expect(strstr(submit, "array-1.sbatch") && strstr(submit, "array-2.sbatch"), "%s", submit);
    for (int k = 0; k < 3; k++) free(paths[k]);
    free(a1);
    free(a2);
    free(submit);
    free(out_dir);
    free(file);
}

Test(campaign_cli, slurm_scripts_hold_the_array_the_shards_and_the_merge)
{
    char *file = write_sweep("sweep.yaml",
                             "cross: {top: 1}\n"
                             "slurm:\n  partition: gpu\n  gres: 'gpu:h100:1'\n"
                             "  time: '02:00:00'\n  sbatch: ['--exclusive']\n");
    char *out_dir = cli_path(scratch, "jobs");
    cli_result r = campaign(CLI_ARGS("campaign", "slurm", file, "--shards", "3", "--out", out_dir));
    expect_ok(&r, "writing the scripts");
    cr_expect(strstr(r.out, "submit.sh"), "%s", r.out);
    cli_result_free(&r);
    char *array_path = cli_path(out_dir, "array.sbatch");
    char *merge_path = cli_path(out_dir, "merge.sbatch");
    char *submit_path = cli_path(out_dir, "submit.sh");
    char *array = hostile_read_text(array_path);
    char *merge = hostile_read_text(merge_path);
    char *submit = hostile_read_text(submit_path);
    const char *in_array[] = {"#SBATCH --array=0-2", "#SBATCH --gres=gpu:h100:1",
                              "#SBATCH --partition=gpu", "#SBATCH --time=02:00:00",
                              "#SBATCH --exclusive", "campaign run",
                              "--shard \"$SLURM_ARRAY_TASK_ID/3\"", "#SBATCH --requeue",
                              "#SBATCH --signal=B:USR1@", "#SBATCH --open-mode=append",
                              "exec "};
    for (size_t k = 0; k < sizeof in_array / sizeof in_array[0]; k++)
        cr_expect(strstr(array, in_array[k]), "'%s' not in array.sbatch:\n%s", in_array[k], array);
    cr_expect(strstr(array, cli_exe()), "the job runs this skytune:\n%s", array);
    const char *in_merge[] = {" campaign merge ", "sweep.yaml", "--shards 3", "campaign cross",
                              "#SBATCH --gres=gpu:h100:1"};
    for (size_t k = 0; k < sizeof in_merge / sizeof in_merge[0]; k++)
        cr_expect(strstr(merge, in_merge[k]), "'%s' not in merge.sbatch:\n%s", in_merge[k], merge);
    cr_expect(strstr(submit, "--dependency=afterany$arrays") && strstr(submit, "sbatch --parsable"),
              "the merge runs however the shards ended, to say which failed:\n%s", submit);
    /* The shard databases the merge names are those `campaign run --shard`
     * writes. */
    r = campaign(CLI_ARGS("campaign", "run", file, "--shard", "1/3", "--compile-jobs", "0",
                          "--quiet"));
    expect_ok(&r, "shard 1 of 3");
    cli_result_free(&r);
    char *shard1 = cli_path(scratch, "sweep.shard-1-of-3.db");
    cr_expect(cli_file_exists(shard1));
    /* The campaign-aware merge refuses missing shards, naming them, and
     * merges nothing. */
    char *merged = cli_path(scratch, "merged.db");
    r = campaign(CLI_ARGS("campaign", "merge", file, "--shards", "3", "--db", merged));
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "2 of 3 shards missing") && strstr(r.err, "shard 0: no database") &&
                  strstr(r.err, "shard 2: no database") && !strstr(r.err, "shard 1:"),
              "%s", r.err);
    cr_expect(!cli_file_exists(merged), "an incomplete merge writes nothing");
    cli_result_free(&r);
    /* A shard's database that holds none of the shard's work is unfinished. */
    char *shard0 = cli_path(scratch, "sweep.shard-0-of-3.db");
    cr_assert_eq(cli_shell("cp %s %s", shard1, shard0), 0);
    r = campaign(CLI_ARGS("campaign", "merge", file, "--shards", "3", "--db", merged));
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "shard 0: instance values=4,n=1024 not started"), "%s", r.err);
    cli_result_free(&r);
    /* A database of another campaign (another seed) does not belong. */
    char *other = write_sweep("sweep-seed.yaml", "seed: 9\ndatabase: sweep.db\n");
    r = campaign(CLI_ARGS("campaign", "merge", other, "--shards", "3", "--db", merged));
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "shard 1: ") && strstr(r.err, "does not belong to") &&
                  strstr(r.err, "seed 1"),
              "%s", r.err);
    cr_expect(!cli_file_exists(merged));
    cli_result_free(&r);
    unlink(shard0);
    free(shard0);
    free(other);
    free(merged);
    /* A shard count that cannot be met is refused. */
    char *random_file = cli_path(scratch, "random.yaml");
    char text[1024];
    snprintf(text, sizeof text, "plugin: %s\nproblem:\n  values: [3, 5]\nstrategy: random\n",
             hostile_plugin_path());
    cli_write_file(random_file, text, strlen(text));
    r = campaign(CLI_ARGS("campaign", "slurm", random_file, "--shards", "3", "--out", out_dir));
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "at most 2 shards"), "%s", r.err);
    cli_result_free(&r);
    free(random_file);
    free(shard1);
    free(array);
    free(merge);
    free(submit);
    free(array_path);
    free(merge_path);
    free(submit_path);
    free(out_dir);
    free(file);
}

/* An exhaustive campaign of one instance split between two shards: with
 * only shard 0 run and merged, the merged database's status says the
 * instance is incomplete, names shard 1/2 as missing and counts what of the
 * space is measured; once shard 1 is merged too, it is done. */
Test(campaign_cli, status_tells_a_split_instance_missing_a_shard_from_a_done_one)
{
    char text[1024];
    snprintf(text, sizeof text,
             "plugin: %s\nproblem:\n  values: 6\nstrategy: exhaustive\nruns: 2\n",
             hostile_plugin_path());
    char *file = cli_path(scratch, "split.yaml");
    cli_write_file(file, text, strlen(text));
    char *merged = cli_path(scratch, "split-merged.db");
    char *shard_db[2];
    for (int i = 0; i < 2; i++) {
        char name[64];
        snprintf(name, sizeof name, "split.shard-%d-of-2.db", i);
        shard_db[i] = cli_path(scratch, name);
    }

    cli_result r = campaign(CLI_ARGS("campaign", "run", file, "--shard", "0/2", "--compile-jobs",
                                     "0", "--quiet"));
    expect_ok(&r, "shard 0 of 2");
    cli_result_free(&r);
    r = campaign(CLI_ARGS("merge", merged, shard_db[0]));
    expect_ok(&r, "merging shard 0");
    cli_result_free(&r);
    r = campaign(CLI_ARGS("campaign", "status", file, "--db", merged));
    expect_ok(&r, "the status with one shard merged");
    cr_expect(strstr(r.out, "  incomplete (the one instance)"), "%s", r.out);
    cr_expect(strstr(r.out, "3 of the space's 6 configurations measured"), "%s", r.out);
    cr_expect(strstr(r.out, "missing (never ran, or not merged): shard 1/2\n"), "%s", r.out);
    cr_expect(strstr(r.out, "0 done, 0 running or stopped, 0 remaining, 1 incomplete"), "%s",
              r.out);
    cr_expect_null(strstr(r.out, "  done "), "%s", r.out);
    cli_result_free(&r);

    r = campaign(CLI_ARGS("campaign", "run", file, "--shard", "1/2", "--compile-jobs", "0",
                          "--quiet"));
    expect_ok(&r, "shard 1 of 2");
    cli_result_free(&r);
    r = campaign(CLI_ARGS("merge", merged, shard_db[1]));
    expect_ok(&r, "merging shard 1");
    cli_result_free(&r);
    r = campaign(CLI_ARGS("campaign", "status", file, "--db", merged));
    expect_ok(&r, "the status with both shards merged");
    cr_expect(strstr(r.out, "  done      (the one instance)"), "%s", r.out);
    cr_expect(strstr(r.out, "6 of the space's 6 configurations measured"), "%s", r.out);
    cr_expect_null(strstr(r.out, "missing"), "%s", r.out);
    cr_expect(strstr(r.out, "1 done, 0 running or stopped, 0 remaining\n"), "%s", r.out);
    cli_result_free(&r);
    for (int i = 0; i < 2; i++) free(shard_db[i]);
    free(merged);
    free(file);
}
