/* What `skytune run` shows while it goes, on PoCL: in a log, each
 * failure's line gives its reason; a worker's standard output and error
 * (a driver's compiler, a plugin's printf, output as it crashes) never
 * reach the terminal but the configuration's message in the database; on a
 * terminal the bar counts by status and shows the configuration in flight
 * with its stage and time, redrawn while a long one runs; a log says a long
 * configuration is still being measured; once the run has measured its
 * pace both give an estimate of what is left; a replayed dataset with no
 * work model shows no GFLOP/s; and a run on one CPU starts workers for one. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile_harness.h"

TestSuite(run_output, .init = hostile_suite_open, .fini = hostile_suite_close);


/* ------------------------------------------------------------ a broken kernel */

/* The T1 vector_add example with a kernel that subtracts where per_item is
 * 4 (wrong_result) and does not compile where it is 8 (compile: PoCL's
 * compiler also writes "1 error generated." to its standard error). */
static char *write_broken_t1(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/t1/vector_add.json", cli_source_dir());
    size_t len;
    char *json = (char *)cli_read_file(path, &len);
    cr_assert(json, "cannot read %s", path);
    char *t1 = cli_path(hostile_suite_scratch, "vector_add.json");
    cli_write_file(t1, json, len);
    free(json);
    snprintf(path, sizeof path, "%s/examples/t1/vector_add.cl", cli_source_dir());
    char *source = (char *)cli_read_file(path, &len);
    cr_assert(source, "cannot read %s", path);
    const char *right = "c[i] = a[i] + b[i];";
    char *at = strstr(source, right);
    cr_assert(at, "the example kernel changed: adjust this test");
    char broken[8192];
    snprintf(broken, sizeof broken,
             "%.*sc[i] = per_item == 4 ? a[i] - b[i] : a[i] + b[i];\n"
             "#if per_item == 8\n    this does not compile;\n#endif\n%s",
             (int)(at - source), source, at + strlen(right));
    char *cl = cli_path(hostile_suite_scratch, "vector_add.cl");
    cli_write_file(cl, broken, strlen(broken));
    free(cl);
    free(source);
    return t1;
}

#define BROKEN_RUN(t1, db)                                                                       \
    "run", "--t1", t1, "--db", db, "--set", "problem_size_0=3000", "--strategy", "exhaustive",   \
        "--only", "wg_size=32,64", "--budget", "8", "--runs", "2", "--compile-jobs", "1"

/* The line of the log that reports configuration `config`. */
static char *line_of(const char *out, const char *config)
{
    char marker[256];
    snprintf(marker, sizeof marker, "  %s", config);
    for (const char *line = out; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, marker);
        if (line[0] == '[' && hit && hit < line + len &&
            (hit[strlen(marker)] == ' ' || hit[strlen(marker)] == '\n'))
            return strndup(line, len);
        line = end ? end + 1 : NULL;
    }
    cr_assert_fail("no line for %s in:\n%s", config, out);
    return NULL;
}

/* No configuration's line mentions GFLOP/s. */
static void assert_no_gflops(const char *out)
{
    for (const char *line = out; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, "GFLOP/s");
        cr_assert(line[0] != '[' || !hit || hit > line + len, "a line shows GFLOP/s with no "
                  "work model: %.*s", (int)len, line);
        line = end ? end + 1 : NULL;
    }
}

Test(run_output, log_lines_give_each_failure_its_reason_and_compiler_output_stays_off_the_terminal)
{
    char *t1 = write_broken_t1();
    char *db = cli_path(hostile_suite_scratch, "broken.db");
    cli_result r = cli_run(CLI_ARGS(BROKEN_RUN(t1, db)));
    cr_assert_eq(r.status, 0, "%s\n%s\n%s", cli_status_text(r.status), r.out, r.err);

    char *wrong = line_of(r.out, "wg_size=32,per_item=4");
    cr_assert(strstr(wrong, "wrong_result") &&
                  strstr(wrong, "  \"output 'c': 3000 of 3000 differ from the outputs of the "
                                "Default configuration (wg_size=64,per_item=1); first at index "
                                "0; max abs error"),
              "the wrong_result line gives no reason: %s", wrong);
    char *compile = line_of(r.out, "wg_size=64,per_item=8");
    cr_assert(strstr(compile, "compile") && strstr(compile, "  \"error: ") &&
                  strstr(compile, "undeclared identifier 'this'\""),
              "the compile line does not give the compiler's error: %s", compile);
    char *ok = line_of(r.out, "wg_size=32,per_item=1");
    cr_assert(strstr(ok, " ok ") && !strchr(ok, '"'), "%s", ok);
    /* A T1 kernel has no work model: no GFLOP/s, not "0.00 GFLOP/s". */
    assert_no_gflops(r.out);
    /* With one compile worker building ahead, the first round is two
     * configurations and the pace is measured over a second: four are
     * left. */
    cr_assert(strstr(r.out, "\nestimate: one configuration every ") &&
                  strstr(r.out, " (4 measured; the first 2, which start the workers, not "
                                "counted); at that pace the 4 configurations left of --budget 8 "
                                "take about "),
              "no estimate after the fourth configuration:\n%s", r.out);
    /* The compiler's own lines are the workers': never on the terminal. */
    cr_assert(!strstr(r.err, "error generated") && !strstr(r.out, "error generated"),
              "a worker's standard error reached the terminal:\n%s", r.err);
    /* Whatever the compiler wrote is kept with its configuration. */
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'compile'"
                                " AND message LIKE '%%generated%%'"
                                " AND message NOT LIKE '%%worker output:%%generated%%'"),
                 0);
    free(wrong);
    free(compile);
    free(ok);
    cli_result_free(&r);
    free(db);
    free(t1);
}

/* ------------------------------------------------------------ a plugin that prints */

static cli_result run_printing(const char *db, const char *fault)
{
    char fault_set[64];
    snprintf(fault_set, sizeof fault_set, "fault=%s", fault);
    hostile_args a = hostile_run_args("exhaustive", db);
    hostile_args_add(&a, CLI_ARGS("--runs", "2", "--set", fault_set, "--set", "where=prepare"));
    /* hostile_run_args runs --quiet: the lines are not wanted here, only
     * that nothing the worker wrote reaches either stream. */
    return hostile_run_ok(&a, fault);
}

Test(run_output, what_a_worker_writes_goes_into_its_configurations_message)
{
    char *db = cli_path(hostile_suite_scratch, "print.db");
    cli_result r = run_printing(db, "print");
    cr_assert(!strstr(r.out, "hostile says") && !strstr(r.err, "hostile says"),
              "the plugin's output reached the terminal:\nstdout:\n%s\nstderr:\n%s", r.out, r.err);
    cli_result_free(&r);
    hostile_row row = hostile_row_of(db, 2);
    cr_assert_str_eq(row.status, "ok");
    cr_assert_str_eq(row.message,
                     "worker output:\nhostile says on stdout\n\033[31mhostile says on "
                     "stderr\033[0m");
    hostile_row_free(&row);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE message IS NULL"), 5,
                 "only x = 2 printed");

    /* Written just before the worker dies: kept with the crash. */
    char *crash_db = cli_path(hostile_suite_scratch, "print_segv.db");
    r = run_printing(crash_db, "print_segv");
    cr_assert(!strstr(r.out, "hostile says") && !strstr(r.err, "hostile says"),
              "the plugin's output reached the terminal:\nstdout:\n%s\nstderr:\n%s", r.out, r.err);
    cr_assert(strstr(r.err, "skytune: crash in stage prepare"), "%s", r.err);
    cli_result_free(&r);
    row = hostile_row_of(crash_db, 2);
    cr_assert_str_eq(row.status, "crash");
    cr_assert(row.message && strstr(row.message, "SIGSEGV") &&
                  strstr(row.message, "\n\nworker output:\nhostile says on stdout\n"
                                      "\033[31mhostile says on stderr\033[0m"),
              "%s", row.message ? row.message : "(no message)");
    hostile_row_free(&row);
    free(crash_db);
    free(db);
}

/* ------------------------------------------------------------ at a terminal */

/* Every segment "  | STAGE TIME: CONFIG" the bar showed for `config`; the
 * earliest and latest TIME in seconds into *first and *last (may be NULL). */
static size_t in_flight_shown_between(const char *out, const char *stage, const char *config,
                                      double *first, double *last)
{
    size_t n = 0;
    char tail[256];
    snprintf(tail, sizeof tail, " s: %s", config);
    char head[64];
    snprintf(head, sizeof head, "  | %s ", stage);
    for (const char *at = strstr(out, head); at; at = strstr(at + 1, head)) {
        const char *end = strpbrk(at, "\r\n\033");
        const char *hit = strstr(at, tail);
        if (!hit || (end && hit > end)) continue;
        double seconds = 0;
        if (sscanf(at + strlen(head), "%lf", &seconds) != 1) seconds = 0; /* "<0.01 s" */
        if (first && (n == 0 || seconds < *first)) *first = seconds;
        if (last && (n == 0 || seconds > *last)) *last = seconds;
        n++;
    }
    return n;
}

/* `text` is on the terminal at the start of a line: after the bar was
 * cleared, or after a line's end. */
static void assert_line_start(const char *out, const char *text)
{
    char after_bar[512], after_line[512];
    snprintf(after_bar, sizeof after_bar, "\033[K%s", text);
    snprintf(after_line, sizeof after_line, "\n%s", text);
    cr_assert(strstr(out, after_bar) || strstr(out, after_line), "no line \"%s\" in:\n%s", text,
              out);
}

static size_t in_flight_shown(const char *out, const char *stage, const char *config)
{
    return in_flight_shown_between(out, stage, config, NULL, NULL);
}

Test(run_output, the_bar_counts_by_status_and_shows_the_configuration_in_flight)
{
    char *t1 = write_broken_t1();
    char *db = cli_path(hostile_suite_scratch, "bar.db");
    cli_result r = cli_run_terminal(NULL, CLI_ARGS(BROKEN_RUN(t1, db)), 200);
    cr_assert_eq(r.status, 0, "%s\n%s", cli_status_text(r.status), r.out);
    cr_assert(strstr(r.out, "] 8/8  ok 4, compile 2, wrong_result 2  "),
              "the last bar does not count by status:\n%s", r.out);
    cr_assert(strstr(r.out, "ok 2, wrong_result 1  "), "the counts are not kept up:\n%s", r.out);
    /* The first configuration is shown as it starts. */
    cr_assert_gt(in_flight_shown(r.out, "starting", "wg_size=32,per_item=1") +
                     in_flight_shown(r.out, "build", "wg_size=32,per_item=1") +
                     in_flight_shown(r.out, "verify", "wg_size=32,per_item=1"),
                 0, "the bar never showed the configuration in flight:\n%s", r.out);
    /* The first failures of each status, with their reason, above the bar:
     * each at the start of a line, where the bar was cleared or after the
     * estimate's line. */
    assert_line_start(r.out, "wrong_result: wg_size=32,per_item=4: output 'c': 3000 of 3000 "
                                "differ");
    assert_line_start(r.out, "compile: wg_size=32,per_item=8: error: ");
    cr_assert(!strstr(r.out, "error generated"), "the compiler's output reached the terminal:\n%s",
              r.out);
    cli_result_free(&r);
    free(db);
    free(t1);
}

/* x = 0 hangs in prepare until the watchdog kills it after its floor. */
static hostile_args hanging_first(const char *db, const char *floor)
{
    hostile_args a = hostile_run_args("exhaustive", db);
    hostile_args_add(&a, CLI_ARGS("--runs", "2", "--set", "fault=hang", "--set", "where=prepare",
                                  "--set", "bad=0", "--timeout-floor", floor));
    /* One compile worker whatever the CPUs: the first round is two
     * configurations (the one that hangs among them), and the estimate
     * comes once two more are done. */
    hostile_args_add(&a, CLI_ARGS("--compile-jobs", "1"));
    return a;
}

/* Without --quiet: the arguments up to it (hostile_run_args puts it last
 * but for what was added after). */
static void drop_quiet(hostile_args *a)
{
    size_t kept = 0;
    for (size_t k = 0; k < a->n; k++)
        if (strcmp(a->items[k], "--quiet") != 0) a->items[kept++] = a->items[k];
    a->n = kept;
    a->items[kept] = NULL;
}

Test(run_output, a_long_configuration_is_redrawn_while_it_runs)
{
    char *db = cli_path(hostile_suite_scratch, "long.db");
    hostile_args a = hanging_first(db, "3s");
    drop_quiet(&a);
    cli_result r = cli_run_terminal(NULL, a.items, 200);
    cr_assert_eq(r.status, 0, "%s\n%s", cli_status_text(r.status), r.out);
    /* Three seconds in prepare, redrawn every half second, its time going
     * up: the first and last redraws lie within half a second of the hang's
     * ends, so they span at least 2 s, less the display's rounding to a
     * tenth (4.1 - 2.1 is below 2.0 in binary). 1.5 s keeps a margin and
     * still fails if the time shown stood still. */
    double first = 0, last = 0;
    size_t shown = in_flight_shown_between(r.out, "prepare", "x=0", &first, &last);
    cr_assert_geq(shown, 4, "x=0 hung 3 s in prepare and the bar showed it %zu times:\n%s", shown,
                  r.out);
    cr_assert_geq(last - first, 1.5, "the time shown went from %.2g s to %.2g s only:\n%s", first,
                  last, r.out);
    assert_line_start(r.out, "estimate: ");
    cli_result_free(&r);
    free(db);
}

Test(run_output, a_log_says_a_long_configuration_is_still_being_measured)
{
    char *db = cli_path(hostile_suite_scratch, "still.db");
    hostile_args a = hanging_first(db, "12s");
    drop_quiet(&a);
    cli_result r = cli_run(a.items);
    cr_assert_eq(r.status, 0, "%s\n%s\n%s", cli_status_text(r.status), r.out, r.err);
    /* Said once the configuration has been in flight 10 s; the time it
     * gives is when the line was written, on the next activity report
     * (every 0.5 s, later on a busy machine), before the 12 s floor ends
     * the hang. The stage named is the one it is in then: prepare, or on a
     * machine so loaded that the build alone took 10 s, the build. */
    const char *still = strstr(r.out, "\nstill measuring x=0: stage prepare, ");
    if (!still) still = strstr(r.out, "\nstill measuring x=0: stage build, ");
    cr_assert(still, "%s", r.out);
    int said_s = 0;
    char unit[3] = "";
    cr_assert_eq(sscanf(strchr(still + 1, ',') + 1, "%d %2s", &said_s, unit), 2, "%s", r.out);
    cr_assert(said_s >= 10 && said_s <= 12 && strcmp(unit, "s") == 0, "%s", r.out);
    /* Once: the next would be at 40 s. */
    cr_assert_eq(strstr(strstr(r.out, "still measuring") + 1, "still measuring"), NULL, "%s",
                 r.out);
    cr_assert(strstr(r.out, "\nestimate: ") &&
                  strstr(r.out, " (4 measured; the first 2, which start the workers, not "
                                "counted); at that pace the 2 configurations "
                                "left (the whole space: no --budget; --budget N or --time-limit "
                                "bounds it) take about "),
              "%s", r.out);
    cli_result_free(&r);
    free(db);
}

/* ------------------------------------------------------------ replay */

Test(run_output, a_replay_without_a_work_model_shows_no_gflops)
{
    char *dataset = cli_path(hostile_suite_scratch, "recorded.cache.json");
    char *db = cli_path(hostile_suite_scratch, "replayed.db");
    cli_write_file(dataset, cli_recorded_cache, strlen(cli_recorded_cache));
    cli_result r = cli_run(CLI_ARGS("run", "--replay", dataset, "--space", "recorded",
                                    "--strategy", "exhaustive", "--db", db));
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    char *line = line_of(r.out, "wg=32");
    cr_assert(strstr(line, "750 µs"), "%s", line);
    free(line);
    assert_no_gflops(r.out);
    cli_result_free(&r);
    free(db);
    free(dataset);
}

/* ------------------------------------------------------------ workers and CPUs */

/* Run as `taskset -c 0` would (the affinity of this test's process, which
 * the run inherits), the run counts one usable CPU and starts workers for
 * one: the measuring worker alone, no spare and no compile worker. */
Test(run_output, workers_follow_the_cpus_the_process_may_use)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    cpu_set_t mine;
    cr_assert_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
    int first = 0;
    while (!CPU_ISSET(first, &mine)) first++;
    CPU_SET(first, &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    char *db = cli_path(hostile_suite_scratch, "one_cpu.db");
    hostile_args a = hostile_run_args("exhaustive", db);
    hostile_args_add(&a, CLI_ARGS("--runs", "2", "--set", "values=3"));
    drop_quiet(&a);
    cli_result r = hostile_run_ok(&a, "a run on one CPU");
    cr_expect(strstr(r.out, "(0 spares); 0 compile workers (CPUs usable: 1)"),
              "the run did not count one CPU:\n%s", r.out);
    cli_result_free(&r);
    free(db);
}
