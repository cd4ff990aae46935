/* T1 files read without a device: the benchmark hub's spaces load with the
 * numbers of valid configurations Python counts, and malformed
 * KernelSpecifications are refused naming the file, the key and what is
 * valid (through plugin_load, the way every process loads a plugin):
 * unknown and misplaced keys, verification that cannot hold, Defines that
 * would break the kernel; and Kernel Tuner's forms load.
 *
 * The hub fixtures (tests/fixtures/t1/, README.md there) are the
 * ConfigurationSpace parts of the hub's files; their counts were computed by
 * python3 enumerating every combination with eval() of the Values and the
 * Conditions. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "plugin_loader.h"
#include "space.h"
#include "t1.h"
#include "t1_kernel.h"

#include <jansson.h>

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

TestSuite(t1_kernel, .init = make_scratch, .fini = remove_scratch);

/* ------------------------------------------------------------ the hub's spaces */

static space *load_fixture(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/t1/%s.space.json", cli_source_dir(), name);
    space *sp = NULL;
    skytune_error err = {0};
    cr_assert_eq(t1_load_space(path, 0, NULL, &sp, &err), 0, "%s", err.message);
    return sp;
}

static const param_def *param_named(const space *sp, const char *name)
{
    for (size_t k = 0; k < space_param_count(sp); k++)
        if (strcmp(space_param(sp, k)->name, name) == 0) return space_param(sp, k);
    cr_assert_fail("no parameter %s", name);
    return NULL;
}

Test(t1_kernel, pnpoly_space_with_comprehensions)
{
    space *sp = load_fixture("pnpoly");
    cr_assert_eq(space_count(sp), 4092);
    const param_def *block = param_named(sp, "block_size_x");
    cr_assert_eq(block->count, 31);
    cr_assert_eq(block->values[0].i, 32);
    cr_assert_eq(block->values[30].i, 992);
    const param_def *tile = param_named(sp, "tile_size");
    cr_assert_eq(tile->count, 11, "[1] + [2 * i for i in range(1, 11)]");
    cr_assert_eq(tile->values[0].i, 1);
    cr_assert_eq(tile->values[1].i, 2);
    cr_assert_eq(tile->values[10].i, 20);
    space_free(sp);
}

Test(t1_kernel, dedispersion_space)
{
    space *sp = load_fixture("dedispersion_milo");
    cr_assert_eq(space_count(sp), 11130);
    space_free(sp);
}

Test(t1_kernel, hotspot_and_gemm_spaces)
{
    space *sp = load_fixture("hotspot_milo");
    cr_assert_eq(space_count(sp), 82984);
    cr_assert_eq(param_named(sp, "block_size_x")->count, 37,
                 "[1, 2, 4, 8, 16] + list(range(32, 1024+1, 32))");
    space_free(sp);
    sp = load_fixture("gemm_milo");
    cr_assert_eq(space_count(sp), 116928);
    space_free(sp);
}

Test(t1_kernel, a_parameter_repeated_word_for_word_is_read_once)
{
    space *sp = load_fixture("metatuning_pso");
    cr_assert_eq(space_param_count(sp), 4);
    cr_assert_eq(space_count(sp), 81);
    space_free(sp);
}

/* ------------------------------------------------------------ refusals */

/* A kernel and a T1 file around one KernelSpecification (its inside, from
 * "Language" on) and one list of tuning parameters. */
static char *write_t1_with(const char *tuning, const char *kernel_spec)
{
    char *kernel = cli_path(scratch, "k.cl");
    const char *source = "__kernel void k(__global const float *a, __global float *out) "
                         "{ out[get_global_id(0)] = a[get_global_id(0)]; }\n";
    cli_write_file(kernel, source, strlen(source));
    free(kernel);
    char *path = cli_path(scratch, "k.json");
    char text[8192];
    int n = snprintf(text, sizeof text,
                     "{\"General\": {\"BenchmarkName\": \"k\"},\n"
                     " \"ConfigurationSpace\": {\"TuningParameters\": [%s],\n"
                     "  \"Conditions\": []},\n"
                     " \"KernelSpecification\": {%s}}\n",
                     tuning, kernel_spec);
    cr_assert(n > 0 && (size_t)n < sizeof text);
    cli_write_file(path, text, (size_t)n);
    return path;
}

#define WG "{\"Name\": \"wg\", \"Type\": \"int\", \"Values\": \"[16, 32]\", \"Default\": 16}"

static char *write_t1(const char *kernel_spec)
{
    return write_t1_with(WG, kernel_spec);
}

#define GOOD_ARGUMENTS                                                                            \
    "\"Arguments\": ["                                                                            \
    "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "        \
    "\"ReadOnly\", \"Size\": \"ProblemSize[0]\", \"FillType\": \"Random\"},"                     \
    "{\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "      \
    "\"WriteOnly\", \"Size\": \"ProblemSize[0]\"}]"

#define GOOD_GEOMETRY                                                                             \
    "\"LocalSize\": {\"X\": \"wg\"}, \"GlobalSize\": {\"X\": \"ProblemSize[0]\"}, "              \
    "\"ProblemSize\": [256]"

#define GOOD_KERNEL "\"Language\": \"OpenCL\", \"KernelName\": \"k\", \"KernelFile\": \"k.cl\""

/* Loading fails with every one of `parts` in the message, which starts
 * with the file's path. */
static void refused_with(const char *tuning, const char *kernel_spec, const char *const *parts)
{
    char *path = write_t1_with(tuning, kernel_spec);
    loaded_plugin p;
    skytune_error err = {0};
    plugin_search none = {0};
    cr_assert_neq(plugin_load(path, &none, &p, &err), 0, "accepted: %s", kernel_spec);
    cr_assert(strncmp(err.message, path, strlen(path)) == 0, "the message names no file: %s",
              err.message);
    for (size_t k = 0; parts[k]; k++)
        cr_assert(strstr(err.message, parts[k]), "'%s' is not in: %s", parts[k], err.message);
    free(path);
}

static void refused(const char *kernel_spec, const char *const *parts)
{
    refused_with(WG, kernel_spec, parts);
}

Test(t1_kernel, a_well_formed_file_loads)
{
    char *path = write_t1(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS);
    loaded_plugin p;
    skytune_error err = {0};
    plugin_search none = {0};
    cr_assert_eq(plugin_load(path, &none, &p, &err), 0, "%s", err.message);
    cr_assert_str_eq(p.desc->name, "k");
    cr_assert(strncmp(p.desc->version, "t1.", 3) == 0, "%s", p.desc->version);
    cr_assert_str_eq(p.desc->problem_params[0].name, "problem_size_0");
    cr_assert_str_eq(p.desc->problem_params[0].default_value, "256");
    cr_assert_str_eq(p.desc->tuning_params[0].list, "16,32");
    cr_assert(strstr(p.checked_against, "Default configuration (wg=16)"), "%s",
              p.checked_against);
    char first[17];
    memcpy(first, p.source_hash, sizeof first);
    plugin_unload(&p);

    /* "t1:" names the same file whatever its name; editing it is a new build. */
    char named[1100];
    snprintf(named, sizeof named, "t1:%s", path);
    cr_assert_eq(plugin_load(named, &none, &p, &err), 0, "%s", err.message);
    cr_assert_str_eq(p.source_hash, first);
    plugin_unload(&p);
    free(write_t1(GOOD_KERNEL ", \"CompilerOptions\": [\"-cl-fast-relaxed-math\"], "
                  GOOD_GEOMETRY ", " GOOD_ARGUMENTS));
    cr_assert_eq(plugin_load(named, &none, &p, &err), 0, "%s", err.message);
    cr_assert_str_neq(p.source_hash, first, "an edited file must be a new plugin build");
    plugin_unload(&p);
    free(path);
}

Test(t1_kernel, a_missing_kernel_file)
{
    refused("\"Language\": \"OpenCL\", \"KernelName\": \"k\", \"KernelFile\": \"gone.cl\", "
            GOOD_GEOMETRY ", " GOOD_ARGUMENTS,
            CLI_ARGS("KernelSpecification.KernelFile \"gone.cl\"", "gone.cl",
                     "No such file or directory", "relative to the T1 file's folder"));
}

/* Only regular files of a bounded size are read: /dev/zero as a kernel
 * once read until memory ran out, and a FIFO as data hung the engine. */
Test(t1_kernel, special_and_huge_files_are_refused)
{
    refused("\"Language\": \"OpenCL\", \"KernelName\": \"k\", \"KernelFile\": \"/dev/zero\", "
            GOOD_GEOMETRY ", " GOOD_ARGUMENTS,
            CLI_ARGS("KernelSpecification.KernelFile \"/dev/zero\"", "not a regular file"));

    char *fifo = cli_path(scratch, "data.fifo");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    free(fifo);
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "
            "\"ReadOnly\", \"Size\": \"ProblemSize[0]\", \"FillType\": \"BinaryRaw\", "
            "\"DataSource\": \"data.fifo\"},"
            "{\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "
            "\"WriteOnly\", \"Size\": \"ProblemSize[0]\"}]",
            CLI_ARGS("DataSource \"data.fifo\"", "not a regular file"));

    /* A kernel one byte over the limit, as a sparse file. */
    char *big = cli_path(scratch, "big.cl");
    int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)T1_MAX_KERNEL_BYTES + 1), 0);
    close(fd);
    free(big);
    refused("\"Language\": \"OpenCL\", \"KernelName\": \"k\", \"KernelFile\": \"big.cl\", "
            GOOD_GEOMETRY ", " GOOD_ARGUMENTS,
            CLI_ARGS("KernelSpecification.KernelFile \"big.cl\"", "more than the 16 MiB"));
}

Test(t1_kernel, an_unknown_argument_type)
{
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 4},"
            "{\"Name\": \"b\", \"Type\": \"floot\", \"MemoryType\": \"Vector\", \"Size\": 4}]",
            CLI_ARGS("KernelSpecification.Arguments[1] 'b'", "unknown Type \"floot\"",
                     "valid types are int8, uint8", "float", "double16"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"flags\", \"Type\": \"bool\", \"MemoryType\": \"Vector\", \"Size\": 4}]",
            CLI_ARGS("Arguments[0] 'flags'", "Type \"bool\"", "use int8 or uint8"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Symbol\", \"Size\": 4}]",
            CLI_ARGS("Arguments[0] 'a'", "MemoryType \"Symbol\"", "a Vector"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 4, "
            "\"FillType\": \"Script\"}]",
            CLI_ARGS("Arguments[0] 'a'", "FillType \"Script\"", "valid are Constant", "Random",
                     "BinaryRaw"));
}

Test(t1_kernel, a_size_expression_with_an_unknown_name)
{
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
            "\"Size\": \"ProblemSize[0] * nn\"}]",
            CLI_ARGS("KernelSpecification.Arguments[0] 'a' Size", "unknown name 'nn'",
                     "the names are the tuning parameters (wg)", "ProblemSize[0]",
                     "max(P) and min(P)"));
    refused(GOOD_KERNEL ", \"LocalSize\": {\"X\": \"wg * tile\"}, "
            "\"GlobalSize\": {\"X\": \"256\"}, " GOOD_ARGUMENTS,
            CLI_ARGS("KernelSpecification.LocalSize.X \"wg * tile\"", "unknown name 'tile'"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
            "\"Size\": \"ProblemSize[1]\"}]",
            CLI_ARGS("Arguments[0] 'a' Size", "ProblemSize[1]", "has 1 entry"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
            "\"Size\": \"max(size)\"}]",
            CLI_ARGS("Arguments[0] 'a' Size", "max() takes the name of a numeric tuning "
                     "parameter", "the tuning parameters are wg"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
            "\"AccessType\": \"ReadOnly\", \"Size\": \"wg * 4\"}]",
            CLI_ARGS("Arguments[0] 'a' Size \"wg * 4\"", "an input Vector's Size",
                     "not a tuning parameter's value", "max(P)"));
    /* An output's may, but then its elements have no one reference. */
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
            "\"Size\": \"wg * 4\"}]",
            CLI_ARGS("output 'a': its Size \"wg * 4\" reads 'wg'",
                     "name 'wg' in Verification.OutputParameters", "Verification.Checks"));
}

Test(t1_kernel, a_reference_argument_naming_no_argument)
{
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"ReferenceArguments\": ["
            "{\"Name\": \"expected\", \"TargetName\": \"ghost\", \"FillType\": \"Constant\", "
            "\"FillValue\": 1.0}]",
            CLI_ARGS("KernelSpecification.ReferenceArguments[0] 'expected'",
                     "TargetName 'ghost' names no Vector argument",
                     "the Vector arguments are 'a', 'out'"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"ReferenceArguments\": ["
            "{\"Name\": \"expected\", \"TargetName\": \"out\", \"FillType\": \"Constant\", "
            "\"ValidationMethod\": \"Eyeballing\"}]",
            CLI_ARGS("ReferenceArguments[0] 'expected'", "ValidationMethod \"Eyeballing\"",
                     "AbsoluteDifference, SideBySideComparison and SideBySideRelativeComparison"));
}

Test(t1_kernel, cuda_and_vulkan_kernels)
{
    refused("\"Language\": \"CUDA\", \"KernelName\": \"k\", \"KernelFile\": \"k.cl\", "
            GOOD_GEOMETRY ", " GOOD_ARGUMENTS,
            CLI_ARGS("KernelSpecification.Language is \"CUDA\"", "only OpenCL kernels run here"));
    refused("\"Language\": \"Vulkan\", \"KernelName\": \"k\", \"KernelFile\": \"k.cl\", "
            GOOD_GEOMETRY ", " GOOD_ARGUMENTS,
            CLI_ARGS("KernelSpecification.Language is \"Vulkan\"", "only OpenCL kernels run here"));
}

Test(t1_kernel, what_else_the_plugin_cannot_do)
{
    /* No reference: the Default configuration is the reference, and must be there. */
    refused_with("{\"Name\": \"wg\", \"Type\": \"int\", \"Values\": \"[16, 32]\"}",
                 GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS,
                 CLI_ARGS("tuning parameter 'wg' has no Default among its values (16, 32)",
                          "or give ReferenceArguments, a Verification.ReferenceKernel, or "
                          "Verification.Method \"None\""));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"Arguments\": ["
            "{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "
            "\"ReadOnly\", \"Size\": 4}]",
            CLI_ARGS("nothing to verify", "WriteOnly or ReadWrite"));
    refused(GOOD_KERNEL ", \"LocalSize\": {\"X\": \"wg\"}, \"GridDivY\": [\"wg\"], "
            "\"GlobalSize\": {\"X\": \"256\"}, \"ProblemSize\": [256], " GOOD_ARGUMENTS,
            CLI_ARGS("KernelSpecification.GridDivY divides ProblemSize[1]", "has 1 entry"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", \"SharedMemory\": 1024, " GOOD_ARGUMENTS,
            CLI_ARGS("SharedMemory", "Local argument"));
}

/* A float where an int is asked for is taken when it is a whole number an
 * int64 holds, and refused naming the value otherwise; one beyond int64's
 * range is refused too, never converted (undefined behaviour, which the
 * sanitizer build traps). */
Test(t1_kernel, a_float_beyond_int64_is_refused_as_an_int)
{
    const char *specs[] = {
        "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": [4.0, 1e300]}",
        "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": [-9.3e18]}",
        "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": \"[2.5]\"}",
    };
    const char *shown[] = {"value 2 (1e+300) is not a int", "value 1 (-9.3e+18) is not a int",
                           "value 1 (2.5) is not a int"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        json_error_t jerr;
        json_t *spec = json_loads(specs[k], 0, &jerr);
        cr_assert_not_null(spec, "%s", jerr.text);
        param_def p;
        skytune_error err = {0};
        cr_assert_eq(t1_read_parameter("f.json", 1, spec, &p, &err), -1, "%s accepted", specs[k]);
        cr_assert(strstr(err.message, shown[k]), "%s: %s", specs[k], err.message);
        json_decref(spec);
    }
    json_t *whole = json_loads("{\"Name\": \"a\", \"Type\": \"int\", \"Values\": [4.0, -8e15]}", 0,
                               NULL);
    param_def p;
    skytune_error err = {0};
    cr_assert_eq(t1_read_parameter("f.json", 1, whole, &p, &err), 0, "%s", err.message);
    cr_assert_eq(p.count, 2);
    cr_assert_eq(p.values[1].i, -8000000000000000);
    param_free(&p);
    json_decref(whole);
}

/* ------------------------------------------------------------ keys and extensions */

/* Loading the file of JSON `text` (beside k.cl) fails with every one of
 * `parts` in the message. */
static void refused_text(const char *text, const char *const *parts)
{
    char *kernel = cli_path(scratch, "k.cl");
    const char *source = "__kernel void k(__global const float *a, __global float *out) "
                         "{ out[get_global_id(0)] = a[get_global_id(0)]; }\n";
    cli_write_file(kernel, source, strlen(source));
    free(kernel);
    char *path = cli_path(scratch, "k.json");
    cli_write_file(path, text, strlen(text));
    loaded_plugin p;
    skytune_error err = {0};
    plugin_search none = {0};
    cr_assert_neq(plugin_load(path, &none, &p, &err), 0, "accepted: %s", text);
    for (size_t k = 0; parts[k]; k++)
        cr_assert(strstr(err.message, parts[k]), "'%s' is not in: %s", parts[k], err.message);
    free(path);
}

#define SPACE "\"ConfigurationSpace\": {\"TuningParameters\": [" WG "]}"
#define KERNEL_SPEC "\"KernelSpecification\": {" GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS

Test(t1_kernel, unknown_and_misplaced_keys_are_refused_naming_where_they_belong)
{
    refused_text("{" SPACE ", " KERNEL_SPEC "}, \"ReferenceArguments\": []}",
                 CLI_ARGS("\"ReferenceArguments\" is not a key of the top level",
                          "it belongs in KernelSpecification"));
    refused_text("{" SPACE ", " KERNEL_SPEC ", \"GridDivx\": [\"wg\"]}}",
                 CLI_ARGS("unknown key \"GridDivx\" in KernelSpecification",
                          "the keys there are Language, KernelName", "GridDivX"));
    refused_text("{" SPACE ", " KERNEL_SPEC "}, \"Defines\": {\"N\": 4}}",
                 CLI_ARGS("\"Defines\" is not a key of the top level",
                          "it belongs in KernelSpecification"));
    refused_text("{\"ConfigurationSpace\": {\"TuningParameters\": [" WG "], \"Defaults\": 1}, "
                 KERNEL_SPEC "}}",
                 CLI_ARGS("unknown key \"Defaults\" in ConfigurationSpace",
                          "the keys there are TuningParameters, Conditions"));
    refused_text("{" SPACE ", \"KernelSpecification\": {" GOOD_KERNEL ", " GOOD_GEOMETRY ", "
                 "\"Arguments\": [{\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": "
                 "\"Vector\", \"Size\": 4, \"TargetName\": \"out\"}]}}",
                 CLI_ARGS("\"TargetName\" is not a key of KernelSpecification.Arguments[0]",
                          "it belongs in a KernelSpecification.ReferenceArguments item"));
    refused_text("{" SPACE ", " KERNEL_SPEC ", \"Verification\": {\"Method\": \"None\", "
                 "\"Checks\": [{\"Reduce\": \"sum\", \"Output\": \"out\", \"Against\": \"a\", "
                 "\"Tolerance\": 1}]}}}",
                 CLI_ARGS("unknown key \"Tolerance\" in KernelSpecification.Verification.Checks[0]",
                          "Reduce, Output, Against, ValidationThreshold"));
    refused_text("{" SPACE ", \"KernelSpecification\": {" GOOD_KERNEL ", "
                 "\"LocalSize\": {\"X\": \"wg\", \"W\": 2}, \"GlobalSize\": {\"X\": 256}, "
                 "\"ProblemSize\": [256], " GOOD_ARGUMENTS "}}",
                 CLI_ARGS("unknown key \"W\" in KernelSpecification.LocalSize",
                          "the keys there are X, Y, Z"));
}

Test(t1_kernel, verification_is_refused_where_it_cannot_hold)
{
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Verification\": "
            "{\"Method\": \"Sometimes\"}",
            CLI_ARGS("Verification.Method \"Sometimes\" is unknown",
                     "\"ReferenceArguments\", \"ReferenceKernel\", \"Default\" and \"None\""));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Verification\": "
            "{\"OutputParameters\": [\"wg\", \"tile\"]}",
            CLI_ARGS("OutputParameters[1] 'tile' is not a tuning parameter; they are wg"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"ReferenceArguments\": ["
            "{\"Name\": \"e\", \"TargetName\": \"out\", \"FillType\": \"Constant\"}], "
            "\"Verification\": {\"OutputParameters\": [\"wg\"]}",
            CLI_ARGS("OutputParameters need a reference computed for their values",
                     "not \"ReferenceArguments\""));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Verification\": "
            "{\"Method\": \"None\", \"Checks\": [{\"Reduce\": \"sum\", \"Output\": \"a\", "
            "\"Against\": \"out\"}]}",
            CLI_ARGS("Checks[0]: Output 'a' must name an output"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Verification\": "
            "{\"Method\": \"None\", \"Checks\": [{\"Reduce\": \"mean\", \"Output\": \"out\"}]}",
            CLI_ARGS("Checks[0]: Reduce must be \"sum\", \"min\" or \"max\""));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Verification\": "
            "{\"Method\": \"None\", \"Checks\": [{\"Reduce\": \"sum\", \"Output\": \"out\"}]}",
            CLI_ARGS("Checks[0] (sum(out) = sum(out)) compares with the reference's outputs",
                     "Method \"None\" computes none", "name an input in Against"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Verification\": "
            "{\"Method\": \"ReferenceKernel\"}",
            CLI_ARGS("Method \"ReferenceKernel\" needs Verification.ReferenceKernel"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Verification\": "
            "{\"ReferenceKernel\": {\"KernelName\": \"naive\"}}",
            CLI_ARGS("Verification.ReferenceKernel must be an object with KernelName",
                     "GlobalSize {X, Y, Z} (work-items)"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Verification\": "
            "{\"ReferenceKernel\": {\"KernelName\": \"k\", \"GlobalSize\": {\"X\": 4}}}",
            CLI_ARGS("ReferenceKernel.KernelName 'k' is the kernel being tuned"));
}

Test(t1_kernel, defines_are_refused_where_they_would_break_the_kernel)
{
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Defines\": {\"local\": 4}",
            CLI_ARGS("KernelSpecification.Defines.local", "a word of OpenCL C"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Defines\": {\"wg\": 4}",
            CLI_ARGS("KernelSpecification.Defines.wg", "'wg' is a tuning parameter"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Defines\": {\"N\": \"M * 2\"}",
            CLI_ARGS("KernelSpecification.Defines.N \"M * 2\"", "unknown name 'M'"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Defines\": [\"N\"]",
            CLI_ARGS("KernelSpecification.Defines must be an object of macro names and "
                     "expressions"));
    refused(GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS ", \"Flops\": \"2 * flops\"",
            CLI_ARGS("KernelSpecification.Flops \"2 * flops\"", "unknown name 'flops'"));
}

/* What Kernel Tuner's files write and skytune reads: a ProblemSize naming
 * a tuning parameter with GridDivX [] (work-groups = the parameter), the
 * Default left out where the reference needs none, a parameter named as a
 * word of OpenCL C, Defines read by sizes and Flops, an output sized by
 * the launch. */
Test(t1_kernel, kernel_tuner_forms_load)
{
    char *path = write_t1_with(
        "{\"Name\": \"num_blocks\", \"Type\": \"int\", \"Values\": \"[4, 8]\"}, "
        "{\"Name\": \"read_only\", \"Type\": \"int\", \"Values\": \"[0, 1]\"}",
        GOOD_KERNEL ", \"LocalSize\": {\"X\": 32}, \"ProblemSize\": [\"num_blocks\"], "
        "\"GridDivX\": [], \"Defines\": {\"N\": 1024, \"TWICE\": \"2 * N\"}, "
        "\"Flops\": \"TWICE\", \"Bytes\": \"4 * N + 4 * NumGroups[0]\", "
        "\"Arguments\": [{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
        "\"AccessType\": \"ReadOnly\", \"Size\": \"N\", \"FillType\": \"Random\"}, "
        "{\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "
        "\"WriteOnly\", \"Size\": \"NumGroups[0]\"}], "
        "\"Verification\": {\"Method\": \"None\", \"Checks\": [{\"Reduce\": \"sum\", "
        "\"Output\": \"out\", \"Against\": \"a\", \"ValidationThreshold\": 1e-3}]}");
    loaded_plugin p;
    skytune_error err = {0};
    plugin_search none = {0};
    cr_assert_eq(plugin_load(path, &none, &p, &err), 0, "%s", err.message);
    cr_assert_null(p.desc->problem_params[0].name, "ProblemSize [\"num_blocks\"] is no problem "
                   "parameter");
    cr_assert(strstr(p.checked_against, "checks: sum(out) = sum(a) within 0.001"), "%s",
              p.checked_against);
    cr_assert_str_eq(p.compared_with, "the value its Check expects (Verification.Checks)");
    cr_assert_not_null(p.desc->flops);
    plugin_unload(&p);
    free(path);
}

Test(t1_kernel, a_uint_parameter_takes_no_negative_value)
{
    refused_with("{\"Name\": \"wg\", \"Type\": \"uint\", \"Values\": \"[-16, 32]\", "
                 "\"Default\": 32}",
                 GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS,
                 CLI_ARGS("tuning parameter 'wg' of Type uint: value -16 is below 0"));
    char *path = write_t1_with("{\"Name\": \"wg\", \"Type\": \"uint\", \"Values\": \"[16, 32]\", "
                               "\"Default\": 32}",
                               GOOD_KERNEL ", " GOOD_GEOMETRY ", " GOOD_ARGUMENTS);
    loaded_plugin p;
    skytune_error err = {0};
    plugin_search none = {0};
    cr_assert_eq(plugin_load(path, &none, &p, &err), 0, "%s", err.message);
    plugin_unload(&p);
    free(path);
}
