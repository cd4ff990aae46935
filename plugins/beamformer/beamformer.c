/*
 * beamformer — the beam former of a radio telescope, after Sclocco,
 * Varbanescu, Mol and van Nieuwpoort, "Radio astronomy beam forming on
 * many-core architectures" (IPDPS 2012), as summarised and used in J. Kis,
 * "Auto-tuning a LOFAR radio astronomy pipeline in JavaCL" (MSc thesis, VU
 * Amsterdam, 2013), sections 2.1.2 and 7.3.
 *
 * Input: complex float samples input(station, channel, time, polarisation)
 * and complex weights weights[channel][beam][station] (float2: real,
 * imaginary). Output: output(beam, channel, time, polarisation),
 *
 *     output(b, c, t, p) = sum over s of weights[c][b][s] * input(s, c, t, p)
 *
 * a complex multiply-add per station. The weight of a station is the phase
 * shift that aligns its signal with the others for the direction of beam b;
 * adding the aligned signals of all stations forms one virtual antenna
 * pointing that way.
 *
 * Tuning parameters: beam_block (beams per work-item, accumulated in
 * registers: the beam blocking of the paper), station_block (stations per
 * unrolled step of the station loop), wg_time and wg_beams (the work-group),
 * use_local (stage the samples in local memory), and the layouts the kernel
 * reads and writes, in_layout and out_layout (Kis 2013, chapters 6 and 7).
 * beamformer.cl describes the kernel.
 *
 * The work is done by the stage module (beamformer_stage.h), which a
 * pipeline shares; this file describes the plugin and wires its callbacks
 * to it.
 */
#include <stdint.h>
#include <stdlib.h>

#include <skytune/plugin.h>

#include "beamformer_stage.h"
#include "stage_buffer.h"

/* ------------------------------------------------------------ description data */

/* Defaults are the thesis's experiment setup (section 7.3). */
static const skytune_problem_param problem_params[] = {
    {"stations", SKYTUNE_INT, "64", "stations whose signals are combined"},
    {"channels", SKYTUNE_INT, "256", "frequency channels, beam-formed independently"},
    {"samples", SKYTUNE_INT, "512", "time samples per channel"},
    {"polarizations", SKYTUNE_INT, "2", "polarisations per sample (1 or 2)"},
    {"beams", SKYTUNE_INT, "100", "beams formed (directions on the sky)"},
    {NULL, 0, NULL, NULL}
};

static const skytune_preset presets[] = {
    {"thesis", "stations=64,channels=256,samples=512,polarizations=2,beams=100",
     "Kis 2013, section 7.3: 64 LOFAR stations, 256 channels, 512 samples, 2 polarisations, "
     "100 beams"},
    {"small", "stations=8,channels=4,samples=64,polarizations=2,beams=10",
     "8 stations, 4 channels, 64 samples, 2 polarisations, 10 beams: for tests and demos"},
    {NULL, NULL, NULL}
};

static const skytune_problem_check problem_checks[] = {
    {"stations >= 1", "stations must be at least 1"},
    {"channels >= 1", "channels must be at least 1"},
    {"samples >= 1", "samples must be at least 1"},
    {"1 <= polarizations <= 2", "polarizations must be 1 or 2 (single or dual polarisation)"},
    {"beams >= 1", "beams must be at least 1"},
    {NULL, NULL}
};

/* Value lists. Beam counts are often not powers of two (the thesis forms
 * 100), so beam_block holds the divisors of 100 besides powers of two: the
 * thesis's GPU runs used blocks of 10 beams and its CPU run one block of all
 * 100. Station counts vary with the observation (LOFAR combines any subset of
 * its stations), so the station loop handles a partial last step and
 * station_block needs no divisibility. Work-groups along time are powers of
 * two up to 1024, along beams up to 8. The lists are sized so that the
 * `small` preset's space stays at a couple of hundred configurations (a few
 * minutes to search exhaustively through PoCL on two cores) for each pair of
 * layouts, while the thesis's setup gives about a thousand (1070 on PoCL).
 * The layouts are every order of the input's and of the output's
 * dimensions, 24 x 24 (the thesis's pipeline tuned the 6 of each that keep
 * the polarisation innermost, section 7.2). */
static const skytune_tuning_param tuning_params[] = {
    {"beam_block", SKYTUNE_LIST, "1,2,4,5,8,10,20,25,50,100", 0, 0, 0,
     "beams per work-item (accumulators in registers)"},
    {"station_block", SKYTUNE_LIST, "1,2,4,8,16", 0, 0, 0,
     "stations per step of the station loop (fully unrolled; with use_local, staged per barrier)"},
    {"wg_time", SKYTUNE_POW2, NULL, 1, 1024, 0, "work-items per work-group along time"},
    {"wg_beams", SKYTUNE_LIST, "1,2,4,8", 0, 0, 0, "work-items per work-group along beams"},
    {"use_local", SKYTUNE_BOOLEAN, NULL, 0, 0, 0,
     "1: stage the work-group's samples in local memory; 0: read global memory through caches"},
    {"in_layout", SKYTUNE_PERMUTATION, BEAMFORMER_IN_LETTERS, 0, 0, 0,
     "layout of the input: station, channel, time, polarisation, outermost first"},
    {"out_layout", SKYTUNE_PERMUTATION, BEAMFORMER_OUT_LETTERS, 0, 0, 0,
     "layout of the output: beam, channel, time, polarisation, outermost first"},
    {NULL, 0, NULL, 0, 0, 0, NULL}
};

/* Work-groups tile time and beams exactly, so no work-item needs a bounds
 * check (beam_block = wg_beams = wg_time = 1 always qualifies, so no problem
 * has an empty space). A station block larger than the station count would
 * only repeat station_block = stations. The fully unrolled body of the
 * station loop holds station_block * beam_block * polarizations complex
 * multiply-adds; past 256 only code size and register pressure grow. Staging
 * the samples only pays when the work-group has several rows of beams: with
 * wg_beams = 1 every staged sample is read by exactly one work-item. The
 * staging buffer holds station_block * wg_time * polarizations float2 (8
 * bytes each). */
static const char *const constraints[] = {
    "wg_time * wg_beams <= device.max_work_group_size",
    "wg_time <= device.max_work_item_size_0",
    "wg_beams <= device.max_work_item_size_1",
    "samples % wg_time == 0",
    "beams % (beam_block * wg_beams) == 0",
    "station_block <= stations",
    "station_block * beam_block * polarizations <= 256",
    "use_local == 0 or wg_beams > 1",
    "use_local == 0 or station_block * wg_time * polarizations * 8 <= device.local_mem_size",
    NULL
};

/* --------------------------------------------------------------- run state */

/* The buffers setup creates; the input follows each configuration's
 * in_layout (input_buf). */
enum { BUFFER_WEIGHTS, BUFFER_OUTPUT, BUFFERS };

/* Host arrays hold complex values as interleaved (real, imaginary) floats,
 * the memory layout of OpenCL's float2. */
typedef struct beamformer_state {
    beamformer_problem problem;
    int64_t local_mem_size; /* bytes, from the device: checked again in prepare */
    float *input;           /* canonical order (CSTP) */
    float *weights;         /* [channels][beams][stations] */
    float *expected;        /* canonical order (CBTP), from `reference` */
    float *result;          /* the same, read back by `read_back` */
    stage_layout_input input_buf;  /* the input in the last prepared in_layout */
    support_buffer buffers[BUFFERS];
} beamformer_state;

typedef struct beamformer_launch {
    beamformer_stage_launch stage;
    support_buffer input;   /* held: outlives a later in_layout's upload */
} beamformer_launch;

/* For tests: the device buffer of station samples of a state made by setup,
 * in the in_layout of the configuration prepared last (NULL before the
 * first prepare), so that a test can corrupt the input after the reference
 * was computed and check that verification notices. */
SKYTUNE_EXPORT cl_mem skytune_beamformer_input_buffer(const void *state);
SKYTUNE_EXPORT cl_mem skytune_beamformer_input_buffer(const void *state)
{
    return state ? ((const beamformer_state *)state)->input_buf.buffer.mem : NULL;
}

/* ---------------------------------------------------------------- callbacks */

static void beamformer_release(void *opaque);
static void beamformer_teardown(void *opaque);

/* The engine calls this before it builds the space and before setup. */
static int beamformer_check_problem(const skytune_values *problem,
                                    const skytune_device_info *device, skytune_error *err)
{
    beamformer_problem p;
    beamformer_problem_read(problem, &p);
    return beamformer_problem_check_device(&p, device, err);
}

/* The problem passed beamformer_check_problem (the engine calls it first).
 * The input reaches the device in prepare, in the configuration's layout. */
static int beamformer_setup(const skytune_setup_context *ctx, void **state_out,
                            skytune_error *err)
{
    beamformer_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    beamformer_problem_read(ctx->problem, &s->problem);
    const beamformer_problem *p = &s->problem;
    s->local_mem_size = ctx->device_info->local_mem_size;
    const size_t complex_size = 2 * sizeof(float);
    const size_t inputs = beamformer_input_count(p), weights = beamformer_weight_count(p),
                 outputs = beamformer_output_count(p);
    s->input = malloc(inputs * complex_size);
    s->weights = malloc(weights * complex_size);
    s->expected = malloc(outputs * complex_size);
    s->result = malloc(outputs * complex_size);
    if (!s->input || !s->weights || !s->expected || !s->result) {
        beamformer_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the host arrays (%zu input, %zu weight, "
                                 "%zu output complex values)",
                                 inputs, weights, outputs);
    }
    beamformer_generate_input(p, ctx->seed, s->input);
    beamformer_generate_weights(p, ctx->seed, s->weights);

    s->buffers[BUFFER_WEIGHTS] = support_input("weights", s->weights, weights * complex_size);
    s->buffers[BUFFER_OUTPUT] = support_output("beams", outputs * complex_size);
    int rc = support_buffers_create(s->buffers, BUFFERS, ctx->context, SKYTUNE_ERR_SETUP, err);
    if (rc) {
        beamformer_teardown(s);
        return rc;
    }
    *state_out = s;
    return SKYTUNE_OK;
}

static int beamformer_reference(void *opaque, skytune_error *err)
{
    beamformer_state *s = opaque;
    return beamformer_cpu_reference(&s->problem, s->input, s->weights, s->expected, err);
}

/* The reference is the one array `expected` (the tolerance depends on the
 * problem alone): the engine computes it once per campaign and copies it
 * into every later worker. */
static int beamformer_reference_data(void *opaque, skytune_region *regions, size_t max,
                                     size_t *count, skytune_error *err)
{
    (void)max;
    (void)err;
    beamformer_state *s = opaque;
    regions[0] = (skytune_region){s->expected,
                                  beamformer_output_count(&s->problem) * 2 * sizeof(float)};
    *count = 1;
    return SKYTUNE_OK;
}

/* The strides of both layouts, which the engine's -D of the parameters do
 * not give. */
static int beamformer_defines(void *opaque, const skytune_values *config, char *buf, size_t len,
                              skytune_error *err)
{
    const beamformer_state *s = opaque;
    beamformer_config c;
    stage_macros macros;
    int rc = beamformer_config_read(config, &c, err);
    if (rc == SKYTUNE_OK) rc = beamformer_macros(&s->problem, &c, &macros, err);
    if (rc) return rc;
    if (stage_macros_append_options(&macros, true, buf, len) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "the strides of the layouts do not fit in the build options");
    return SKYTUNE_OK;
}

/* Uploads the input in the configuration's in_layout when the previous
 * configuration read another. */
static int beamformer_prepare(void *opaque, cl_program program, const skytune_values *config,
                              void **launch_out, skytune_error *err)
{
    beamformer_state *s = opaque;
    beamformer_config c;
    int rc = beamformer_config_read(config, &c, err);
    if (rc) return rc;

    int64_t sizes[4];
    beamformer_input_sizes(&s->problem, sizes);
    rc = stage_layout_input_set(&s->input_buf, program, s->input, BEAMFORMER_CANONICAL_IN,
                                c.in_layout, BEAMFORMER_IN_LETTERS, sizes, 2 * sizeof(float), err);
    if (rc) return rc;

    beamformer_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    rc = stage_layout_input_hold(&s->input_buf, &l->input, err);
    if (rc == SKYTUNE_OK)
        rc = beamformer_stage_prepare(&l->stage, program, &s->problem, &c, s->local_mem_size,
                                      l->input.mem, s->buffers[BUFFER_WEIGHTS].mem,
                                      s->buffers[BUFFER_OUTPUT].mem, err);
    if (rc) {
        beamformer_release(l);
        return rc;
    }
    *launch_out = l;
    return SKYTUNE_OK;
}

static int beamformer_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    beamformer_state *s = opaque;
    return support_buffers_poison(s->buffers, BUFFERS, queue, err);
}

static int beamformer_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                              skytune_error *err)
{
    const beamformer_launch *l = opaque;
    return beamformer_stage_enqueue(&l->stage, queue, events, err);
}

/* The output is read back right after the verification run, in canonical
 * order (CBTP), so it is compared with the reference element by element
 * whatever out_layout is, and a mismatch's index means the same for every
 * layout. */
static int beamformer_read_back(void *opaque, const skytune_values *config,
                                cl_command_queue queue, skytune_error *err)
{
    beamformer_state *s = opaque;
    char out_layout[LAYOUT_MAX_DIMS + 1];
    int rc = stage_read_layout(config, "out_layout", BEAMFORMER_OUT_LETTERS, out_layout, err);
    if (rc) return rc;
    int64_t sizes[4];
    beamformer_output_sizes(&s->problem, sizes);
    return stage_read_canonical(queue, &s->buffers[BUFFER_OUTPUT], out_layout, s->result,
                                BEAMFORMER_CANONICAL_OUT, BEAMFORMER_OUT_LETTERS, sizes,
                                2 * sizeof(float), err);
}

/* Compares what beamformer_read_back read, off the device. Elements are the
 * floats of the output, real and imaginary parts apart: first_mismatch / 2
 * is the complex index. The tolerance is worked out in beamformer_stage.c. */
static int beamformer_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                             skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    (void)queue;
    (void)err;
    beamformer_state *s = opaque;
    const beamformer_problem *p = &s->problem;
    skytune_verify_floats(report, "beams", s->result, s->expected,
                          2 * beamformer_output_count(p), beamformer_tolerance(p), 0.0);
    return SKYTUNE_OK;
}

static void beamformer_release(void *opaque)
{
    beamformer_launch *l = opaque;
    if (!l) return;
    beamformer_stage_release(&l->stage);
    support_buffers_release(&l->input, 1);
    free(l);
}

/* A beam former's exchange with the host: the stations' samples in, the
 * beams out. The weights change with the pointing, not with each block of
 * samples, and stay on the device. */
static int beamformer_transfers(void *opaque, skytune_transfer *list, size_t max, size_t *count,
                                skytune_error *err)
{
    const beamformer_state *s = opaque;
    *count = 0;
    if (skytune_transfer_add(list, max, count, "upload samples", 1, s->input,
                             beamformer_input_count(&s->problem) * 2 * sizeof(float)) ||
        skytune_transfer_add(list, max, count, "download beams", 0, NULL,
                             s->buffers[BUFFER_OUTPUT].bytes))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more transfers than %zu", max);
    return SKYTUNE_OK;
}

static void beamformer_teardown(void *opaque)
{
    beamformer_state *s = opaque;
    if (!s) return;
    stage_layout_input_release(&s->input_buf);
    support_buffers_release(s->buffers, BUFFERS);
    free(s->input);
    free(s->weights);
    free(s->expected);
    free(s->result);
    free(s);
}

/* One complex multiply-add, acc += w * x, is 4 multiplications and 4
 * additions: 8 flops per station per output value. The bytes are the
 * compulsory traffic: every input sample, every weight and every output
 * value moved once, 8 bytes each (float2). Without beam blocking a kernel
 * reads a sample per multiply-add, so the real traffic is higher and the
 * reported GB/s is a lower bound on what the memory delivered. */
static double beamformer_flops(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    beamformer_problem p;
    beamformer_problem_read(problem, &p);
    return beamformer_count_flops(&p);
}

static double beamformer_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    beamformer_problem p;
    beamformer_problem_read(problem, &p);
    return beamformer_count_bytes(&p);
}

/* -------------------------------------------------------------- description */

static const skytune_plugin beamformer_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "beamformer",
    .version = "2.0",
    .description = "complex-weighted beam forming of station signals, with tunable read and "
                   "write layouts (Sclocco et al. 2012; Kis 2013)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = beamformer_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = NULL,
    .kernel_source = beamformer_cl_source,
    .generate_source = NULL,
    .defines = beamformer_defines,
    .setup = beamformer_setup,
    .reference = beamformer_reference,
    .reference_data = beamformer_reference_data,
    .prepare = beamformer_prepare,
    .clear_outputs = beamformer_clear_outputs,
    .enqueue = beamformer_enqueue,
    .read_back = beamformer_read_back,
    .verify = beamformer_verify,
    .release = beamformer_release,
    .teardown = beamformer_teardown,
    .flops = beamformer_flops,
    .bytes = beamformer_bytes,
    .transfers = beamformer_transfers,
};

SKYTUNE_DEFINE_PLUGIN(beamformer_plugin)
