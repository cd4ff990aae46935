/*
 * correlator — the correlator of a radio telescope, tuned as in J. Kis,
 * "Auto-tuning a LOFAR radio astronomy pipeline in JavaCL" (MSc thesis, VU
 * Amsterdam, 2013), chapter 5, after van Nieuwpoort & Romein, "Correlating
 * Radio Astronomy Signals with Many-Core Hardware" (IJPP 39, 2011).
 *
 * Input: complex float samples x(station, channel, time, polarisation), two
 * polarisations (X, Y), in the layout in_layout. Output: for every channel
 * and every baseline, a pair
 * of stations (s1, s2) with s1 >= s2 (autocorrelations included, so
 * stations * (stations + 1) / 2 baselines), the four polarisation products
 *
 *     V[channel][baseline(s1, s2)][p][q] = sum over t of x(s1, channel, t, p) * conj(x(s2, channel, t, q))
 *
 * in the order XX, XY, YX, YY, with baseline(s1, s2) = s1 * (s1 + 1) / 2 + s2.
 *
 * Tuning parameters: the cell (cell_width x cell_height baselines computed
 * by one work-item from cell_width + cell_height stations held in
 * registers) and the order work-items take the cells in (cell_order), the
 * work-group size, and staging of blocks of samples in local
 * memory (use_local, block_time), and the layout the input is read in
 * (in_layout; thesis chapters 6 and 7). Every configuration computes every
 * baseline ("full tiling", thesis section 5.2.2): whole cells cover what they
 * can, and a second kernel computes the remaining baselines one by one.
 * correlator.cl describes the kernels.
 *
 * The work is done by the stage module (correlator_stage.h), which a
 * pipeline shares; this file describes the plugin and wires its callbacks
 * to it.
 */
#include <stdint.h>
#include <stdlib.h>

#include <skytune/plugin.h>

#include "correlator_stage.h"
#include "stage_buffer.h"

/* ------------------------------------------------------------ description data */

/* Defaults are the thesis's LOFAR setup (section 7.3): 64 stations, 256
 * channels, and the usual 768 samples per block (chapter 7 cuts them to 512
 * only because its FFT needs a power of two). */
static const skytune_problem_param problem_params[] = {
    {"stations", SKYTUNE_INT, "64", "stations to correlate (each with two polarisations)"},
    {"channels", SKYTUNE_INT, "256", "frequency channels, correlated independently"},
    {"samples", SKYTUNE_INT, "768", "time samples summed into each visibility"},
    {NULL, 0, NULL, NULL}
};

static const skytune_preset presets[] = {
    {"thesis", "stations=64,channels=256,samples=768",
     "Kis 2013, sections 5.3 and 7.3: 64 LOFAR stations, 256 channels, 768 samples"},
    {"stations128", "stations=128,channels=256,samples=768",
     "the thesis's channels and samples with 128 stations: where its model expects larger cells "
     "to pay (8256 baselines)"},
    {"stations256", "stations=256,channels=256,samples=768",
     "the same with 256 stations (32896 baselines)"},
    {"small", "stations=10,channels=4,samples=64",
     "10 stations, 4 channels, 64 samples: for tests and demos"},
    {NULL, NULL, NULL}
};

static const skytune_problem_check problem_checks[] = {
    {"stations >= 1", "stations must be at least 1"},
    {"channels >= 1", "channels must be at least 1"},
    {"samples >= 1", "samples must be at least 1"},
    {NULL, NULL}
};

/* Cells up to 8 stations on a side, in every shape: tall (1 x N, the GTX
 * 480's choice, whose best were 1 x 5 and 1 x 6), wide (N x 1) and square
 * (the Xeon's 2 x 2). Registers bound a cell's area, not its side: a cell
 * keeps 2 float4 accumulators per baseline, so its area is capped (below)
 * at that of the 4 x 4 cell, 16 baselines or 128 floats per work-item,
 * which the space held before; the thesis saw the GTX 480 spill from 1 x 7
 * on, which the tuner is left to find. The cells are numbered down the
 * grid's columns or along its rows (cell_order): neighbouring work-items
 * then share their s2 stations or their s1 stations, which decides whose
 * loads are the same address across a warp and whose are strided.
 * Work-groups are powers of two from 4: the thesis's CPU runs used 10 to
 * 50 work-items, its GPU optima 96 to 320. Time blocks are powers of two:
 * a block of 64 samples of 64 stations fills 64 KiB. The input layout is
 * any order of its four dimensions (the thesis's pipeline tuned the 6 that
 * keep the polarisation innermost, section 7.5). */
static const skytune_tuning_param tuning_params[] = {
    {"cell_width", SKYTUNE_RANGE, NULL, 1, CORRELATOR_MAX_CELL_SIDE, 1,
     "stations per cell along s2 (the lower-numbered station of a baseline)"},
    {"cell_height", SKYTUNE_RANGE, NULL, 1, CORRELATOR_MAX_CELL_SIDE, 1,
     "stations per cell along s1 (the higher-numbered station of a baseline)"},
    {"cell_order", SKYTUNE_ENUM, CORRELATOR_CELL_ORDERS, 0, 0, 0,
     "column: cells numbered down the grid's columns (work-items side by side share s2); "
     "row: along its rows (they share s1)"},
    {"wg_size", SKYTUNE_POW2, NULL, CORRELATOR_SMALLEST_WG_SIZE, 1024, 0,
     "work-items per work-group: cells of one channel, one cell per work-item"},
    {"use_local", SKYTUNE_BOOLEAN, NULL, 0, 0, 0,
     "1: stage blocks of samples of every station in local memory; 0: read global memory"},
    {"block_time", SKYTUNE_LIST, "4,8,16,32,64", 0, 0, 0,
     "samples per block staged in local memory (use_local only)"},
    {"in_layout", SKYTUNE_PERMUTATION, CORRELATOR_IN_LETTERS, 0, 0, 0,
     "layout of the input: station, channel, time, polarisation, outermost first"},
    {NULL, 0, NULL, 0, 0, 0, NULL}
};

/* A whole w x h cell fits in the triangle of s1 >= s2 exactly when
 * w + h - 1 <= stations (its top-left baseline must have s1 >= s2 + w - 1,
 * and its rows must end by the last station): this keeps at least one whole
 * cell in every configuration and implies w, h <= stations. block_time means
 * nothing without local memory, so it is pinned to one value there (the space
 * would otherwise repeat each global-memory configuration five times). The
 * local footprint is block_time samples of every station, 16 bytes each.
 * Work-group sizes against the number of cells are the C constraint below. */
static const char *const constraints[] = {
    "wg_size <= device.max_work_group_size",
    "wg_size <= device.max_work_item_size_0",
    "cell_width + cell_height <= stations + 1",
    "cell_width * cell_height <= " CORRELATOR_MAX_CELL_AREA_TEXT,
    "use_local == 1 or block_time == 4",
    "use_local == 0 or stations * block_time * 16 <= device.local_mem_size",
    NULL
};

/* Exported so that tests (and curious users, through dlsym) can check the
 * tiling: how many whole cells the first pass computes; the remainder pass
 * computes baselines - cells * w * h. */
SKYTUNE_EXPORT int64_t skytune_correlator_whole_cells(int64_t stations, int64_t cell_width,
                                                      int64_t cell_height);
SKYTUNE_EXPORT int64_t skytune_correlator_whole_cells(int64_t stations, int64_t cell_width,
                                                      int64_t cell_height)
{
    return correlator_whole_cells(stations, cell_width, cell_height);
}

/* The whole cells in the order cell_order gives them to work-items:
 * (first s2, first s1) pairs, as many as skytune_correlator_whole_cells
 * says. Exported for the tests of the order. */
SKYTUNE_EXPORT void skytune_correlator_list_cells(int64_t stations, int64_t cell_width,
                                                  int64_t cell_height, int rows, int32_t *cells);
SKYTUNE_EXPORT void skytune_correlator_list_cells(int64_t stations, int64_t cell_width,
                                                  int64_t cell_height, int rows, int32_t *cells)
{
    correlator_list_cells(stations, cell_width, cell_height, rows != 0, cells);
}

/* Work-groups hold cells of one channel, so a work-group larger than twice
 * the channel's whole cells would be mostly idle: its size is at most the
 * power of two at or above the cell count. The smallest size is always kept,
 * so no cell shape is left without a work-group. */
static int correlator_constraint(const skytune_values *config, const skytune_values *problem,
                                 const skytune_device_info *device, const char **why)
{
    (void)device;
    const int64_t wg_size = skytune_int(config, "wg_size");
    const int64_t cells = correlator_whole_cells(skytune_int(problem, "stations"),
                                                 skytune_int(config, "cell_width"),
                                                 skytune_int(config, "cell_height"));
    if (wg_size <= CORRELATOR_SMALLEST_WG_SIZE || wg_size < 2 * cells) return 1;
    *why = "wg_size at least twice the whole cells of a channel (mostly idle work-groups)";
    return 0;
}

/* --------------------------------------------------------------- run state */

typedef struct correlator_state {
    correlator_problem problem;
    float *input;           /* canonical order (CTSP), [X.re, X.im, Y.re, Y.im] per station */
    float *expected;        /* [channel][baseline][XX, XY, YX, YY][re, im], from `reference` */
    float *result;          /* the same, read back by `verify` */
    stage_layout_input input_buf;  /* the input in the last prepared in_layout */
    support_buffer output;         /* the visibilities */
} correlator_state;

typedef struct correlator_launch {
    correlator_stage_launch stage;
    support_buffer input;   /* held: outlives a later in_layout's upload */
} correlator_launch;

/* ---------------------------------------------------------------- callbacks */

static void correlator_release(void *opaque);
static void correlator_teardown(void *opaque);

/* The engine calls this before it builds the space: the C constraint walks
 * the cells of a triangle of stations, which takes as long as the stations
 * are many, so a problem too large for the device must be refused first. */
static int correlator_check_problem(const skytune_values *problem,
                                    const skytune_device_info *device, skytune_error *err)
{
    correlator_problem p;
    correlator_problem_read(problem, &p);
    return correlator_problem_check_device(&p, device, err);
}

/* The problem passed correlator_check_problem (the engine calls it first).
 * The input reaches the device in prepare, in the configuration's layout. */
static int correlator_setup(const skytune_setup_context *ctx, void **state_out,
                            skytune_error *err)
{
    correlator_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    correlator_problem_read(ctx->problem, &s->problem);
    const correlator_problem *p = &s->problem;
    const size_t input_floats = correlator_input_count(p) * 2;
    const size_t output_floats = correlator_output_floats(p);
    s->input = malloc(input_floats * sizeof(float));
    s->expected = malloc(output_floats * sizeof(float));
    s->result = malloc(output_floats * sizeof(float));
    if (!s->input || !s->expected || !s->result) {
        correlator_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the host arrays (%zu input, %zu output floats)",
                                 input_floats, output_floats);
    }
    correlator_generate_input(p, ctx->seed, s->input);

    s->output = support_output("visibilities", output_floats * sizeof(float));
    int rc = support_buffers_create(&s->output, 1, ctx->context, SKYTUNE_ERR_SETUP, err);
    if (rc) {
        correlator_teardown(s);
        return rc;
    }
    *state_out = s;
    return SKYTUNE_OK;
}

static int correlator_reference(void *opaque, skytune_error *err)
{
    correlator_state *s = opaque;
    return correlator_cpu_reference(&s->problem, s->input, s->expected, err);
}

/* What the reference computes, for the engine to compute it once per
 * campaign. */
static int correlator_reference_data(void *opaque, skytune_region *regions, size_t max,
                                     size_t *count, skytune_error *err)
{
    (void)max;
    (void)err;
    correlator_state *s = opaque;
    regions[0] = (skytune_region){s->expected,
                                  correlator_output_floats(&s->problem) * sizeof(float)};
    *count = 1;
    return SKYTUNE_OK;
}

/* The strides of in_layout, which the engine's -D of the parameters do not
 * give. */
static int correlator_defines(void *opaque, const skytune_values *config, char *buf, size_t len,
                              skytune_error *err)
{
    const correlator_state *s = opaque;
    correlator_config c;
    stage_macros macros;
    int rc = correlator_config_read(config, &c, err);
    if (rc == SKYTUNE_OK) rc = correlator_macros(&s->problem, &c, &macros, err);
    if (rc) return rc;
    if (stage_macros_append_options(&macros, true, buf, len) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "the strides of in_layout '%s' do not "
                                 "fit in the build options", c.in_layout);
    return SKYTUNE_OK;
}

/* Uploads the input in the configuration's in_layout when the previous
 * configuration read another. */
static int correlator_prepare(void *opaque, cl_program program, const skytune_values *config,
                              void **launch_out, skytune_error *err)
{
    correlator_state *s = opaque;
    correlator_config c;
    int rc = correlator_config_read(config, &c, err);
    if (rc) return rc;
    int64_t sizes[4];
    correlator_input_sizes(&s->problem, sizes);
    rc = stage_layout_input_set(&s->input_buf, program, s->input, CORRELATOR_CANONICAL_IN,
                                c.in_layout, CORRELATOR_IN_LETTERS, sizes, 2 * sizeof(float), err);
    if (rc) return rc;

    correlator_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    rc = stage_layout_input_hold(&s->input_buf, &l->input, err);
    if (rc == SKYTUNE_OK)
        rc = correlator_stage_prepare(&l->stage, program, &s->problem, &c, l->input.mem,
                                      s->output.mem, err);
    if (rc) {
        correlator_release(l);
        return rc;
    }
    *launch_out = l;
    return SKYTUNE_OK;
}

static int correlator_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    correlator_state *s = opaque;
    return support_buffers_poison(&s->output, 1, queue, err);
}

static int correlator_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                              skytune_error *err)
{
    const correlator_launch *l = opaque;
    return correlator_stage_enqueue(&l->stage, queue, events, err);
}

/* The visibilities read back after the verification run: the comparison
 * (17 MB for the thesis problem) then runs after the timed runs, off the
 * device. */
static int correlator_read_back(void *opaque, const skytune_values *config,
                                cl_command_queue queue, skytune_error *err)
{
    (void)config;
    correlator_state *s = opaque;
    return support_buffer_read(&s->output, queue, s->result, err);
}

/* The visibilities' layout is fixed, whatever in_layout is. The tolerances
 * are worked out in correlator_stage.c. */
static int correlator_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                             skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    (void)queue;
    (void)err;
    correlator_state *s = opaque;
    const size_t floats = correlator_output_floats(&s->problem);
    double abs_tol, rel_tol;
    correlator_tolerances(&s->problem, &abs_tol, &rel_tol);
    skytune_verify_floats(report, "visibilities", s->result, s->expected, floats, abs_tol,
                          rel_tol);
    return SKYTUNE_OK;
}

/* The same comparison, for the engine to make on the device: the
 * visibilities stay where the kernel wrote them. */
static int correlator_device_outputs(void *opaque, const skytune_values *config,
                                     skytune_device_output *outputs, size_t max, size_t *count,
                                     skytune_error *err)
{
    (void)config;
    const correlator_state *s = opaque;
    double abs_tol, rel_tol;
    correlator_tolerances(&s->problem, &abs_tol, &rel_tol);
    *count = 0;
    if (skytune_device_output_add(outputs, max, count, "visibilities", s->output.mem,
                                  correlator_output_floats(&s->problem), s->expected, abs_tol,
                                  rel_tol))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more outputs than %zu", max);
    return SKYTUNE_OK;
}

/* A correlator's exchange with the host: the samples in, the visibilities
 * out. */
static int correlator_transfers(void *opaque, skytune_transfer *list, size_t max, size_t *count,
                                skytune_error *err)
{
    const correlator_state *s = opaque;
    *count = 0;
    if (skytune_transfer_add(list, max, count, "upload samples", 1, s->input,
                             correlator_input_count(&s->problem) * 2 * sizeof(float)) ||
        skytune_transfer_add(list, max, count, "download visibilities", 0, NULL, s->output.bytes))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more transfers than %zu", max);
    return SKYTUNE_OK;
}

static void correlator_release(void *opaque)
{
    correlator_launch *l = opaque;
    if (!l) return;
    correlator_stage_release(&l->stage);
    support_buffers_release(&l->input, 1);
    free(l);
}

static void correlator_teardown(void *opaque)
{
    correlator_state *s = opaque;
    if (!s) return;
    stage_layout_input_release(&s->input_buf);
    support_buffers_release(&s->output, 1);
    free(s->input);
    free(s->expected);
    free(s->result);
    free(s);
}

/* Four complex multiply-adds (8 flops each) per baseline, channel and
 * sample, counting only the baselines of the triangle, as the thesis does
 * (section 5.3). The bytes are the compulsory traffic: the input read once
 * (16 bytes per station, channel and sample) and the output written once
 * (32 bytes per baseline and channel); what a configuration re-reads through
 * caches or local memory is not counted. */
static double correlator_flops(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    correlator_problem p;
    correlator_problem_read(problem, &p);
    return correlator_count_flops(&p);
}

static double correlator_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    correlator_problem p;
    correlator_problem_read(problem, &p);
    return correlator_count_bytes(&p);
}

/* -------------------------------------------------------------- description */

static const skytune_plugin correlator_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "correlator",
    .version = "2.0",
    .description = "radio-telescope correlator with register-blocked cells and a tunable input "
                   "layout (Kis 2013, ch. 5-7)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = correlator_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = correlator_constraint,
    .kernel_source = correlator_cl_source,
    .generate_source = NULL,
    .defines = correlator_defines,
    .setup = correlator_setup,
    .reference = correlator_reference,
    .reference_data = correlator_reference_data,
    .prepare = correlator_prepare,
    .clear_outputs = correlator_clear_outputs,
    .enqueue = correlator_enqueue,
    .read_back = correlator_read_back,
    .verify = correlator_verify,
    .device_outputs = correlator_device_outputs,
    .release = correlator_release,
    .teardown = correlator_teardown,
    .flops = correlator_flops,
    .bytes = correlator_bytes,
    .transfers = correlator_transfers,
};

SKYTUNE_DEFINE_PLUGIN(correlator_plugin)
