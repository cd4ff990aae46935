/* What the engine holds a plugin to, and what it gives a plugin, in plugin
 * ABI 4: tests/abi_plugin.c exercises each part (build options of its own,
 * the configuration handed to verify, outputs with tolerances of their own,
 * reasons from defines and the C constraint, derived values), and lookups
 * of names a plugin did not declare are errors naming them. Also: the
 * phases of a measurement mean what they say on PoCL, which generates a
 * kernel's code at its first launch. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_options.h"
#include "cli_harness.h"
#include "derived_values.h"
#include "plugin_harness.h"

static const char *abi_plugin_path(void)
{
    const char *path = getenv("SKYTUNE_ABI_PLUGIN");
    cr_assert(path && *path, "SKYTUNE_ABI_PLUGIN is not set (tests/meson.build sets it)");
    return path;
}

static plugin_harness h;

static int open_abi(const char *fault, const char *extra, skytune_error *err)
{
    char fault_setting[64];
    snprintf(fault_setting, sizeof fault_setting, "fault=%s", fault);
    const char *settings[] = {fault_setting, extra};
    return harness_open(&h, abi_plugin_path(), NULL, settings, extra ? 2 : 1, 3, err);
}

static void open_abi_or_fail(const char *fault)
{
    skytune_error err = {0};
    cr_assert_eq(open_abi(fault, NULL, &err), 0, "%s", err.message);
}

static measurement measure(const char *config)
{
    measurement m;
    measurement_init(&m);
    skytune_error err = {0};
    cr_assert_eq(harness_measure(&h, config, &m, &err), 0, "%s", err.message);
    return m;
}

static void expect_message(const measurement *m, const char *const *needles)
{
    cr_assert(m->message, "no message");
    for (size_t k = 0; needles[k]; k++)
        cr_expect(strstr(m->message, needles[k]), "the message lacks '%s': %s", needles[k],
                  m->message);
}

static void close_harness(void)
{
    harness_close(&h);
}

TestSuite(plugin_abi, .fini = close_harness);

Test(plugin_abi, the_configuration_and_the_build_options_reach_the_plugin)
{
    /* FACTOR exists only in the plugin's build options, and verify fails
     * unless it is given the configuration prepare was. */
    open_abi_or_fail("none");
    for (int wg = 16; wg <= 64; wg *= 2) {
        char config[64];
        snprintf(config, sizeof config, "wg=%d,shift=0", wg);
        measurement m = measure(config);
        cr_expect_eq(m.status, MEAS_OK, "%s: %s", config, m.message ? m.message : "");
        measurement_clear(&m);
    }
}

Test(plugin_abi, a_failed_output_is_named_with_its_tolerances)
{
    open_abi_or_fail("none");
    measurement m = measure("wg=32,shift=1");
    cr_assert_eq(m.status, MEAS_WRONG_RESULT);
    expect_message(&m, CLI_ARGS("output 'shifted'", "1024 of 1024 differ",
                                "tolerance: abs 0.5 or rel 0", "first at index 0"));
    cr_expect(!strstr(m.message, "'scaled'"), "an output that passed is blamed: %s", m.message);
    cr_expect_float_eq(m.max_abs_error, 1.0, 1e-9);
    measurement_clear(&m);
}

Test(plugin_abi, defines_says_why_a_configuration_cannot_be_built)
{
    open_abi_or_fail("defines_fails");
    measurement m = measure("wg=16,shift=1");
    cr_assert_eq(m.status, MEAS_COMPILE);
    expect_message(&m, CLI_ARGS("defines: the shift table does not fit"));
    measurement_clear(&m);
    m = measure("wg=16,shift=0");
    cr_expect_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
    measurement_clear(&m);
}

Test(plugin_abi, a_lookup_of_an_undeclared_name_in_prepare_fails_the_configuration)
{
    open_abi_or_fail("prepare_lookup");
    measurement m = measure("wg=32,shift=0");
    cr_assert_eq(m.status, MEAS_LAUNCH);
    expect_message(&m, CLI_ARGS("plugin abi", "its prepare looked up 'wg_sise'",
                                "tuning parameters: wg, shift",
                                "problem parameters: n, unroll, fault"));
    measurement_clear(&m);
}

Test(plugin_abi, a_lookup_of_an_undeclared_name_in_flops_fails_the_configuration)
{
    open_abi_or_fail("flops_lookup");
    measurement m = measure("wg=32,shift=0");
    cr_assert_eq(m.status, MEAS_LAUNCH);
    expect_message(&m, CLI_ARGS("looked up 'N'"));
    measurement_clear(&m);
}

Test(plugin_abi, a_lookup_of_an_undeclared_name_in_check_problem_refuses_the_problem)
{
    skytune_error err = {0};
    cr_assert_neq(open_abi("check_lookup", NULL, &err), 0);
    cr_expect(strstr(err.message, "its check_problem looked up 'nn'"), "%s", err.message);
}

Test(plugin_abi, a_lookup_of_an_undeclared_name_in_the_c_constraint_refuses_the_space)
{
    skytune_error err = {0};
    cr_assert_neq(open_abi("constraint_lookup", NULL, &err), 0);
    cr_expect(strstr(err.message, "its C constraint looked up 'shfit'"), "%s", err.message);
}

Test(plugin_abi, a_lookup_of_an_undeclared_name_in_a_derived_value_is_refused_up_front)
{
    open_abi_or_fail("derived_lookup");
    derived_values d;
    skytune_error err = {0};
    cr_assert_neq(derived_values_open(&d, h.plugin.desc, &h.problem.values, h.space, &err), 0);
    cr_expect(strstr(err.message, "its derived value 'work_groups' looked up 'wgg'"), "%s",
              err.message);
}

Test(plugin_abi, derived_values_are_computed_per_configuration)
{
    open_abi_or_fail("none");
    derived_values d;
    skytune_error err = {0};
    cr_assert_eq(derived_values_open(&d, h.plugin.desc, &h.problem.values, h.space, &err), 0,
                 "%s", err.message);
    uint16_t idx[2];
    cr_assert_eq(space_parse_config(h.space, "wg=64,shift=1", idx, &err), 0, "%s", err.message);
    measurement m;
    measurement_init(&m);
    cr_assert_eq(derived_values_compute(&d, idx, &m, &err), 0, "%s", err.message);
    cr_assert_eq(m.n_derived, 1);
    cr_expect_str_eq(m.derived[0].name, "work_groups");
    cr_expect_float_eq(m.derived[0].value, 16.0, 1e-12); /* 1024 / 64 */
    derived_values_close(&d);
}

Test(plugin_abi, the_report_keeps_each_output_apart)
{
    const float want[4] = {1, 2, 3, 4};
    const float close[4] = {1, 2, 3, 4.0001f};
    const float off[4] = {1, 2.5f, 3, 9};
    skytune_verify_report r = {0};
    skytune_verify_floats(&r, "first", close, want, 4, 0.0, 1e-3);
    cr_expect_eq(r.passed, 1);
    cr_expect_gt(r.max_abs_error, 0.0, "the largest error while all pass");
    skytune_verify_floats(&r, "second", off, want, 4, 0.1, 0.0);
    cr_expect_eq(r.passed, 0);
    cr_expect_eq(r.n_outputs, 2);
    cr_expect_eq(r.first_mismatch, 1, "the summary follows the failed output");
    cr_expect_eq(r.mismatches, 2);
    cr_expect_float_eq(r.max_abs_error, 5.0, 1e-9);
    cr_expect_eq(r.outputs[0].passed, 1);
    cr_expect_eq(r.outputs[1].passed, 0);
    cr_expect_float_eq(r.outputs[1].abs_tol, 0.1, 1e-12);
    /* One output, the old way: the report holds just it. */
    skytune_compare_floats(off, want, 4, 0.0, 0.0, &r);
    cr_expect_eq(r.n_outputs, 1);
    cr_expect_str_eq(r.outputs[0].name, "output");
}

Test(plugin_abi, build_options_put_the_standard_first_unless_the_plugin_names_one)
{
    static const skytune_tuning_param params[] = {
        {.name = "x", .kind = SKYTUNE_LIST, .list = "1"}, {0}};
    skytune_plugin plugin = {.name = "opts", .tuning_params = params};
    skytune_named_value item = {"x", {.type = SKYTUNE_INT, .i = 1}};
    skytune_values config = {.count = 1, .items = &item};
    char buf[256];
    skytune_error err = {0};
    cr_assert_eq(build_options_format(&plugin, NULL, NULL, &config, buf, sizeof buf, &err), 0);
    cr_expect_str_eq(buf, "-cl-std=CL1.2 -D x=1");
    plugin.build_options = "-cl-mad-enable";
    cr_assert_eq(build_options_format(&plugin, NULL, NULL, &config, buf, sizeof buf, &err), 0);
    cr_expect_str_eq(buf, "-cl-std=CL1.2 -cl-mad-enable -D x=1");
    plugin.build_options = "-cl-std=CL3.0 -cl-mad-enable";
    cr_assert_eq(build_options_format(&plugin, NULL, NULL, &config, buf, sizeof buf, &err), 0);
    cr_expect_str_eq(buf, "-cl-std=CL3.0 -cl-mad-enable -D x=1");
}

/* The test plugin's source, compiled again with extra flags. */
static char *compile_variant(const char *dir, const char *flags)
{
    char *path = cli_path(cli_source_dir(), "tests/abi_plugin.c");
    size_t len;
    char *source = (char *)cli_read_file(path, &len);
    cr_assert(source, "cannot read %s", path);
    char *so = cli_path(dir, "variant.so");
    char all_flags[1024];
    snprintf(all_flags, sizeof all_flags, "-I'%s/framework/include' %s", cli_source_dir(), flags);
    cli_compile_shared(source, so, all_flags);
    free(source);
    free(path);
    return so;
}

Test(plugin_abi, a_plugin_of_the_previous_abi_is_told_what_to_change)
{
    if (!cli_have_compiler()) cr_skip_test("no C compiler (cc) to build a plugin of ABI 6");
    char *dir = cli_make_temp_dir();
    char *so = compile_variant(dir, "-DABI_PLUGIN_VERSION=6");
    loaded_plugin p;
    skytune_error err = {0};
    cr_assert_neq(plugin_load(so, NULL, &p, &err), 0, "a plugin of ABI 6 was loaded");
    const char *const needles[] = {"plugin ABI version 6", "loads version 7", "device_outputs",
                                   "needs only a rebuild", NULL};
    for (size_t k = 0; needles[k]; k++)
        cr_expect(strstr(err.message, needles[k]), "the message lacks '%s': %s", needles[k],
                  err.message);
    cli_remove_tree(dir);
    free(so);
    free(dir);
}

Test(plugin_abi, build_options_that_could_break_the_drivers_splitting_are_refused)
{
    if (!cli_have_compiler()) cr_skip_test("no C compiler (cc) to build the plugin");
    char *dir = cli_make_temp_dir();
    char *so = compile_variant(dir, "-DABI_PLUGIN_BAD_OPTIONS");
    loaded_plugin p;
    skytune_error err = {0};
    cr_assert_neq(plugin_load(so, NULL, &p, &err), 0, "build options with a quote were accepted");
    cr_expect(strstr(err.message, "build_options holds character 24"), "%s", err.message);
    cli_remove_tree(dir);
    free(so);
    free(dir);
}

/* A configuration whose runs take a fifth of a second each, ten timed
 * runs, and a watchdog floor of 0.6 s: the verification fits the floor,
 * the runs after it (2 s) do not. The first configuration of a campaign
 * has no earlier one to scale the limit by; its own verification does. */
Test(plugin_abi, the_first_configurations_runs_are_given_time_by_its_verification)
{
    char *dir = cli_make_temp_dir();
    char *db = cli_path(dir, "slow.db");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", abi_plugin_path(), "--set", "n=2097152",
                                    "--set", "unroll=8", "--only", "wg=64", "--only", "shift=0",
                                    "--runs", "10", "--timeout-floor", "0.6", "--db", db,
                                    "--quiet"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    char *status = cli_db_text(db, "SELECT status || ' ' || COALESCE(message, '') FROM measurements");
    cr_expect_str_eq(status, "ok ", "the slow configuration was not measured: %s", status);
    free(status);
    cli_remove_tree(dir);
    free(db);
    free(dir);
}

Test(plugin_abi, the_c_constraints_reason_is_counted_and_shown)
{
    cli_result r = cli_run(CLI_ARGS("plugins", "show", abi_plugin_path(), "--set",
                                    "fault=constraint_reason"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "3 of 6 (50.0 %) ruled out by the C constraint: shift 1 is left out "
                            "on purpose"),
              "%s", r.out);
    cli_result_free(&r);
    /* Emptied by the reason, a run says which rule emptied it. */
    char *dir = cli_make_temp_dir();
    char *db = cli_path(dir, "abi.db");
    r = cli_run(CLI_ARGS("run", "--plugin", abi_plugin_path(), "--set", "fault=constraint_reason",
                         "--only", "shift=1", "--db", db));
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "ruled out by the C constraint: shift 1 is left out on purpose"), "%s",
              r.err);
    cr_expect(!cli_file_exists(db), "a refused run left a database behind");
    cli_result_free(&r);
    cli_remove_tree(dir);
    free(db);
    free(dir);
}

Test(plugin_abi, derived_values_are_columns_of_the_results_view_and_survive_a_merge)
{
    char *dir = cli_make_temp_dir();
    char *db = cli_path(dir, "abi.db");
    char *merged = cli_path(dir, "merged.db");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", abi_plugin_path(), "--strategy",
                                    "exhaustive", "--only", "shift=0", "--runs", "2", "--db", db,
                                    "--quiet"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(db, "SELECT CAST(work_groups AS INTEGER) FROM results_abi WHERE wg = 16"),
                 64);
    cr_expect_eq(cli_db_int(db, "SELECT CAST(work_groups AS INTEGER) FROM results_abi WHERE wg = 64"),
                 16);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM derived_values"), 3);
    r = cli_run(CLI_ARGS("merge", merged, db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(merged,
                            "SELECT CAST(work_groups AS INTEGER) FROM results_abi WHERE wg = 32"),
                 32);
    cli_remove_tree(dir);
    free(merged);
    free(db);
    free(dir);
}

/* PoCL generates a kernel's code for its work-group size at the first
 * launch, not in clBuildProgram: with a kernel whose code takes long to
 * generate (an unrolled loop of sines), that time must count as the
 * build's, not the verification's. PoCL's own kernel cache would hide it,
 * so it is off. On a driver that compiles in clBuildProgram the test holds
 * all the more. */
Test(plugin_abi, the_build_phase_holds_the_code_generated_at_the_first_launch)
{
    cr_assert_eq(setenv("POCL_KERNEL_CACHE", "0", 1), 0);
    skytune_error err = {0};
    cr_assert_eq(open_abi("none", "unroll=60", &err), 0, "%s", err.message);
    measurement m = measure("wg=32,shift=0");
    cr_assert_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
    cr_expect_gt(m.build_s, 3.0 * m.verify_s,
                 "build %.3f s, verify %.3f s: the compiler's work is booked as verification",
                 m.build_s, m.verify_s);
    measurement_clear(&m);
}

/* With a compile worker, the measuring worker finds most configurations
 * being built ahead and waits for them: that wait is the rest of the
 * configuration's build and counts as build time, not as the engine's
 * (on PoCL's 2 cores it was most of a campaign's time, booked as "engine"). */
Test(plugin_abi, waiting_for_a_compile_worker_counts_as_build_time)
{
    cr_assert_eq(setenv("POCL_KERNEL_CACHE", "0", 1), 0);
    char *dir = cli_make_temp_dir();
    char *db = cli_path(dir, "abi.db");
    char *cache = cli_path(dir, "cache");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", abi_plugin_path(), "--set", "unroll=60",
                                    "--strategy", "exhaustive", "--only", "shift=0",
                                    "--compile-jobs", "1", "--cache-dir", cache, "--runs", "2",
                                    "--db", db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "compiled ahead by the compile workers:"), "no configuration was "
              "compiled ahead, so nothing was waited for: %s", r.out);
    cli_result_free(&r);
    char *phases = cli_db_text(db, "SELECT printf('build %%.3f s, verification %%.3f s, engine "
                                   "%%.3f s', SUM(build_s), SUM(verify_s), SUM(overhead_s)) "
                                   "FROM measurements");
    cr_expect_eq(cli_db_int(db, "SELECT SUM(overhead_s) < 0.1 * SUM(build_s) FROM measurements"),
                 1, "%s: the wait for the compile worker is booked as the engine's", phases);
    cr_expect_eq(cli_db_int(db, "SELECT SUM(build_s) > 3 * SUM(verify_s) FROM measurements"), 1,
                 "%s", phases);
    free(phases);
    cli_remove_tree(dir);
    free(cache);
    free(db);
    free(dir);
}
