/* No plugin callback and no kernel can end a campaign. The hostile test
 * plugin (tests/hostile_plugin.c) misbehaves on one configuration, x = 2 of
 * x = 0 .. 3, in a chosen way: a segfault in each callback, abort, exit(3),
 * a stack overflow, a kernel that writes terabytes out of bounds, a kernel
 * that never ends, a callback that never returns. Each time the exhaustive
 * campaign completes with exit status 0, the bad configuration is recorded
 * as `crash` (signals, exit) or `timeout` (loops, hangs) with the stage it
 * was in and a message that says what happened, and every other
 * configuration is `ok`. Running the same command again measures nothing
 * and crashes nowhere: a failure is never retried unless --retry-failed
 * asks for it.
 *
 * Also here: Ctrl-C while a callback hangs stops the run (exit status 130)
 * without recording the configuration in flight, which the same command
 * then measures; the first Ctrl-C says at once what it waits for and that
 * a second stops at once, which it does; and the plugin, behaving,
 * passes every configuration with and without isolation. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
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

TestSuite(isolation, .init = make_scratch, .fini = remove_scratch);

#define CONFIGURATIONS 6 /* x = 0 .. 5, the plugin's default `values` */
#define BAD 2            /* the plugin's default `bad` */
/* A campaign of one fault: the bad configuration with two before it and
 * one after it is all a fault needs to show that the campaign went on, and
 * each configuration is a build of its own (its -D defines differ) that a
 * fresh machine compiles, so fewer than the default keeps the suite short. */
#define FAULT_CONFIGURATIONS 4
#define FAULT_VALUES "values=" CLI_TEXT(FAULT_CONFIGURATIONS)

/* Small watchdog limits keep a hung configuration to a few seconds, yet
 * leave a correct one (a build of a few tenths of a second, a verification
 * and timed runs of a few milliseconds) far inside them on a busy machine. */
#define TIMEOUT_FLOOR "3s"
#define COMPILE_TIMEOUT "20s"
#define STOP_GRACE "1s"

#define SEGV_MESSAGE {"SIGSEGV", "signal 11", NULL}
#define ABORT_MESSAGE {"SIGABRT", "signal 6", NULL}
#define EXIT_MESSAGE {"exit status 3", NULL, NULL}
#define TIMEOUT_MESSAGE {"timed out", NULL, NULL}

typedef struct fault_case {
    const char *fault;            /* the plugin's `fault` */
    const char *where;            /* the plugin's `where`; NULL: its default */
    const char *nth;              /* the plugin's `nth`; NULL: its default (1) */
    const char *status;           /* what x = 2 must be recorded as */
    const char *stage;
    const char *message[3];       /* each must be in x = 2's message */
    const char *compile_timeout;  /* NULL: COMPILE_TIMEOUT */
    const char *compile_jobs;     /* NULL: the engine's default */
    bool no_cache;                /* --no-cache, and check that nothing is cached */
    bool warm_up;                 /* --warm-up 1: a warm-up run after the verification */
} fault_case;

/* Problem settings ("name=value") live here so that the argument list can
 * point at them for the whole test. */
typedef struct fault_command {
    hostile_args args;
    char fault[64], where[64], nth[64];
} fault_command;

static void build_fault_command(fault_command *c, const fault_case *fc, const char *db)
{
    c->args = hostile_run_args("exhaustive", db);
    hostile_args_add(&c->args, CLI_ARGS("--runs", "3", "--seed", "1", "--timeout-floor",
                                        TIMEOUT_FLOOR, "--compile-timeout",
                                        fc->compile_timeout ? fc->compile_timeout : COMPILE_TIMEOUT,
                                        "--stop-grace", STOP_GRACE));
    if (fc->warm_up) hostile_args_add(&c->args, CLI_ARGS("--warm-up", "1"));
    snprintf(c->fault, sizeof c->fault, "fault=%s", fc->fault);
    hostile_args_add(&c->args, CLI_ARGS("--set", c->fault));
    if (fc->where) {
        snprintf(c->where, sizeof c->where, "where=%s", fc->where);
        hostile_args_add(&c->args, CLI_ARGS("--set", c->where));
    }
    if (fc->nth) {
        snprintf(c->nth, sizeof c->nth, "nth=%s", fc->nth);
        hostile_args_add(&c->args, CLI_ARGS("--set", c->nth));
    }
    hostile_args_add(&c->args, CLI_ARGS("--set", FAULT_VALUES));
    if (fc->compile_jobs) hostile_args_add(&c->args, CLI_ARGS("--compile-jobs", fc->compile_jobs));
    if (fc->no_cache) hostile_args_add(&c->args, CLI_ARGS("--no-cache"));
}

/* x = bad is recorded as the case says; failed configurations carry no
 * timing statistics. */
static void assert_failed_as(const char *db, long long x, const fault_case *fc)
{
    hostile_row row = hostile_row_of(db, x);
    cr_assert(row.status, "x=%lld was never recorded", x);
    cr_assert_str_eq(row.status, fc->status, "x=%lld: status %s, expected %s (message: %s)", x,
                     row.status, fc->status, row.message ? row.message : "none");
    cr_assert(row.stage, "x=%lld (%s) has no stage", x, row.status);
    cr_assert_str_eq(row.stage, fc->stage, "x=%lld: %s in stage %s, expected stage %s (message: %s)",
                     x, row.status, row.stage, fc->stage, row.message ? row.message : "none");
    for (size_t k = 0; k < 3 && fc->message[k]; k++)
        cr_assert(row.message && strstr(row.message, fc->message[k]),
                  "x=%lld: the message of a %s does not say \"%s\": %s", x, row.status,
                  fc->message[k], row.message ? row.message : "(none)");
    hostile_row_free(&row);
    cr_assert_eq(cli_db_int(db,
                            "SELECT COUNT(*) FROM measurements m JOIN config_params p"
                            " ON p.configuration_id = m.configuration_id"
                            " WHERE p.name = 'x' AND p.value = '%lld'"
                            " AND median_ns IS NULL AND degraded IN (0, 1)",
                            x),
                 1, "x=%lld failed, yet has a median time (or no valid degraded flag)", x);
}

/* Every configuration of x = 0 .. count - 1 but the bad ones passed, with no
 * stage. */
static void assert_others_ok(const char *db, long long count, const long long *bad, size_t n_bad)
{
    for (long long x = 0; x < count; x++) {
        bool is_bad = false;
        for (size_t k = 0; k < n_bad; k++) is_bad = is_bad || bad[k] == x;
        if (is_bad) continue;
        hostile_row row = hostile_row_of(db, x);
        cr_assert(row.status, "x=%lld was never recorded", x);
        cr_assert_str_eq(row.status, "ok", "x=%lld: status %s, expected ok (message: %s)", x,
                         row.status, row.message ? row.message : "none");
        cr_assert_null(row.stage, "x=%lld passed yet has the stage %s", x, row.stage);
        hostile_row_free(&row);
    }
}

static void assert_campaign_done(const char *db, long long campaign)
{
    char *status = cli_db_text(db, "SELECT status FROM campaigns WHERE id = %lld", campaign);
    cr_assert_str_eq(status, "done", "campaign %lld is %s", campaign, status);
    free(status);
}

/* Only the statuses that have a stage carry one. */
static void assert_stages_consistent(const char *db)
{
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"
                                " WHERE (status IN ('crash', 'timeout')) != (stage IS NOT NULL)"
                                " OR (stage IS NOT NULL AND stage NOT IN"
                                "  ('build', 'prepare', 'verify', 'warm_up', 'timed', 'release'))"),
                 0, "a stage is missing, misplaced or unknown");
}

/* Run the same command again: nothing is measured, nothing changes. */
static void assert_rerun_measures_nothing(const hostile_args *args, const char *db,
                                          long long campaign)
{
    char *before = hostile_measurements_text(db, -1);
    cli_result again = hostile_run_ok(args, "running the same command again");
    hostile_summary s = hostile_parse_summary(again.out);
    cr_assert_eq(s.measured, 0, "running the same command again measured %lld configurations:\n%s",
                 s.measured, again.out);
    cr_assert_eq(s.campaign, campaign, "running the same command again started campaign %lld",
                 s.campaign);
    char *after = hostile_measurements_text(db, -1);
    cr_assert_str_eq(after, before, "running the same command again changed the measurements");
    cli_result_free(&again);
    free(before);
    free(after);
}

static bool folder_is_empty(const char *path)
{
    DIR *dir = opendir(path);
    cr_assert(dir, "cannot read %s: %s", path, strerror(errno));
    bool empty = true;
    struct dirent *entry;
    while (empty && (entry = readdir(dir)) != NULL)
        empty = strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0;
    closedir(dir);
    return empty;
}

static void check_fault(const fault_case *fc)
{
    char *db = cli_path(scratch, "campaign.db");
    fault_command c;
    build_fault_command(&c, fc, db);

    cli_result r = hostile_run_ok(&c.args, "a campaign with a misbehaving configuration");
    hostile_summary s = hostile_parse_summary(r.out);
    cr_assert_eq(s.evaluated, FAULT_CONFIGURATIONS, "the campaign ended early:\n%s", r.out);
    cr_assert_eq(s.measured, FAULT_CONFIGURATIONS, "not every configuration was measured:\n%s",
                 r.out);
    cli_result_free(&r);

    const long long bad[] = {BAD};
    assert_failed_as(db, BAD, fc);
    assert_others_ok(db, FAULT_CONFIGURATIONS, bad, 1);
    assert_stages_consistent(db);
    hostile_assert_each_measured_once(db, s.campaign, FAULT_CONFIGURATIONS);
    assert_campaign_done(db, s.campaign);
    hostile_assert_database_sound(db);

    assert_rerun_measures_nothing(&c.args, db, s.campaign);
    hostile_assert_database_sound(db);

    if (fc->no_cache) {
        char *cache = cli_path(scratch, "cache");
        cr_assert(folder_is_empty(cache), "--no-cache, yet %s holds files", cache);
        free(cache);
    }
    free(db);
}

/* ------------------------------------------------------------ a segfault in each callback */

Test(isolation, segv_in_defines_is_a_crash_in_build)
{
    check_fault(&(fault_case){.fault = "segv", .where = "defines", .status = "crash",
                              .stage = "build", .message = SEGV_MESSAGE});
}

/* The build happens in the measuring worker when there are no compile
 * workers, and in a compile worker when there is one: both are the build
 * stage of the configuration. */
Test(isolation, segv_in_defines_without_compile_workers_is_a_crash_in_build)
{
    check_fault(&(fault_case){.fault = "segv", .where = "defines", .status = "crash",
                              .stage = "build", .message = SEGV_MESSAGE, .compile_jobs = "0"});
}

Test(isolation, segv_in_defines_in_a_compile_worker_is_a_crash_in_build)
{
    check_fault(&(fault_case){.fault = "segv", .where = "defines", .status = "crash",
                              .stage = "build", .message = SEGV_MESSAGE, .compile_jobs = "1"});
}

Test(isolation, segv_in_prepare_is_a_crash_in_prepare)
{
    check_fault(&(fault_case){.fault = "segv", .where = "prepare", .status = "crash",
                              .stage = "prepare", .message = SEGV_MESSAGE});
}

Test(isolation, segv_in_clear_outputs_is_a_crash_in_verify)
{
    check_fault(&(fault_case){.fault = "segv", .where = "clear_outputs", .status = "crash",
                              .stage = "verify", .message = SEGV_MESSAGE});
}

Test(isolation, segv_in_the_first_enqueue_is_a_crash_in_verify)
{
    check_fault(&(fault_case){.fault = "segv", .where = "enqueue", .nth = "1", .status = "crash",
                              .stage = "verify", .message = SEGV_MESSAGE});
}

Test(isolation, segv_in_the_second_enqueue_is_a_crash_in_warm_up)
{
    check_fault(&(fault_case){.fault = "segv", .where = "enqueue", .nth = "2", .status = "crash",
                              .stage = "warm_up", .message = SEGV_MESSAGE, .warm_up = true});
}

Test(isolation, segv_in_the_second_enqueue_is_a_crash_in_timed_without_a_warm_up)
{
    check_fault(&(fault_case){.fault = "segv", .where = "enqueue", .nth = "2", .status = "crash",
                              .stage = "timed", .message = SEGV_MESSAGE});
}

Test(isolation, segv_in_a_timed_enqueue_is_a_crash_in_timed)
{
    check_fault(&(fault_case){.fault = "segv", .where = "enqueue", .nth = "4", .status = "crash",
                              .stage = "timed", .message = SEGV_MESSAGE});
}

Test(isolation, segv_in_verify_is_a_crash_in_verify)
{
    check_fault(&(fault_case){.fault = "segv", .where = "verify", .status = "crash",
                              .stage = "verify", .message = SEGV_MESSAGE});
}

Test(isolation, segv_in_release_is_a_crash_in_release)
{
    check_fault(&(fault_case){.fault = "segv", .where = "release", .status = "crash",
                              .stage = "release", .message = SEGV_MESSAGE});
}

Test(isolation, segv_in_flops_is_a_crash_in_timed)
{
    check_fault(&(fault_case){.fault = "segv", .where = "flops", .status = "crash",
                              .stage = "timed", .message = SEGV_MESSAGE});
}

/* ------------------------------------------------------------ other deaths */

Test(isolation, abort_in_enqueue_is_a_crash_in_verify)
{
    check_fault(&(fault_case){.fault = "abort", .where = "enqueue", .status = "crash",
                              .stage = "verify", .message = ABORT_MESSAGE});
}

Test(isolation, exit_in_prepare_is_a_crash_in_prepare)
{
    check_fault(&(fault_case){.fault = "exit", .where = "prepare", .status = "crash",
                              .stage = "prepare", .message = EXIT_MESSAGE});
}

Test(isolation, stack_overflow_in_verify_is_a_crash_in_verify)
{
    check_fault(&(fault_case){.fault = "stack", .where = "verify", .status = "crash",
                              .stage = "verify", .message = SEGV_MESSAGE});
}

/* On PoCL the kernel runs in the process that enqueued it, so a wild write
 * is a segfault of that process. Also checks that --no-cache writes no
 * binary to the cache folder. */
Test(isolation, kernel_write_far_out_of_bounds_is_a_crash_in_verify)
{
    check_fault(&(fault_case){.fault = "oob", .status = "crash", .stage = "verify",
                              .message = SEGV_MESSAGE, .no_cache = true});
}

Test(isolation, kernel_write_far_out_of_bounds_in_a_timed_run_is_a_crash_in_timed)
{
    check_fault(&(fault_case){.fault = "oob", .nth = "3", .status = "crash", .stage = "timed",
                              .message = SEGV_MESSAGE});
}

/* A kernel that fails on the device after its launch (NVIDIA's events
 * report an illegal address so, and the context is gone) is a crash in the
 * stage it ran in, as a kernel that kills a CPU device's worker is: the
 * same fault gives the same status on every device. */
Test(isolation, a_kernel_that_fails_on_the_device_is_a_crash_in_verify)
{
    check_fault(&(fault_case){.fault = "device_fault", .status = "crash", .stage = "verify",
                              .message = {"the kernel failed on the device in the verification run",
                                          "CL_OUT_OF_RESOURCES", NULL}});
}

Test(isolation, a_kernel_that_fails_on_the_device_in_a_timed_run_is_a_crash_in_timed)
{
    check_fault(&(fault_case){.fault = "device_fault", .nth = "4", .status = "crash",
                              .stage = "timed",
                              .message = {"the kernel failed on the device in timed run 3", NULL,
                                          NULL}});
}

/* ------------------------------------------------------------ never ending */

Test(isolation, kernel_infinite_loop_is_a_timeout_in_verify)
{
    check_fault(&(fault_case){.fault = "loop", .status = "timeout", .stage = "verify",
                              .message = TIMEOUT_MESSAGE});
}

/* A compile limit of ten minutes changes nothing for a kernel that never
 * ends: its first launch is watched with the kernel's limit (the floor,
 * and the driver's code generation as measured), not the compiler's, on
 * every driver, whenever it calls an event's callbacks. */
Test(isolation, kernel_infinite_loop_gets_the_kernels_limit_not_the_compilers)
{
    check_fault(&(fault_case){.fault = "loop", .status = "timeout", .stage = "verify",
                              .message = {"timed out in stage verify", "after the build", NULL},
                              .compile_timeout = "600s"});
}

Test(isolation, kernel_infinite_loop_in_the_warm_up_is_a_timeout_in_warm_up)
{
    check_fault(&(fault_case){.fault = "loop", .nth = "2", .status = "timeout",
                              .stage = "warm_up", .message = TIMEOUT_MESSAGE, .warm_up = true});
}

Test(isolation, kernel_infinite_loop_in_a_timed_run_is_a_timeout_in_timed)
{
    check_fault(&(fault_case){.fault = "loop", .nth = "3", .status = "timeout", .stage = "timed",
                              .message = TIMEOUT_MESSAGE});
}

Test(isolation, prepare_that_never_returns_is_a_timeout_in_prepare)
{
    check_fault(&(fault_case){.fault = "hang", .where = "prepare", .status = "timeout",
                              .stage = "prepare", .message = TIMEOUT_MESSAGE});
}

Test(isolation, release_that_never_returns_is_a_timeout_in_release)
{
    check_fault(&(fault_case){.fault = "hang", .where = "release", .status = "timeout",
                              .stage = "release", .message = TIMEOUT_MESSAGE});
}

/* The build stage has its own limit, --compile-timeout. The build that
 * never ends costs that limit once: when a compile worker ran into it, the
 * measuring worker does not build the configuration again (which took
 * twice the limit before), and when the measuring worker builds it itself,
 * it is its only build. */
Test(isolation, defines_that_never_returns_is_a_timeout_in_build)
{
    check_fault(&(fault_case){.fault = "hang", .where = "defines", .status = "timeout",
                              .stage = "build", .message = TIMEOUT_MESSAGE,
                              .compile_timeout = "15s"});
    char *db = cli_path(scratch, "campaign.db");
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'timeout'"
                                " AND build_s >= 15 AND build_s < 1.5 * 15"),
                 1, "the build that never ends took %s s, for a limit of 15 s",
                 cli_db_text(db, "SELECT group_concat(build_s) FROM measurements"
                                 " WHERE status = 'timeout'"));
    free(db);
}

/* ------------------------------------------------------------ several, and retrying */

/* A kernel that overwrites its input after reading it is right itself, and
 * the configurations measured after it in the same worker read the damage:
 * each wrong result is measured again in a fresh worker before it is
 * recorded, so every configuration is ok, and the one that found the
 * damage names what the worker had measured before it, the culprit. */
Test(isolation, a_kernel_that_damages_its_input_is_not_charged_to_the_next_configurations)
{
    char *db = cli_path(scratch, "corrupt.db");
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--set", "fault=corrupt",
                                     "--measure-ahead", "0"));
    cli_result r = hostile_run_ok(&args, "corrupt");
    cli_result_free(&r);
    assert_others_ok(db, CONFIGURATIONS, NULL, 0);
    hostile_row row = hostile_row_of(db, BAD + 1);
    cr_assert(row.message && strstr(row.message, "(the last: x=2)") &&
                  strstr(row.message, "ok in a fresh one"),
              "x=%d's message does not name x=2 as the culprit: %s", BAD + 1,
              row.message ? row.message : "(none)");
    hostile_row_free(&row);
    free(db);
}

/* A configuration that passes itself and leaves the worker damaged (as a
 * kernel writing past its buffer into a CPU device's heap does, found only
 * at a later free): the next configuration crashes in that worker, and is
 * measured again in a fresh one before its crash is recorded. It is ok
 * there, and its message names the culprit. */
Test(isolation, a_crash_caused_by_an_earlier_configuration_is_not_charged_to_this_one)
{
    char *db = cli_path(scratch, "damage.db");
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--set", "fault=damage",
                                     "--measure-ahead", "0"));
    cli_result r = hostile_run_ok(&args, "damage");
    /* Once, or more where the culprit is the fastest so far: the health
     * check after each crash measures it again in the fresh worker. */
    const char *again = strstr(r.out, "failures measured again in a fresh worker: ");
    unsigned measured_again = 0, damaged = 0;
    cr_expect(again && sscanf(again, "failures measured again in a fresh worker: %u (%u of them "
                                     "an earlier",
                              &measured_again, &damaged) == 2 &&
                  measured_again >= 1 && damaged == measured_again,
              "the summary does not count the confirmations as damage:\n%s", r.out);
    cli_result_free(&r);
    assert_others_ok(db, CONFIGURATIONS, NULL, 0);
    hostile_row row = hostile_row_of(db, BAD + 1);
    cr_assert(row.message && strstr(row.message, "a crash in a worker that had measured") &&
                  strstr(row.message, "(the last: x=2)") && strstr(row.message, "ok in a fresh one"),
              "x=%d's message does not name x=2 as the culprit: %s", BAD + 1,
              row.message ? row.message : "(none)");
    hostile_row_free(&row);
    hostile_assert_each_measured_once(db, 1, CONFIGURATIONS);
    free(db);
}

Test(isolation, two_crashing_configurations_are_both_recorded)
{
    char *db = cli_path(scratch, "two.db");
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--timeout-floor",
                                      TIMEOUT_FLOOR, "--compile-timeout", COMPILE_TIMEOUT,
                                      "--stop-grace", STOP_GRACE, "--set", "fault=segv", "--set",
                                      "where=enqueue", "--set", "bad=1", "--set", "bad2=4"));
    cli_result r = hostile_run_ok(&args, "a campaign with two crashing configurations");
    hostile_summary s = hostile_parse_summary(r.out);
    cr_assert_eq(s.measured, CONFIGURATIONS, "not every configuration was measured:\n%s", r.out);
    cli_result_free(&r);

    const fault_case crash = {.status = "crash", .stage = "verify", .message = SEGV_MESSAGE};
    const long long bad[] = {1, 4};
    assert_failed_as(db, 1, &crash);
    assert_failed_as(db, 4, &crash);
    assert_others_ok(db, CONFIGURATIONS, bad, 2);
    assert_stages_consistent(db);
    hostile_assert_each_measured_once(db, s.campaign, CONFIGURATIONS);
    assert_campaign_done(db, s.campaign);
    hostile_assert_database_sound(db);

    assert_rerun_measures_nothing(&args, db, s.campaign);
    free(db);
}

/* ------------------------------------------------------------ spare measuring workers */

Test(isolation, spare_measuring_workers_hand_over_built_configurations_and_faults_stay_theirs)
{
    /* Exhaustive predictions are exact: every configuration after the first
     * is built by a spare before its turn, the crashing ones included. A
     * fault in a spare's build (defines) is the configuration's own. */
    char *db = cli_path(scratch, "spares.db");
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--timeout-floor",
                                      TIMEOUT_FLOOR, "--compile-timeout", COMPILE_TIMEOUT,
                                      "--stop-grace", STOP_GRACE, "--measure-ahead", "2",
                                      "--compile-jobs", "0", "--set", "fault=segv", "--set",
                                      "where=verify", "--set", "bad=1", "--set", "bad2=4"));
    cli_result r = hostile_run_ok(&args, "a campaign with spare measuring workers");
    hostile_summary s = hostile_parse_summary(r.out);
    cr_assert_eq(s.measured, CONFIGURATIONS, "not every configuration was measured:\n%s", r.out);
    cli_result_free(&r);
    const fault_case crash = {.status = "crash", .stage = "verify", .message = SEGV_MESSAGE};
    const long long bad[] = {1, 4};
    assert_failed_as(db, 1, &crash);
    assert_failed_as(db, 4, &crash);
    assert_others_ok(db, CONFIGURATIONS, bad, 2);
    hostile_assert_each_measured_once(db, s.campaign, CONFIGURATIONS);
    assert_campaign_done(db, s.campaign);
    hostile_assert_database_sound(db);
    assert_rerun_measures_nothing(&args, db, s.campaign);
    free(db);
}

Test(isolation, spare_measuring_workers_cancel_what_is_no_longer_predicted)
{
    /* Hill-climbing's predictions miss often: configurations built ahead
     * and then not asked for are cancelled at the device gate, so only what
     * the strategy asked for is recorded, each once. */
    char *db = cli_path(scratch, "cancel.db");
    hostile_args args = hostile_run_args("hill-climbing", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "3", "--budget", "12",
                                      "--measure-ahead", "3", "--compile-jobs", "0", "--set",
                                      "values=40"));
    cli_result r = hostile_run_ok(&args, "hill-climbing with spare measuring workers");
    hostile_summary s = hostile_parse_summary(r.out);
    cli_result_free(&r);
    long long rows = cli_db_int(db, "SELECT COUNT(*) FROM measurements");
    cr_assert_eq(rows, s.measured, "%lld rows for %lld configurations asked for", rows,
                 s.measured);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status != 'ok'"), 0);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations"), rows);
    assert_campaign_done(db, s.campaign);
    hostile_assert_database_sound(db);
    free(db);
}

Test(isolation, retry_failed_measures_the_crashed_configuration_again_and_nothing_else)
{
    char *db = cli_path(scratch, "retry.db");
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--timeout-floor",
                                      TIMEOUT_FLOOR, "--compile-timeout", COMPILE_TIMEOUT,
                                      "--stop-grace", STOP_GRACE, "--set", "fault=segv", "--set",
                                      "where=prepare"));
    cli_result r = hostile_run_ok(&args, "the first run");
    hostile_summary first = hostile_parse_summary(r.out);
    cli_result_free(&r);
    const fault_case crash = {.status = "crash", .stage = "prepare", .message = SEGV_MESSAGE};
    const long long bad[] = {BAD};
    assert_failed_as(db, BAD, &crash);
    assert_others_ok(db, CONFIGURATIONS, bad, 1);
    char *others_before = hostile_measurements_text(db, BAD);
    long long rows_before = cli_db_int(db, "SELECT COUNT(*) FROM measurements");

    hostile_args retry = args;
    hostile_args_add(&retry, CLI_ARGS("--retry-failed"));
    r = hostile_run_ok(&retry, "running again with --retry-failed");
    hostile_summary again = hostile_parse_summary(r.out);
    cr_assert_eq(again.measured, 1,
                 "--retry-failed measured %lld configurations; only x=%d had failed:\n%s",
                 again.measured, BAD, r.out);
    cli_result_free(&r);

    /* Measured again, it crashed again, and it is still one row. */
    cr_assert_eq(hostile_rows_of(db, BAD), 1, "x=%d has more than one measurement row", BAD);
    assert_failed_as(db, BAD, &crash);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), rows_before);
    char *others_after = hostile_measurements_text(db, BAD);
    cr_assert_str_eq(others_after, others_before,
                     "--retry-failed changed configurations that had not failed");
    assert_stages_consistent(db);
    hostile_assert_database_sound(db);

    /* Without the option, the failure stands again. */
    assert_rerun_measures_nothing(&args, db, first.campaign);
    free(others_before);
    free(others_after);
    free(db);
}

/* ------------------------------------------------------------ Ctrl-C while a callback hangs */

/* Start the campaign whose x = 2 hangs in prepare, and return once x = 2 is
 * in flight: x = 0 and x = 1 are recorded, and a little later x = 2 is being
 * built or hanging. *workers gets the engine's worker processes then. */
static pid_t start_hanging_campaign(const hostile_args *args, const char *out_path,
                                    const char *err_path, const char *db,
                                    hostile_process *workers, size_t *n_workers)
{
    pid_t pid = cli_start(args->items, out_path, err_path);
    hostile_wait_for_measurements(pid, db, BAD, out_path, err_path);
    hostile_sleep_ms(700);
    *n_workers = hostile_children(pid, workers, 16);
    return pid;
}

/* The run ended with the interrupted exit status (130, as `skytune --help`
 * lists), x = 2 (in flight) was not recorded,
 * and the campaign is one of the statuses given. */
static void assert_interrupted(const char *db, int status, const char *out_path,
                               const char *err_path, const char *const *campaign_statuses)
{
    char *out = hostile_read_text(out_path), *err = hostile_read_text(err_path);
    cr_assert_eq(status, 130, "after Ctrl-C the run ended with %s, expected exit status 130\n"
                            "stdout:\n%s\nstderr:\n%s",
                 cli_status_text(status), out, err);
    free(out);
    free(err);
    hostile_assert_database_sound(db);
    cr_assert_eq(hostile_rows_of(db, BAD), 0,
                 "x=%d was in flight when the run was interrupted, yet it was recorded", BAD);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), BAD);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), BAD);
    char *campaign_status = cli_db_text(db, "SELECT status FROM campaigns");
    bool expected = false;
    for (size_t k = 0; campaign_statuses[k]; k++)
        expected = expected || strcmp(campaign_status, campaign_statuses[k]) == 0;
    cr_assert(expected, "the interrupted campaign is '%s'", campaign_status);
    free(campaign_status);
}

Test(isolation, interrupt_while_a_callback_hangs_stops_and_the_same_command_continues)
{
    char *db = cli_path(scratch, "interrupt.db");
    char *out_path = cli_path(scratch, "interrupt.out");
    char *err_path = cli_path(scratch, "interrupt.err");
    /* The watchdog is far enough off that Ctrl-C, not the watchdog, ends
     * the hang in the first run, and near enough for the second. */
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--timeout-floor", "8s",
                                      "--compile-timeout", COMPILE_TIMEOUT, "--stop-grace",
                                      STOP_GRACE, "--set", "fault=hang", "--set", "where=prepare"));
    hostile_process workers[16];
    size_t n_workers;
    pid_t pid = start_hanging_campaign(&args, out_path, err_path, db, workers, &n_workers);
    kill(pid, SIGINT);
    int status = cli_wait(pid, 120);
    assert_interrupted(db, status, out_path, err_path, CLI_ARGS("interrupted"));
    cr_assert_eq(hostile_wait_until_gone(workers, n_workers, 10.0), -1,
                 "a worker of the interrupted run is still running");

    /* The same command measures x = 2 (which now times out) and the rest. */
    cli_result r = hostile_run_ok(&args, "running the same command after Ctrl-C");
    hostile_summary s = hostile_parse_summary(r.out);
    cr_assert_eq(s.measured, CONFIGURATIONS - BAD, "%s", r.out);
    cli_result_free(&r);
    const fault_case hang = {.status = "timeout", .stage = "prepare", .message = TIMEOUT_MESSAGE};
    const long long bad[] = {BAD};
    assert_failed_as(db, BAD, &hang);
    assert_others_ok(db, CONFIGURATIONS, bad, 1);
    hostile_assert_each_measured_once(db, s.campaign, CONFIGURATIONS);
    assert_campaign_done(db, s.campaign);
    hostile_assert_database_sound(db);
    free(db);
    free(out_path);
    free(err_path);
}

/* With a watchdog and a stop grace of ten minutes, only the second Ctrl-C
 * can end the run in time. */
Test(isolation, second_interrupt_stops_at_once_even_while_a_callback_hangs)
{
    char *db = cli_path(scratch, "twice.db");
    char *out_path = cli_path(scratch, "twice.out");
    char *err_path = cli_path(scratch, "twice.err");
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--timeout-floor", "10m",
                                      "--compile-timeout", COMPILE_TIMEOUT, "--stop-grace", "10m",
                                      "--set", "fault=hang", "--set", "where=prepare"));
    hostile_process workers[16];
    size_t n_workers;
    pid_t pid = start_hanging_campaign(&args, out_path, err_path, db, workers, &n_workers);
    kill(pid, SIGINT);
    hostile_sleep_ms(500);
    int status;
    /* x = 2 hangs in prepare by now, so the first Ctrl-C waits for it. */
    cr_assert(!cli_poll_exit(pid, &status),
              "the first Ctrl-C ended the run (%s) while a callback hung and the stop grace "
              "was ten minutes",
              cli_status_text(status));
    /* It says so at once: what it waits for, how long, and how not to. */
    char *said = hostile_read_text(err_path);
    cr_assert(strstr(said, "skytune: stopping: the configuration in flight has 10 min to finish "
                           "(--stop-grace), else it is stopped and measured again next time; "
                           "Ctrl-C again stops at once\n"),
              "the first Ctrl-C did not say what happens now:\n%s", said);
    free(said);
    kill(pid, SIGINT);
    status = cli_wait(pid, 60);
    /* Stopping at once may leave the campaign marked as running, as a kill
     * would; the same command continues it either way. */
    assert_interrupted(db, status, out_path, err_path, CLI_ARGS("interrupted", "running"));
    cr_assert_eq(hostile_wait_until_gone(workers, n_workers, 10.0), -1,
                 "a worker of the run stopped at once is still running");
    free(db);
    free(out_path);
    free(err_path);
}

/* ------------------------------------------------------------ behaving */

/* The plugin itself is sound: with no fault, every configuration passes,
 * with nothing but the options every engine has. */
Test(isolation, harmless_plugin_passes_every_configuration)
{
    char *db = cli_path(scratch, "harmless.db");
    hostile_args args = hostile_run_args("exhaustive", db);
    /* --no-race: each keeps its 3 runs, which the check below counts. */
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--no-race"));
    cli_result r = hostile_run_ok(&args, "a campaign with no fault");
    hostile_summary s = hostile_parse_summary(r.out);
    cr_assert_eq(s.measured, CONFIGURATIONS, "%s", r.out);
    cr_assert(strstr(r.out, "status: ok 6\n"), "not every configuration passed:\n%s", r.out);
    cli_result_free(&r);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"
                                " AND median_ns > 0 AND n_samples = 3"),
                 CONFIGURATIONS);
    hostile_assert_each_measured_once(db, s.campaign, CONFIGURATIONS);
    hostile_assert_database_sound(db);
    free(db);
}

/* --no-isolation measures in the engine process: no measuring worker is
 * ever started, and a harmless plugin still passes everywhere. */
Test(isolation, no_isolation_measures_without_workers)
{
    char *db = cli_path(scratch, "inline.db");
    char *out_path = cli_path(scratch, "inline.out");
    char *err_path = cli_path(scratch, "inline.err");
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--no-isolation", "--set",
                                      "values=12"));
    pid_t pid = cli_start(args.items, out_path, err_path);
    int status;
    double deadline = hostile_now_s() + CLI_TIMEOUT_S;
    while (!cli_poll_exit(pid, &status)) {
        hostile_process children[16];
        size_t n = hostile_children(pid, children, 16);
        for (size_t k = 0; k < n; k++)
            cr_assert_str_neq(children[k].role, "measure",
                              "--no-isolation, yet a measuring worker (pid %d) was started",
                              (int)children[k].pid);
        if (hostile_now_s() > deadline) {
            kill(pid, SIGKILL);
            cli_wait(pid, 30);
            cr_assert_fail("the run did not end in %.0f s", CLI_TIMEOUT_S);
        }
        hostile_sleep_ms(20);
    }
    char *out = hostile_read_text(out_path), *err = hostile_read_text(err_path);
    cr_assert_eq(status, 0, "skytune run --no-isolation: %s\nstdout:\n%s\nstderr:\n%s",
                 cli_status_text(status), out, err);
    hostile_summary s = hostile_parse_summary(out);
    cr_assert_eq(s.measured, 12, "%s", out);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), 12);
    hostile_assert_database_sound(db);
    free(out);
    free(err);
    free(db);
    free(out_path);
    free(err_path);
}
