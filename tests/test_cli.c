/* The skytune command line end to end: help and exit codes, the listing
 * commands, real runs of the vector_add plugin on PoCL checked against the
 * database they write, `best` and `export` checked against SQL, seeded
 * random search, continuing a finished campaign, and bad input of every kind
 * refused with exit status 1 (2 for usage errors), a message naming the input
 * at fault, and the result database left exactly as it was. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CL/cl.h>

#include "cli_harness.h"
#include "hostile_harness.h"
#include "quantity.h"
#include "store.h"

/* ------------------------------------------------------------ fixtures */

static char *scratch; /* this test's temporary folder */

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

TestSuite(cli, .init = make_scratch, .fini = remove_scratch);

/* ------------------------------------------------------------ output parsing */

static bool has_line_starting(const char *text, const char *prefix)
{
    size_t len = strlen(prefix);
    for (const char *line = text; line && *line;) {
        if (strncmp(line, prefix, len) == 0) return true;
        line = strchr(line, '\n');
        if (line) line++;
    }
    return false;
}

/* The closing line of `skytune run`:
 *   campaign 1: search complete after 6 configurations (6 measured, 0 from
 *   the database) in 1.2 s */
typedef struct run_summary {
    long long campaign, evaluated, measured, reused;
    char stop[64];
} run_summary;

static run_summary parse_summary(const char *out)
{
    run_summary s = {0};
    for (const char *line = out; line && *line;) {
        const char *after = strstr(line, " after ");
        const char *end = strchr(line, '\n');
        if (strncmp(line, "campaign ", 9) == 0 && after && (!end || after < end)) {
            const char *colon = strchr(line, ':');
            cr_assert(colon && colon < after, "unexpected summary line in:\n%s", out);
            size_t stop_len = (size_t)(after - colon - 2);
            cr_assert(stop_len < sizeof s.stop);
            memcpy(s.stop, colon + 2, stop_len);
            s.stop[stop_len] = '\0';
            cr_assert_eq(sscanf(line, "campaign %lld:", &s.campaign), 1);
            /* "after 6 configurations (", "after 1 configuration (" */
            const char *counts = strchr(after, '(');
            cr_assert(counts && sscanf(after, " after %lld configuration", &s.evaluated) == 1 &&
                          sscanf(counts, "(%lld measured, %lld from the database)", &s.measured,
                                 &s.reused) == 2,
                      "unexpected summary line in:\n%s", out);
            return s;
        }
        line = end ? end + 1 : NULL;
    }
    cr_assert_fail("no summary line in the output of skytune run:\n%s", out);
    return s;
}

/* "... over N valid configurations" from the line printed at the start. */
static long long parse_space_count(const char *out)
{
    char *rest = cli_line_after(out, " over ");
    cr_assert(rest, "no space size in the output of skytune run:\n%s", out);
    long long n = -1;
    cr_assert_eq(sscanf(rest, "%lld valid configuration", &n), 1, "unexpected line: %s", rest);
    free(rest);
    return n;
}

/* ------------------------------------------------------------ runs */

#define VECTOR_ADD_SMALL \
    "--plugin", "vector_add", "--plugin-dir", cli_plugin_dir(), "--preset", "small"
/* 3 work-group sizes x 2 elements per work-item: every one is valid for
 * n = 65536 on any device with work-groups of 128, and six configurations
 * keep a real run to a second or two. */
#define SIX_CONFIGURATIONS "--only", "wg_size=32,64,128", "--only", "per_item=1,2"
#define SIX 6
#define RUNS 3

static cli_result run_exhaustive_six(const char *db)
{
    /* --no-race: every configuration keeps its RUNS runs, which the tests
     * count (racing's own tests are below). */
    cli_result r = cli_run(CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs",
                                    CLI_TEXT(RUNS), SIX_CONFIGURATIONS, "--no-race", "--db", db));
    cr_assert_eq(r.status, 0, "skytune run: %s\nstdout:\n%s\nstderr:\n%s",
                 cli_status_text(r.status), r.out, r.err);
    return r;
}

static cli_result run_random(const char *db, const char *seed)
{
    cli_result r = cli_run(CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "random", "--budget",
                                    "5", "--seed", seed, "--runs", "2", "--db", db));
    cr_assert_eq(r.status, 0, "skytune run: %s\nstdout:\n%s\nstderr:\n%s",
                 cli_status_text(r.status), r.out, r.err);
    return r;
}

/* The configurations of campaign 1 in the order the strategy proposed them. */
static void evaluated_sequence(const char *db, char **configs, size_t n)
{
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations WHERE campaign_id = 1"),
                 (long long)n);
    for (size_t k = 0; k < n; k++)
        configs[k] = cli_db_text(db,
                                 "SELECT configuration FROM results "
                                 "WHERE campaign_id = 1 AND seq = %zu",
                                 k);
}

/* ------------------------------------------------------------ help */

Test(cli, help_lists_commands_and_exit_codes)
{
    cli_result r = cli_run(CLI_ARGS("--help"));
    cr_assert_eq(r.status, 0, "stderr:\n%s", r.err);
    const char *commands[] = {"devices", "plugins", "run", "best", "export"};
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        char line[64];
        snprintf(line, sizeof line, "  %s ", commands[k]);
        cr_assert(strstr(r.out, line), "--help does not list the command %s:\n%s", commands[k],
                  r.out);
    }
    cr_assert(strstr(r.out, "exit codes"), "--help does not explain exit codes:\n%s", r.out);
    const char *codes[] = {"  0 ", "  1 ", "  2 ", "  130 "};
    for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++)
        cr_assert(strstr(r.out, codes[k]), "--help does not document exit code%s:\n%s", codes[k],
                  r.out);
    cli_result_free(&r);

    /* No command at all is a usage error, with the usage on stderr. */
    r = cli_run(CLI_ARGS(NULL));
    cr_assert_eq(r.status, 2, "skytune with no command: %s", cli_status_text(r.status));
    cr_assert(strstr(r.err, "usage"), "no usage on stderr:\n%s", r.err);
    cli_result_free(&r);
}

Test(cli, every_command_has_help)
{
    const char *commands[] = {"devices", "plugins", "run", "best", "export"};
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        cli_result r = cli_run(CLI_ARGS(commands[k], "--help"));
        cr_assert_eq(r.status, 0, "skytune %s --help: %s:\n%s", commands[k],
                     cli_status_text(r.status), r.err);
        char usage[64];
        snprintf(usage, sizeof usage, "usage: skytune %s", commands[k]);
        cr_assert(strstr(r.out, usage), "skytune %s --help:\n%s", commands[k], r.out);
        cli_result_free(&r);
    }
    cli_result r = cli_run(CLI_ARGS("run", "--help"));
    const char *options[] = {"--plugin ", "--preset", "--set", "--restrict", "--only",
                             "--strategy ", "--budget", "--runs", "--seed", "--db"};
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
        cr_assert(strstr(r.out, options[k]), "skytune run --help lacks %s:\n%s", options[k],
                  r.out);
    cli_result_free(&r);
}

/* ------------------------------------------------------------ devices, plugins */

Test(cli, devices_lists_pocl_with_compute_units)
{
    cli_result r = cli_run(CLI_ARGS("devices"));
    cr_assert_eq(r.status, 0, "skytune devices: %s:\n%s", cli_status_text(r.status), r.err);
    cr_assert(strstr(r.out, "Portable Computing Language"), "no PoCL device listed:\n%s", r.out);
    cr_assert(has_line_starting(r.out, "* "), "no device marked as the default:\n%s", r.out);
    long long devices_with_units = 0;
    for (const char *line = r.out; line && *line;) {
        long long units;
        if (sscanf(line, " %lld compute units", &units) == 1) {
            cr_assert_gt(units, 0, "a device with %lld compute units:\n%s", units, r.out);
            devices_with_units++;
        }
        line = strchr(line, '\n');
        if (line) line++;
    }
    cr_assert_gt(devices_with_units, 0, "no compute units listed:\n%s", r.out);
    cli_result_free(&r);
}

/* The short names of platforms and vendors select a device in any case,
 * besides parts of its names: "pocl" is no part of "Portable Computing
 * Language", and the listing shows it. */
Test(cli, device_selects_by_platform_short_name)
{
    cli_result r = cli_run(CLI_ARGS("devices"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "Portable Computing Language (PoCL) — "),
              "the listing does not show PoCL's short name:\n%s", r.out);
    cli_result_free(&r);
    const char *const spellings[] = {"pocl", "PoCL", "POCL"};
    for (size_t k = 0; k < 3; k++) {
        r = cli_run(CLI_ARGS("devices", "--device", spellings[k]));
        cr_assert_eq(r.status, 0, "--device %s: %s", spellings[k], r.err);
        cr_assert(has_line_starting(r.out, "* ") &&
                      strstr(r.out, "Portable Computing Language (PoCL) — "),
                  "--device %s did not select the PoCL device:\n%s", spellings[k], r.out);
        cli_result_free(&r);
    }
    r = cli_run(CLI_ARGS("devices", "--device", "no-such-vendor"));
    cr_assert_neq(r.status, 0);
    cr_assert(strstr(r.err, "--device 'no-such-vendor' matches no OpenCL device") &&
                  strstr(r.err, "PoCL, NVIDIA, AMD, Intel") &&
                  strstr(r.err, "(Portable Computing Language [PoCL], "),
              "%s", r.err);
    cli_result_free(&r);
}

/* The versions as the driver gives them, whole: the device info keeps the
 * first 63 bytes, and PoCL's OpenCL version is longer. */
Test(cli, devices_prints_each_version_whole)
{
    cl_uint n_platforms = 0;
    cr_assert_eq(clGetPlatformIDs(0, NULL, &n_platforms), CL_SUCCESS, "no OpenCL platform");
    cl_platform_id platforms[16];
    if (n_platforms > 16) n_platforms = 16;
    cr_assert_eq(clGetPlatformIDs(n_platforms, platforms, NULL), CL_SUCCESS);
    cli_result r = cli_run(CLI_ARGS("devices"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    size_t checked = 0;
    for (cl_uint p = 0; p < n_platforms; p++) {
        cl_device_id devices[16];
        cl_uint n = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &n) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < n && d < 16; d++) {
            const cl_device_info what[] = {CL_DEVICE_VERSION, CL_DRIVER_VERSION};
            for (size_t k = 0; k < 2; k++) {
                char text[1024] = "";
                cr_assert_eq(clGetDeviceInfo(devices[d], what[k], sizeof text, text, NULL),
                             CL_SUCCESS);
                cr_assert(strstr(r.out, text), "'%s' (%zu bytes) is not printed whole:\n%s",
                          text, strlen(text), r.out);
                checked++;
            }
        }
    }
    cr_assert_gt(checked, 0);
    cli_result_free(&r);
}

Test(cli, plugins_lists_both_plugins)
{
    cli_result r = cli_run(CLI_ARGS("plugins", "--plugin-dir", cli_plugin_dir()));
    cr_assert_eq(r.status, 0, "skytune plugins: %s:\n%s", cli_status_text(r.status), r.err);
    cr_assert(has_line_starting(r.out, "vector_add "), "vector_add not listed:\n%s", r.out);
    cr_assert(has_line_starting(r.out, "dedispersion "), "dedispersion not listed:\n%s", r.out);
    cli_result_free(&r);
}

/* The README names every plugin `skytune plugins` lists, each with a line
 * of its own in its plugin list. */
Test(cli, readme_lists_every_plugin)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/README.md", cli_source_dir());
    size_t len;
    char *readme = (char *)cli_read_file(path, &len);
    cr_assert(readme, "cannot read %s", path);
    cli_result r = cli_run(CLI_ARGS("plugins", "--plugin-dir", cli_plugin_dir()));
    cr_assert_eq(r.status, 0, "%s", r.err);
    size_t listed = 0;
    for (const char *line = r.out; line && *line;) {
        const char *end = strchr(line, '\n');
        if (*line != ' ') {
            char name[64];
            if (sscanf(line, "%63s", name) == 1) {
                char entry[128];
                snprintf(entry, sizeof entry, "\n  - `plugins/%s`: ", name);
                cr_assert(strstr(readme, entry), "README.md has no line for plugin %s", name);
                listed++;
            }
        }
        line = end ? end + 1 : NULL;
    }
    cr_assert_geq(listed, 6, "%s", r.out);
    cli_result_free(&r);
    free(readme);
}

Test(cli, plugins_show_describes_dedispersion)
{
    cli_result r = cli_run(CLI_ARGS("plugins", "show", "dedispersion", "--plugin-dir",
                                    cli_plugin_dir(), "--preset", "small"));
    cr_assert_eq(r.status, 0, "skytune plugins show: %s:\n%s", cli_status_text(r.status), r.err);
    const char *expected[] = {
        "problem parameters:", "channels", "dms", "samples",
        "presets:", "small", "apertif", "lofar",
        "tuning parameters:", "wi_samples", "el_dms", "local_mem",
        "constraints:", "samples % (wi_samples * el_samples) == 0",
    };
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++)
        cr_assert(strstr(r.out, expected[k]), "'%s' missing from:\n%s", expected[k], r.out);

    /* The count is for the small preset, not the defaults: every whole-number
     * setting of the preset (the line under its name) is in the problem. */
    const char *small = strstr(r.out, "\n  small ");
    cr_assert(small, "no small preset listed:\n%s", r.out);
    const char *below = strchr(small + 1, '\n');
    cr_assert(below, "no settings under the small preset:\n%s", r.out);
    char *settings = cli_line_after(below, "\n");
    char *problem = cli_line_after(r.out, "\nproblem: ");
    cr_assert(problem, "no problem line:\n%s", r.out);
    size_t checked = 0;
    for (char *item = strtok(settings, " ,"); item; item = strtok(NULL, " ,")) {
        const char *eq = strchr(item, '=');
        if (!eq || eq[1] == '\0' || strspn(eq + 1, "0123456789") != strlen(eq + 1)) continue;
        size_t len = strlen(item);
        bool found = false;
        for (const char *at = strstr(problem, item); at && !found; at = strstr(at + 1, item))
            found = (at == problem || at[-1] == ',') && (at[len] == ',' || at[len] == '\0');
        cr_assert(found, "preset setting %s is not in the problem %s", item, problem);
        checked++;
    }
    cr_assert_gt(checked, 0, "no whole-number setting under the small preset:\n%s", r.out);
    free(settings);
    free(problem);
    char *count = cli_line_after(r.out, "valid configurations: ");
    cr_assert(count, "no valid-configuration count:\n%s", r.out);
    unsigned long long valid = 0, combinations = 0;
    cr_assert_eq(sscanf(count, "%llu of %llu", &valid, &combinations), 2, "count line: %s", count);
    cr_assert_gt(valid, 0, "no valid configuration for the small preset");
    /* The divisibility constraints must have removed something. */
    cr_assert_lt(valid, combinations, "constraints removed nothing: %s", count);
    free(count);
    cli_result_free(&r);
}

/* The column where the text after `field` starts on each line of the
 * section that begins with `heading` (up to the next blank line), for lines
 * that hold `marker`; every one must be the same. Returns how many lines
 * were compared. */
static size_t assert_column_aligned(const char *out, const char *heading, const char *marker)
{
    const char *section = strstr(out, heading);
    cr_assert(section, "no '%s' section in:\n%s", heading, out);
    const char *end = strstr(section, "\n\n");
    long column = -1;
    size_t lines = 0;
    for (const char *line = strchr(section, '\n') + 1; line && (!end || line < end);) {
        const char *eol = strchr(line, '\n');
        const char *at = strstr(line, marker);
        if (at && (!eol || at < eol)) {
            /* Back over the count before the marker ("8 values: ..."). */
            const char *start = at;
            while (start > line && start[-1] >= '0' && start[-1] <= '9') start--;
            long here = (long)(start - line);
            if (column < 0) column = here;
            cr_assert_eq(here, column, "'%s' lines do not line up (column %ld, then %ld) in:\n%s",
                         heading, column, here, section);
            lines++;
        }
        line = eol ? eol + 1 : NULL;
    }
    return lines;
}

Test(cli, plugins_show_lines_up_its_columns)
{
    cli_result r = cli_run(CLI_ARGS("plugins", "show", "ppf", "--plugin-dir", cli_plugin_dir()));
    cr_assert_eq(r.status, 0, "skytune plugins show ppf: %s:\n%s", cli_status_text(r.status), r.err);
    /* ppf has a tuning parameter of 17 characters and a kind of 13. */
    cr_assert_eq(assert_column_aligned(r.out, "tuning parameters:", " values: "), 5, "%s", r.out);
    cr_assert_eq(assert_column_aligned(r.out, "problem parameters:", "default "), 6, "%s", r.out);
    cli_result_free(&r);
}

/* A problem that leaves nothing: the run says which constraints rule out
 * how much, and `plugins show` says the same. */
Test(cli, no_valid_configuration_names_the_constraints_that_rule_everything_out)
{
    const char *const problem[] = {"--preset", "small", "--set", "stations=1", "--set",
                                   "channels=2", "--set", "samples=16", "--set", "taps=2", NULL};
    const char *const lines[] = {
        "7680 of 9216 (83.3 %) ruled out by (samples // channels - taps + 1) % samples_per_item == 0",
        "1536 of 9216 (16.7 %) ruled out by (stations * channels * (2 - both_pols)) % (wg_size * "
        "channels_per_item) == 0",
        NULL};
    cli_assert_run_refused(scratch, NULL,
                       CLI_ARGS("--plugin", "ppf", "--plugin-dir", cli_plugin_dir(), problem[0],
                                problem[1], problem[2], problem[3], problem[4], problem[5],
                                problem[6], problem[7], problem[8], problem[9], "--runs", "1"),
                       1, CLI_ARGS("no valid configuration", lines[0], lines[1]));
    cli_result r = cli_run(CLI_ARGS("plugins", "show", "ppf", "--plugin-dir", cli_plugin_dir(),
                                    problem[0], problem[1], problem[2], problem[3], problem[4],
                                    problem[5], problem[6], problem[7], problem[8], problem[9]));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "valid configurations: 0 of 9216 combinations"), "%s", r.out);
    for (size_t k = 0; lines[k]; k++) cr_assert(strstr(r.out, lines[k]), "'%s' missing:\n%s", lines[k], r.out);
    cli_result_free(&r);
    /* With configurations left, the same breakdown of what is not. */
    r = cli_run(CLI_ARGS("plugins", "show", "ppf", "--plugin-dir", cli_plugin_dir(), "--preset",
                         "small"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "ruled out by channels_per_item * samples_per_item * (1 + both_pols) <= 32"),
              "%s", r.out);
    cli_result_free(&r);
}

/* ------------------------------------------------------------ real runs */

Test(cli, run_records_every_measurement_with_its_samples)
{
    char *db = cli_path(scratch, "run.db");
    cli_result r = run_exhaustive_six(db);
    run_summary s = parse_summary(r.out);
    cr_assert_eq(parse_space_count(r.out), SIX);
    cr_assert_str_eq(s.stop, "search complete");
    cr_assert_eq(s.evaluated, SIX);
    cr_assert_eq(s.measured, SIX);
    cr_assert_eq(s.reused, 0);
    cr_assert(strstr(r.out, "status: ok 6\n"), "not every configuration passed:\n%s", r.out);

    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), s.measured);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"),
                 s.measured);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE n_samples = %d", RUNS),
                 s.measured);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM samples"), s.measured * RUNS);
    /* Each measurement's samples are its own runs 0..RUNS-1. */
    cr_assert_eq(
        cli_db_int(db, "SELECT COUNT(*) FROM measurements m WHERE "
                       "(SELECT COUNT(*) FROM samples s WHERE s.measurement_id = m.id) "
                       "  != m.n_samples "
                       "OR (SELECT MIN(run) FROM samples s WHERE s.measurement_id = m.id) != 0 "
                       "OR (SELECT MAX(run) FROM samples s WHERE s.measurement_id = m.id) "
                       "  != m.n_samples - 1"),
        0);
    /* The summary statistics agree with the samples they came from. */
    cr_assert_eq(cli_db_int(db,
                            "SELECT COUNT(*) FROM measurements m WHERE NOT ("
                            " median_ns > 0 AND min_ns <= median_ns AND median_ns <= max_ns"
                            " AND min_ns = (SELECT MIN(time_ns) FROM samples s"
                            "               WHERE s.measurement_id = m.id)"
                            " AND max_ns = (SELECT MAX(time_ns) FROM samples s"
                            "               WHERE s.measurement_id = m.id))"),
                 0);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(DISTINCT configuration_id) FROM measurements"),
                 SIX);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations WHERE campaign_id = %lld",
                            s.campaign),
                 SIX);
    cr_assert_eq(cli_db_int(db, "SELECT MAX(seq) FROM evaluations"), SIX - 1);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations WHERE cached = 1"), 0);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), 1);
    char *status = cli_db_text(db, "SELECT status FROM campaigns WHERE id = %lld", s.campaign);
    cr_assert_str_eq(status, "done");
    free(status);
    /* The per-plugin view pivots the parameters into columns. */
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM results_vector_add"), SIX);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(DISTINCT wg_size) FROM results_vector_add"), 3);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM results_vector_add WHERE per_item = 2"), 3);
    char *integrity = cli_db_text(db, "PRAGMA integrity_check");
    cr_assert_str_eq(integrity, "ok");
    free(integrity);
    cli_result_free(&r);
    free(db);
}

/* A run names its database, as given and where it is, and its campaign,
 * when it starts and when it ends; --quiet keeps the start to itself. */
Test(cli, a_run_names_its_database_and_campaign_at_start_and_end)
{
    cr_assert_eq(chdir(scratch), 0);
    char *here = realpath(".", NULL);
    char said[4200];
    snprintf(said, sizeof said, "\n  database ./named.db (%s/named.db)\n", here);
    cli_result r = cli_run(CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs",
                                    "1", "--only", "wg_size=64", "--only", "per_item=1", "--db",
                                    "./named.db"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *start = strstr(r.out, "starting campaign 1: ");
    const char *first = strstr(r.out, said);
    const char *end = strstr(r.out, "\ncampaign 1: search complete after ");
    cr_assert(start && first && end && start < first && first < end,
              "the start does not name the campaign and '%s':\n%s", said, r.out);
    cr_assert(strstr(end + 1, said), "the end does not name '%s':\n%s", said, r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1",
                         "--only", "wg_size=64", "--only", "per_item=1", "--db", "./named.db",
                         "--quiet"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_null(strstr(r.out, "continuing campaign"), "--quiet printed the start:\n%s", r.out);
    first = strstr(r.out, said);
    cr_assert(strstr(r.out, "campaign 1: search complete") && first && !strstr(first + 1, said),
              "--quiet's summary does not name '%s' once:\n%s", said, r.out);
    cli_result_free(&r);
    free(here);
}

/* Racing: the hostile test plugin's six configurations, x = 0 .. 5, in
 * that order, the last of them correct but writing its output 20,000 times
 * (fault=slow): hundreds of times the others' time on any machine, loaded
 * or not, so it stops after its first timed run. The first five set the
 * limit, and only a configuration after them can be raced: alike as they
 * are, the timing noise of a loaded machine cannot race one of them. */
static cli_result run_raced(const char *db, const char *extra)
{
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", hostile_plugin_path(), "--set",
                                    "fault=slow", "--set",
                                    "bad=5", "--set", "values=6", "--strategy", "exhaustive",
                                    "--runs", "10", "--db", db, extra));
    cr_assert_eq(r.status, 0, "skytune run: %s\nstdout:\n%s\nstderr:\n%s",
                 cli_status_text(r.status), r.out, r.err);
    return r;
}

Test(cli, racing_stops_slow_configurations_early_and_records_them_raced)
{
    char *db = cli_path(scratch, "raced.db");
    cli_result r = run_raced(db, NULL);
    cr_assert(strstr(r.out, "status: ok 6\n"), "not every configuration passed:\n%s", r.out);
    long long raced = cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE raced");
    cr_assert_eq(raced, 1, "the slow configuration alone should be raced:\n%s\n%s", r.out,
                 cli_db_text(db, "SELECT group_concat(median_ns || ' ' || n_samples || ' '"
                                 " || raced, char(10)) FROM measurements"));
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements m JOIN config_params p"
                                " ON p.configuration_id = m.configuration_id"
                                " WHERE m.raced AND p.name = 'x' AND p.value = '5'"),
                 1, "the configuration raced is not the slow one, x=5");
    cr_expect(strstr(r.out, "raced: "), "the summary does not say what was raced:\n%s", r.out);
    cr_expect(strstr(r.out, "stopped early (slower than the best 5 by more than "), "%s", r.out);
    /* A raced configuration has the runs it made, at least 1 (fewer than
     * 3 only when far beyond the limit: tests/test_racing.c); every other
     * one all 10. */
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE raced"
                                " AND (n_samples < 1 OR n_samples >= 10)"),
                 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE NOT raced"
                                " AND n_samples != 10"),
                 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements m WHERE n_samples !="
                                " (SELECT COUNT(*) FROM samples s WHERE s.measurement_id = m.id)"),
                 0);
    /* The best five are never raced, and a raced one is slower than each. */
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM (SELECT raced FROM measurements"
                                " ORDER BY median_ns LIMIT 5) WHERE raced"),
                 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE raced AND median_ns <="
                                " (SELECT median_ns FROM measurements ORDER BY median_ns"
                                " LIMIT 1 OFFSET 4)"),
                 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM results WHERE raced"), raced);
    cli_result_free(&r);
    /* The CSV export says which were raced. */
    char *csv = cli_path(scratch, "raced.csv");
    r = cli_run(CLI_ARGS("export", "--db", db, "--format", "csv", "--out", csv));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    size_t len = 0;
    char *text = (char *)cli_read_file(csv, &len);
    cr_assert_not_null(text);
    cr_expect(strstr(text, ",n_samples,raced,"), "no raced column in:\n%.300s", text);
    free(text);
    free(csv);
    free(db);
}

Test(cli, no_race_times_every_configuration_in_full)
{
    char *db = cli_path(scratch, "full.db");
    cli_result r = run_raced(db, "--no-race");
    cr_assert(strstr(r.out, "status: ok 6\n"), "not every configuration passed:\n%s", r.out);
    cr_expect(!strstr(r.out, "raced:"), "racing is off, yet the summary says:\n%s", r.out);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE raced"), 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE n_samples != 10"), 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM samples"), 60);
    cli_result_free(&r);
    free(db);
}

Test(cli, best_is_the_lowest_median)
{
    char *db = cli_path(scratch, "best.db");
    cli_result run = run_exhaustive_six(db);
    char *fastest = cli_db_text(db, "SELECT c.text FROM measurements m "
                                    "JOIN configurations c ON c.id = m.configuration_id "
                                    "WHERE m.status = 'ok' ORDER BY m.median_ns, m.id LIMIT 1");

    char *run_best = cli_line_after(run.out, "\nbest: ");
    cr_assert(run_best, "skytune run printed no best configuration:\n%s", run.out);
    char *figures = strstr(run_best, "  (");
    cr_assert(figures, "unexpected best line: %s", run_best);
    *figures = '\0';
    cr_assert_str_eq(run_best, fastest, "skytune run's best is not the lowest median in SQL");

    cli_result r = cli_run(CLI_ARGS("best", "--db", db));
    cr_assert_eq(r.status, 0, "skytune best: %s:\n%s", cli_status_text(r.status), r.err);
    char *best = cli_line_after(r.out, "  best       ");
    cr_assert(best, "skytune best printed no best configuration:\n%s", r.out);
    cr_assert_str_eq(best, fastest, "skytune best is not the lowest median in SQL");
    cr_assert(strstr(r.out, "evaluated  6 (6 ok, 0 failed)"), "counts missing:\n%s", r.out);
    free(best);
    free(run_best);
    free(fastest);
    cli_result_free(&r);
    cli_result_free(&run);
    free(db);
}

/* A campaign the database does not have is an error: on standard error,
 * with the prefix every error has, naming the campaigns it has. */
Test(cli, best_of_a_missing_campaign_is_an_error_naming_the_campaigns_there_are)
{
    char *db = cli_path(scratch, "missing.db");
    cli_result run = run_exhaustive_six(db);
    cli_result_free(&run);
    const char *const formats[] = {"text", "csv"};
    for (size_t k = 0; k < 2; k++) {
        cli_result r = cli_run(CLI_ARGS("best", "--db", db, "--campaign", "9", "--format",
                                        formats[k]));
        cr_assert_eq(r.status, 1, "%s", cli_status_text(r.status));
        cr_assert_str_eq(r.out, "", "--format %s: the error went to standard output", formats[k]);
        char want[4200];
        snprintf(want, sizeof want, "skytune: best: %s has no campaign 9; its campaigns are 1\n",
                 db);
        cr_assert_str_eq(r.err, want);
        cli_result_free(&r);
    }
    free(db);
}

/* One configuration is one, not "1 configurations". */
Test(cli, one_configuration_is_one)
{
    char *db = cli_path(scratch, "one.db");
    cli_result r = cli_run(CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs",
                                    "2", "--only", "wg_size=32", "--only", "per_item=1", "--db",
                                    db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "  strategy exhaustive over 1 valid configuration\n"), "%s", r.out);
    cr_assert(strstr(r.out, ": search complete after 1 configuration (1 measured, 0 from the "
                            "database)"),
              "%s", r.out);
    cr_assert(!strstr(r.out, "1 configurations"), "%s", r.out);
    cli_result_free(&r);
    free(db);
}

/* RFC 4180 records: fields separated by commas, quoted fields may hold
 * commas, doubled quotes and line breaks. */
typedef struct csv_table {
    size_t n_records;
    size_t n_fields[256];
    char *fields[256][32];
} csv_table;

static void parse_csv(const char *text, csv_table *t)
{
    memset(t, 0, sizeof *t);
    const char *p = text;
    while (*p) {
        cr_assert_lt(t->n_records, 256, "too many CSV records");
        size_t rec = t->n_records++;
        for (;;) {
            cr_assert_lt(t->n_fields[rec], 32, "too many CSV fields in record %zu", rec);
            char *field = malloc(strlen(p) + 1);
            cr_assert(field);
            size_t len = 0;
            if (*p == '"') {
                p++;
                while (*p && !(*p == '"' && p[1] != '"')) {
                    if (*p == '"') p++;
                    field[len++] = *p++;
                }
                cr_assert_eq(*p, '"', "unterminated quoted CSV field in record %zu", rec);
                p++;
            } else {
                while (*p && *p != ',' && *p != '\n' && *p != '\r') field[len++] = *p++;
            }
            field[len] = '\0';
            t->fields[rec][t->n_fields[rec]++] = field;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == '\r') p++;
            if (*p == '\n') p++;
            break;
        }
    }
}

static void csv_free(csv_table *t)
{
    for (size_t r = 0; r < t->n_records; r++)
        for (size_t f = 0; f < t->n_fields[r]; f++) free(t->fields[r][f]);
}

static int csv_column(const csv_table *t, const char *name)
{
    for (size_t f = 0; t->n_records && f < t->n_fields[0]; f++)
        if (strcmp(t->fields[0][f], name) == 0) return (int)f;
    return -1;
}

Test(cli, export_writes_one_csv_row_per_evaluation)
{
    char *db = cli_path(scratch, "export.db");
    char *csv_path = cli_path(scratch, "export.csv");
    cli_result run = run_exhaustive_six(db);
    cli_result r = cli_run(CLI_ARGS("export", "--db", db, "--format", "csv", "--out", csv_path));
    cr_assert_eq(r.status, 0, "skytune export: %s:\n%s", cli_status_text(r.status), r.err);
    size_t len;
    char *text = (char *)cli_read_file(csv_path, &len);
    cr_assert(text, "skytune export wrote no %s", csv_path);

    static csv_table t;
    parse_csv(text, &t);
    long long evaluations = cli_db_int(db, "SELECT COUNT(*) FROM evaluations");
    cr_assert_eq(evaluations, SIX);
    cr_assert_eq((long long)t.n_records - 1, evaluations, "%zu CSV rows for %lld evaluations:\n%s",
                 t.n_records - 1, evaluations, text);
    /* One column per tuning parameter of vector_add, in place of the
     * configuration's text. */
    int wg_col = csv_column(&t, "wg_size");
    int per_item_col = csv_column(&t, "per_item");
    int median_col = csv_column(&t, "median_ns");
    int seq_col = csv_column(&t, "seq");
    cr_assert(wg_col >= 0 && per_item_col >= 0 && median_col >= 0 && seq_col >= 0,
              "header lacks columns:\n%s", text);
    cr_assert_lt(csv_column(&t, "configuration"), 0, "the configuration text is a column too");
    for (size_t rec = 1; rec < t.n_records; rec++) {
        cr_assert_eq(t.n_fields[rec], t.n_fields[0], "record %zu has %zu fields, header %zu", rec,
                     t.n_fields[rec], t.n_fields[0]);
        /* Every row is the evaluation it claims to be. */
        char *config = cli_db_text(db, "SELECT configuration FROM results WHERE seq = %s",
                                   t.fields[rec][seq_col]);
        char from_columns[128];
        snprintf(from_columns, sizeof from_columns, "wg_size=%s,per_item=%s",
                 t.fields[rec][wg_col], t.fields[rec][per_item_col]);
        cr_assert_str_eq(from_columns, config, "row %zu", rec);
        free(config);
        double median = strtod(t.fields[rec][median_col], NULL);
        char *stored = cli_db_text(db, "SELECT median_ns FROM results WHERE seq = %s",
                                   t.fields[rec][seq_col]);
        double want = strtod(stored, NULL);
        free(stored);
        cr_assert_float_eq(median, want, 1e-6 * want, "row %zu: median %g, database %g", rec,
                           median, want);
    }
    char wrote[64];
    snprintf(wrote, sizeof wrote, "wrote %lld rows", evaluations);
    cr_assert(strstr(r.out, wrote), "unexpected export output:\n%s", r.out);
    csv_free(&t);
    free(text);
    cli_result_free(&r);
    cli_result_free(&run);
    free(csv_path);
    free(db);
}

Test(cli, random_search_is_seeded)
{
    char *first_db = cli_path(scratch, "first.db");
    char *second_db = cli_path(scratch, "second.db");
    char *other_db = cli_path(scratch, "other_seed.db");

    cli_result first = run_random(first_db, "7");
    run_summary s = parse_summary(first.out);
    cr_assert_str_eq(s.stop, "budget reached");
    cr_assert_eq(s.evaluated, 5);
    cr_assert_eq(s.measured, 5);
    cr_assert_eq(cli_db_int(first_db, "SELECT COUNT(*) FROM measurements"), 5);
    cr_assert_eq(cli_db_int(first_db, "SELECT COUNT(DISTINCT configuration_id) FROM measurements"),
                 5);
    cr_assert_eq(cli_db_int(first_db, "SELECT COUNT(DISTINCT configuration) FROM results"), 5);
    char *first_order[5], *second_order[5], *other_order[5];
    evaluated_sequence(first_db, first_order, 5);

    /* The same seed in a fresh database proposes the same configurations in
     * the same order. */
    cli_result second = run_random(second_db, "7");
    evaluated_sequence(second_db, second_order, 5);
    for (size_t k = 0; k < 5; k++)
        cr_assert_str_eq(first_order[k], second_order[k], "seed 7 proposed differently at %zu", k);

    /* And the seed matters: another gives another sequence (the chance of
     * the same 5 of 28 in the same order is about 1 in 10 million). */
    cli_result other = run_random(other_db, "8");
    evaluated_sequence(other_db, other_order, 5);
    bool same = true;
    for (size_t k = 0; k < 5; k++) same = same && strcmp(first_order[k], other_order[k]) == 0;
    cr_assert(!same, "seeds 7 and 8 proposed the same sequence");

    for (size_t k = 0; k < 5; k++) {
        free(first_order[k]);
        free(second_order[k]);
        free(other_order[k]);
    }
    cli_result_free(&first);
    cli_result_free(&second);
    cli_result_free(&other);
    free(first_db);
    free(second_db);
    free(other_db);
}

Test(cli, rerun_of_a_finished_campaign_measures_nothing)
{
    char *db = cli_path(scratch, "rerun.db");
    cli_result first = run_exhaustive_six(db);
    run_summary before = parse_summary(first.out);
    long long measurements = cli_db_int(db, "SELECT COUNT(*) FROM measurements");
    long long samples = cli_db_int(db, "SELECT COUNT(*) FROM samples");
    long long last_id = cli_db_int(db, "SELECT MAX(id) FROM measurements");

    cli_result again = run_exhaustive_six(db);
    char continuing[64];
    snprintf(continuing, sizeof continuing, "continuing campaign %lld", before.campaign);
    cr_assert(strstr(again.out, continuing), "the second run did not continue campaign %lld:\n%s",
              before.campaign, again.out);
    run_summary after = parse_summary(again.out);
    cr_assert_eq(after.campaign, before.campaign);
    cr_assert_eq(after.measured, 0, "the second run measured %lld configurations again",
                 after.measured);
    cr_assert_eq(after.reused, SIX);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), measurements);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM samples"), samples);
    cr_assert_eq(cli_db_int(db, "SELECT MAX(id) FROM measurements"), last_id);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations"), SIX);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), 1);
    char *status = cli_db_text(db, "SELECT status FROM campaigns");
    cr_assert_str_eq(status, "done");
    free(status);
    cli_result_free(&first);
    cli_result_free(&again);
    free(db);
}

/* ------------------------------------------------------------ bad input */

/* `skytune run` with args, refused without touching a database (see
 * cli_assert_run_refused). */
static void assert_run_refused(const char *const *env, const char *const *args, int want_status,
                               const char *const *needles)
{
    cli_assert_run_refused(scratch, env, args, want_status, needles);
}

Test(cli, unknown_plugin_is_refused)
{
    assert_run_refused(NULL,
                       CLI_ARGS("--plugin", "no_such_plugin", "--plugin-dir", cli_plugin_dir(),
                                "--strategy", "exhaustive", "--runs", "1"),
                       1, CLI_ARGS("no_such_plugin"));
}

Test(cli, shared_object_without_entry_symbol_is_refused)
{
    if (!cli_have_compiler()) cr_skip_test("no C compiler (cc) to build the test object");
    char *so = cli_path(scratch, "not_a_plugin.so");
    cli_compile_shared("int skytune_test_unrelated(void);\n"
                       "int skytune_test_unrelated(void) { return 42; }\n",
                       so, NULL);
    assert_run_refused(NULL, CLI_ARGS("--plugin", so, "--strategy", "exhaustive", "--runs", "1"),
                       1, CLI_ARGS(so, "skytune_plugin_entry"));
    free(so);
}

Test(cli, plugin_of_another_abi_version_is_refused)
{
    if (!cli_have_compiler()) cr_skip_test("no C compiler (cc) to build the test plugin");
    char *so = cli_path(scratch, "future_plugin.so");
    char flags[4096];
    snprintf(flags, sizeof flags, "-I'%s/framework/include'", cli_source_dir());
    /* Everything else about it is a valid description, so the version is
     * the only reason to refuse it. */
    cli_compile_shared("#include <skytune/plugin.h>\n"
                       "static const skytune_tuning_param params[] = {\n"
                       "    {\"x\", SKYTUNE_LIST, \"1,2\", 0, 0, 0, \"x\"},\n"
                       "    {NULL, 0, NULL, 0, 0, 0, NULL}};\n"
                       "static const skytune_plugin description = {\n"
                       "    .abi_version = 999, .name = \"future_plugin\", .version = \"1.0\",\n"
                       "    .tuning_params = params};\n"
                       "SKYTUNE_DEFINE_PLUGIN(description)\n",
                       so, flags);
    assert_run_refused(NULL, CLI_ARGS("--plugin", so, "--strategy", "exhaustive", "--runs", "1"),
                       1, CLI_ARGS(so, "999"));
    free(so);
}

Test(cli, malformed_restrict_is_refused)
{
    assert_run_refused(NULL,
                       CLI_ARGS(VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1",
                                "--restrict", "wg_size * <= 256"),
                       1, CLI_ARGS("wg_size * <= 256", "column"));
}

Test(cli, unknown_problem_parameter_in_set_is_refused)
{
    assert_run_refused(NULL,
                       CLI_ARGS(VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1",
                                "--set", "bogus_param=3"),
                       1, CLI_ARGS("bogus_param"));
}

Test(cli, unknown_tuning_parameter_in_only_is_refused)
{
    assert_run_refused(NULL,
                       CLI_ARGS(VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1",
                                "--only", "bogus_param=1,2"),
                       1, CLI_ARGS("bogus_param"));
}

Test(cli, only_value_outside_the_space_is_refused)
{
    /* wg_size takes powers of two; 48 is not one of its values. */
    assert_run_refused(NULL,
                       CLI_ARGS(VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1",
                                "--only", "wg_size=32,48"),
                       1, CLI_ARGS("wg_size", "48"));
}

/* A layout is a permutation of its letters: anything else given for a
 * layout parameter is refused, naming the parameter and listing the
 * layouts. */
Test(cli, a_layout_that_is_no_permutation_is_refused_naming_the_parameter)
{
    assert_run_refused(NULL,
                       CLI_ARGS("--plugin", "ppf", "--plugin-dir", cli_plugin_dir(), "--preset",
                                "small", "--strategy", "exhaustive", "--runs", "1", "--only",
                                "out_layout=SCTX"),
                       1, CLI_ARGS("out_layout", "'SCTX' is not one of its values", "TPSC"));
    assert_run_refused(NULL,
                       CLI_ARGS("--plugin", "beamformer", "--plugin-dir", cli_plugin_dir(),
                                "--preset", "small", "--strategy", "exhaustive", "--runs", "1",
                                "--only", "in_layout=CSTP,SCT"),
                       1, CLI_ARGS("in_layout", "'SCT' is not one of its values", "CSTP"));
    /* Letters of the other array: the beam former's output has B, not S. */
    assert_run_refused(NULL,
                       CLI_ARGS("--plugin", "beamformer", "--plugin-dir", cli_plugin_dir(),
                                "--preset", "small", "--strategy", "exhaustive", "--runs", "1",
                                "--only", "out_layout=CSTP"),
                       1, CLI_ARGS("out_layout", "'CSTP' is not one of its values", "CBTP"));
}

static unsigned long long valid_configurations(const char *const *args)
{
    cli_result r = cli_run(args);
    cr_assert_eq(r.status, 0, "skytune plugins show: %s:\n%s", cli_status_text(r.status), r.err);
    char *count = cli_line_after(r.out, "valid configurations: ");
    cr_assert(count, "no valid-configuration count:\n%s", r.out);
    unsigned long long valid = 0;
    cr_assert_eq(sscanf(count, "%llu of", &valid), 1, "count line: %s", count);
    free(count);
    cli_result_free(&r);
    return valid;
}

/* With the FFT the channels must be contiguous: 6 of the 24 FIR output
 * layouts (those ending in C) are in the space, all 24 without it, and
 * `plugins show` lists the rule. */
Test(cli, plugins_show_ppf_keeps_the_layouts_the_fft_can_read)
{
    cli_result r = cli_run(CLI_ARGS("plugins", "show", "ppf", "--plugin-dir", cli_plugin_dir(),
                                    "--preset", "small"));
    cr_assert_eq(r.status, 0, "skytune plugins show: %s:\n%s", cli_status_text(r.status), r.err);
    cr_assert(strstr(r.out, "not fft or out_layout == 'STPC'"), "the rule is not listed:\n%s",
              r.out);
    cli_result_free(&r);
    const unsigned long long with_fft = valid_configurations(CLI_ARGS(
        "plugins", "show", "ppf", "--plugin-dir", cli_plugin_dir(), "--preset", "small"));
    const unsigned long long alone =
        valid_configurations(CLI_ARGS("plugins", "show", "ppf", "--plugin-dir", cli_plugin_dir(),
                                      "--preset", "small", "--set", "fft=false"));
    cr_assert_eq(with_fft, 648);
    cr_assert_eq(alone, 4 * with_fft);
}

Test(cli, recorded_space_without_replay_is_refused)
{
    /* Only a replayed dataset has recorded configurations. */
    assert_run_refused(NULL,
                       CLI_ARGS(VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1",
                                "--space", "recorded"),
                       1, CLI_ARGS("--space recorded", "--replay"));
}

Test(cli, unknown_preset_is_refused)
{
    assert_run_refused(NULL,
                       CLI_ARGS("--plugin", "vector_add", "--plugin-dir", cli_plugin_dir(),
                                "--preset", "enormous", "--strategy", "exhaustive", "--runs", "1"),
                       1, CLI_ARGS("enormous"));
}

Test(cli, unknown_option_is_a_usage_error)
{
    assert_run_refused(NULL,
                       CLI_ARGS(VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--frobnicate"), 2,
                       CLI_ARGS("--frobnicate"));
    cli_result r = cli_run(CLI_ARGS("frobnicate"));
    cr_assert_eq(r.status, 2, "an unknown command: %s", cli_status_text(r.status));
    cr_assert(strstr(r.err, "frobnicate"), "stderr does not name the command:\n%s", r.err);
    cli_result_free(&r);
}

/* A slip of a command, an option or an option's value is answered with
 * the nearest valid one, and still refused. */
Test(cli, slips_are_refused_with_the_nearest_valid_name)
{
    const struct {
        const char *const *args;
        int status;
        const char *said;
    } slips[] = {
        {CLI_ARGS("rnu"), 2, "unknown command 'rnu' (did you mean 'run'?)"},
        {CLI_ARGS("run", VECTOR_ADD_SMALL, "--budgt", "3"), 2,
         "unknown option '--budgt' (did you mean '--budget'? see skytune run --help)"},
        {CLI_ARGS("export", "--db", "none.db", "--format", "jsn"), 2,
         "--format 'jsn' is not one of: csv, json, header, t4, kernel_tuner (did you mean 'json'?)"},
        {CLI_ARGS("query", "best", "--db", "none.db", "--format", "CSV"), 2,
         "--format 'CSV' is not one of: table, csv, json (did you mean 'csv'?)"},
        {CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "baeys", "--db", "none.db"), 1,
         "unknown strategy 'baeys' (did you mean 'bayes'?)"},
        {CLI_ARGS("run", VECTOR_ADD_SMALL, "--only", "wg_sise=64", "--db", "none.db"), 1,
         "unknown tuning parameter 'wg_sise' (did you mean 'wg_size'?)"},
        {CLI_ARGS("campaign", "rnu", "none.yaml"), 2,
         "campaign: 'rnu' is not one of: run, status, cross, merge, slurm (did you mean 'run'?)"},
        {CLI_ARGS("plugins", "shwo", "vector_add"), 2, "(did you mean 'show'?)"},
        {CLI_ARGS("run", VECTOR_ADD_SMALL, "--notify", "http://127.0.0.1:1/x", "--notify-format",
                  "slak", "--db", "none.db"),
         2, "(did you mean 'slack'?)"},
        {CLI_ARGS("cache", "clera"), 2, "'clera' is not one of: show, clear (did you mean 'clear'?)"},
        {CLI_ARGS("query", "bset", "--db", "none.db"), 2, "no query named 'bset' (did you mean 'best'?)"},
    };
    /* Refused before a database is opened: none.db must not appear. */
    cr_assert_eq(chdir(scratch), 0);
    for (size_t k = 0; k < sizeof slips / sizeof slips[0]; k++) {
        cli_result r = cli_run(slips[k].args);
        cr_expect_eq(r.status, slips[k].status, "%s: %s\n%s", slips[k].args[0],
                     cli_status_text(r.status), r.err);
        cr_expect(strstr(r.err, slips[k].said), "'%s' not said:\n%s", slips[k].said, r.err);
        cli_result_free(&r);
    }
    /* Nothing near: no guess. */
    cli_result r = cli_run(CLI_ARGS("frobnicate"));
    cr_expect_null(strstr(r.err, "did you mean"), "%s", r.err);
    cli_result_free(&r);
    cr_assert_eq(access("none.db", F_OK), -1, "a refused command wrote none.db");
}

/* A tuning parameter given to --set is named as one, with the --only that
 * keeps that value. */
Test(cli, a_tuning_parameter_in_set_points_to_only)
{
    assert_run_refused(NULL,
                       CLI_ARGS(VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1",
                                "--set", "wg_size=64"),
                       1,
                       CLI_ARGS("'wg_size' is a tuning parameter of plugin vector_add",
                                "--set is for problem parameters (n)", "--only wg_size=64"));
}

Test(cli, zero_budget_is_a_usage_error)
{
    assert_run_refused(NULL,
                       CLI_ARGS(VECTOR_ADD_SMALL, "--strategy", "random", "--budget", "0"), 2,
                       CLI_ARGS("--budget"));
}

Test(cli, missing_opencl_platform_is_reported)
{
    /* The ICD loader finds drivers through the .icd files in this folder. */
    char *vendors = cli_path(scratch, "no-vendors");
    char setting[4096];
    cr_assert_eq(mkdir(vendors, 0755), 0);
    snprintf(setting, sizeof setting, "OCL_ICD_VENDORS=%s", vendors);
    const char *const env[] = {setting, "OCL_ICD_FILENAMES", NULL};

    assert_run_refused(env,
                       CLI_ARGS(VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1"), 1,
                       CLI_ARGS("OpenCL"));
    cli_result r = cli_run_env(env, CLI_ARGS("devices"));
    cr_assert_eq(r.status, 1, "skytune devices without a platform: %s:\n%s",
                 cli_status_text(r.status), r.out);
    cr_assert(strstr(r.err, "OpenCL"), "stderr does not mention OpenCL:\n%s", r.err);
    cli_result_free(&r);
    free(vendors);
}

/* ------------------------------------------------------------ bad databases */

/* `run`, `best` and `export` on a database file that is not one skytune can
 * use: each exits 1 naming the file, and the file keeps every byte. */
static void assert_database_refused(const char *db, const char *const *needles)
{
    char *csv = cli_path(scratch, "refused.csv");
    const char *const *commands[] = {
        CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1",
                 SIX_CONFIGURATIONS, "--db", db),
        CLI_ARGS("best", "--db", db),
        CLI_ARGS("export", "--db", db, "--out", csv),
    };
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        cli_snapshot before = cli_snapshot_take(db);
        cli_result r = cli_run(commands[k]);
        cli_assert_refusal(&r, 1, needles, &before, commands[k][0]);
        cr_assert(strstr(r.err, db), "skytune %s: stderr does not name %s:\n%s", commands[k][0],
                  db, r.err);
        cli_snapshot_free(&before);
        cli_result_free(&r);
    }
    cr_assert(!cli_file_exists(csv), "export wrote %s from a refused database", csv);
    free(csv);
}

/* The names in a folder, sorted, one a line (malloc'd). */
static char *folder_listing(const char *path)
{
    struct dirent **entries;
    int n = scandir(path, &entries, NULL, alphasort);
    cr_assert(n >= 0, "cannot list %s", path);
    size_t size = 1;
    for (int k = 0; k < n; k++) size += strlen(entries[k]->d_name) + 1;
    char *listing = calloc(size, 1);
    cr_assert(listing, "out of memory");
    for (int k = 0; k < n; k++) {
        strcat(listing, entries[k]->d_name);
        strcat(listing, "\n");
        free(entries[k]);
    }
    free(entries);
    return listing;
}

/* Root may write any file whatever its mode, so a read-only file is read-only
 * only to another user: run as root, the rest of the test runs as nobody,
 * with the scratch folder (and the given paths in it) handed over first.
 * Criterion runs each test in a process of its own. */
static void run_unprivileged(const char *const *paths)
{
    if (geteuid() != 0) return;
    const uid_t nobody = 65534;
    const gid_t nogroup = 65534;
    cr_assert_eq(chown(scratch, nobody, nogroup), 0, "chown %s: %s", scratch, strerror(errno));
    for (size_t k = 0; paths[k]; k++)
        cr_assert_eq(chown(paths[k], nobody, nogroup), 0, "chown %s: %s", paths[k],
                     strerror(errno));
    /* skytune's caches go under HOME, which must be nobody's to write (and
     * not into the build folder's test cache, which is root's). */
    unsetenv("SKYTUNE_CACHE_DIR");
    char *home = cli_path(scratch, "home");
    cr_assert_eq(mkdir(home, 0755), 0);
    cr_assert_eq(chown(home, nobody, nogroup), 0, "chown %s: %s", home, strerror(errno));
    setenv("HOME", home, 1);
    free(home);
    cr_assert(setgroups(0, NULL) == 0 && setgid(nogroup) == 0 && setuid(nobody) == 0,
              "cannot become nobody: %s", strerror(errno));
}

/* db kept every byte of `bytes`, and its folder lists as `before` did
 * (both freed here). */
static void assert_untouched(const char *folder, const char *db, cli_snapshot *bytes, char *before)
{
    const char *difference = cli_snapshot_difference(bytes);
    cr_assert(!difference, "%s: %s", db, difference);
    char *after = folder_listing(folder);
    cr_assert_str_eq(after, before, "files appeared or vanished beside %s:\nbefore:\n%safter:\n%s",
                     db, before, after);
    free(after);
    cli_snapshot_free(bytes);
    free(before);
}

/* `report` (with its helper connections) and `query` read db; the report
 * goes into the scratch folder, beside nothing of db's. */
static void assert_reports_read(const char *db)
{
    char *html = cli_path(scratch, "report.html");
    cli_result r = cli_run(CLI_ARGS("report", "--db", db, "--html", html));
    cr_assert_eq(r.status, 0, "report: %s\n%s", cli_status_text(r.status), r.err);
    cli_result_free(&r);
    cr_assert(cli_file_exists(html), "report wrote no %s", html);
    free(html);
    r = cli_run(CLI_ARGS("query", "--db", db, "best"));
    cr_assert_eq(r.status, 0, "query: %s\n%s", cli_status_text(r.status), r.err);
    cli_result_free(&r);
}

/* A database this user cannot write, in folder: `run` refuses it as it opens
 * it, naming it and why (each needle); `best` and `export` read it where it
 * is. Either way it keeps every byte and nothing appears beside it. */
static void assert_read_in_place(const char *folder, const char *db,
                                 const char *const *needles)
{
    char *before = folder_listing(folder);
    cli_snapshot bytes = cli_snapshot_take(db);
    cli_result r = cli_run(CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs",
                                    "1", SIX_CONFIGURATIONS, "--db", db));
    cli_assert_refusal(&r, 1, needles, &bytes, "run");
    cr_assert(strstr(r.err, db), "run: stderr does not name %s:\n%s", db, r.err);
    cli_result_free(&r);

    r = cli_run(CLI_ARGS("best", "--db", db));
    cr_assert_eq(r.status, 0, "best: %s\n%s", cli_status_text(r.status), r.err);
    cr_assert(strstr(r.out, "vector_add") && strstr(r.out, "wg_size="),
              "best does not show the campaign:\n%s", r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("export", "--db", db));
    cr_assert_eq(r.status, 0, "export: %s\n%s", cli_status_text(r.status), r.err);
    size_t lines = 0;
    for (const char *c = r.out; *c; c++) lines += *c == '\n';
    cr_assert_eq(lines, 1 + SIX, "export: not a header and %d rows:\n%s", SIX, r.out);
    cli_result_free(&r);
    assert_reports_read(db);
    assert_untouched(folder, db, &bytes, before);
}

Test(cli, read_only_database_is_refused_by_run_and_read_in_place)
{
    /* A campaign's database made read-only: nothing may write to it, and
     * reading it must not leave SQLite's journal files beside it. */
    char *folder = cli_path(scratch, "data");
    char *db = cli_path(folder, "results.db");
    cr_assert_eq(mkdir(folder, 0755), 0);
    cli_result r = run_exhaustive_six(db);
    cli_result_free(&r);
    cr_assert_eq(chmod(db, 0444), 0);
    run_unprivileged(CLI_ARGS(folder, db));
    assert_read_in_place(folder, db, CLI_ARGS("read-only"));
    free(db);
    free(folder);
}

Test(cli, database_in_a_read_only_folder_is_refused_by_run_and_read_in_place)
{
    /* A database it may write in a folder it may not: SQLite could not make
     * its journal files beside it. */
    char *folder = cli_path(scratch, "locked");
    char *db = cli_path(folder, "results.db");
    cr_assert_eq(mkdir(folder, 0755), 0);
    cli_result r = run_exhaustive_six(db);
    cli_result_free(&r);
    run_unprivileged(CLI_ARGS(folder, db));
    cr_assert_eq(chmod(folder, 0555), 0);
    assert_read_in_place(folder, db, CLI_ARGS(folder, "-wal"));
    cr_assert_eq(chmod(folder, 0755), 0);
    free(db);
    free(folder);
}

/* The reading commands write nothing to a database they may write, nor
 * beside it: a committed database in the rollback journal mode once had its
 * header rewritten to WAL by `report`, and one of an older schema was
 * migrated in place. Here the committed correlator campaign (schema
 * version 1, rollback mode) is read by best, export, report and query:
 * every byte stays, no -wal or -shm file appears, and the older schema is
 * read through a migrated temporary copy. */
Test(cli, reading_commands_leave_a_database_they_may_write_as_it_was)
{
    char *folder = cli_path(scratch, "committed");
    char *db = cli_path(folder, "correlator.db");
    cr_assert_eq(mkdir(folder, 0755), 0);
    char *source = cli_path(cli_source_dir(), "docs/results/correlator-h200-exhaustive.db");
    size_t len;
    void *bytes_of_source = cli_read_file(source, &len);
    cr_assert_not_null(bytes_of_source, "%s", source);
    cli_write_file(db, bytes_of_source, len);
    free(bytes_of_source);
    free(source);
    char *before = folder_listing(folder);
    cli_snapshot bytes = cli_snapshot_take(db);
    cli_result r = cli_run(CLI_ARGS("best", "--db", db));
    cr_assert_eq(r.status, 0, "best: %s\n%s", cli_status_text(r.status), r.err);
    cr_assert(strstr(r.out, "correlator"), "%s", r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("export", "--db", db));
    cr_assert_eq(r.status, 0, "export: %s\n%s", cli_status_text(r.status), r.err);
    cli_result_free(&r);
    assert_reports_read(db);
    assert_untouched(folder, db, &bytes, before);
    free(db);
    free(folder);
}

/* A device or a FIFO given as the database is refused before SQLite opens
 * it: nothing appears beside it (SQLite once made /dev/null-journal), and a
 * FIFO never blocks the command. */
Test(cli, special_files_are_no_databases)
{
    char *fifo = cli_path(scratch, "results.fifo");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    char *before = folder_listing(scratch);
    const char *const *commands[] = {
        CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs", "1",
                 SIX_CONFIGURATIONS, "--db", fifo),
        CLI_ARGS("best", "--db", fifo),
        CLI_ARGS("report", "--db", fifo, "--html", "/dev/null"),
    };
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        cli_result r = cli_run(commands[k]);
        cr_assert_eq(r.status, 1, "%s: %s", commands[k][0], r.err);
        cr_assert(strstr(r.err, "is not a regular file") && strstr(r.err, fifo), "%s: %s",
                  commands[k][0], r.err);
        cli_result_free(&r);
    }
    char *after = folder_listing(scratch);
    cr_assert_str_eq(after, before, "files appeared beside %s", fifo);
    free(after);
    free(before);
    free(fifo);
    if (geteuid() != 0) return; /* only root could make /dev/null-journal */
    cr_assert(!cli_file_exists("/dev/null-journal"), "left by something else before this test");
    cli_result r = cli_run(CLI_ARGS("run", VECTOR_ADD_SMALL, "--strategy", "exhaustive", "--runs",
                                    "1", SIX_CONFIGURATIONS, "--db", "/dev/null"));
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert(strstr(r.err, "/dev/null is not a regular file"), "%s", r.err);
    cli_result_free(&r);
    cr_assert(!cli_file_exists("/dev/null-journal") && !cli_file_exists("/dev/null-wal"),
              "a journal beside /dev/null");
}

Test(cli, corrupt_database_is_refused)
{
    char *db = cli_path(scratch, "corrupt.db");
    /* Bytes from a fixed linear congruential sequence: not a SQLite header,
     * and the same every run. */
    unsigned char bytes[8192];
    unsigned long long x = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < sizeof bytes; k++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        bytes[k] = (unsigned char)(x >> 56);
    }
    cli_write_file(db, bytes, sizeof bytes);
    assert_database_refused(db, NULL);
    free(db);
}

Test(cli, foreign_sqlite_database_is_refused)
{
    char *db = cli_path(scratch, "stars.db");
    sqlite3 *handle;
    cr_assert_eq(sqlite3_open_v2(db, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_exec(handle,
                              "CREATE TABLE stars (name TEXT, magnitude REAL);"
                              "INSERT INTO stars VALUES ('Vega', 0.03);",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(handle));
    sqlite3_close(handle);
    assert_database_refused(db, NULL);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM stars"), 1);
    free(db);
}

Test(cli, database_with_newer_schema_is_refused)
{
    char *db = cli_path(scratch, "future.db");
    cli_create_db(db);
    sqlite3 *handle;
    cr_assert_eq(sqlite3_open_v2(db, &handle, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(handle, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK,
                 "%s", sqlite3_errmsg(handle));
    sqlite3_close(handle);
    assert_database_refused(db, CLI_ARGS("99"));
    cr_assert_eq(cli_db_int(db, "PRAGMA user_version"), 99);
    free(db);
}

/* ------------------------------------------------------------ locks */

/* The recorded dataset of cli_harness.h, as a file in the scratch folder:
 * a run of it needs no device, so it reaches the database at once. */
static char *recorded_cache_file(void)
{
    char *path = cli_path(scratch, "recorded.cache.json");
    cli_write_file(path, cli_recorded_cache, strlen(cli_recorded_cache));
    return path;
}

/* Every command that opens a database waits for a lock another process
 * holds on it for a minute or more unless told otherwise (the wait once was
 * 5 s, and a campaign ended on a sqlite3 shell's open transaction), and its
 * help says how long. */
Test(cli, commands_that_open_a_database_wait_a_minute_or_more_by_default)
{
    cr_expect_geq(STORE_BUSY_TIMEOUT_S, 60);
    const char *commands[] = {"run",    "campaign", "merge",   "best",   "report",
                              "export", "query",    "publish", "devices"};
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        cli_result r = cli_run(CLI_ARGS(commands[k], "--help"));
        char *help = cli_line_after(r.out, "--busy-timeout DURATION");
        cr_assert_not_null(help, "skytune %s --help has no --busy-timeout:\n%s", commands[k],
                           r.out);
        const char *given = strstr(help, "(default ");
        cr_assert_not_null(given, "skytune %s --help: %s", commands[k], help);
        char wait[32];
        cr_assert_eq(sscanf(given, "(default %31[^)])", wait), 1, "%s", help);
        double seconds = 0;
        cr_assert_eq(quantity_duration(wait, &seconds), 0, "skytune %s: '%s'", commands[k], wait);
        cr_expect_geq(seconds, 60, "skytune %s waits %s by default", commands[k], wait);
        free(help);
        cli_result_free(&r);
    }
}

/* A lock held past --busy-timeout ends the command with a message that
 * says the database is locked, how long it waited, the option that sets
 * the wait and who holds the lock; the database stays as it was. A run
 * meets the write lock of a WAL database; a reading command meets the
 * exclusive lock of a writer in the rollback journal mode, the one lock a
 * reader waits for (in WAL mode readers never wait). */
Test(cli, a_lock_held_past_the_busy_timeout_names_its_holder)
{
    char *cache = recorded_cache_file();
    char *db = cli_path(scratch, "locked.db");
    cli_create_db(db);
    cli_snapshot before = cli_snapshot_take(db);
    pid_t holder = cli_hold_db_lock(db, "BEGIN IMMEDIATE");
    char held_by[64];
    snprintf(held_by, sizeof held_by, "the lock is held by process %d (", (int)holder);
    cli_result r = cli_run(
        CLI_ARGS("run", "--replay", cache, "--db", db, "--busy-timeout", "1s", "--quiet"));
    cli_release_db_lock(holder);
    cli_assert_refusal(&r, 1,
                       CLI_ARGS("the database is locked", "waited 1 s", "--busy-timeout", held_by),
                       &before, "run on a locked database");
    cli_result_free(&r);
    cli_snapshot_free(&before);

    char *committed = cli_path(scratch, "correlator.db");
    char *source = cli_path(cli_source_dir(), "docs/results/correlator-h200-exhaustive.db");
    size_t len;
    void *bytes = cli_read_file(source, &len);
    cr_assert_not_null(bytes, "%s", source);
    cli_write_file(committed, bytes, len);
    free(bytes);
    sqlite3 *handle;
    cr_assert_eq(sqlite3_open_v2(committed, &handle, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(handle, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(handle));
    sqlite3_close(handle);
    before = cli_snapshot_take(committed);
    /* A write in flight, its journal beside the database. */
    holder = cli_hold_db_lock(committed, "BEGIN EXCLUSIVE; CREATE TABLE in_flight (x)");
    snprintf(held_by, sizeof held_by, "the lock is held by process %d (", (int)holder);
    r = cli_run(CLI_ARGS("best", "--db", committed, "--busy-timeout", "1s"));
    cli_release_db_lock(holder);
    cli_assert_refusal(&r, 1,
                       CLI_ARGS("the database is locked", "waited 1 s", "--busy-timeout", held_by),
                       &before, "best on a locked database");
    cli_result_free(&r);
    cli_snapshot_free(&before);
    free(source);
    free(committed);
    free(db);
    free(cache);
}

/* A lock held for longer than the old 5 s wait is waited for: the run goes
 * on once it is released, and records its campaign. */
Test(cli, a_lock_held_for_seconds_is_waited_for)
{
    char *cache = recorded_cache_file();
    char *db = cli_path(scratch, "busy.db");
    char *out = cli_path(scratch, "run.out"), *err = cli_path(scratch, "run.err");
    cli_create_db(db);
    pid_t holder = cli_hold_db_lock(db, "BEGIN IMMEDIATE");
    pid_t run = cli_start(CLI_ARGS("run", "--replay", cache, "--db", db, "--quiet"), out, err);
    sleep(6);
    int status;
    bool ended = cli_poll_exit(run, &status);
    cli_release_db_lock(holder);
    if (!ended) status = cli_wait(run, CLI_TIMEOUT_S);
    size_t len;
    char *errors = (char *)cli_read_file(err, &len);
    cr_assert_not(ended, "the run ended while the lock was held: %s\n%s",
                  cli_status_text(status), errors ? errors : "");
    cr_assert_eq(status, 0, "%s\n%s", cli_status_text(status), errors ? errors : "");
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations"), 3);
    free(errors);
    free(err);
    free(out);
    free(db);
    free(cache);
}

/* ------------------------------------------------------------ escapes */

/* What a terminal would run: ESC starts a sequence that recolours, clears
 * or retitles it, BEL ends a title; any other control byte but the line
 * breaks has no business in a message either. */
static bool has_raw_control_byte(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if ((*c < 0x20 && *c != '\n' && *c != '\r') || *c == 0x7f) return true;
    return false;
}

/* A command whose output names a path or a text holding `raw`: nothing of
 * it reaches standard output or standard error unescaped, and `shown`, its
 * escaped form, is there instead. */
static void expect_escaped(const char *const *args, const char *shown, const char *what)
{
    cli_result r = cli_run(args);
    cr_expect_not(has_raw_control_byte(r.out), "%s: a raw control byte on standard output:\n%s",
                  what, r.out);
    cr_expect_not(has_raw_control_byte(r.err), "%s: a raw control byte on standard error:\n%s",
                  what, r.err);
    cr_expect(strstr(r.out, shown) || strstr(r.err, shown), "%s: no %s in\n%s\n%s", what, shown,
              r.out, r.err);
    cli_result_free(&r);
}

#define RED "\x1b[31m"
#define RED_SHOWN "\\x1b[31m"
#define TITLE "\x1b]0;owned\x07"
#define TITLE_SHOWN "\\x1b]0;owned\\x07"

/* Paths a user gives — the database, a plugin's .so, a T1 file, a
 * campaign file, the cache folder, where a report or an export goes — and
 * names made of them (a dataset's name is its file's) are shown escaped in
 * every message and listing, found or not. */
Test(cli, paths_reach_the_terminal_escaped)
{
    char *cache = cli_path(scratch, "ca" RED "che.json");
    cli_write_file(cache, cli_recorded_cache, strlen(cli_recorded_cache));
    char *db = cli_path(scratch, "results" RED ".db");
    char *missing = cli_path(scratch, "missing" RED ".db");
    expect_escaped(CLI_ARGS("best", "--db", missing), "missing" RED_SHOWN ".db",
                   "best of a missing database");
    expect_escaped(CLI_ARGS("run", "--replay", cache, "--db", db), "ca" RED_SHOWN "che",
                   "run of a dataset whose name holds an escape");
    expect_escaped(CLI_ARGS("best", "--db", db), "ca" RED_SHOWN "che", "best");

    char *empty = cli_path(scratch, "empty" TITLE ".db");
    cli_create_db(empty);
    expect_escaped(CLI_ARGS("best", "--db", empty), "empty" TITLE_SHOWN ".db has no campaigns",
                   "best of a database without campaigns");
    expect_escaped(CLI_ARGS("run", "--replay", cache, "--db", empty, "--busy-timeout", "0s"),
                   "--busy-timeout must be a duration longer than 0", "a bad --busy-timeout");

    char *so = cli_path(scratch, "plugin" RED ".so");
    expect_escaped(CLI_ARGS("run", "--plugin", so, "--db", db), "plugin" RED_SHOWN ".so",
                   "a plugin that does not exist");
    char *junk = cli_path(scratch, "junk" TITLE ".so");
    cli_write_file(junk, "not a shared object\n", 20);
    /* The dynamic loader's own message names the file too. */
    expect_escaped(CLI_ARGS("run", "--plugin", junk, "--db", db), "junk" TITLE_SHOWN ".so",
                   "a .so that is no shared object");
    char *t1 = cli_path(scratch, "space" RED ".json");
    expect_escaped(CLI_ARGS("run", "--t1", t1, "--db", db), "space" RED_SHOWN ".json",
                   "a T1 file that does not exist");

    char *campaign = cli_path(scratch, "sweep" RED ".yaml");
    expect_escaped(CLI_ARGS("campaign", "status", campaign), "sweep" RED_SHOWN ".yaml",
                   "a campaign file that does not exist");
    cli_write_file(campaign, "plugin: [unclosed\n", 18);
    expect_escaped(CLI_ARGS("campaign", "run", campaign), "sweep" RED_SHOWN ".yaml:",
                   "a campaign file that is not YAML");

    char *folder = cli_path(scratch, "cache" TITLE);
    expect_escaped(CLI_ARGS("cache", "show", "--dir", folder), "cache" TITLE_SHOWN,
                   "cache show");
    char *html = cli_path(scratch, "report" RED ".html");
    expect_escaped(CLI_ARGS("report", "--db", db, "--html", html), "report" RED_SHOWN ".html",
                   "report");
    char *csv = cli_path(scratch, "rows" RED ".csv");
    expect_escaped(CLI_ARGS("export", "--db", db, "--out", csv), "rows" RED_SHOWN ".csv",
                   "export");
    char *merged = cli_path(scratch, "merged.db");
    expect_escaped(CLI_ARGS("merge", merged, db), "results" RED_SHOWN ".db", "merge");
    expect_escaped(CLI_ARGS("merge", merged, missing), "missing" RED_SHOWN ".db",
                   "merge of a missing database");
    free(merged);
    free(csv);
    free(html);
    free(folder);
    free(campaign);
    free(t1);
    free(junk);
    free(so);
    free(empty);
    free(missing);
    free(db);
    free(cache);
}

/* A database may come from anywhere (a merge, a colleague's run): what it
 * holds is shown escaped by best, query and campaign status, and by CSV on
 * a terminal; CSV into a pipe or a file is data, kept byte for byte. */
Test(cli, database_texts_reach_the_terminal_escaped)
{
    char *cache = recorded_cache_file();
    char *db = cli_path(scratch, "results.db");
    cli_result r = cli_run(CLI_ARGS("run", "--replay", cache, "--db", db, "--quiet"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    sqlite3 *handle;
    cr_assert_eq(sqlite3_open_v2(db, &handle, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(handle,
                              "UPDATE devices SET name = 'GPU' || char(27) || ']0;owned' || "
                              "char(7);"
                              "UPDATE configurations SET text = text || char(27) || '[31m'",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(handle));
    sqlite3_close(handle);
    expect_escaped(CLI_ARGS("best", "--db", db), "GPU" TITLE_SHOWN, "best");
    expect_escaped(CLI_ARGS("best", "--db", db), RED_SHOWN, "best's configuration");
    expect_escaped(CLI_ARGS("query", "--db", db, "campaigns"), "GPU" TITLE_SHOWN,
                   "query campaigns");
    expect_escaped(CLI_ARGS("query", "--db", db, "top", "--campaign", "1"), RED_SHOWN,
                   "query top");
    expect_escaped(CLI_ARGS("campaign", "status", "--db", db), "GPU" TITLE_SHOWN,
                   "campaign status");

    r = cli_run_terminal(NULL, CLI_ARGS("best", "--db", db, "--format", "csv"), 200);
    cr_expect_eq(r.status, 0, "%s", r.out);
    cr_expect_not(has_raw_control_byte(r.out), "CSV on a terminal:\n%s", r.out);
    cr_expect(strstr(r.out, "GPU" TITLE_SHOWN), "%s", r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("best", "--db", db, "--format", "csv"));
    cr_expect(strstr(r.out, "GPU" TITLE), "CSV into a pipe is not the data:\n%s", r.out);
    cli_result_free(&r);
    free(db);
    free(cache);
}
