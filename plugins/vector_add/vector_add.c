/*
 * vector_add — the smallest complete skytune plugin: c = a + b over n floats.
 *
 * It is also the template for new plugins, so it is commented line by line.
 * To start a plugin of your own, copy this folder (see README.md), rename the
 * files and the symbols, and replace the parts marked "YOUR KERNEL".
 *
 * What a plugin is, in one paragraph: a shared object exporting one function,
 * skytune_plugin_entry (defined by SKYTUNE_DEFINE_PLUGIN at the bottom), that
 * returns a static description. The description is mostly data — problem
 * parameters, presets, tuning parameters, constraint expressions — plus a few
 * callbacks the engine calls in this order for one problem instance:
 *
 *   check_problem (before the engine builds the search space)
 *   setup → reference (or another worker's reference copied into the arrays
 *   reference_data names) → for each configuration:
 *       [engine builds the program with -D NAME=value for every parameter]
 *       prepare → clear_outputs → enqueue (the verification run)
 *       → read_back → enqueue × runs → release → verify
 *   → teardown
 *
 * read_back and reference_data are optional: without read_back, verify
 * reads the outputs itself right after the verification run; without
 * reference_data, every worker computes the reference itself.
 *
 * Callbacks never print and never exit: they return 0, or a skytune_result
 * code with a message in the skytune_error they were given.
 */
#include <float.h>   /* FLT_EPSILON for the verification tolerance */
#include <stdint.h>
#include <stdlib.h>

#include <pcg32.h>           /* deterministic inputs from the engine's seed */
#include <skytune/plugin.h>  /* the whole plugin ABI */

/* Buffers and kernels declared as data, created and released for the
 * plugin (plugins/support; installed for plugins built out of tree). */
#include "plugin_support.h"

/* The kernel source, embedded from vector_add.cl by the build (tools/embed.py
 * writes it as the C string <plugin name>_cl_source). */
extern const char vector_add_cl_source[];

/* ------------------------------------------------------------ description data */

/* Problem parameters: what the kernel computes on, as opposed to how. Every
 * one reaches the kernel as -D NAME=value, and is a name in constraints. */
static const skytune_problem_param problem_params[] = {
    {"n", SKYTUNE_INT, "1048576", "number of elements in a, b and c"},
    {NULL, 0, NULL, NULL} /* arrays end with a NULL name */
};

/* Presets: named problem instances, overridden by --set. */
static const skytune_preset presets[] = {
    {"small", "n=65536", "64 Ki elements: quick, for tests and trying things out"},
    {"large", "n=16777216", "16 Mi elements (192 MiB in all): well past every cache"},
    {NULL, NULL, NULL}
};

/* Rules every problem instance must satisfy; the message names the parameter
 * and what would be valid, because users see it verbatim. */
static const skytune_problem_check problem_checks[] = {
    {"n >= 1", "n must be at least 1 (the number of elements to add)"},
    {NULL, NULL}
};

/* Tuning parameters: how the kernel computes. Each is also a -D macro in the
 * kernel source, so its name must be an identifier the kernel does not use
 * for anything else. */
static const skytune_tuning_param tuning_params[] = {
    /* POW2: every power of two in [from, to]: 16, 32, ..., 1024. */
    {"wg_size", SKYTUNE_POW2, NULL, 16, 1024, 0, "work-items per work-group"},
    /* LIST: exactly these values, in this order (the order defines which
     * values are "adjacent" for local-search strategies). */
    {"per_item", SKYTUNE_LIST, "1,2,4,8", 0, 0, 0, "elements added by each work-item"},
    {NULL, 0, NULL, 0, 0, 0, NULL}
};

/* Constraints: expressions over tuning parameters, problem parameters and
 * device.* limits. A configuration is in the space only if all hold.
 *
 * The kernel checks every element index against n, so any n works with any
 * tile size and no divisibility rule is needed (a divisibility rule such as
 * `n % (wg_size * per_item) == 0` would leave no valid configuration at all
 * for an odd n). What the second rule removes instead is waste: a tile bigger
 * than the whole problem only adds idle work-items. per_item == 1 is always
 * kept so that even n = 1 has a non-empty space. */
static const char *const constraints[] = {
    "wg_size <= device.max_work_group_size",
    "per_item == 1 or wg_size * per_item <= n",
    NULL
};

/* --------------------------------------------------------------- run state */

/* The device buffers, declared in setup and indexed by these names. */
enum { BUFFER_A, BUFFER_B, BUFFER_C, BUFFERS };

/* Everything setup creates for one problem instance. The engine holds it as
 * an opaque `void *state` and hands it back to the other callbacks. */
typedef struct vector_add_state {
    int64_t n;              /* element count, from the problem */
    float *a, *b;           /* host inputs, kept for the reference */
    float *expected;        /* reference result, from `reference` */
    float *result;          /* device result read back by `read_back` */
    support_buffer buffers[BUFFERS]; /* a and b uploaded once in setup; c written by every run */
} vector_add_state;

/* ---------------------------------------------------------------- callbacks */

static void vector_add_teardown(void *opaque);

/* Limits an expression cannot say, checked before the engine builds the
 * search space and before setup: device limits are facts, not guesses, so
 * refuse what cannot be allocated with a message that says which parameter
 * is too large. The sizes are doubles: n * 4 as an integer would overflow
 * for the largest n and report a negative size. */
static int vector_add_check_problem(const skytune_values *problem,
                                    const skytune_device_info *device, skytune_error *err)
{
    const int64_t n = skytune_int(problem, "n");
    const double bytes = (double)n * sizeof(float);
    if (bytes <= (double)device->max_mem_alloc_size) return SKYTUNE_OK;
    return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                             "n=%lld needs %.0f bytes per vector; this device allocates at most "
                             "%lld bytes in one buffer (n <= %lld)",
                             (long long)n, bytes, (long long)device->max_mem_alloc_size,
                             (long long)(device->max_mem_alloc_size / (int64_t)sizeof(float)));
}

static int vector_add_setup(const skytune_setup_context *ctx, void **state_out,
                            skytune_error *err)
{
    /* Problem values come typed; the engine has already applied the checks
     * (problem_checks and vector_add_check_problem). */
    const int64_t n = skytune_int(ctx->problem, "n");
    const size_t bytes = (size_t)n * sizeof(float);

    /* calloc zeroes the struct, so teardown can run on a half-built state. */
    vector_add_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    s->n = n;
    s->a = malloc(bytes);
    s->b = malloc(bytes);
    s->expected = malloc(bytes);
    s->result = malloc(bytes);
    if (!s->a || !s->b || !s->expected || !s->result) {
        vector_add_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for four host vectors of %lld floats",
                                 (long long)n);
    }

    /* Inputs are deterministic: the same seed gives the same data on every
     * run, so a recorded measurement can be reproduced. The second argument
     * of pcg32_seed picks a stream; any constant will do. */
    pcg32 rng;
    pcg32_seed(&rng, ctx->seed, 0);
    for (int64_t i = 0; i < n; i++) s->a[i] = pcg32_float(&rng);
    for (int64_t i = 0; i < n; i++) s->b[i] = pcg32_float(&rng);

    /* The device buffers, declared; the support library creates them (the
     * inputs uploaded once: every configuration reads the same buffers) and
     * names the one that failed. The output is poisoned by clear_outputs. */
    s->buffers[BUFFER_A] = support_input("a", s->a, bytes);
    s->buffers[BUFFER_B] = support_input("b", s->b, bytes);
    s->buffers[BUFFER_C] = support_output("c", bytes);
    int rc = support_buffers_create(s->buffers, BUFFERS, ctx->context, SKYTUNE_ERR_SETUP, err);
    if (rc) {
        vector_add_teardown(s);
        return rc;
    }

    *state_out = s;
    return SKYTUNE_OK;
}

/* The CPU reference: the obviously correct computation, run once. */
static int vector_add_reference(void *opaque, skytune_error *err)
{
    (void)err; /* nothing here can fail */
    vector_add_state *s = opaque;
    for (int64_t i = 0; i < s->n; i++) s->expected[i] = s->a[i] + s->b[i];
    return SKYTUNE_OK;
}

/* Where the reference lives: every host array `reference` writes, and
 * nothing else writes, in a fixed order (here just `expected`). A campaign
 * runs several workers, each with a state of its own; with this the engine
 * computes the reference in one of them and copies these bytes into the
 * others instead of calling `reference` there, which pays off when the
 * reference is expensive. The arrays must stay put until teardown. A value
 * the reference computes besides its arrays (a tolerance kept in a struct
 * field, say) is a region too: its address and size. */
static int vector_add_reference_data(void *opaque, skytune_region *regions, size_t max,
                                     size_t *count, skytune_error *err)
{
    (void)max; /* at least SKYTUNE_MAX_REFERENCE_REGIONS; one is all we need */
    (void)err;
    vector_add_state *s = opaque;
    regions[0] = (skytune_region){s->expected, (size_t)s->n * sizeof(float)};
    *count = 1;
    return SKYTUNE_OK;
}

/* Per configuration: the engine has built the program with this
 * configuration's -D defines; declare the kernel and its launch shape. The
 * run is this one kernel, so the launch is the support library's
 * (support_kernel_run and support_kernel_free in the description). */
static int vector_add_prepare(void *opaque, cl_program program, const skytune_values *config,
                              void **launch_out, skytune_error *err)
{
    vector_add_state *s = opaque;
    const int64_t wg_size = skytune_int(config, "wg_size");
    const int64_t per_item = skytune_int(config, "per_item");

    /* One work-group per tile of wg_size * per_item elements, rounded up:
     * the kernel skips indices past n in the last tile. */
    const int64_t tile = wg_size * per_item;
    const int64_t groups = (s->n + tile - 1) / tile;
    const support_kernel_spec kernel = {
        .name = "vector_add",   /* the __kernel's name */
        .label = "vector_add",  /* names the kernel's time among the parts of a run */
        /* Argument order matches the kernel's parameter list. */
        .args = {SUPPORT_ARG(s->buffers[BUFFER_A].mem), SUPPORT_ARG(s->buffers[BUFFER_B].mem),
                 SUPPORT_ARG(s->buffers[BUFFER_C].mem)},
        .dims = 1,
        .global = {(size_t)(groups * wg_size)},  /* work-items in all: whole work-groups */
        .local = {(size_t)wg_size},              /* work-items per work-group */
    };
    return support_kernel_new(program, &kernel, launch_out, err);
}

/* Poison the output (NaN, as support_output declared it) so that a kernel
 * that writes nothing (or only part of it) cannot pass verification with an
 * earlier configuration's result. NaN never compares equal to anything. */
static int vector_add_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    vector_add_state *s = opaque;
    return support_buffers_poison(s->buffers, BUFFERS, queue, err);
}

/* Read the verification run's result into host memory (blocking), and
 * nothing more. Splitting the read from the comparison lets the engine give
 * the device to the next configuration while this one is compared: it calls
 * read_back right after the verification run (before the timed runs
 * overwrite the output) and verify only once the timed runs are done. */
static int vector_add_read_back(void *opaque, const skytune_values *config,
                                cl_command_queue queue, skytune_error *err)
{
    vector_add_state *s = opaque;
    (void)config;
    return support_buffer_read(&s->buffers[BUFFER_C], queue, s->result, err);
}

/* Compare what read_back read with the reference. Because the plugin has a
 * read_back, verify must not touch the queue or the device: it may run
 * while the device times another configuration. The configuration that
 * produced the result is there for tolerances that depend on it; an
 * element-wise addition needs none. */
static int vector_add_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                             skytune_verify_report *report, skytune_error *err)
{
    vector_add_state *s = opaque;
    (void)config;
    (void)queue; /* read_back did the reading */
    (void)err;   /* a comparison cannot fail; a mismatch goes in the report */
    /* OpenCL C requires single-precision addition to be correctly rounded,
     * just like the host's, so a correct kernel reproduces the reference bit
     * for bit. One unit in the last place of relative slack accepts any
     * conforming device and still rejects every real mistake (a wrong or
     * missing element is off by about 0.5 on average). Each output is
     * compared under its own name and tolerances; this kernel has one, c. */
    skytune_verify_floats(report, "c", s->result, s->expected, (size_t)s->n, 0.0, FLT_EPSILON);
    return SKYTUNE_OK;
}

/* Frees whatever setup managed to create; safe on a partly built state. */
/* With `skytune run --transfers`: a and b uploaded, c read back, each
 * timed as a part of the run. */
static int vector_add_transfers(void *opaque, skytune_transfer *list, size_t max, size_t *count,
                                skytune_error *err)
{
    const vector_add_state *s = opaque;
    *count = 0;
    if (skytune_transfer_add(list, max, count, "upload a", 1, s->a, s->buffers[BUFFER_A].bytes) ||
        skytune_transfer_add(list, max, count, "upload b", 1, s->b, s->buffers[BUFFER_B].bytes) ||
        skytune_transfer_add(list, max, count, "download c", 0, NULL, s->buffers[BUFFER_C].bytes))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more transfers than %zu", max);
    return SKYTUNE_OK;
}

static void vector_add_teardown(void *opaque)
{
    vector_add_state *s = opaque;
    if (!s) return;
    support_buffers_release(s->buffers, BUFFERS);
    free(s->a);
    free(s->b);
    free(s->expected);
    free(s->result);
    free(s);
}

/* Work of one run, for GFLOP/s and GB/s: one addition per element, and
 * 12 bytes of global memory traffic per element (read a, read b, write c). */
static double vector_add_flops(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    return (double)skytune_int(problem, "n");
}

static double vector_add_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    return 12.0 * (double)skytune_int(problem, "n");
}

/* -------------------------------------------------------------- description */

static const skytune_plugin vector_add_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION, /* checked by the loader */
    .name = "vector_add",                     /* what --plugin names */
    .version = "1.0",                         /* bump when results would change */
    .description = "c = a + b over n floats: the template plugin",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = vector_add_check_problem, /* size limits, before the space is built */
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = NULL,       /* everything fits in expressions */
    .kernel_source = vector_add_cl_source,
    .build_options = NULL,    /* OpenCL C 1.2, the engine's default; e.g. "-cl-std=CL2.0" */
    .generate_source = NULL,  /* the source does not change shape */
    .defines = NULL,          /* the parameters' own -D defines suffice */
    .setup = vector_add_setup,
    .reference = vector_add_reference,
    .reference_data = vector_add_reference_data, /* optional: the reference, shared */
    .prepare = vector_add_prepare,
    .clear_outputs = vector_add_clear_outputs,
    /* The run is the one kernel prepare declared: the support library
     * enqueues it, labelled, and releases it. */
    .enqueue = support_kernel_run,
    .read_back = vector_add_read_back, /* optional: without it verify reads back itself */
    .verify = vector_add_verify,
    .release = support_kernel_free,
    .teardown = vector_add_teardown,
    .flops = vector_add_flops,
    .bytes = vector_add_bytes,
    .transfers = vector_add_transfers,
    .derived_values = NULL,   /* no numbers besides the time to record per configuration */
};

/* Exports skytune_plugin_entry, returning &vector_add_plugin. */
SKYTUNE_DEFINE_PLUGIN(vector_add_plugin)
