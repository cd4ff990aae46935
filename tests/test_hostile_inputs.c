/* Input as an adversary would give it, end to end through the skytune
 * binary: string values that would smuggle options into the kernel build,
 * problems that differ only inside a value holding ',' or '=', a problem too
 * large for the plugin, --time-limit 0, numbers at the edge of int64, a
 * --restrict of thousands of characters, and control characters. Each is
 * refused (exit status 1, 2 for usage) with a message naming the input and
 * what is valid, the result database byte for byte as it was, or, where the
 * input is valid, measured as what it is. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile_harness.h"
#include "plugin_space.h"

static char *scratch;

static void open_scratch(void)
{
    scratch = hostile_scratch_open();
}

static void close_scratch(void)
{
    hostile_scratch_close(scratch);
    scratch = NULL;
}

TestSuite(hostile_inputs, .init = open_scratch, .fini = close_scratch);

static const char *strings_plugin(void)
{
    const char *path = getenv("SKYTUNE_STRINGS_PLUGIN");
    cr_assert(path && *path, "SKYTUNE_STRINGS_PLUGIN is not set: run through meson test");
    return path;
}

#define STRINGS_RUN "--plugin", strings_plugin(), "--strategy", "exhaustive", "--runs", "1"
#define VECTOR_ADD_SMALL \
    "--plugin", "vector_add", "--plugin-dir", cli_plugin_dir(), "--preset", "small"

static bool has_raw_control_byte(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if ((*c < 0x20 && *c != '\n') || *c == 0x7f) return true;
    return false;
}

/* ------------------------------------------------ 1. string values and -D */

/* A string value becomes -D a=VALUE in the kernel build. One that holds a
 * space, a quote or a backslash could end that option and start another
 * (-D INJECTED=1 switches the kernel to computing 3 x in) or break the
 * option string for every configuration; it is refused when the problem is
 * set, naming the parameter, the value (escaped) and what is valid. */
Test(hostile_inputs, string_values_that_could_become_build_options_are_refused, .timeout = 600)
{
    static const struct {
        const char *setting, *shown, *reason;
    } cases[] = {
        {"a=x -D INJECTED=1", "'x -D INJECTED=1'", "space"},
        {"a=x\"y", "'x\"y'", "quote"},
        {"b=it's", "'it's'", "quote"},
        {"a=back\\slash", "'back\\slash'", "backslash"},
        {"b=tab\there", "'tab\\there'", "control character"},
        {"a=", "''", "empty"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char parameter[64];
        snprintf(parameter, sizeof parameter, "problem parameter '%c'", cases[k].setting[0]);
        cli_assert_run_refused(scratch, NULL, CLI_ARGS(STRINGS_RUN, "--set", cases[k].setting), 1,
                               CLI_ARGS("--set", parameter, cases[k].shown, cases[k].reason,
                                        "printable ASCII characters with no space, quote"));
    }

    /* Tokens pass and reach the kernel as one option each: nothing injected,
     * every configuration verifies. */
    char *db = cli_path(scratch, "tokens.db");
    cli_result r = cli_run(CLI_ARGS("run", STRINGS_RUN, "--set", "a=-DINJECTED", "--set",
                                    "b=x=1,y", "--db", db));
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), 2,
                 "a configuration was built with an injected option:\n%s", r.out);
    cli_result_free(&r);
    free(db);
}

/* ------------------------------------------------ 2. problem identity */

/* a = "1,b=2", b = 3 and a = 1, b = "2,b=3" were one problem text,
 * "a=1,b=2,b=3": the second run reused the first one's measurements. They
 * are two problems, each measured, each with its own parameters. */
Test(hostile_inputs, problems_that_differ_inside_a_value_are_two_problems, .timeout = 600)
{
    char *db = cli_path(scratch, "identity.db");
    cli_result first = cli_run(CLI_ARGS("run", STRINGS_RUN, "--quiet", "--set", "a=1,b=2", "--set",
                                        "b=3", "--db", db));
    cr_assert_eq(first.status, 0, "%s\n%s", first.out, first.err);
    hostile_summary one = hostile_parse_summary(first.out);
    cli_result second = cli_run(CLI_ARGS("run", STRINGS_RUN, "--quiet", "--set", "a=1", "--set",
                                         "b=2,b=3", "--db", db));
    cr_assert_eq(second.status, 0, "%s\n%s", second.out, second.err);
    hostile_summary two = hostile_parse_summary(second.out);
    cr_expect_eq(one.measured, 2);
    cr_expect_eq(two.measured, 2, "the second problem measured %lld and reused %lld:\n%s",
                 two.measured, two.reused, second.out);
    cr_expect_eq(two.reused, 0);
    cr_expect_neq(one.campaign, two.campaign);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM problems"), 2);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM problems WHERE text = 'a=''1,b=2'',b=3'"), 1);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM problems WHERE text = 'a=1,b=''2,b=3'''"), 1);
    char *b = cli_db_text(db, "SELECT pp.value FROM problem_params pp JOIN problems pr"
                              " ON pr.id = pp.problem_id WHERE pr.text = 'a=1,b=''2,b=3'''"
                              " AND pp.name = 'b'");
    cr_expect_str_eq(b, "2,b=3");
    free(b);
    cli_result_free(&first);
    cli_result_free(&second);
    free(db);
}

/* ------------------------------------------------ 4. the plugin's limits first */

/* The correlator's C constraint walks the cells of a triangle of stations:
 * with a billion stations building the space took over a minute before the
 * plugin's size check (then in setup) refused the problem. The check now
 * runs before the space is built, and its message is the plugin's own. */
Test(hostile_inputs, a_problem_too_large_for_the_plugin_is_refused_before_its_space,
     .timeout = 600)
{
    cli_assert_run_refused(scratch, NULL,
                           CLI_ARGS("--plugin", "correlator", "--plugin-dir", cli_plugin_dir(),
                                    "--set", "stations=1000000000", "--budget", "1"),
                           1,
                           CLI_ARGS("invalid problem for plugin correlator",
                                    "the input would hold 196608000000000 float4 elements",
                                    "(reduce stations, channels or samples)"));
    cli_result r = cli_run(CLI_ARGS("plugins", "show", "correlator", "--plugin-dir",
                                    cli_plugin_dir(), "--set", "stations=1000000000"));
    cr_expect_eq(r.status, 1, "plugins show: %s\n%s\n%s", cli_status_text(r.status), r.out, r.err);
    cr_expect(strstr(r.err, "invalid problem for plugin correlator"), "%s", r.err);
    cr_expect(!strstr(r.out, "valid configurations:"), "%s", r.out);
    cli_result_free(&r);
}

static int refusing_constraint_calls;

static int count_constraint_calls(const skytune_values *config, const skytune_values *problem,
                                  const skytune_device_info *device, const char **why)
{
    (void)config, (void)problem, (void)device, (void)why;
    refusing_constraint_calls++;
    return 1;
}

static int refuse_every_problem(const skytune_values *problem, const skytune_device_info *device,
                                skytune_error *err)
{
    (void)problem, (void)device;
    return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "n is larger than this device takes");
}

/* In the library: the C constraint is not called once for a problem the
 * plugin's check refuses. */
Test(hostile_inputs, the_c_constraint_never_runs_for_a_refused_problem)
{
    static const skytune_tuning_param params[] = {
        {.name = "x", .kind = SKYTUNE_RANGE, .from = 0, .to = 999, .step = 1}, {0}};
    const skytune_plugin plugin = {.abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
                                   .name = "refusing",
                                   .tuning_params = params,
                                   .constraint = count_constraint_calls,
                                   .check_problem = refuse_every_problem};
    skytune_device_info device = {.name = "a device", .max_mem_alloc_size = 1 << 20};
    const skytune_values problem = {0};
    plugin_space_request rq = {.plugin = &plugin, .problem = &problem, .device = &device};
    space *sp = NULL;
    skytune_error err = {0};
    cr_assert_neq(plugin_space_build(&rq, &sp, &err), 0);
    cr_expect_eq(refusing_constraint_calls, 0);
    cr_expect(strstr(err.message, "invalid problem for plugin refusing on a device: n is larger"),
              "%s", err.message);
    /* Without the check, the same plugin's space calls the constraint. */
    skytune_plugin accepting = plugin;
    accepting.check_problem = NULL;
    rq.plugin = &accepting;
    cr_assert_eq(plugin_space_build(&rq, &sp, &err), 0, "%s", err.message);
    cr_expect_eq(refusing_constraint_calls, 1000);
    space_free(sp);
}

/* ------------------------------------------------ 12. --time-limit 0 */

/* --budget 0 and --target 0ms are refused; a time limit of 0 read as "no
 * limit". It is refused too, naming the option and what is valid. */
Test(hostile_inputs, a_time_limit_of_zero_is_refused)
{
    const char *zeros[] = {"0", "0s", "0h0m"};
    for (size_t k = 0; k < sizeof zeros / sizeof zeros[0]; k++)
        cli_assert_run_refused(scratch, NULL,
                               CLI_ARGS(VECTOR_ADD_SMALL, "--time-limit", zeros[k]), 2,
                               CLI_ARGS("--time-limit", "longer than 0"));
    cli_assert_run_refused(scratch, NULL, CLI_ARGS(VECTOR_ADD_SMALL, "--time-limit", "nan"), 2,
                           CLI_ARGS("--time-limit", "not a duration"));
}

/* ------------------------------------------------ 13. messages */

/* n = 2^63 - 1 elements: the message gave n * 4 bytes as a 64-bit integer,
 * "needs -4 bytes". */
Test(hostile_inputs, the_largest_integer_is_reported_without_overflow)
{
    cli_assert_run_refused(scratch, NULL,
                           CLI_ARGS(VECTOR_ADD_SMALL, "--set", "n=9223372036854775807"), 1,
                           CLI_ARGS("n=9223372036854775807 needs 36893488147419103232 bytes",
                                    "(n <= "));
}

/* A --restrict of some 1,500 characters whose error is at its end: the
 * message quotes a shortened excerpt and keeps the reason and its column. */
Test(hostile_inputs, a_long_restriction_keeps_the_reason)
{
    char restriction[2000] = "";
    for (int k = 0; k < 60; k++) strcat(restriction, "wg_size * per_item > 0 and ");
    strcat(restriction, "no_such_name > 1");
    char column[64];
    snprintf(column, sizeof column, "column %zu: unknown name 'no_such_name'",
             strlen(restriction) - strlen("no_such_name > 1") + 1);
    cli_assert_run_refused(scratch, NULL, CLI_ARGS(VECTOR_ADD_SMALL, "--restrict", restriction),
                           1, CLI_ARGS("--restrict 'wg_size * per_item", "...", column));
}

/* Control characters in what a message quotes are shown escaped: an escape
 * sequence in --set, --only, --restrict, --device or --strategy cannot
 * colour or clear the user's terminal. */
Test(hostile_inputs, messages_escape_the_control_characters_they_quote)
{
    const char *const *cases[] = {
        CLI_ARGS("--set", "n=\x1b[2J12"),
        CLI_ARGS("--set", "\x1b[31mred=1"),
        CLI_ARGS("--only", "wg_size=32,\x1b[2J"),
        CLI_ARGS("--restrict", "wg_size > 1\x1b[2J"),
        CLI_ARGS("--time-limit", "1\x07h"),
        CLI_ARGS("--device", "\x1b[2Jgpu"),
        CLI_ARGS("--strategy", "\x1b[2Jrandom"),
        CLI_ARGS("--strategy-opt", "initial_samples=\x1b[2J"),
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *db = cli_path(scratch, "escapes.db");
        cli_snapshot before = cli_snapshot_take(db);
        cli_result r = cli_run(CLI_ARGS("run", VECTOR_ADD_SMALL, cases[k][0], cases[k][1], "--db",
                                        db));
        cr_expect_neq(r.status, 0, "case %zu was accepted", k);
        cr_expect(!has_raw_control_byte(r.err), "case %zu: raw control bytes in:\n%s", k, r.err);
        cr_expect(strstr(r.err, "\\x1b[") || strstr(r.err, "\\x07"), "case %zu: %s", k, r.err);
        cr_expect_null(cli_snapshot_difference(&before), "case %zu touched %s", k, db);
        cli_snapshot_free(&before);
        cli_result_free(&r);
        free(db);
    }
}
