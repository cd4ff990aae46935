/* Stopping a campaign part-way and running the same command again: killed
 * with SIGKILL (nothing gets to clean up) and interrupted with SIGINT (the
 * run stops after the configuration in flight and exits 130). Either way the
 * database must pass SQLite's own checks, and the second run must finish the
 * same campaign with every valid configuration measured exactly once. */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_harness.h"
#include "clock.h"

static char *scratch;

static void make_scratch(void)
{
    scratch = cli_make_temp_dir();
}

static void remove_scratch(void)
{
    cli_remove_tree(scratch);
    free(scratch);
    scratch = NULL;
}

TestSuite(resume, .init = make_scratch, .fini = remove_scratch);

#define RUNS 3

/* The whole small vector_add space, exhaustively: 28 configurations, each
 * built by PoCL, verified and timed, so the campaign lasts long enough for a
 * signal to land in the middle of it. */
typedef struct command {
    const char *args[32];
} command;

static command campaign_command(const char *db)
{
    /* --no-race: every configuration keeps its RUNS runs, which the checks
     * count. */
    command c = {{"run", "--plugin", "vector_add", "--plugin-dir", cli_plugin_dir(), "--preset",
                  "small", "--strategy", "exhaustive", "--runs", CLI_TEXT(RUNS), "--no-race",
                  "--db", db, NULL}};
    return c;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static char *read_text(const char *path)
{
    size_t len;
    char *text = (char *)cli_read_file(path, &len);
    cr_assert(text, "cannot read %s", path);
    return text;
}

/* Wait until the background run has committed at least `want` measurements,
 * and return how many there are. The database is only looked at once its
 * WAL file exists: before that the store is still setting the file up, and
 * even a reader's shared lock could get in the way of that. */
static long long wait_for_measurements(pid_t pid, const char *db, long long want,
                                       const char *stdout_path, const char *stderr_path)
{
    char wal[4096];
    snprintf(wal, sizeof wal, "%s-wal", db);
    for (int waited_ms = 0; waited_ms < 120000; waited_ms += 10) {
        int status;
        if (cli_poll_exit(pid, &status)) {
            char *out = read_text(stdout_path), *err = read_text(stderr_path);
            cr_assert_fail("the run ended (%s) before %lld measurements were recorded; "
                           "the campaign is too short for this test\nstdout:\n%s\nstderr:\n%s",
                           cli_status_text(status), want, out, err);
        }
        if (cli_file_exists(wal)) {
            char *text = NULL, message[256];
            /* Errors are expected while the schema is being created. */
            if (cli_db_query(db, "SELECT COUNT(*) FROM measurements", &text, message,
                             sizeof message) == 0 &&
                text) {
                long long count = strtoll(text, NULL, 10);
                free(text);
                if (count >= want) return count;
            }
        }
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    cli_wait(pid, 30);
    cr_assert_fail("no %lld measurements in %s after two minutes", want, db);
    return 0;
}

static long long parse_space_count(const char *out)
{
    char *rest = cli_line_after(out, " over ");
    cr_assert(rest, "no space size in the output of skytune run:\n%s", out);
    long long n = -1;
    cr_assert_eq(sscanf(rest, "%lld valid configurations", &n), 1, "unexpected line: %s", rest);
    free(rest);
    return n;
}

/* "(M measured, R from the database)" from the closing line of a run. */
static void parse_counts(const char *out, long long *measured, long long *reused)
{
    char *rest = cli_line_after(out, " configurations (");
    cr_assert(rest, "no summary in the output of skytune run:\n%s", out);
    cr_assert_eq(sscanf(rest, "%lld measured, %lld from the database", measured, reused), 2,
                 "unexpected summary: %s", rest);
    free(rest);
}

static void assert_database_sound(const char *db)
{
    char *integrity = cli_db_text(db, "PRAGMA integrity_check");
    cr_assert_str_eq(integrity, "ok", "integrity_check of %s: %s", db, integrity);
    free(integrity);
    char *violation = NULL, message[256] = "";
    int rc = cli_db_query(db, "PRAGMA foreign_key_check", &violation, message, sizeof message);
    cr_assert_eq(rc, 1, "foreign_key_check of %s: %s%s", db, rc == 0 ? "violation in table " : "",
                 rc == 0 ? (violation ? violation : "?") : message);
}

/* Every configuration of vector_add passes on PoCL, so any other status is
 * something the stop did to the configuration in flight. */
static void assert_all_ok(const char *db, const char *when)
{
    char *failures = cli_db_text(db, "SELECT group_concat(id || ' ' || status || ': ' || "
                                     "substr(COALESCE(message, ''), 1, 400), char(10)) "
                                     "FROM measurements WHERE status != 'ok'");
    cr_assert(!failures, "%s, measurements that did not pass:\n%s", when, failures);
}

/* The campaign holds every configuration of the space, each measured once,
 * each evaluated once, in one unbroken sequence. */
static void assert_campaign_complete(const char *db, long long campaign, long long total)
{
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), 1,
                 "continuing must not start another campaign");
    cr_assert_eq(cli_db_int(db, "SELECT id FROM campaigns"), campaign);
    char *status = cli_db_text(db, "SELECT status FROM campaigns");
    cr_assert_str_eq(status, "done");
    free(status);
    cr_assert_eq(cli_db_int(db, "SELECT ended_at IS NOT NULL FROM campaigns"), 1);

    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), total);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(DISTINCT configuration_id) FROM measurements"),
                 total);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM ("
                                "  SELECT plugin_id, device_id, problem_id FROM measurements"
                                "  GROUP BY plugin_id, device_id, problem_id"
                                "  HAVING COUNT(*) != COUNT(DISTINCT configuration_id))"),
                 0, "a configuration was measured twice");
    cr_assert_eq(cli_db_int(db,
                            "SELECT COUNT(*) FROM measurements m WHERE "
                            "(SELECT COUNT(*) FROM evaluations e"
                            " WHERE e.measurement_id = m.id AND e.campaign_id = %lld) != 1",
                            campaign),
                 0, "a measurement does not have exactly one evaluation in the campaign");
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations"), total);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(DISTINCT seq) FROM evaluations"), total);
    cr_assert_eq(cli_db_int(db, "SELECT MIN(seq) FROM evaluations"), 0);
    cr_assert_eq(cli_db_int(db, "SELECT MAX(seq) FROM evaluations"), total - 1,
                 "the evaluation sequence has a gap");
    assert_all_ok(db, "after the second run");
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE n_samples != %d", RUNS),
                 0);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM samples"), total * RUNS);
    assert_database_sound(db);
}

/* Run the same command again to the end and check what it reports, and
 * that both runs are recorded as invocations: the first ended as
 * `first_ended` says (NULL: killed, so never ended), the second completed
 * the search. */
static void resume_to_completion(const char *db, long long campaign, long long before,
                                 long long total, const char *first_ended)
{
    command c = campaign_command(db);
    cli_result r = cli_run(c.args);
    cr_assert_eq(r.status, 0, "the second run: %s\nstdout:\n%s\nstderr:\n%s",
                 cli_status_text(r.status), r.out, r.err);
    char continuing[64];
    snprintf(continuing, sizeof continuing, "continuing campaign %lld", campaign);
    cr_assert(strstr(r.out, continuing), "the second run did not continue campaign %lld:\n%s",
              campaign, r.out);
    cr_assert_eq(parse_space_count(r.out), total);
    long long measured, reused;
    parse_counts(r.out, &measured, &reused);
    cr_assert_eq(reused, before, "%lld measurements were stored, %lld reused", before, reused);
    cr_assert_eq(measured, total - before);
    char told[128];
    snprintf(told, sizeof told, "%lld configurations evaluated before (the last run: no --budget, %s)",
             before, first_ended ? "interrupted" : "killed before it ended");
    cr_assert(strstr(r.out, told), "the second run did not say '%s':\n%s", told, r.out);
    cli_result_free(&r);
    assert_campaign_complete(db, campaign, total);

    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM invocations WHERE campaign_id = %lld",
                            campaign),
                 2);
    char *first = cli_db_text(db, "SELECT evaluations_before || ',' || COALESCE(ended, 'NULL')"
                                  " || ',' || COALESCE(evaluations_after, 'NULL') || ','"
                                  " || (ended_at IS NULL) || ',' || (budget IS NULL)"
                                  " FROM invocations ORDER BY id LIMIT 1");
    char want[128];
    if (first_ended)
        snprintf(want, sizeof want, "0,%s,%lld,0,1", first_ended, before);
    else
        snprintf(want, sizeof want, "0,NULL,NULL,1,1");
    cr_assert_str_eq(first, want, "the first run's invocation");
    free(first);
    char *second = cli_db_text(db, "SELECT evaluations_before || ',' || ended || ','"
                                   " || evaluations_after FROM invocations ORDER BY id DESC LIMIT 1");
    snprintf(want, sizeof want, "%lld,search_complete,%lld", before, total);
    cr_assert_str_eq(second, want, "the second run's invocation");
    free(second);
}

Test(resume, killed_run_continues_where_it_stopped)
{
    char *db = cli_path(scratch, "killed.db");
    char *out_path = cli_path(scratch, "killed.out");
    char *err_path = cli_path(scratch, "killed.err");
    command c = campaign_command(db);
    pid_t pid = cli_start(c.args, out_path, err_path);
    wait_for_measurements(pid, db, 3, out_path, err_path);
    kill(pid, SIGKILL);
    cr_assert_eq(cli_wait(pid, 30), CLI_SIGNALED(SIGKILL));

    assert_database_sound(db);
    char *out = read_text(out_path);
    long long total = parse_space_count(out);
    long long before = cli_db_int(db, "SELECT COUNT(*) FROM measurements");
    cr_assert_geq(before, 3);
    cr_assert_lt(before, total, "the kill landed after the last configuration");
    assert_all_ok(db, "after SIGKILL");
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), 1);
    long long campaign = cli_db_int(db, "SELECT id FROM campaigns");
    /* Nobody closed the campaign: it still reads as running. */
    char *status = cli_db_text(db, "SELECT status FROM campaigns");
    cr_assert_str_eq(status, "running");
    free(status);
    /* Every committed measurement is whole: its samples and its evaluation
     * came in the same transaction. */
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM samples"), before * RUNS);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations"), before);

    resume_to_completion(db, campaign, before, total, NULL);
    free(out);
    free(db);
    free(out_path);
    free(err_path);
}

Test(resume, interrupted_run_exits_130_and_continues)
{
    char *db = cli_path(scratch, "interrupted.db");
    char *out_path = cli_path(scratch, "interrupted.out");
    char *err_path = cli_path(scratch, "interrupted.err");
    command c = campaign_command(db);
    pid_t pid = cli_start(c.args, out_path, err_path);
    wait_for_measurements(pid, db, 2, out_path, err_path);
    kill(pid, SIGINT);
    int status = cli_wait(pid, 120);
    char *out = read_text(out_path), *err = read_text(err_path);
    cr_assert_eq(status, 130, "after SIGINT the run ended with %s, expected exit status 130"
                              "\nstdout:\n%s\nstderr:\n%s",
                 cli_status_text(status), out, err);
    cr_assert(strstr(out, "interrupted"), "the run did not say it was interrupted:\n%s", out);

    assert_database_sound(db);
    long long total = parse_space_count(out);
    long long before = cli_db_int(db, "SELECT COUNT(*) FROM measurements");
    cr_assert_lt(before, total, "the interrupt landed after the last configuration");
    /* Ctrl-C lets the configuration in flight finish: it must be measured
     * as if nothing had happened, or not recorded at all. */
    assert_all_ok(db, "after SIGINT");
    long long campaign = cli_db_int(db, "SELECT id FROM campaigns");
    char *campaign_status = cli_db_text(db, "SELECT status FROM campaigns");
    cr_assert_str_eq(campaign_status, "interrupted");
    free(campaign_status);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations"), before);

    resume_to_completion(db, campaign, before, total, "interrupted");
    free(out);
    free(err);
    free(db);
    free(out_path);
    free(err_path);
}

/* The budget is not part of a campaign's identity: a larger one extends the
 * campaign, the terminal says so, and each run's budget and command are
 * kept in invocations. */
Test(resume, a_larger_budget_extends_the_campaign_and_each_run_is_recorded)
{
    char *db = cli_path(scratch, "budget.db");
    const char *budgets[] = {"3", "5", "5"};
    for (int k = 0; k < 3; k++) {
        cli_result r = cli_run(CLI_ARGS("run", "--plugin", "vector_add", "--plugin-dir",
                                        cli_plugin_dir(), "--preset", "small", "--strategy",
                                        "random", "--runs", "2", "--budget", budgets[k], "--db",
                                        db));
        cr_assert_eq(r.status, 0, "run %d: %s\n%s", k + 1, cli_status_text(r.status), r.err);
        if (k == 1)
            cr_assert(strstr(r.out, "  extending campaign 1: 3 configurations evaluated under "
                                    "--budget 3; now --budget 5: 2 more\n"),
                      "the second run did not say it extends the campaign:\n%s", r.out);
        if (k == 2)
            cr_assert(strstr(r.out, "  5 configurations evaluated before (the last run: --budget "
                                    "5, budget reached); now --budget 5: nothing more to "
                                    "evaluate\n"),
                      "the third run:\n%s", r.out);
        cli_result_free(&r);
    }
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), 1);
    char *rows = cli_db_text(db, "SELECT group_concat(line, ' ') FROM (SELECT budget || ':' ||"
                                 " evaluations_before || '-' || evaluations_after || ':' || ended"
                                 " || ':' || (time_limit_s IS NULL) || (target IS NULL) AS line"
                                 " FROM invocations WHERE campaign_id = 1 ORDER BY id)");
    cr_assert_str_eq(rows, "3:0-3:budget:11 5:3-5:budget:11 5:5-5:budget:11");
    free(rows);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM invocations WHERE command LIKE"
                                " 'skytune run %%--budget 5 %%' AND started_at <= ended_at"),
                 2);
    /* The campaign keeps the command that started it. */
    cr_assert_eq(cli_db_int(db, "SELECT command LIKE '%%--budget 3 %%' FROM campaigns"), 1);
    free(db);
}

/* ------------------------------------------------------------ the ETA of an extended campaign */

/* What a watched terminal showed: the first bar drawn after the estimate
 * line, with when it arrived, and the estimate itself. */
typedef struct eta_watch {
    size_t scanned;          /* the text before this is read */
    bool estimated;          /* the estimate line has arrived */
    double estimate_at_s, estimate_s;
    bool have_eta;
    double eta_at_s, eta_s;
} eta_watch;

/* "12 s", "0.5 s", "3 min", "1.2 h" (format_wait_s) in seconds; -1 when
 * it is none of them. */
static double wait_seconds(const char *text)
{
    double v;
    char unit[8];
    if (sscanf(text, "%lf %7s", &v, unit) != 2) return -1;
    if (strcmp(unit, "s") == 0) return v;
    if (strcmp(unit, "min") == 0) return 60 * v;
    if (strcmp(unit, "h") == 0) return 3600 * v;
    return -1;
}

static void watch_eta(void *ctx, const char *text, size_t len, double now_s)
{
    eta_watch *w = ctx;
    if (!w->estimated) {
        const char *line = strstr(text + w->scanned, "estimate: ");
        const char *about = line ? strstr(line, " take about ") : NULL;
        const char *end = about ? strchr(about, '\n') : NULL;
        if (!end) return; /* not all of it yet */
        w->estimated = true;
        w->estimate_at_s = now_s;
        w->estimate_s = wait_seconds(about + strlen(" take about "));
        w->scanned = (size_t)(end - text);
    }
    if (w->have_eta) return;
    const char *eta = strstr(text + w->scanned, "ETA ");
    int minutes, seconds;
    char after;
    if (eta && sscanf(eta, "ETA %d:%d%c", &minutes, &seconds, &after) == 3 && after == ' ') {
        w->have_eta = true;
        w->eta_at_s = now_s;
        w->eta_s = 60.0 * minutes + seconds;
    }
    (void)len;
}

/* A campaign of 8 configurations extended to 28 at a terminal: the 8 it
 * has come back from the database at once, and the bar's ETA and the
 * estimate count only the 20 it measures now, at the pace they come out
 * with a compile worker building ahead: each is within a factor of 2 of
 * the time the rest of the run then takes. Before, the bar's rate counted
 * the 8 it took from the database and its ETA said 0:00 to 0:04. The
 * configurations are the trivial plugin's that differ only in a build
 * option, so each takes about as long as the next to build: an estimate
 * can only know the configurations it has seen. */
Test(resume, an_extended_campaigns_eta_counts_only_its_new_work)
{
    char *db = cli_path(scratch, "eta.db");
    char *cache = cli_path(scratch, "binaries");
    const char *budgets[] = {"8", "28"};
    const char *build = getenv("SKYTUNE_BUILD_DIR");
    cr_assert(build, "SKYTUNE_BUILD_DIR is not set: run the tests through `meson test`");
    char *module = cli_path(build, "trivial.so");
    /* And no PoCL kernel cache: with the suites' shared one, kernels other
     * tests built would come from it in a fraction of a build's time, and
     * the pace the estimate is made from would not be the pace of the
     * rest. */
    cr_assert_eq(setenv("POCL_KERNEL_CACHE", "0", 1), 0);
    eta_watch w = {0};
    double ended_s = 0;
    cli_result r = {0};
    for (int k = 0; k < 2; k++) {
        /* An empty binary cache of its own: the configurations are built. */
        const char *const args[] = {"run", "--plugin", module, "--only", "MODE=0", "--only",
                                    "wg=64", "--strategy", "random", "--seed", "3", "--runs",
                                    "2", "--timeout-floor", "10m", "--budget", budgets[k],
                                    "--compile-jobs", "1", "--cache-dir", cache, "--db", db,
                                    NULL};
        r = k == 0 ? cli_run(args) : cli_run_terminal_watched(NULL, args, 250, watch_eta, &w);
        ended_s = clock_monotonic_s();
        cr_assert_eq(r.status, 0, "run %d: %s\n%s%s", k + 1, cli_status_text(r.status), r.out,
                     r.err);
        if (k == 0) cli_result_free(&r);
    }
    cr_assert(strstr(r.out, "extending campaign 1: 8 configurations evaluated under --budget 8; "
                            "now --budget 28: 20 more"),
              "%s", r.out);
    cr_assert(w.estimated && w.estimate_s > 0, "no estimate line:\n%s", r.out);
    cr_assert(w.have_eta, "no ETA after the estimate line:\n%s", r.out);
    double took_after_estimate = ended_s - w.estimate_at_s;
    double took_after_eta = ended_s - w.eta_at_s;
    double estimate_ratio = w.estimate_s / took_after_estimate;
    double eta_ratio = w.eta_s / took_after_eta;
    /* The ratios, for the record (the test's log). */
    fprintf(stderr, "extended campaign: estimate %.1f s for %.1f s (ratio %.2f), ETA %.0f s for "
            "%.1f s (ratio %.2f)\n", w.estimate_s, took_after_estimate, estimate_ratio, w.eta_s,
            took_after_eta, eta_ratio);
    cr_assert(estimate_ratio >= 0.5 && estimate_ratio <= 2.0,
              "the estimate said %.1f s, the rest took %.1f s:\n%s", w.estimate_s,
              took_after_estimate, r.out);
    /* The ETA is shown in whole seconds: a second either way is its
     * rounding, not its error. */
    cr_assert(w.eta_s + 1 >= 0.5 * took_after_eta && w.eta_s - 1 <= 2.0 * took_after_eta,
              "the ETA said %.0f s, the rest took %.1f s:\n%s", w.eta_s, took_after_eta, r.out);
    cli_result_free(&r);
    free(module);
    free(cache);
    free(db);
}
