/*
 * transpose — a 4-D array of complex samples over station (S), channel (C),
 * time (T) and polarization (P) copied from one data layout into another,
 * tuned as in J. Kis, "Auto-tuning a LOFAR radio astronomy pipeline in
 * JavaCL" (MSc thesis, VU Amsterdam, 2013), sections 6.2 and 6.3.
 *
 * A layout is an ordering of the letters SCTP, outermost first: TCSP stores
 * x[time][channel][station][polarization]. The input and the output layout
 * are tuning parameters (24 each), and so is the kernel: `direct`, the
 * thesis's Algorithm 2 (one work-item per sample), or `tiled`, which stages
 * square tiles in local memory so that reads and writes are both contiguous.
 * transpose.cl describes both. The layout distance between input and output
 * (the thesis's measure of how far apart two layouts are) is derived from
 * every configuration.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pcg32.h>
#include <skytune/plugin.h>
#include <skytune/plugin_checks.h>

#include "layout.h"
#include "stage_buffer.h"
#include "transpose_stage.h"

/* The dimensions, in the order this plugin keeps sizes and strides in, and
 * the order of its canonical host array. */
#define DIMENSIONS "SCTP"
#define DIMS 4

/* ------------------------------------------------------------ description data */

/* Defaults are the thesis's Figure 6.3 setup. */
static const skytune_problem_param problem_params[] = {
    {"stations", SKYTUNE_INT, "64", "stations (S)"},
    {"channels", SKYTUNE_INT, "300", "frequency channels (C)"},
    {"samples", SKYTUNE_INT, "768", "time samples (T)"},
    {"polarizations", SKYTUNE_INT, "2", "polarizations (P): 1 or 2"},
    {NULL, 0, NULL, NULL}
};

/* `small` has sizes that no tile size (8 to 64) divides, and that all
 * differ, so that partial tiles and work-groups are exercised and no two
 * dimensions can be confused. */
static const skytune_preset presets[] = {
    {"thesis", "stations=64,channels=300,samples=768,polarizations=2",
     "Kis 2013, Figure 6.3: 64 stations, 300 channels, 768 samples, 2 polarizations"},
    {"small", "stations=6,channels=11,samples=37,polarizations=2",
     "6 stations, 11 channels, 37 samples, 2 polarizations: for tests and demos"},
    {NULL, NULL, NULL}
};

static const skytune_problem_check problem_checks[] = {
    {"stations >= 1", "stations must be at least 1"},
    {"channels >= 1", "channels must be at least 1"},
    {"samples >= 1", "samples must be at least 1"},
    {"polarizations == 1 or polarizations == 2", "polarizations must be 1 or 2"},
    {NULL, NULL}
};

/* The smallest tile offered; the C constraint always keeps it, and the
 * direct kernel, which has no tile, is pinned to it. */
#define SMALLEST_TILE 8

/* Tiles from 8 x 8 (512 bytes of local memory) to 64 x 64 (33 KiB with the
 * padding, within a GPU's 48 KiB). Work-group sides are powers of two from 1:
 * an input whose contiguous dimension is the 2 polarizations wants wg_x = 2. */
static const skytune_tuning_param tuning_params[] = {
    {"in_layout", SKYTUNE_PERMUTATION, DIMENSIONS, 0, 0, 0,
     "layout of the input, outermost dimension first"},
    {"out_layout", SKYTUNE_PERMUTATION, DIMENSIONS, 0, 0, 0,
     "layout of the output, outermost dimension first"},
    {"variant", SKYTUNE_ENUM, "direct,tiled", 0, 0, 0,
     "direct: one work-item per sample (Kis 2013, Algorithm 2); tiled: through local memory"},
    {"tile", SKYTUNE_LIST, "8,16,32,64", 0, 0, 0,
     "side of the square tile staged in local memory (tiled only)"},
    {"wg_x", SKYTUNE_POW2, NULL, 1, 256, 0,
     "work-group side along the input's contiguous dimension (tiled: along a tile's rows)"},
    {"wg_y", SKYTUNE_POW2, NULL, 1, 256, 0,
     "work-group side along the input's next dimension (tiled: across a tile's rows)"},
    {NULL, 0, NULL, 0, 0, 0, NULL}
};

/* `tile` means nothing to the direct kernel, so it is pinned there (the space
 * would otherwise repeat each direct configuration four times). A tiled
 * work-group walks its tile in steps of wg_x by wg_y, so neither may exceed
 * the tile. The local footprint is tile x (tile + 1) samples of 8 bytes.
 * Work-group sides against the problem's sizes are the C constraint below. */
static const char *const constraints[] = {
    "wg_x * wg_y <= device.max_work_group_size",
    "wg_x <= device.max_work_item_size_0",
    "wg_y <= device.max_work_item_size_1",
    "variant == 'tiled' or tile == 8",
    "variant == 'direct' or (wg_x <= tile and wg_y <= tile)",
    "variant == 'direct' or tile * (tile + 1) * 8 <= device.local_mem_size",
    NULL
};

/* --------------------------------------------------------------- geometry */

static void problem_sizes(const skytune_values *problem, int64_t sizes[DIMS])
{
    sizes[0] = skytune_int(problem, "stations");
    sizes[1] = skytune_int(problem, "channels");
    sizes[2] = skytune_int(problem, "samples");
    sizes[3] = skytune_int(problem, "polarizations");
}

static double element_count(const int64_t sizes[DIMS])
{
    return (double)sizes[0] * (double)sizes[1] * (double)sizes[2] * (double)sizes[3];
}

static bool is_layout(const char *text)
{
    return layout_check("layout", text, DIMENSIONS, NULL, 0) == 0;
}

/* Work-groups larger than needed only add idle work-items: the direct
 * kernel's sides are at most the power of two at or above the input's
 * innermost (wg_x) and next (wg_y) sizes, and a tile at most the power of two
 * at or above the smaller of its two sides. The smallest values are always
 * kept, so every layout pair has configurations of both kernels. */
static int transpose_constraint(const skytune_values *config, const skytune_values *problem,
                                const skytune_device_info *device, const char **why)
{
    (void)device;
    const char *in = skytune_string(config, "in_layout");
    const char *out = skytune_string(config, "out_layout");
    if (!is_layout(in) || !is_layout(out)) return 0;
    int64_t sizes[DIMS];
    problem_sizes(problem, sizes);
    if (strcmp(skytune_string(config, "variant"), "direct") == 0) {
        const int64_t wg_x = skytune_int(config, "wg_x"), wg_y = skytune_int(config, "wg_y");
        const int64_t inner = sizes[layout_position(DIMENSIONS, in[DIMS - 1])];
        const int64_t next = sizes[layout_position(DIMENSIONS, in[DIMS - 2])];
        if ((wg_x == 1 || wg_x < 2 * inner) && (wg_y == 1 || wg_y < 2 * next)) return 1;
        *why = "direct: a work-group side at least twice the input's dimension along it";
        return 0;
    }
    int64_t a, b;
    transpose_tile_sides(DIMENSIONS, sizes, in, out, &a, &b);
    const int64_t tile = skytune_int(config, "tile");
    const int64_t side = a < b ? a : b;
    if (tile == SMALLEST_TILE || tile < 2 * side) return 1;
    *why = "tiled: a tile at least twice the smaller of its two sides";
    return 0;
}

/* The layout distance between a configuration's input and output layouts
 * (Kis 2013, section 6.3); -1 unless both are layouts of SCTP. Exported for
 * tests and for scripts (through dlsym). */
SKYTUNE_EXPORT double skytune_transpose_layout_distance(const char *in, const char *out);
SKYTUNE_EXPORT double skytune_transpose_layout_distance(const char *in, const char *out)
{
    if (!is_layout(in) || !is_layout(out)) return -1.0;
    return (double)layout_distance(in, out);
}

/* The distance as a derived value of every configuration, stored with its
 * measurements: what the thesis relates the transposition's time to. */
static double transpose_distance_of(const skytune_values *problem, const skytune_values *config)
{
    (void)problem;
    return skytune_transpose_layout_distance(skytune_string(config, "in_layout"),
                                             skytune_string(config, "out_layout"));
}

static const skytune_derived_value derived_values[] = {
    {"layout_distance",
     "sum over S, C, T and P of how many places each moves between in_layout and out_layout",
     transpose_distance_of},
    {NULL, NULL, NULL}};

/* --------------------------------------------------------------- run state */

typedef struct transpose_state {
    int64_t sizes[DIMS];     /* in the order of DIMENSIONS */
    size_t elements;         /* complex samples in the array */
    float *canonical;        /* the input as x[S][C][T][P], re and im */
    float *expected;         /* the canonical array laid out in expected_layout */
    float *result;           /* the output read back */
    char expected_layout[DIMS + 1];  /* layout of `expected`, "" before the first */
    stage_layout_input input;        /* the input in the last prepared in_layout */
    support_buffer output;
} transpose_state;

typedef struct transpose_launch {
    transpose_stage_launch stage;
    support_buffer input;    /* held: the buffer this kernel's argument names */
} transpose_launch;

#define SIZE_HINT "stations, channels, samples or polarizations"

/* ---------------------------------------------------------------- callbacks */

static void transpose_teardown(void *opaque);

/* The kernels index with int; the input and the output are one buffer
 * each. */
static int transpose_check_problem(const skytune_values *problem,
                                   const skytune_device_info *device, skytune_error *err)
{
    int64_t sizes[DIMS];
    problem_sizes(problem, sizes);
    const double elements = element_count(sizes);
    int rc;
    if ((rc = skytune_check_index_extent("array", elements, "complex samples", SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("array (input and output alike)", elements * 8.0, device,
                                       SIZE_HINT, err)))
        return rc;
    return SKYTUNE_OK;
}

/* The problem passed transpose_check_problem (the engine calls it first). */
static int transpose_setup(const skytune_setup_context *ctx, void **state_out,
                           skytune_error *err)
{
    transpose_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    problem_sizes(ctx->problem, s->sizes);
    const size_t elements = (size_t)element_count(s->sizes);
    const size_t bytes = elements * 2 * sizeof(float);
    s->elements = elements;
    s->canonical = malloc(bytes);
    s->expected = malloc(bytes);
    s->result = malloc(bytes);
    if (!s->canonical || !s->expected || !s->result) {
        transpose_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for three host arrays of %zu complex samples",
                                 elements);
    }

    /* Real and imaginary parts uniform in [-1, 1), in S, C, T, P order: the
     * same values wherever a layout puts them. */
    pcg32 rng;
    pcg32_seed(&rng, ctx->seed, 0);
    for (size_t k = 0; k < 2 * s->elements; k++)
        s->canonical[k] = 2.0f * pcg32_float(&rng) - 1.0f;

    s->output = support_output("output", bytes);
    int rc = support_buffers_create(&s->output, 1, ctx->context, SKYTUNE_ERR_SETUP, err);
    if (rc) {
        transpose_teardown(s);
        return rc;
    }
    *state_out = s;
    return SKYTUNE_OK;
}

/* The transposition on the host: the canonical array in `layout`, by the
 * layout library's one conversion (the stages' references use it too). */
static void lay_out(const transpose_state *s, const char *layout, float *dst)
{
    /* A checked layout and the problem's sizes: the permutation cannot fail. */
    layout_permute(dst, layout, s->canonical, DIMENSIONS, DIMENSIONS, s->sizes,
                   2 * sizeof(float));
}

/* The expected output depends on the configuration's output layout, so it
 * is laid out per configuration (in verify, when the layout changes), not
 * once here. Nothing to share between workers either: the plugin has no
 * reference_data (a layout of the input costs what a copy would). */
static int transpose_reference(void *opaque, skytune_error *err)
{
    (void)opaque;
    (void)err;
    return SKYTUNE_OK;
}

static void expect_layout(transpose_state *s, const char *layout)
{
    if (strcmp(s->expected_layout, layout) == 0) return;
    lay_out(s, layout, s->expected);
    memcpy(s->expected_layout, layout, DIMS + 1);
}

static void transpose_release(void *opaque);

/* Per configuration: the input on the device in the configuration's input
 * layout (uploaded anew only when the layout differs from the last
 * configuration's), then the kernel and its geometry. */
static int transpose_prepare(void *opaque, cl_program program, const skytune_values *config,
                             void **launch_out, skytune_error *err)
{
    transpose_state *s = opaque;
    char in[LAYOUT_MAX_DIMS + 1], out[LAYOUT_MAX_DIMS + 1];
    int rc = stage_read_layout(config, "in_layout", DIMENSIONS, in, err);
    if (rc == SKYTUNE_OK) rc = stage_read_layout(config, "out_layout", DIMENSIONS, out, err);
    if (rc == SKYTUNE_OK)
        rc = stage_layout_input_set(&s->input, program, s->canonical, DIMENSIONS, in, DIMENSIONS,
                                    s->sizes, 2 * sizeof(float), err);
    if (rc != SKYTUNE_OK) return rc;

    transpose_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    transpose_kernel kernel;
    transpose_kernel_read(config, &kernel);
    rc = stage_layout_input_hold(&s->input, &l->input, err);
    if (rc == SKYTUNE_OK)
        rc = transpose_stage_prepare(&l->stage, program, &kernel, NULL, DIMENSIONS, s->sizes, in,
                                     out, l->input.mem, s->output.mem, "transpose", err);
    if (rc != SKYTUNE_OK) {
        transpose_release(l);
        return rc;
    }
    *launch_out = l;
    return SKYTUNE_OK;
}

static int transpose_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    transpose_state *s = opaque;
    return support_buffers_poison(&s->output, 1, queue, err);
}

static int transpose_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                             skytune_error *err)
{
    const transpose_launch *l = opaque;
    return transpose_stage_enqueue(&l->stage, queue, events, err);
}

/* The output read back as it is, in the configuration's output layout,
 * right after the verification run. */
static int transpose_read_back(void *opaque, const skytune_values *config,
                               cl_command_queue queue, skytune_error *err)
{
    (void)config;
    transpose_state *s = opaque;
    return support_buffer_read(&s->output, queue, s->result, err);
}

/* Compares what transpose_read_back read with the reference laid out in
 * the configuration's output layout: both off the device. */
static int transpose_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                            skytune_verify_report *report, skytune_error *err)
{
    (void)queue;
    transpose_state *s = opaque;
    char out[LAYOUT_MAX_DIMS + 1];
    int rc = stage_read_layout(config, "out_layout", DIMENSIONS, out, err);
    if (rc != SKYTUNE_OK) return rc;
    expect_layout(s, out);
    /* A transposition moves bits and computes nothing: every sample must
     * equal the reference exactly, so both tolerances are 0. */
    skytune_verify_floats(report, "output", s->result, s->expected, s->elements * 2, 0.0, 0.0);
    return SKYTUNE_OK;
}

static void transpose_release(void *opaque)
{
    transpose_launch *l = opaque;
    if (!l) return;
    transpose_stage_release(&l->stage);
    support_buffers_release(&l->input, 1);
    free(l);
}

/* A transposition's exchange with the host: the array in and out. */
static int transpose_transfers(void *opaque, skytune_transfer *list, size_t max, size_t *count,
                               skytune_error *err)
{
    const transpose_state *s = opaque;
    *count = 0;
    if (skytune_transfer_add(list, max, count, "upload input", 1, s->canonical,
                             s->elements * 2 * sizeof(float)) ||
        skytune_transfer_add(list, max, count, "download output", 0, NULL, s->output.bytes))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more transfers than %zu", max);
    return SKYTUNE_OK;
}

static void transpose_teardown(void *opaque)
{
    transpose_state *s = opaque;
    if (!s) return;
    stage_layout_input_release(&s->input);
    support_buffers_release(&s->output, 1);
    free(s->canonical);
    free(s->expected);
    free(s->result);
    free(s);
}

/* Every sample read once and written once, 8 bytes each way. A transposition
 * does no arithmetic, so the plugin counts no flops (GFLOP/s stays empty). */
static double transpose_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    int64_t sizes[DIMS];
    problem_sizes(problem, sizes);
    return transpose_count_bytes(element_count(sizes));
}

/* -------------------------------------------------------------- description */

static const skytune_plugin transpose_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "transpose",
    .version = "1.0",
    .description = "4-D complex array from one SCTP layout into another (Kis 2013, ch. 6)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = transpose_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = transpose_constraint,
    .kernel_source = transpose_cl_source,
    .generate_source = NULL,
    .defines = NULL,
    .setup = transpose_setup,
    .reference = transpose_reference,
    .prepare = transpose_prepare,
    .clear_outputs = transpose_clear_outputs,
    .enqueue = transpose_enqueue,
    .read_back = transpose_read_back,
    .verify = transpose_verify,
    .release = transpose_release,
    .teardown = transpose_teardown,
    .flops = NULL,
    .bytes = transpose_bytes,
    .transfers = transpose_transfers,
    .derived_values = derived_values,
};

SKYTUNE_DEFINE_PLUGIN(transpose_plugin)
