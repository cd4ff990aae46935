/* skytune run --t1 end to end on PoCL, through the supervised measuring
 * worker and a compile worker like any plugin run: the three examples tune
 * and verify; a kernel wrong for some configurations is caught by each
 * validation method and by the Default configuration's reference; the
 * reference (the Default's outputs or a ReferenceArgument's data) is computed
 * once and copied into the spare measuring workers; arguments
 * of every memory type and fill type reach the kernel as the file says
 * (checked bit for bit against data this test computes on its own); an
 * edited file is a new plugin build; bad files are refused leaving no
 * database; and the T4 export of a T1 campaign validates against the T4
 * schemas with python3-jsonschema. The examples of kernels that compute
 * no one answer verify too: partial sums by their sum, a filter whose size
 * is tuned against the Default of the same size, a convolution against a
 * naive kernel of its file; each wrong variant is caught, its message
 * naming what it was compared with; a compile error names the kernel
 * file; Flops and Bytes give GFLOP/s and GB/s. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcg32.h>

#include "cli_harness.h"

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

TestSuite(t1_plugin, .init = make_scratch, .fini = remove_scratch);

/* ------------------------------------------------------------ helpers */

static char *in_scratch(const char *name)
{
    return cli_path(scratch, name);
}

static void write_text(const char *name, const char *text)
{
    char *path = in_scratch(name);
    cli_write_file(path, text, strlen(text));
    free(path);
}

static char *example(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/t1/%s", cli_source_dir(), name);
    return strdup(path);
}

/* examples/t1/NAME copied into the scratch folder, with the text `at`
 * replaced by `edit` (at NULL: as it is). */
static void copy_example(const char *name, const char *at, const char *edit)
{
    char *path = example(name);
    size_t len;
    char *text = (char *)cli_read_file(path, &len);
    cr_assert(text, "%s", path);
    char *where = at ? strstr(text, at) : NULL;
    cr_assert(!at || where, "%s no longer holds \"%s\": adjust this test", name, at);
    if (!where) {
        write_text(name, text);
    } else {
        char edited[16384];
        snprintf(edited, sizeof edited, "%.*s%s%s", (int)(where - text), text, edit,
                 where + strlen(at));
        write_text(name, edited);
    }
    free(text);
    free(path);
}

#define MAX_ARGS 48

/* skytune run with the options every run here shares (a cache of its own,
 * one compile worker, two timed runs) and `more`; fails the test unless
 * it exits with `status`. */
static cli_result run_t1(int status, const char *t1, const char *db, const char *const *more)
{
    char *cache = in_scratch("cache");
    const char *args[MAX_ARGS + 1] = {"run", "--t1", t1, "--db", db, "--runs", "2",
                                      "--compile-jobs", "1", "--cache-dir", cache};
    size_t n = 11;
    for (size_t k = 0; more && more[k]; k++) {
        cr_assert(n < MAX_ARGS);
        args[n++] = more[k];
    }
    args[n] = NULL;
    cli_result r = cli_run(args);
    free(cache);
    cr_assert_eq(r.status, status, "skytune run --t1 %s: %s\nstdout:\n%s\nstderr:\n%s", t1,
                 cli_status_text(r.status), r.out, r.err);
    return r;
}

/* The status of the measurement of configuration `text`. */
static char *status_of(const char *db, const char *text)
{
    return cli_db_text(db,
                       "SELECT m.status FROM measurements m JOIN configurations c "
                       "ON c.id = m.configuration_id WHERE c.text = '%s'",
                       text);
}

static void assert_status(const char *db, const char *config, const char *expected,
                          const char *why)
{
    char *status = status_of(db, config);
    cr_assert_str_eq(status, expected, "%s: %s is %s (%s)", db, config, status, why);
    free(status);
}

/* ------------------------------------------------------------ the examples */

#define BY_DEFAULT "outputs verified against the outputs of the Default configuration"

/* Example NAME tuned with `more`: `budget` configurations measured, every
 * one verified (the campaign saying `says` of how), the work counted when
 * the file gives Flops. */
static void tune_example(const char *name, const char *says, const char *const *more,
                         long long budget)
{
    char *t1 = example(name);
    char db[128];
    snprintf(db, sizeof db, "%s/%s.db", scratch, name);
    cli_result r = run_t1(0, t1, db, more);
    cr_assert(strstr(r.out, says), "%s does not say \"%s\":\n%s", name, says, r.out);
    cr_assert(strstr(r.out, "measured in a supervised worker"), "%s", r.out);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), budget);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), budget,
                 "every configuration of a correct kernel verifies:\n%s", r.out);
    char *version = cli_db_text(db, "SELECT version FROM plugins");
    cr_assert(strncmp(version, "t1.", 3) == 0, "%s", version);
    free(version);
    size_t len;
    char *text = (char *)cli_read_file(t1, &len);
    if (strstr(text, "\"Flops\""))
        cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE gflops > 0"), budget,
                     "%s gives Flops: every measurement has its GFLOP/s", name);
    if (strstr(text, "\"Bytes\""))
        cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE gbs > 0"), budget,
                     "%s gives Bytes: every measurement has its GB/s", name);
    free(text);
    cli_result_free(&r);
    free(t1);
}

Test(t1_plugin, the_vector_add_example_tunes_and_verifies)
{
    tune_example("vector_add.json", BY_DEFAULT,
                 CLI_ARGS("--set", "problem_size_0=5000", "--strategy", "random", "--budget", "6"),
                 6);
}

Test(t1_plugin, the_matmul_example_tunes_and_verifies)
{
    tune_example("matmul.json", BY_DEFAULT,
                 CLI_ARGS("--set", "problem_size_0=96", "--set", "problem_size_1=40", "--strategy",
                          "random", "--budget", "5"),
                 5);
}

Test(t1_plugin, the_convolution_example_tunes_and_verifies)
{
    tune_example("convolution.json", BY_DEFAULT,
                 CLI_ARGS("--set", "problem_size_0=100", "--set", "problem_size_1=60",
                          "--strategy", "random", "--budget", "5"),
                 5);
}

/* The examples of kernels that do not compute one answer for every
 * configuration, or whose answer a program computes: each verifies, and
 * each counts its work. */
Test(t1_plugin, the_reduction_example_checks_its_partial_sums_by_their_sum)
{
    tune_example("reduction.json",
                 "outputs verified against nothing element-wise (Verification.Method \"None\"); "
                 "checks: sum(partial) = sum(x) within 0.0001",
                 CLI_ARGS("--strategy", "random", "--budget", "2"), 2);
}

Test(t1_plugin, the_matmul_defines_example_tunes_and_verifies)
{
    tune_example("matmul_defines.json", BY_DEFAULT,
                 CLI_ARGS("--set", "problem_size_0=40", "--set", "problem_size_1=24", "--set",
                          "problem_size_2=20", "--strategy", "random", "--budget", "2"),
                 2);
}

Test(t1_plugin, the_separable_convolution_example_verifies_every_filter_size)
{
    tune_example("separable_convolution.json",
                 BY_DEFAULT " (block_size_x=16,block_size_y=1,per_item=1,filter_radius=as "
                 "measured), run for each value of the OutputParameters",
                 CLI_ARGS("--set", "problem_size_0=48", "--set", "problem_size_1=16",
                          "--strategy", "random", "--budget", "2"),
                 2);
}

Test(t1_plugin, the_stencil_example_with_a_read_only_parameter_verifies)
{
    tune_example("stencil.json", BY_DEFAULT,
                 CLI_ARGS("--set", "problem_size_0=64", "--set", "problem_size_1=32",
                          "--strategy", "random", "--budget", "2", "--only", "read_only=1"),
                 2);
}

Test(t1_plugin, the_convolution_example_is_checked_against_its_naive_kernel)
{
    tune_example("convolution_naive.json",
                 "outputs verified against the outputs of the reference kernel "
                 "convolution_reference",
                 CLI_ARGS("--set", "problem_size_0=40", "--set", "problem_size_1=24",
                          "--strategy", "random", "--budget", "2"),
                 2);
}

/* Example NAME copied with its kernel edited (`at` replaced by `edit`),
 * measured exhaustively over the values `only` keeps. */
static char *measure_broken(const char *name, const char *at, const char *edit,
                            const char *const *only)
{
    char json[64], cl[64], db_name[64];
    snprintf(json, sizeof json, "%s.json", name);
    snprintf(cl, sizeof cl, "%s.cl", name);
    snprintf(db_name, sizeof db_name, "%s-broken.db", name);
    copy_example(json, NULL, NULL);
    copy_example(cl, at, edit);
    char *copy = in_scratch(json);
    char *db = in_scratch(db_name);
    const char *more[MAX_ARGS] = {"--strategy", "exhaustive"};
    size_t n = 2;
    for (size_t k = 0; only[k]; k++) more[n++] = only[k];
    more[n] = NULL;
    cli_result r = run_t1(0, copy, db, more);
    cli_result_free(&r);
    free(copy);
    return db;
}

static void assert_message(const char *db, const char *config, const char *says)
{
    char *message = cli_db_text(db, "SELECT m.message FROM measurements m JOIN configurations c "
                                    "ON c.id = m.configuration_id WHERE c.text = '%s'", config);
    cr_assert(strstr(message, says), "%s: the message does not say \"%s\": %s", config, says,
              message);
    free(message);
}

/* Every filter radius computes its own answer: compared with the Default
 * of the same radius, all are right but the broken per_item. */
Test(t1_plugin, output_parameters_compare_with_a_reference_of_the_same_values)
{
    char *db = measure_broken("separable_convolution", "out[y * WIDTH + x] = sum;",
                              "out[y * WIDTH + x] = per_item == 2 ? sum * 1.01f : sum;",
                              CLI_ARGS("--set", "problem_size_0=32", "--set", "problem_size_1=8",
                                       "--only", "block_size_x=16", "--only", "block_size_y=1",
                                       "--only", "per_item=1,2", "--only", "filter_radius=1,3"));
    assert_status(db, "block_size_x=16,block_size_y=1,per_item=1,filter_radius=1", "ok", "right");
    assert_status(db, "block_size_x=16,block_size_y=1,per_item=1,filter_radius=3", "ok",
                  "right for its own radius");
    assert_status(db, "block_size_x=16,block_size_y=1,per_item=2,filter_radius=1", "wrong_result",
                  "1% off");
    assert_status(db, "block_size_x=16,block_size_y=1,per_item=2,filter_radius=3", "wrong_result",
                  "1% off");
    assert_message(db, "block_size_x=16,block_size_y=1,per_item=2,filter_radius=3",
                   "output 'out': ");
    assert_message(db, "block_size_x=16,block_size_y=1,per_item=2,filter_radius=3",
                   "differ from the outputs of the Default configuration (block_size_x=16,"
                   "block_size_y=1,per_item=1,filter_radius=as measured)");
    free(db);
}

Test(t1_plugin, a_reference_kernel_catches_a_wrong_kernel_and_says_so)
{
    char *db = measure_broken("convolution_naive",
                              "if (x < WIDTH && y < HEIGHT) out[y * WIDTH + x] = sum;",
                              "if (x < WIDTH && y < HEIGHT) out[y * WIDTH + x] = "
                              "tile_y == 2 && x == 3 ? -sum : sum;",
                              CLI_ARGS("--set", "problem_size_0=32", "--set", "problem_size_1=8",
                                       "--only", "block_size_x=16", "--only", "block_size_y=2"));
    assert_status(db, "block_size_x=16,block_size_y=2,tile_y=1", "ok", "right");
    assert_status(db, "block_size_x=16,block_size_y=2,tile_y=2", "wrong_result", "x == 3 negated");
    assert_message(db, "block_size_x=16,block_size_y=2,tile_y=2",
                   "output 'out': 8 of 256 differ from the outputs of the reference kernel "
                   "convolution_reference; first at index 3");
    free(db);
}

Test(t1_plugin, a_check_catches_partial_sums_that_do_not_add_up)
{
    char *db = measure_broken("reduction", "acc += x[i];",
                              "acc += num_blocks == 16 && i == 0 ? x[i] + 100.0f : x[i];",
                              CLI_ARGS("--only", "block_size_x=64", "--only", "num_blocks=8,16"));
    assert_status(db, "block_size_x=64,num_blocks=8", "ok", "adds up");
    assert_status(db, "block_size_x=64,num_blocks=16", "wrong_result", "100 too many");
    assert_message(db, "block_size_x=64,num_blocks=16", "output 'sum(partial) = sum(x)': 1 of 1");
    free(db);
}

/* The example's kernel with a mistake where per_item is 4: the Default
 * (per_item 1) is right, so the reference is, and only the mistake fails. */
Test(t1_plugin, a_broken_example_is_caught_by_the_default_reference)
{
    copy_example("vector_add.json", NULL, NULL);
    copy_example("vector_add.cl", "c[i] = a[i] + b[i];",
                 "c[i] = per_item == 4 ? a[i] - b[i] : a[i] + b[i];");
    char *copy = in_scratch("vector_add.json");
    char *db = in_scratch("broken.db");
    cli_result r = run_t1(0, copy, db,
                          CLI_ARGS("--set", "problem_size_0=3000", "--strategy", "exhaustive",
                                   "--only", "wg_size=32,64", "--only", "per_item=1,4"));
    assert_status(db, "wg_size=32,per_item=1", "ok", "right");
    assert_status(db, "wg_size=64,per_item=1", "ok", "right");
    assert_status(db, "wg_size=32,per_item=4", "wrong_result", "subtracts");
    assert_status(db, "wg_size=64,per_item=4", "wrong_result", "subtracts");
    char *message = cli_db_text(db, "SELECT message FROM measurements WHERE status = "
                                    "'wrong_result' LIMIT 1");
    cr_assert(strstr(message, "output 'c': ") &&
                  strstr(message, " differ from the outputs of the Default configuration "
                                  "(wg_size=64,per_item=1); first at index 0"),
              "the message says what the outputs were compared with: %s", message);
    free(message);

    /* The T4 export of this campaign, failures and all, is T4. */
    char *t4 = in_scratch("broken.t4.json");
    cli_result e = cli_run(CLI_ARGS("export", "--db", db, "--format", "t4", "--out", t4));
    cr_assert_eq(e.status, 0, "%s", e.err);
    char command[4096];
    snprintf(command, sizeof command,
             "/usr/bin/python3 %s/tests/fixtures/t4-schema/validate.py %s "
             "%s/tests/fixtures/t4-schema/kernel_tuner-results-schema.json "
             "%s/tests/fixtures/t4-schema/kernel_tuner-metadata-schema.json "
             "%s/tests/fixtures/t4-schema/ata-results-schema.json "
             "%s/tests/fixtures/t4-schema/ata-metadata-schema.json 2>&1",
             cli_source_dir(), t4, cli_source_dir(), cli_source_dir(), cli_source_dir(),
             cli_source_dir());
    FILE *p = popen(command, "r");
    cr_assert(p);
    char report[16384];
    size_t got = fread(report, 1, sizeof report - 1, p);
    report[got] = '\0';
    int rc = pclose(p);
    cr_assert_eq(rc, 0, "validate.py failed (is python3-jsonschema installed? "
                        "tools/install-deps.sh installs it):\n%s", report);
    cr_assert(strstr(report, "kernel_tuner-results-schema.json 0\n"), "%s", report);
    cr_assert(strstr(report, "kernel_tuner-metadata-schema.json 0\n"), "%s", report);
    cr_assert(strstr(report, "ata-metadata-schema.json 0\n"), "%s", report);
    /* The Association's results schema has no value of "invalidity" for a
     * correct result (Kernel Tuner's copy added "correct"): the two ok
     * results are its only errors, and the failures pass it. */
    cr_assert(strstr(report, "ata-results-schema.json 2\n"), "%s", report);
    const char *errors = strstr(report, "ata-results-schema.json 2\n");
    for (const char *line = strchr(errors, '\n') + 1; *line == ' ';
         line = strchr(line, '\n') + 1)
        cr_assert(strncmp(line, "  results/", 10) == 0 &&
                      strstr(line, "/invalidity enum \"correct\""),
                  "an error other than 'correct': %s", report);
    cli_result_free(&e);
    cli_result_free(&r);
    free(t4);
    free(db);
    free(copy);
}

/* ------------------------------------------------------------ worker output */

/* The example with its kernel edited by `edit` (the text put in place of
 * `at`), measured exhaustively over four configurations with `mode`'s
 * options: what a kernel prints and what a compiler says go to the
 * worker's output, never into the protocol, whichever worker measures or
 * builds it (--compile-jobs 0: the measuring worker builds; --no-cache:
 * the compile workers' builds are not shared; by default the compile
 * worker builds it first). */
static char *measure_edited_example(const char *name, const char *at, const char *edit,
                                    const char *const *mode)
{
    copy_example("vector_add.json", NULL, NULL);
    copy_example("vector_add.cl", at, edit);
    char *copy = in_scratch("vector_add.json");
    char *db = in_scratch(name);
    char *cache = in_scratch("cache");
    cli_remove_tree(cache); /* every mode builds afresh */
    const char *args[MAX_ARGS + 1] = {"run", "--t1", copy, "--db", db, "--runs", "2",
                                      "--set", "problem_size_0=256", "--strategy", "exhaustive",
                                      "--only", "wg_size=16,32", "--only", "per_item=1,2"};
    size_t n = 15;
    bool no_cache = false;
    for (size_t k = 0; mode[k]; k++) {
        no_cache = no_cache || strcmp(mode[k], "--no-cache") == 0;
        args[n++] = mode[k];
    }
    if (!no_cache) {
        args[n++] = "--cache-dir";
        args[n++] = cache;
    }
    args[n] = NULL;
    cli_result r = cli_run(args);
    cr_assert_eq(r.status, 0, "%s: %s\nstdout:\n%s\nstderr:\n%s", copy,
                 cli_status_text(r.status), r.out, r.err);
    free(cache);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 4, "%s%s", r.out, r.err);
    cli_result_free(&r);
    free(copy);
    return db;
}

static const char *const *const output_modes[] = {
    CLI_ARGS("--compile-jobs", "0"), CLI_ARGS("--no-cache"), CLI_ARGS("--compile-jobs", "1")};

Test(t1_plugin, a_kernel_that_prints_is_measured_in_every_mode)
{
    for (size_t m = 0; m < sizeof output_modes / sizeof output_modes[0]; m++) {
        char name[32];
        snprintf(name, sizeof name, "printing-%zu.db", m);
        char *db = measure_edited_example(
            name, "c[i] = a[i] + b[i];",
            "c[i] = a[i] + b[i];\n        if (i == 0) printf(\"the kernel says hello\\n\");",
            output_modes[m]);
        cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), 4,
                     "mode %zu: a correct kernel that prints is ok", m);
        free(db);
    }
}

Test(t1_plugin, a_compile_error_is_a_compile_failure_in_every_mode)
{
    for (size_t m = 0; m < sizeof output_modes / sizeof output_modes[0]; m++) {
        char name[32];
        snprintf(name, sizeof name, "broken-%zu.db", m);
        char *db = measure_edited_example(name, "__kernel __attribute__",
                                          "#if per_item == 2\nthis is not OpenCL C;\n#endif\n"
                                          "__kernel __attribute__",
                                          output_modes[m]);
        assert_status(db, "wg_size=16,per_item=1", "ok", "compiles");
        assert_status(db, "wg_size=32,per_item=1", "ok", "compiles");
        assert_status(db, "wg_size=16,per_item=2", "compile", "a syntax error");
        assert_status(db, "wg_size=32,per_item=2", "compile", "a syntax error");
        /* The compiler's message names the kernel file and its line (a
         * #line directive before the source), not the driver's copy. */
        char *message = cli_db_text(db, "SELECT m.message FROM measurements m JOIN configurations "
                                        "c ON c.id = m.configuration_id WHERE c.text = "
                                        "'wg_size=16,per_item=2'");
        char where[1200];
        snprintf(where, sizeof where, "%s/vector_add.cl:13:", scratch);
        cr_assert(strstr(message, where) && !strstr(message, "tempfile"),
                  "mode %zu: the message names no %s: %s", m, where, message);
        free(message);
        free(db);
    }
}

/* ------------------------------------------------------------ validation methods */

/* out = 2 * in, except: variant 2 adds 1 to every seventh element, variant
 * 3 adds 0.001 to every element. */
static const char scaled_kernel[] =
    "__kernel void scaled(__global const float *in, __global float *out, const int n)\n"
    "{\n"
    "    const int i = get_global_id(0);\n"
    "    if (i >= n) return;\n"
    "    float v = 2.0f * in[i];\n"
    "#if variant == 2\n"
    "    if (i % 7 == 0) v += 1.0f;\n"
    "#elif variant == 3\n"
    "    v += 0.001f;\n"
    "#endif\n"
    "    out[i] = v;\n"
    "}\n";

/* A T1 file for the kernel: `input` fills `in`, `reference` (may be "")
 * is the ReferenceArguments list. */
static char *write_scaled(const char *name, const char *input, const char *reference)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"General\": {\"BenchmarkName\": \"scaled\"},\n"
             " \"ConfigurationSpace\": {\"TuningParameters\": [\n"
             "   {\"Name\": \"variant\", \"Type\": \"int\", \"Values\": \"[0, 1, 2, 3]\", "
             "\"Default\": 0}]},\n"
             " \"KernelSpecification\": {\"Language\": \"OpenCL\", \"KernelName\": \"scaled\",\n"
             "   \"KernelFile\": \"scaled.cl\", \"LocalSize\": {\"X\": \"16\"},\n"
             "   \"GridDivX\": [\"16\"], \"ProblemSize\": [1024],\n"
             "   \"Arguments\": [\n"
             "     {\"Name\": \"in\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
             "\"AccessType\": \"ReadOnly\", \"Size\": \"ProblemSize[0]\", %s},\n"
             "     {\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
             "\"AccessType\": \"WriteOnly\", \"Size\": \"ProblemSize[0]\"},\n"
             "     {\"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\", "
             "\"FillValue\": \"ProblemSize[0]\"}]%s%s}}\n",
             input, reference[0] ? ",\n   \"ReferenceArguments\": " : "", reference);
    write_text(name, text);
    return in_scratch(name);
}

/* Run the four variants; `wrong` lists which fail ('1') and which pass. */
static void judge(const char *t1_name, const char *input, const char *reference,
                  const char *wrong, const char *says)
{
    write_text("scaled.cl", scaled_kernel);
    char *t1 = write_scaled(t1_name, input, reference);
    char db_name[64];
    snprintf(db_name, sizeof db_name, "%s.db", t1_name);
    char *db = in_scratch(db_name);
    cli_result r = run_t1(0, t1, db, CLI_ARGS("--strategy", "exhaustive"));
    cr_assert(strstr(r.out, says), "the campaign does not say '%s':\n%s", says, r.out);
    for (int v = 0; v < 4; v++) {
        char config[32];
        snprintf(config, sizeof config, "variant=%d", v);
        assert_status(db, config, wrong[v] == '1' ? "wrong_result" : "ok", t1_name);
    }
    cli_result_free(&r);
    free(db);
    free(t1);
}

#define CONSTANT_INPUT "\"FillType\": \"Constant\", \"FillValue\": 1.5"
#define REFERENCE(method, threshold)                                                              \
    "[{\"Name\": \"expected\", \"TargetName\": \"out\", \"FillType\": \"Constant\", "             \
    "\"FillValue\": 3.0, \"ValidationMethod\": \"" method "\", \"ValidationThreshold\": "         \
    threshold "}]"

Test(t1_plugin, side_by_side_comparison_catches_a_wrong_kernel)
{
    /* 0.001 off is within 0.01 of 3; 1 off is not. */
    judge("side.json", CONSTANT_INPUT, REFERENCE("SideBySideComparison", "0.01"), "0010",
          "ReferenceArguments: out by SideBySideComparison, threshold 0.01");
}

Test(t1_plugin, side_by_side_relative_comparison_catches_a_wrong_kernel)
{
    /* 0.001 / 3 is past a relative 1e-4. */
    judge("relative.json", CONSTANT_INPUT, REFERENCE("SideBySideRelativeComparison", "1e-4"),
          "0011", "out by SideBySideRelativeComparison, threshold 0.0001");
}

Test(t1_plugin, absolute_difference_catches_a_wrong_kernel)
{
    /* 1024 elements 0.001 off add up to more than 0.5. */
    judge("absolute.json", CONSTANT_INPUT, REFERENCE("AbsoluteDifference", "0.5"), "0011",
          "out by AbsoluteDifference, threshold 0.5");
}

Test(t1_plugin, the_default_configuration_is_the_reference_without_reference_arguments)
{
    judge("default.json", "\"FillType\": \"Random\", \"FillValue\": 1.0", "", "0011",
          "the outputs of the Default configuration (variant=0), run first");
}

/* ------------------------------------------------------------ a shared reference */

/* How often `needle` occurs in `text`. */
static size_t occurrences(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle)) n++;
    return n;
}

/* A campaign with spare measuring workers (and no compile workers, which a
 * CPU device pauses): the reference is computed once, by the first worker,
 * and the spares compare with their copy of what reference_data names, the
 * outputs read back by read_back; `wrong` says which of `configs` fail. */
static void judge_with_spares(const char *t1, const char *db_name, const char *const *more,
                              const char *const *configs, const char *wrong)
{
    char *db = in_scratch(db_name);
    char trace_name[80];
    snprintf(trace_name, sizeof trace_name, "%s.trace.json", db_name);
    char *trace = in_scratch(trace_name);
    const char *args[MAX_ARGS + 1];
    size_t n = 0;
    for (size_t k = 0; more && more[k]; k++) args[n++] = more[k];
    const char *const spares[] = {"--measure-ahead", "2", "--compile-jobs", "0", "--trace", trace};
    for (size_t k = 0; k < 6; k++) args[n++] = spares[k];
    args[n] = NULL;
    cli_result r = run_t1(0, t1, db, args);
    for (size_t k = 0; configs[k]; k++)
        assert_status(db, configs[k], wrong[k] == '1' ? "wrong_result" : "ok", t1);
    size_t len = 0;
    char *events = (char *)cli_read_file(trace, &len);
    cr_assert(events, "no trace at %s", trace);
    cr_expect_eq(occurrences(events, "\"CPU reference\""), 1,
                 "the reference was computed more than once:\n%s", r.out);
    cr_expect_geq(occurrences(events, "\"CPU reference, shared\""), 1,
                  "no worker copied the shared reference:\n%s", r.out);
    free(events);
    cli_result_free(&r);
    free(trace);
    free(db);
}

/* The Default configuration's outputs, computed on the device by the first
 * worker, are what the others compare with. */
Test(t1_plugin, the_default_configurations_outputs_are_shared_between_workers)
{
    copy_example("vector_add.json", NULL, NULL);
    copy_example("vector_add.cl", "c[i] = a[i] + b[i];",
                 "c[i] = per_item == 4 ? a[i] - b[i] : a[i] + b[i];");
    char *copy = in_scratch("vector_add.json");
    const char *const configs[] = {"wg_size=32,per_item=1", "wg_size=64,per_item=1",
                                   "wg_size=32,per_item=4", "wg_size=64,per_item=4", NULL};
    judge_with_spares(copy, "shared_default.db",
                      CLI_ARGS("--set", "problem_size_0=3000", "--strategy", "exhaustive",
                               "--only", "wg_size=32,64", "--only", "per_item=1,4"),
                      configs, "0011");
    free(copy);
}

/* A ReferenceArgument's data is shared the same way. */
Test(t1_plugin, reference_arguments_are_shared_between_workers)
{
    write_text("scaled.cl", scaled_kernel);
    char *t1 = write_scaled("shared_side.json", CONSTANT_INPUT,
                            REFERENCE("SideBySideComparison", "0.01"));
    const char *const configs[] = {"variant=0", "variant=1", "variant=2", "variant=3", NULL};
    judge_with_spares(t1, "shared_side.db", CLI_ARGS("--strategy", "exhaustive"), configs,
                      "0010");
    free(t1);
}

/* ------------------------------------------------------------ arguments */

/* One work-item copies what reached it into `out`; the rest fill their
 * share of `scratch`, which the first then sums. */
static const char collect_kernel[] =
    "__kernel void collect(__global const float *a, __global const int *b,\n"
    "                      __global const uchar *c, __global const half *h, const float s,\n"
    "                      const int n, const float4 v, __local float *scratch,\n"
    "                      __global float *out, const ulong big)\n"
    "{\n"
    "    scratch[get_local_id(0)] = 1.0f;\n"
    "    scratch[wg + get_local_id(0)] = 2.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (get_global_id(0) != 0) return;\n"
    "    float seen = 0.0f;\n"
    "    for (int k = 0; k < 2 * wg; k++) seen += scratch[k];\n"
    "    for (int k = 0; k < 4; k++) out[k] = a[k];\n"
    "    out[4] = b[0]; out[5] = b[1];\n"
    "    out[6] = c[0]; out[7] = c[1];\n"
    "    out[8] = vload_half(0, h);\n"
    "    out[9] = s;\n"
    "    out[10] = n;\n"
    "    out[11] = v.x; out[12] = v.y; out[13] = v.z; out[14] = v.w;\n"
    "    out[15] = seen / (3 * wg);\n"
    "    out[16] = (float)(big - 4294967296ul);\n"
    "}\n";

#define COLLECTED 17

static const char collect_t1[] =
    "{\"General\": {\"BenchmarkName\": \"collect\"},\n"
    " \"ConfigurationSpace\": {\"TuningParameters\": [\n"
    "   {\"Name\": \"wg\", \"Type\": \"int\", \"Values\": \"[1, 2, 4]\", \"Default\": 1}]},\n"
    " \"KernelSpecification\": {\"Language\": \"OpenCL\", \"KernelName\": \"collect\",\n"
    "   \"KernelFile\": \"collect.cl\", \"LocalSize\": {\"X\": \"wg\"},\n"
    "   \"GlobalSize\": {\"X\": \"wg\"}, \"ProblemSize\": [10],\n"
    "   \"Arguments\": [\n"
    "     {\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "
    "\"ReadOnly\", \"Size\": 4, \"FillType\": \"Random\", \"FillValue\": 2.0, \"RandomSeed\": 7},\n"
    "     {\"Name\": \"b\", \"Type\": \"int32\", \"MemoryType\": \"Vector\", \"AccessType\": "
    "\"ReadOnly\", \"Size\": \"ProblemSize[0] - 8\", \"FillType\": \"Constant\", \"FillValue\": -5},\n"
    "     {\"Name\": \"c\", \"Type\": \"uint8\", \"MemoryType\": \"Vector\", \"AccessType\": "
    "\"ReadOnly\", \"Size\": 2, \"FillType\": \"BinaryRaw\", \"DataSource\": \"c.bin\"},\n"
    "     {\"Name\": \"h\", \"Type\": \"half\", \"MemoryType\": \"Vector\", \"AccessType\": "
    "\"ReadOnly\", \"Size\": 1, \"FillType\": \"Constant\", \"FillValue\": 0.75},\n"
    "     {\"Name\": \"s\", \"Type\": \"float\", \"MemoryType\": \"Scalar\", \"FillValue\": 1.25},\n"
    "     {\"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\", "
    "\"FillValue\": \"ProblemSize[0] * 2\"},\n"
    "     {\"Name\": \"v\", \"Type\": \"float4\", \"MemoryType\": \"Scalar\", \"FillValue\": 0.5},\n"
    "     {\"Name\": \"scratch\", \"Type\": \"float\", \"MemoryType\": \"Local\", "
    "\"Size\": \"wg * 2\"},\n"
    "     {\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "
    "\"WriteOnly\", \"Size\": 17},\n"
    "     {\"Name\": \"big\", \"Type\": \"uint64\", \"MemoryType\": \"Scalar\", "
    "\"FillValue\": 4294967299}],\n"
    "   \"ReferenceArguments\": [{\"Name\": \"expected\", \"TargetName\": \"out\", "
    "\"FillType\": \"BinaryRaw\", \"DataSource\": \"%s\", \"ValidationMethod\": "
    "\"SideBySideComparison\", \"ValidationThreshold\": 0}]}}\n";

/* What the kernel must see, computed here: the PCG stream of RandomSeed 7
 * scaled by FillValue, the constants, the file's bytes, the scalars. */
static void expected_collection(float *out)
{
    pcg32 rng;
    pcg32_seed(&rng, 7, 0);
    for (int k = 0; k < 4; k++) out[k] = (float)(2.0 * pcg32_double(&rng));
    out[4] = out[5] = -5.0f;
    out[6] = 200.0f;
    out[7] = 17.0f;
    out[8] = 0.75f;
    out[9] = 1.25f;
    out[10] = 20.0f;
    out[11] = out[12] = out[13] = out[14] = 0.5f;
    out[15] = 1.0f;
    out[16] = 3.0f;
}

Test(t1_plugin, arguments_of_every_memory_and_fill_type_reach_the_kernel)
{
    write_text("collect.cl", collect_kernel);
    const unsigned char c_bytes[] = {200, 17, 99};
    char *c_path = in_scratch("c.bin");
    cli_write_file(c_path, c_bytes, sizeof c_bytes);
    free(c_path);
    float expected[COLLECTED];
    expected_collection(expected);
    char *right = in_scratch("expected.bin");
    cli_write_file(right, expected, sizeof expected);
    expected[7] = 18.0f; /* what a kernel that misread c would show */
    char *wrong = in_scratch("wrong.bin");
    cli_write_file(wrong, expected, sizeof expected);

    char text[8192];
    snprintf(text, sizeof text, collect_t1, "expected.bin");
    write_text("collect.json", text);
    char *t1 = in_scratch("collect.json");
    char *db = in_scratch("collect.db");
    cli_result r = run_t1(0, t1, db, CLI_ARGS("--strategy", "exhaustive"));
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), 3,
                 "every argument as the file says, for every work-group size:\n%s",
                 cli_db_text(db, "SELECT group_concat(message, char(10)) FROM measurements"));
    cli_result_free(&r);

    /* The same with one expected value off: the check is not vacuous. */
    snprintf(text, sizeof text, collect_t1, "wrong.bin");
    write_text("collect.json", text);
    char *db2 = in_scratch("collect-wrong.db");
    r = run_t1(0, t1, db2, CLI_ARGS("--strategy", "exhaustive"));
    cr_assert_eq(cli_db_int(db2, "SELECT COUNT(*) FROM measurements WHERE status = "
                                 "'wrong_result'"),
                 3);
    char *message = cli_db_text(db2, "SELECT message FROM measurements LIMIT 1");
    cr_assert(strstr(message, "first at index 7"), "%s", message);
    free(message);
    cli_result_free(&r);
    free(db2);
    free(db);
    free(t1);
    free(wrong);
    free(right);
}

/* ------------------------------------------------------------ identity */

Test(t1_plugin, an_edited_file_is_a_new_build_and_the_same_one_continues)
{
    write_text("scaled.cl", scaled_kernel);
    char *t1 = write_scaled("same.json", CONSTANT_INPUT, REFERENCE("SideBySideComparison", "0.01"));
    char *db = in_scratch("same.db");
    cli_result r = run_t1(0, t1, db, CLI_ARGS("--strategy", "exhaustive", "--only", "variant=0,1"));
    cli_result_free(&r);
    r = run_t1(0, t1, db, CLI_ARGS("--strategy", "exhaustive", "--only", "variant=0,1"));
    cr_assert(strstr(r.out, "continuing campaign 1"), "%s", r.out);
    cli_result_free(&r);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM plugins"), 1);

    /* A looser threshold: a file that says something else, a new build. */
    free(write_scaled("same.json", CONSTANT_INPUT, REFERENCE("SideBySideComparison", "0.02")));
    r = run_t1(0, t1, db, CLI_ARGS("--strategy", "exhaustive", "--only", "variant=0,1"));
    cr_assert(strstr(r.out, "starting campaign 2"), "%s", r.out);
    cr_assert(strstr(r.out, "(2 measured, 0 from the database)"), "%s", r.out);
    cli_result_free(&r);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(DISTINCT source_hash) FROM plugins"), 2);

    /* An edited kernel too. */
    char edited[sizeof scaled_kernel + 64];
    snprintf(edited, sizeof edited, "/* edited */\n%s", scaled_kernel);
    write_text("scaled.cl", edited);
    r = run_t1(0, t1, db, CLI_ARGS("--strategy", "exhaustive", "--only", "variant=0,1"));
    cr_assert(strstr(r.out, "starting campaign 3"), "%s", r.out);
    cli_result_free(&r);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(DISTINCT source_hash) FROM plugins"), 3);
    free(db);
    free(t1);
}

/* A header the kernel includes is part of the build: changing it starts a
 * new build (new measurements, a new cache key), and a failure the broken
 * header caused is never served once it is mended. */
Test(t1_plugin, an_included_header_is_part_of_the_build)
{
    char options[4200];
    snprintf(options, sizeof options, "\"CompilerOptions\": [\"-cl-mad-enable\", \"-I\", \"%s\"]",
             scratch);
    copy_example("vector_add.json", "\"CompilerOptions\": [\"-cl-mad-enable\"]", options);
    /* The #include on a line of its own inside the kernel: a directive may
     * stand anywhere a line starts. */
    copy_example("vector_add.cl", "c[i] = a[i] + b[i];",
                 "\n#include \"op.h\"\n            c[i] = OP(a[i], b[i]);");
    char *copy = in_scratch("vector_add.json");
    char *db = in_scratch("header.db");
    const char *const *args = CLI_ARGS("--set", "problem_size_0=256", "--strategy", "exhaustive",
                                       "--only", "wg_size=16,32", "--only", "per_item=1,2");

    write_text("op.h", "#define OP(x, y) ((x) + (y))\n");
    cli_result r = run_t1(0, copy, db, args);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), 4,
                 "%s", r.out);
    cli_result_free(&r);

    write_text("op.h", "#if per_item == 2\n#error the header is broken\n#endif\n"
                       "#define OP(x, y) ((x) + (y))\n");
    r = run_t1(0, copy, db, args);
    cr_assert(strstr(r.out, "starting campaign 2"), "a broken header is a new build:\n%s", r.out);
    cli_result_free(&r);
    assert_status(db, "wg_size=16,per_item=1", "ok", "campaign 2 builds");
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE campaign_id = 2 AND "
                                "status = 'compile'"),
                 2, "the header's #error fails per_item=2");

    write_text("op.h", "/* mended */\n#define OP(x, y) ((x) + (y))\n");
    r = run_t1(0, copy, db, args);
    cr_assert(strstr(r.out, "starting campaign 3"), "a mended header is a new build:\n%s", r.out);
    cli_result_free(&r);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE campaign_id = 3 AND "
                                "status = 'ok'"),
                 4, "no failure of the broken header is served from the cache");
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(DISTINCT source_hash) FROM plugins"), 3);
    free(db);
    free(copy);
}

/* ------------------------------------------------------------ refusals */

Test(t1_plugin, a_bad_file_is_refused_and_leaves_no_database)
{
    write_text("scaled.cl", scaled_kernel);
    char *t1 = write_scaled("cuda.json", CONSTANT_INPUT, "");
    size_t len;
    char *text = (char *)cli_read_file(t1, &len);
    char *language = strstr(text, "\"OpenCL\"");
    cr_assert(language);
    memcpy(language, "\"CUDA\"  ", 8);
    write_text("cuda.json", text);
    free(text);
    char *db = in_scratch("refused.db");
    cli_result r = run_t1(1, t1, db, NULL);
    cr_assert(strstr(r.err, t1) && strstr(r.err, "KernelSpecification.Language is \"CUDA\"") &&
                  strstr(r.err, "only OpenCL kernels run here"),
              "%s", r.err);
    cr_assert(!cli_file_exists(db), "a refused run left %s", db);
    cli_result_free(&r);

    const char *both[] = {"run", "--t1", t1, "--plugin", "vector_add", "--db", db, NULL};
    r = cli_run(both);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "give --t1 or --plugin, not both"), "%s", r.err);
    cli_result_free(&r);
    free(db);
    free(t1);
}
