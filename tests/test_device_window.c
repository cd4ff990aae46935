/* What a campaign does so that the device waits for as little as possible,
 * end to end through the skytune binary on the test machine's OpenCL device:
 *   - a plugin with read_back (hostile_split.so) has its outputs compared
 *     after the timed runs, and what the comparison finds (a wrong result, a
 *     crash, a hang) is recorded as it is for a plugin that compares first;
 *   - while a configuration is compared, the spare holding the next one is
 *     let through the gate, and every configuration is still measured once
 *     and recorded right;
 *   - the CPU reference is computed once per campaign and copied into every
 *     later worker, one started after a fault too;
 *   - `--trace FILE` writes Chrome trace events: every configuration's
 *     stages on the workers' tracks and the engine's steps;
 *   - `--compare device` compares the outputs where they are and gives the
 *     verdicts the host's comparison gives, a plugin's faults in
 *     device_outputs contained as in any callback. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "hostile_harness.h"

#define CONFIGURATIONS "8"

TestSuite(device_window, .init = hostile_suite_open, .fini = hostile_suite_close,
          .timeout = 300);

static const char *split_plugin_path(void)
{
    const char *path = getenv("SKYTUNE_HOSTILE_SPLIT_PLUGIN");
    cr_assert(path && *path, "SKYTUNE_HOSTILE_SPLIT_PLUGIN is not set: run through `meson test`");
    return path;
}

/* An exhaustive campaign of the split hostile plugin over 8 configurations. */
/* Without the confirmation of the winner, whose visits would add to what
 * the tests count per configuration (tests/test_confirm.c covers it). */
static hostile_args split_run_args(const char *db)
{
    hostile_args a = {.n = 0};
    hostile_args_add(&a, CLI_ARGS("run", "--plugin", split_plugin_path(), "--strategy",
                                  "exhaustive", "--db", db, "--runs", "3", "--set",
                                  "values=" CONFIGURATIONS, "--timeout-floor", "3s",
                                  "--stop-grace", "1s", "--no-confirm"));
    return a;
}

static long long count_of(const char *db, const char *where)
{
    return cli_db_int(db, "SELECT COUNT(*) FROM measurements m WHERE %s", where);
}

/* The spans of the trace file named `name` on tracks whose process name
 * starts with `track` (NULL: any). */
static size_t spans_named(json_t *events, const char *track, const char *name)
{
    /* pid → process name */
    size_t n = 0;
    size_t k;
    json_t *e;
    json_array_foreach(events, k, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0) continue;
        if (strcmp(json_string_value(json_object_get(e, "name")), name) != 0) continue;
        if (track) {
            json_int_t pid = json_integer_value(json_object_get(e, "pid"));
            size_t j;
            json_t *m;
            bool on_track = false;
            json_array_foreach(events, j, m)
            {
                const char *mname = json_string_value(json_object_get(m, "name"));
                if (strcmp(json_string_value(json_object_get(m, "ph")), "M") == 0 &&
                    strcmp(mname, "process_name") == 0 &&
                    json_integer_value(json_object_get(m, "pid")) == pid) {
                    const char *pname =
                        json_string_value(json_object_get(json_object_get(m, "args"), "name"));
                    on_track = pname && strncmp(pname, track, strlen(track)) == 0;
                }
            }
            if (!on_track) continue;
        }
        n++;
    }
    return n;
}

static json_t *load_trace(const char *path)
{
    json_error_t jerr;
    json_t *events = json_load_file(path, 0, &jerr);
    cr_assert(events, "the trace %s is not JSON: %s (line %d)", path, jerr.text, jerr.line);
    cr_assert(json_is_array(events), "the trace is not an array of events");
    return events;
}

/* The trace shows the CPU reference computed once, and copied by at least
 * `copies` other workers (`who`). */
static void expect_reference_computed_once(const char *trace, size_t copies, const char *who)
{
    json_t *events = load_trace(trace);
    cr_expect_eq(spans_named(events, NULL, "CPU reference"), 1,
                 "the reference was computed more than once");
    cr_expect_geq(spans_named(events, "measuring worker", "CPU reference, shared"), copies,
                  "%s did not copy the shared reference", who);
    json_decref(events);
}

Test(device_window, a_wrong_result_found_after_the_runs_is_recorded_without_times)
{
    char *db = cli_path(hostile_suite_scratch, "wrong.db");
    hostile_args a = split_run_args(db);
    hostile_args_add(&a, CLI_ARGS("--set", "fault=wrong", "--set", "bad=2"));
    cli_result r = hostile_run_ok(&a, "a campaign whose x=2 computes the wrong result");
    cli_result_free(&r);
    hostile_row row = hostile_row_of(db, 2);
    cr_assert_str_eq(row.status, "wrong_result", "x=2 is %s (%s)", row.status,
                     row.message ? row.message : "");
    cr_assert(row.message && strstr(row.message, "differ from the CPU reference"), "%s",
              row.message ? row.message : "(none)");
    hostile_row_free(&row);
    cr_expect_eq(count_of(db, "status = 'wrong_result' AND median_ns IS NULL"), 1,
                 "the wrong result kept the times of its runs");
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM samples s JOIN measurements m ON m.id = "
                                "s.measurement_id WHERE m.status = 'wrong_result'"),
                 0, "the wrong result's samples were stored");
    cr_expect_eq(count_of(db, "status = 'ok'"), 7, "the other configurations are not all ok");
    free(db);
}

/* x=2 misbehaves (`fault`) in its comparison after the runs: recorded as
 * `status` in stage verify, whose message says `says`; the rest ok. */
static void expect_fault_in_the_comparison(const char *fault, const char *status,
                                           const char *says)
{
    char name[64], setting[64];
    snprintf(name, sizeof name, "%s.db", fault);
    snprintf(setting, sizeof setting, "fault=%s", fault);
    char *db = cli_path(hostile_suite_scratch, name);
    hostile_args a = split_run_args(db);
    hostile_args_add(&a, CLI_ARGS("--set", setting, "--set", "where=verify", "--set", "bad=2"));
    cli_result r = hostile_run_ok(&a, "a campaign whose x=2 misbehaves while it is compared");
    cli_result_free(&r);
    hostile_row row = hostile_row_of(db, 2);
    cr_assert_str_eq(row.status, status, "x=2 is %s (%s)", row.status,
                     row.message ? row.message : "");
    cr_assert(row.stage && strcmp(row.stage, "verify") == 0, "x=2 failed in stage %s",
              row.stage ? row.stage : "(none)");
    cr_expect(row.message && strstr(row.message, says), "the message does not say '%s': %s",
              says, row.message ? row.message : "");
    hostile_row_free(&row);
    cr_expect_eq(count_of(db, "status = 'ok'"), 7, "the other configurations are not all ok");
    free(db);
}

Test(device_window, a_crash_in_the_comparison_after_the_runs_is_a_crash_in_verify)
{
    expect_fault_in_the_comparison("segv", "crash", "compare");
}

Test(device_window, a_comparison_that_never_ends_is_a_timeout_in_verify)
{
    expect_fault_in_the_comparison("hang", "timeout", "timed out in stage compare");
}

/* Spares, no compile workers (a CPU device's compile workers are paused for
 * whoever runs on it, which rules early runs out): the next configuration
 * runs while the one before is compared, and a wrong one among them is
 * still found. */
Test(device_window, the_next_configuration_runs_while_one_is_compared)
{
    char *db = cli_path(hostile_suite_scratch, "early.db");
    char *trace = cli_path(hostile_suite_scratch, "early.json");
    hostile_args a = split_run_args(db);
    hostile_args_add(&a, CLI_ARGS("--measure-ahead", "2", "--compile-jobs", "0", "--set",
                                  "fault=wrong", "--set", "bad=5", "--trace", trace));
    cli_result r = hostile_run_ok(&a, "a campaign with spares and early runs");
    char *early = cli_line_after(r.out, "timed while the configuration before was compared: ");
    cr_assert(early, "no configuration was timed while another was compared:\n%s", r.out);
    cr_expect_gt(atoi(early), 0, "%s", r.out);
    free(early);
    cli_result_free(&r);
    cr_expect_eq(count_of(db, "status = 'ok'"), 7, "not every right configuration is ok");
    hostile_row row = hostile_row_of(db, 5);
    cr_expect_str_eq(row.status, "wrong_result", "x=5 is %s", row.status);
    hostile_row_free(&row);
    for (long long x = 0; x < 8; x++)
        cr_expect_eq(hostile_rows_of(db, x), 1, "x=%lld was recorded %lld times", x,
                     hostile_rows_of(db, x));
    /* The spares copied the reference the measuring worker computed. */
    expect_reference_computed_once(trace, 2, "the spares");
    free(trace);
    free(db);
}

/* A worker started again after a crash copies the reference too. */
Test(device_window, a_worker_started_after_a_fault_copies_the_reference)
{
    char *db = cli_path(hostile_suite_scratch, "restart.db");
    char *trace = cli_path(hostile_suite_scratch, "restart.json");
    hostile_args a = split_run_args(db);
    hostile_args_add(&a, CLI_ARGS("--set", "fault=segv", "--set", "where=prepare", "--set",
                                  "bad=2", "--trace", trace));
    cli_result r = hostile_run_ok(&a, "a campaign whose x=2 crashes its worker");
    cli_result_free(&r);
    expect_reference_computed_once(trace, 1, "the worker started after the crash");
    free(trace);
    free(db);
}

/* Every measured configuration's stages are on a worker's track, the
 * compile workers' builds on theirs, the engine's steps on its own; the file
 * is one JSON array that Perfetto reads. */
Test(device_window, the_trace_shows_every_configurations_stages)
{
    char *db = cli_path(hostile_suite_scratch, "trace.db");
    char *trace = cli_path(hostile_suite_scratch, "trace.json");
    hostile_args a = split_run_args(db);
    hostile_args_add(&a, CLI_ARGS("--compile-jobs", "1", "--trace", trace));
    cli_result r = hostile_run_ok(&a, "a traced campaign");
    cli_result_free(&r);
    json_t *events = load_trace(trace);
    const char *per_configuration[] = {"configuration", "wait for the device", "prepare",
                                       "verification run", "read back", "timed runs",
                                       "release", "compare", NULL};
    for (size_t k = 0; per_configuration[k]; k++)
        cr_expect_eq(spans_named(events, "measuring worker", per_configuration[k]), 8,
                     "'%s' is not traced once for each of the 8 configurations",
                     per_configuration[k]);
    cr_expect_geq(spans_named(events, "compile worker", "compile"), 1,
                  "the compile worker's builds are not traced");
    const char *engine[] = {"evaluate", "strategy", "look up and claim", "record and report",
                            NULL};
    for (size_t k = 0; engine[k]; k++)
        cr_expect_eq(spans_named(events, "engine", engine[k]), 8,
                     "the engine's '%s' is not traced once a configuration", engine[k]);
    cr_expect_eq(spans_named(events, "engine", "campaign"), 1, "no campaign span");
    cr_expect_eq(spans_named(events, "engine", "start the workers"), 1, "no start span");
    /* A configuration's span holds its text, and its stages lie inside it. */
    size_t k;
    json_t *e;
    size_t with_text = 0;
    json_array_foreach(events, k, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (strcmp(name, "configuration") != 0) continue;
        const char *text = json_string_value(
            json_object_get(json_object_get(e, "args"), "configuration"));
        if (text && strncmp(text, "x=", 2) == 0) with_text++;
    }
    cr_expect_geq(with_text, 8, "configuration spans without the configuration's text");
    json_decref(events);
    free(trace);
    free(db);
}

Test(device_window, a_trace_file_that_cannot_be_written_is_refused_before_anything_runs)
{
    char *db = cli_path(hostile_suite_scratch, "refused.db");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", split_plugin_path(), "--strategy",
                                    "exhaustive", "--db", db, "--trace",
                                    "/nonexistent-folder/trace.json"));
    cr_expect_neq(r.status, 0, "a run with an unwritable trace file succeeded");
    cr_expect(strstr(r.err, "--trace") && strstr(r.err, "/nonexistent-folder/trace.json"),
              "the refusal does not name --trace and the file: %s", r.err);
    cr_expect(!cli_file_exists(db), "the refused run created its database");
    cli_result_free(&r);
    free(db);
}

/* ------------------------------------------------ comparing on the device */

/* What each configuration x = 0 .. 7 was recorded as, in order of x: its
 * status and largest errors, which comparing on the device must leave as
 * the host's comparison makes them. */
static char *verdicts_of(const char *db)
{
    return cli_db_text(db, "SELECT group_concat(verdict, ' ') FROM (SELECT p.value || ':' || "
                           "m.status || ':' || quote(m.max_abs_error) || ':' || "
                           "quote(m.max_rel_error) AS verdict FROM measurements m JOIN "
                           "config_params p ON p.configuration_id = m.configuration_id AND "
                           "p.name = 'x' ORDER BY CAST(p.value AS INTEGER))");
}

static hostile_args compare_run_args(const char *db, const char *where, const char *fault)
{
    hostile_args a = split_run_args(db);
    hostile_args_add(&a, CLI_ARGS("--compare", where, "--set", fault, "--set", "bad=2"));
    return a;
}

/* A wrong result found on the device is decided by the plugin's own
 * comparison on the host, before any timed run: the same status, message
 * and errors as comparing on the host gives, and every right one passes
 * without its outputs read back. */
Test(device_window, outputs_compared_on_the_device_get_the_hosts_verdicts)
{
    char *host_db = cli_path(hostile_suite_scratch, "on-host.db");
    char *device_db = cli_path(hostile_suite_scratch, "on-device.db");
    char *trace = cli_path(hostile_suite_scratch, "on-device.json");
    hostile_args h = compare_run_args(host_db, "host", "fault=wrong");
    cli_result r = hostile_run_ok(&h, "x=2 wrong, compared on the host");
    cr_expect_null(strstr(r.out, "compared on the device"), "%s", r.out);
    cli_result_free(&r);
    hostile_args d = compare_run_args(device_db, "device", "fault=wrong");
    hostile_args_add(&d, CLI_ARGS("--trace", trace));
    r = hostile_run_ok(&d, "x=2 wrong, compared on the device");
    /* The wrong one's verdict is the host's. */
    cr_expect(strstr(r.out, "outputs compared on the device: 7 of the 8 measured (--compare)"),
              "the run does not say where it compared:\n%s", r.out);
    cli_result_free(&r);

    char *on_host = verdicts_of(host_db), *on_device = verdicts_of(device_db);
    cr_expect_str_eq(on_device, on_host, "the verdicts differ");
    hostile_row host_row = hostile_row_of(host_db, 2), device_row = hostile_row_of(device_db, 2);
    cr_assert_str_eq(device_row.status, "wrong_result", "x=2 is %s", device_row.status);
    cr_expect_str_eq(device_row.message, host_row.message, "the messages differ");
    cr_expect_eq(count_of(device_db, "status = 'ok'"), 7);

    /* A wrong result is measured twice (the second time in a fresh
     * worker, in case the first was spoiled by a configuration before it):
     * 9 measurements, the 7 right ones timed, the 2 wrong ones read back. */
    json_t *events = load_trace(trace);
    size_t measured = spans_named(events, "measuring worker", "configuration");
    size_t timed = spans_named(events, "measuring worker", "timed runs");
    cr_expect_geq(measured, 8);
    cr_expect_eq(timed, 7, "%zu configurations timed, not the 7 right ones", timed);
    cr_expect_eq(spans_named(events, "measuring worker", "compare on the device"), measured,
                 "not every configuration was compared on the device");
    cr_expect_eq(spans_named(events, "measuring worker", "read back"), measured - timed,
                 "outputs were read back besides the wrong ones'");
    cr_expect_eq(spans_named(events, "measuring worker", "compare"), 0,
                 "a configuration was compared after its runs");
    json_decref(events);
    hostile_row_free(&host_row);
    hostile_row_free(&device_row);
    free(on_host);
    free(on_device);
    free(trace);
    free(device_db);
    free(host_db);
}

/* A kernel that writes past its output may hit the device's copy of the
 * reference: a wrong verdict there goes to the host, and the copy is made
 * again, so no configuration after it is judged against damaged data.
 * (On PoCL the write damages the worker's heap, which aborts it.) */
Test(device_window, a_write_past_the_output_spoils_no_later_verdict)
{
    char *db = cli_path(hostile_suite_scratch, "near.db");
    hostile_args a = split_run_args(db);
    hostile_args_add(&a, CLI_ARGS("--compare", "device", "--set", "fault=near", "--set", "bad=1",
                                  "--set", "bad2=4"));
    cli_result r = hostile_run_ok(&a, "x=1 and x=4 write past their output");
    cli_result_free(&r);
    cr_expect_eq(count_of(db, "status = 'wrong_result'"), 0, "a configuration was judged wrong");
    for (long long x = 0; x < 8; x++) {
        if (x == 1 || x == 4) continue;
        hostile_row row = hostile_row_of(db, x);
        cr_expect_str_eq(row.status, "ok", "x=%lld is %s (%s)", x, row.status,
                         row.message ? row.message : "");
        hostile_row_free(&row);
    }
    free(db);
}

Test(device_window, a_segfault_in_device_outputs_is_a_crash_in_verify)
{
    char *db = cli_path(hostile_suite_scratch, "segv-outputs.db");
    hostile_args a = compare_run_args(db, "device", "fault=segv");
    hostile_args_add(&a, CLI_ARGS("--set", "where=device_outputs"));
    cli_result r = hostile_run_ok(&a, "x=2 segfaults in device_outputs");
    cli_result_free(&r);
    hostile_row row = hostile_row_of(db, 2);
    cr_expect_str_eq(row.status, "crash", "x=2 is %s", row.status);
    cr_expect_str_eq(row.stage ? row.stage : "", "verify");
    cr_expect(row.message && strstr(row.message, "SIGSEGV"), "%s", row.message);
    cr_expect_eq(count_of(db, "status = 'ok'"), 7);
    hostile_row_free(&row);
    free(db);
}

/* A plugin that names more of an output than its buffer holds would have
 * the engine's kernel read past it: refused as the plugin's launch error. */
Test(device_window, an_output_larger_than_its_buffer_is_refused)
{
    char *db = cli_path(hostile_suite_scratch, "overstate.db");
    hostile_args a = compare_run_args(db, "device", "fault=overstate");
    cli_result r = hostile_run_ok(&a, "x=2 names one element too many");
    cli_result_free(&r);
    hostile_row row = hostile_row_of(db, 2);
    cr_expect_str_eq(row.status, "launch", "x=2 is %s", row.status);
    cr_expect(row.message && strstr(row.message, "device_outputs: output 'output': 1025 floats "
                                                 "from element 0 do not fit its buffer of 1024"),
              "%s", row.message);
    cr_expect_eq(count_of(db, "status = 'ok'"), 7);
    hostile_row_free(&row);
    free(db);
}

Test(device_window, a_place_to_compare_that_is_none_is_refused)
{
    char *db = cli_path(hostile_suite_scratch, "elsewhere.db");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", split_plugin_path(), "--db", db,
                                    "--compare", "gpu"));
    cr_expect_eq(r.status, 2, "exit status %d", r.status);
    cr_expect(strstr(r.err, "--compare 'gpu' is not a place to compare outputs: auto, device or "
                            "host"),
              "%s", r.err);
    cr_expect(!cli_file_exists(db), "the refused run created its database");
    cli_result_free(&r);
    free(db);
}
