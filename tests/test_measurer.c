/* The measurer on a real OpenCL device (PoCL here) with the trivial test
 * plugin, whose kernel can be made to fail to compile, fail to launch or
 * compute the wrong answer by configuration: each must become its status,
 * and the good configuration must be verified and timed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cl_device.h"
#include "measurer.h"
#include "trivial_plugin.h"

#define N TRIVIAL_N

static cl_device_entry *devices;
static measurer *ms;

static void open_measurer(void)
{
    size_t n, chosen;
    skytune_error err = {0};
    cr_assert_eq(cl_devices_list(&devices, &n, &err), 0, "%s", err.message);
    cr_assert_eq(cl_device_select(devices, n, NULL, &chosen, &err), 0, "%s", err.message);
    measurer_options opts = {.runs = 4, .seed = 1};
    /* The measurer keeps the problem by reference for the whole suite. */
    static skytune_values problem = {0};
    cr_assert_eq(measurer_open(&trivial_plugin, &devices[chosen], &problem, &opts, &ms, &err), 0,
                 "%s", err.message);
}

static void close_measurer(void)
{
    measurer_close(ms);
    free(devices);
}

static void measure(int64_t wg, int64_t mode, measurement *m)
{
    skytune_named_value items[3] = {
        {"wg", {.type = SKYTUNE_INT, .i = wg}},
        {"MODE", {.type = SKYTUNE_INT, .i = mode}},
        {"variant", {.type = SKYTUNE_INT, .i = 0}},
    };
    skytune_values config = {.count = 3, .items = items};
    skytune_error err = {0};
    cr_assert_eq(measurer_measure(ms, &config, m, &err), 0, "%s", err.message);
}

TestSuite(measurer, .init = open_measurer, .fini = close_measurer);

/* The trivial plugin names no transfers: asking for them is refused
 * before anything is measured, naming the plugin and what it lacks. */
Test(measurer, transfers_are_refused_for_a_plugin_that_names_none)
{
    size_t n, chosen;
    cl_device_entry *list = NULL;
    skytune_error err = {0};
    cr_assert_eq(cl_devices_list(&list, &n, &err), 0, "%s", err.message);
    cr_assert_eq(cl_device_select(list, n, NULL, &chosen, &err), 0, "%s", err.message);
    measurer_options opts = {.runs = 2, .seed = 1, .transfers = true};
    static skytune_values problem = {0};
    measurer *other = NULL;
    cr_assert_neq(measurer_open(&trivial_plugin, &list[chosen], &problem, &opts, &other, &err), 0);
    cr_expect(strstr(err.message, "names no host-device transfers"), "%s", err.message);
    cr_expect(strstr(err.message, trivial_plugin.name), "%s", err.message);
    free(list);
}

Test(measurer, good_configuration_is_verified_and_timed)
{
    measurement m;
    measure(64, 0, &m);
    cr_assert_eq(m.status, MEAS_OK, "status %s: %s", measurement_status_name(m.status),
                 m.message ? m.message : "");
    cr_assert_eq(m.n_samples, 4);
    cr_assert(m.median_ns > 0);
    cr_assert(m.min_ns <= m.median_ns && m.median_ns <= m.max_ns);
    cr_assert_float_eq(m.gflops, N / m.median_ns, 1e-9);
    cr_assert_float_eq(m.gbs, 8.0 * N / m.median_ns, 1e-9);
    cr_assert_eq(m.n_parts, 1);
    cr_assert_str_eq(m.parts[0].label, "scale");
    cr_assert(m.build_s > 0 && m.verify_s > 0 && m.bench_s > 0);
    measurement_clear(&m);
}

/* The suite's 4 runs: a race limit far below every run (every run more
 * than RACE_FAR_FACTOR times it) stops after the first, with that run's
 * statistics; one above every run, or none, times all 4. (Where a limit
 * between RACE_FAR_FACTOR times it and itself stops, after RACE_MIN_RUNS
 * runs, is tests/test_racing.c's.) */
Test(measurer, a_race_limit_stops_the_timed_runs_of_a_slower_configuration)
{
    skytune_named_value items[3] = {
        {"wg", {.type = SKYTUNE_INT, .i = 64}},
        {"MODE", {.type = SKYTUNE_INT, .i = 0}},
        {"variant", {.type = SKYTUNE_INT, .i = 0}},
    };
    skytune_values config = {.count = 3, .items = items};
    skytune_error err = {0};
    measurement m;
    cr_assert_eq(measurer_measure_raced(ms, &config, 1e-3, &m, &err), 0, "%s", err.message);
    cr_assert_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
    cr_assert(m.raced);
    cr_assert_eq(m.n_samples, 1);
    cr_assert(m.min_ns <= m.median_ns && m.median_ns <= m.max_ns);
    cr_assert_float_eq(m.gflops, N / m.median_ns, 1e-9);
    measurement_clear(&m);
    cr_assert_eq(measurer_measure_raced(ms, &config, 1e18, &m, &err), 0, "%s", err.message);
    cr_assert_not(m.raced);
    cr_assert_eq(m.n_samples, 4);
    measurement_clear(&m);
    cr_assert_eq(measurer_measure_raced(ms, &config, 0.0, &m, &err), 0, "%s", err.message);
    cr_assert_not(m.raced);
    cr_assert_eq(m.n_samples, 4);
    measurement_clear(&m);
}

Test(measurer, compile_error_keeps_the_build_log)
{
    measurement m;
    measure(64, 1, &m);
    cr_assert_eq(m.status, MEAS_COMPILE);
    cr_assert_not_null(m.message);
    cr_assert(strstr(m.message, "CL_BUILD_PROGRAM_FAILURE") != NULL, "%s", m.message);
    cr_assert(strstr(m.message, "does not compile") != NULL, "log missing: %s", m.message);
    cr_assert(strstr(m.message, "-D MODE=1") != NULL, "options missing: %s", m.message);
    measurement_clear(&m);
}

Test(measurer, wrong_result_reports_the_first_mismatch)
{
    measurement m;
    measure(64, 3, &m);
    cr_assert_eq(m.status, MEAS_WRONG_RESULT);
    cr_assert_eq(m.first_mismatch, 100);
    cr_assert_float_eq(m.max_abs_error, 2.0 * 100 * 0.5 + 1.0, 1e-6);
    cr_assert_eq(m.n_samples, 0, "a wrong configuration is not timed");
    measurement_clear(&m);
}

Test(measurer, launch_error_names_the_opencl_error)
{
    measurement m;
    measure(3, 0, &m); /* 3 does not divide the global size */
    cr_assert_eq(m.status, MEAS_LAUNCH);
    cr_assert(strstr(m.message, "CL_INVALID_WORK_GROUP_SIZE") != NULL, "%s", m.message);
    /* Which run failed: a kernel that broke its context (an illegal address
     * on a GPU) fails the run after it, often in clFinish. */
    cr_assert(strncmp(m.message, "the verification run: ", 22) == 0, "%s", m.message);
    measurement_clear(&m);
    /* The measurer goes on measuring after a failure. */
    measure(1, 0, &m);
    cr_assert_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
    measurement_clear(&m);
}

Test(measurer, outputs_are_poisoned_before_verification)
{
    /* A good run leaves correct data in the output buffer; a kernel that
     * then writes nothing must not pass verification with that stale data. */
    measurement m;
    measure(64, 0, &m);
    cr_assert_eq(m.status, MEAS_OK);
    measurement_clear(&m);
    measure(64, 4, &m);
    cr_assert_eq(m.status, MEAS_WRONG_RESULT);
    cr_assert_eq(m.first_mismatch, 0);
    measurement_clear(&m);
}

/* The stages one measurement went through, as its on_stage heard them. */
typedef struct stage_log {
    measure_stage seen[32];
    size_t n;
} stage_log;

static bool log_stage(void *ctx, measure_stage stage)
{
    stage_log *log = ctx;
    if (log->n < 32) log->seen[log->n++] = stage;
    return true;
}

/* Which limit a hanging kernel gets must not depend on when a driver calls
 * an event's callbacks (NVIDIA's call at a kernel's end, PoCL's at its
 * start): the first launch is in stage verify from the plugin's enqueue
 * on, and the stages only ever go forward. The driver's code generation at
 * that launch is measured (first_launch_extra_s, part of build_s). */
Test(measurer_stages, the_first_launch_is_verification_and_stages_only_go_forward)
{
    size_t n, chosen;
    cl_device_entry *list;
    skytune_error err = {0};
    cr_assert_eq(cl_devices_list(&list, &n, &err), 0, "%s", err.message);
    cr_assert_eq(cl_device_select(list, n, NULL, &chosen, &err), 0, "%s", err.message);
    stage_log log = {0};
    measurer_options opts = {.runs = 2, .seed = 1, .on_stage = log_stage, .stage_ctx = &log};
    static skytune_values problem = {0};
    measurer *staged;
    cr_assert_eq(measurer_open(&trivial_plugin, &list[chosen], &problem, &opts, &staged, &err), 0,
                 "%s", err.message);
    skytune_named_value items[3] = {
        {"wg", {.type = SKYTUNE_INT, .i = 32}},
        {"MODE", {.type = SKYTUNE_INT, .i = 0}},
        {"variant", {.type = SKYTUNE_INT, .i = 0}},
    };
    skytune_values config = {.count = 3, .items = items};
    measurement m;
    cr_assert_eq(measurer_measure(staged, &config, &m, &err), 0, "%s", err.message);
    cr_assert_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
    char order[512] = "";
    for (size_t k = 0; k < log.n; k++)
        snprintf(order + strlen(order), sizeof order - strlen(order), "%s%s", k ? " " : "",
                 measure_stage_name(log.seen[k]));
    for (size_t k = 1; k < log.n; k++)
        cr_expect_gt(log.seen[k], log.seen[k - 1], "the stages went back: %s", order);
    /* The verification run is the warm-up: no warm-up stage by default. */
    cr_expect_str_eq(order, "build prepare verify timed release");
    cr_expect(m.first_launch_extra_s >= 0 && m.first_launch_extra_s <= m.build_s,
              "first launch's extra %.6f s, build %.6f s", m.first_launch_extra_s, m.build_s);
    measurement_clear(&m);
    measurer_close(staged);
    free(list);
}
