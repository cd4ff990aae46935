/*
 * ppf — a polyphase filter bank: a FIR filter per channel followed by an FFT
 * across channels, after K. van der Veldt, "A Polyphase Filter For GPUs And
 * Multi-Core Processors" (MSc thesis, University of Amsterdam, 2011).
 *
 * For every station and polarization, a stream of `samples` complex integer
 * samples (8 or 16 bits per component) is cut into blocks of `channels`
 * samples. Output step k filters blocks k .. k + taps - 1 channel by channel
 * with `taps` real coefficients per channel, then Fourier-transforms the
 * `channels` filter outputs:
 *
 *     fir[k][c]     = sum over t < taps of h[t * channels + c] * x[(k + taps - 1 - t) * channels + c]
 *     spectrum[k][f] = sum over c < channels of fir[k][c] * exp(-2 pi i c f / channels)
 *
 * for k < samples / channels - taps + 1 (no history is carried in). h is a
 * Hamming-windowed sinc low-pass prototype of length channels * taps with
 * cutoff 1/channels.
 *
 * The FIR is this plugin's kernel (ppf.cl) and is what gets tuned, with the
 * layout it writes (out_layout); the FFT is clFFT, planned once per problem
 * in setup and enqueued after the FIR on the same queue. Their events are
 * labelled "fir" and "fft", so every measurement reports the two medians
 * besides the total. With fft=false the run is the FIR alone.
 *
 * The work is done by the stage module (ppf_stage.h), which a pipeline
 * shares; this file describes the plugin and wires its callbacks to it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <skytune/plugin.h>

#include "ppf_stage.h"
#include "stage_buffer.h"

/* ------------------------------------------------------------ description data */

/* Defaults are the thesis's main LOFAR scenario, 256 channels x 16 taps. */
static const skytune_problem_param problem_params[] = {
    {"stations", SKYTUNE_INT, "64", "stations, each with two polarizations"},
    {"channels", SKYTUNE_INT, "256",
     "channels = FFT size: a power of two from 2 to 4096 (with fft=false any count)"},
    {"taps", SKYTUNE_INT, "16", "FIR taps per channel"},
    {"samples", SKYTUNE_INT, "200448",
     "complex input samples per station and polarization, a multiple of channels"},
    {"sample_bits", SKYTUNE_INT, "16", "bits per real or imaginary input component: 8 or 16"},
    {"fft", SKYTUNE_BOOL, "true",
     "true: FIR then clFFT (out_layout must end in C); false: the FIR alone, any out_layout"},
    {NULL, 0, NULL, NULL}
};

/* The thesis's LOFAR scenarios (figure 6.1): channels x taps = 4096 in each,
 * so every scenario does the same FIR work per output step. Each preset gives
 * 768 output steps per channel, the batch the thesis names for LOFAR ("768
 * samples, or about one second of data", section 4.7.4): samples =
 * channels * (768 + taps - 1). The thesis measured 16 stations on most
 * platforms and 64 on the Microgrid; 64 keeps a GPU busy for long enough to
 * time reliably (a run is well under a millisecond on a current GPU). */
static const skytune_preset presets[] = {
    {"lofar_256x16", "stations=64,channels=256,taps=16,samples=200448,sample_bits=16",
     "LOFAR scenario 256 channels x 16 taps: 64 stations, 768 output steps, 16-bit samples"},
    {"lofar_128x32", "stations=64,channels=128,taps=32,samples=102272,sample_bits=16",
     "LOFAR scenario 128 channels x 32 taps: 64 stations, 768 output steps, 16-bit samples"},
    {"lofar_64x64", "stations=64,channels=64,taps=64,samples=53184,sample_bits=16",
     "LOFAR scenario 64 channels x 64 taps: 64 stations, 768 output steps, 16-bit samples"},
    {"small", "stations=2,channels=32,taps=8,samples=2272,sample_bits=8",
     "2 stations, 32 channels x 8 taps, 64 output steps, 8-bit samples: for tests and demos"},
    {NULL, NULL, NULL}
};

/* The expression language has no bitwise operators, so "power of two" is
 * said as "divides 4096": the divisors of 4096 are exactly the powers of two
 * up to 4096. The `and` short-circuits, so 4096 % channels is never taken for
 * channels < 2. 4096 is also the ceiling clFFT runs in a single kernel (its
 * limit for single precision is the largest power of two whose complex floats
 * fit in 32 KiB of local memory); larger transforms take several kernels, of
 * which clfftEnqueueTransform returns only the last one's event, so the "fft"
 * time would miss passes. The FIR alone takes any channel count (the thesis
 * tuned its write layouts with 300 channels). Checks run in order and stop at
 * the first failure, so each later check may assume the earlier ones. */
static const skytune_problem_check problem_checks[] = {
    {"stations >= 1", "stations must be at least 1"},
    {"channels >= 1", "channels must be at least 1"},
    {"not fft or (channels >= 2 and 4096 % channels == 0)",
     "with fft, channels must be a power of two from 2 to 4096 (it is the FFT size)"},
    {"samples >= channels and samples % channels == 0",
     "samples must be a positive multiple of channels (whole blocks of one sample per channel)"},
    {"taps >= 1", "taps must be at least 1"},
    {"taps <= samples // channels",
     "taps must be at most samples / channels (the number of input blocks): taps larger than "
     "the samples per channel leave no complete output"},
    {"sample_bits == 8 or sample_bits == 16", "sample_bits must be 8 or 16"},
    {NULL, NULL}
};

/* Value lists. Work-groups start at 8 work-items (PoCL's preferred multiple
 * on a CPU; a GPU wants 32 or more, which the list covers up to 1024).
 * samples_per_item reaches the thesis's largest batch, 32. out_layout is
 * every order of the FIR output's dimensions (Kis 2013, figure 7.2a tunes
 * all 24). */
static const skytune_tuning_param tuning_params[] = {
    {"wg_size", SKYTUNE_POW2, NULL, 8, 1024, 0, "work-items per work-group"},
    {"channels_per_item", SKYTUNE_LIST, "1,2,4,8", 0, 0, 0,
     "station-channels filtered by each work-item (strided by the work-group's width)"},
    {"samples_per_item", SKYTUNE_LIST, "1,2,4,8,16,32", 0, 0, 0,
     "consecutive output steps per work-item: sample batch processing, the delay line kept in "
     "registers"},
    {"both_pols", SKYTUNE_BOOLEAN, NULL, 0, 0, 0,
     "1: a work-item filters both polarizations (one coefficient load for both); "
     "0: one polarization, chosen by the work-item's parity"},
    {"out_layout", SKYTUNE_PERMUTATION, PPF_LETTERS, 0, 0, 0,
     "layout of the FIR output (and of the spectra): station, channel, time (output step), "
     "polarization, outermost first"},
    {NULL, 0, NULL, 0, 0, 0, NULL}
};

/* A work-group covers wg_size * channels_per_item / (2 - both_pols)
 * consecutive station-channels (2 - both_pols work-items per station-channel),
 * so the third rule makes tiles divide the stations' channels exactly; the
 * fourth makes batches divide the output steps. With those, the kernel needs
 * no bounds checks. The fifth rule bounds the registers of the sliding window
 * and the sums (4 floats per unit: 32 units are 128 registers, half of what a
 * GPU work-item may hold) and with them the unrolled code the compiler sees.
 * The last: clFFT transforms runs of `channels` contiguous values, so with
 * the FFT the channel must be the layout's innermost dimension (the thesis's
 * FFT layouts, section 7.2, all end in C). */
static const char *const constraints[] = {
    "wg_size <= device.max_work_group_size",
    "wg_size <= device.max_work_item_size_0",
    "(stations * channels * (2 - both_pols)) % (wg_size * channels_per_item) == 0",
    "(samples // channels - taps + 1) % samples_per_item == 0",
    "channels_per_item * samples_per_item * (1 + both_pols) <= 32",
    "not fft or out_layout == 'STPC' or out_layout == 'SPTC' or out_layout == 'TSPC' or "
    "out_layout == 'TPSC' or out_layout == 'PSTC' or out_layout == 'PTSC'",
    NULL
};

/* --------------------------------------------------------------- run state */

/* The FIR output is the FFT's input, in the configuration's out_layout; the
 * spectra, in the same layout, exist only with fft. */
enum { BUFFER_INPUT, BUFFER_COEFFICIENTS, BUFFER_FIR, BUFFER_SPECTRA, BUFFERS };

typedef struct ppf_state {
    ppf_problem problem;
    int16_t *input;          /* [block][station][channel][pol][re, im], the host copy */
    void *packed;            /* the same as uploaded (ppf_pack_input) */
    float *coefficients;     /* [tap][channel] */
    float *expected;         /* the verified output in canonical order, from `reference`:
                                the spectra with fft, the FIR output without */
    float *result;           /* the same, read back by `read_back` */
    double abs_tol;          /* from `reference` (ppf_fir_tolerance, ppf_spectra_tolerance) */
    support_buffer buffers[BUFFERS];
    ppf_fft fft;
} ppf_state;

typedef struct ppf_launch {
    ppf_fir_launch fir;
    const ppf_state *state;  /* borrowed: outlives every launch */
} ppf_launch;

/* ---------------------------------------------------------------- callbacks */

static void ppf_teardown(void *opaque);

/* The engine calls this before it builds the space and before setup. */
static int ppf_check_problem(const skytune_values *problem, const skytune_device_info *device,
                             skytune_error *err)
{
    ppf_problem p;
    ppf_problem_read(problem, &p);
    return ppf_problem_check_device(&p, device, err);
}

/* The problem passed ppf_check_problem (the engine calls it first). */
static int ppf_setup(const skytune_setup_context *ctx, void **state_out, skytune_error *err)
{
    ppf_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    ppf_problem_read(ctx->problem, &s->problem);
    const ppf_problem *p = &s->problem;
    const size_t inputs = ppf_input_count(p), outputs = ppf_output_count(p);
    s->input = malloc(inputs * 2 * sizeof *s->input);
    s->coefficients = malloc(ppf_coefficient_count(p) * sizeof *s->coefficients);
    s->expected = malloc(outputs * 2 * sizeof *s->expected);
    s->result = malloc(outputs * 2 * sizeof *s->result);
    void *device_input = s->packed = malloc(ppf_input_bytes(p));
    if (!s->input || !s->coefficients || !s->expected || !s->result || !device_input) {
        ppf_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the host arrays (%zu input and %zu output "
                                 "complex values)",
                                 inputs, outputs);
    }
    ppf_generate_input(p, ctx->seed, s->input);
    ppf_make_coefficients(p, s->coefficients);
    ppf_pack_input(p, s->input, device_input);

    /* Both outputs are poisoned: with only the spectra poisoned, a FIR
     * kernel that wrote nothing would pass on the previous configuration's
     * FIR output. */
    const size_t output_bytes = outputs * 2 * sizeof(float);
    s->buffers[BUFFER_INPUT] = support_input("input", device_input, ppf_input_bytes(p));
    s->buffers[BUFFER_COEFFICIENTS] =
        support_input("coefficients", s->coefficients, ppf_coefficient_count(p) * sizeof(float));
    s->buffers[BUFFER_FIR] = support_read_write("FIR output", output_bytes);
    s->buffers[BUFFER_SPECTRA] = support_read_write("spectra", p->fft ? output_bytes : 0);
    int rc = support_buffers_create(s->buffers, BUFFERS, ctx->context, SKYTUNE_ERR_SETUP, err);
    if (rc == SKYTUNE_OK && p->fft) rc = ppf_fft_create(&s->fft, ctx->context, ctx->queue, p, err);
    if (rc) {
        ppf_teardown(s);
        return rc;
    }
    *state_out = s;
    return SKYTUNE_OK;
}

/* The FIR in double rounded to float, and with fft each transform of it in
 * double: the chain the stages' references make. */
static int ppf_reference(void *opaque, skytune_error *err)
{
    ppf_state *s = opaque;
    const ppf_problem *p = &s->problem;
    if (!p->fft) {
        ppf_fir_reference(p, s->input, s->coefficients, s->expected);
        s->abs_tol = ppf_fir_tolerance(p, s->coefficients);
        return SKYTUNE_OK;
    }
    float *fir = malloc(ppf_output_count(p) * 2 * sizeof *fir);
    if (!fir)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the FIR reference");
    ppf_fir_reference(p, s->input, s->coefficients, fir);
    double largest_norm = 0.0;
    int rc = ppf_fft_reference(p, fir, s->expected, &largest_norm, err);
    free(fir);
    if (rc) return rc;
    s->abs_tol = ppf_spectra_tolerance(p, s->coefficients, largest_norm);
    return SKYTUNE_OK;
}

/* What the reference computes, for the engine to compute it once per
 * campaign: the expected output, and the tolerance, which with fft depends
 * on the largest spectrum the reference found, so it is shared with it. */
static int ppf_reference_data(void *opaque, skytune_region *regions, size_t max, size_t *count,
                              skytune_error *err)
{
    ppf_state *s = opaque;
    if (max < 2)
        return skytune_error_set(err, SKYTUNE_ERR_SETUP,
                                 "the reference is 2 regions, room for %zu", max);
    regions[0] = (skytune_region){s->expected,
                                  ppf_output_count(&s->problem) * 2 * sizeof *s->expected};
    regions[1] = (skytune_region){&s->abs_tol, sizeof s->abs_tol};
    *count = 2;
    return SKYTUNE_OK;
}

/* The strides of out_layout, which the engine's -D of the parameters do not
 * give. */
static int ppf_defines(void *opaque, const skytune_values *config, char *buf, size_t len,
                       skytune_error *err)
{
    const ppf_state *s = opaque;
    ppf_config c;
    stage_macros macros;
    int rc = ppf_config_read(config, &c, err);
    if (rc == SKYTUNE_OK) rc = ppf_macros(&s->problem, &c, &macros, err);
    if (rc) return rc;
    if (stage_macros_append_options(&macros, true, buf, len) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "the strides of out_layout '%s' do not "
                                 "fit in the build options", c.out_layout);
    return SKYTUNE_OK;
}

static int ppf_prepare(void *opaque, cl_program program, const skytune_values *config,
                       void **launch_out, skytune_error *err)
{
    ppf_state *s = opaque;
    ppf_config c;
    int rc = ppf_config_read(config, &c, err);
    if (rc) return rc;
    ppf_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    rc = ppf_fir_prepare(&l->fir, program, &s->problem, &c, s->buffers[BUFFER_INPUT].mem,
                         s->buffers[BUFFER_COEFFICIENTS].mem, s->buffers[BUFFER_FIR].mem, err);
    if (rc) {
        free(l);
        return rc;
    }
    l->state = s;
    *launch_out = l;
    return SKYTUNE_OK;
}

static int ppf_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    ppf_state *s = opaque;
    return support_buffers_poison(s->buffers, BUFFERS, queue, err);
}

/* The FIR kernel, then with fft the batched FFT, which waits for it (the
 * queue is in order; the wait also holds on one that is not). */
static int ppf_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                       skytune_error *err)
{
    const ppf_launch *l = opaque;
    const ppf_state *s = l->state;
    cl_event fir_done = NULL;
    int rc = ppf_fir_enqueue(&l->fir, queue, events, &fir_done, err);
    if (rc || !s->problem.fft) return rc;
    return ppf_fft_enqueue(&s->fft, queue, fir_done, s->buffers[BUFFER_FIR].mem,
                           s->buffers[BUFFER_SPECTRA].mem, events, err);
}

/* The output (the spectra with fft, else the FIR output) is read back
 * right after the verification run, in canonical order, so it is compared
 * with the reference element by element whatever out_layout is, and a
 * mismatch's index means the same for every layout. */
static int ppf_read_back(void *opaque, const skytune_values *config, cl_command_queue queue,
                         skytune_error *err)
{
    ppf_state *s = opaque;
    const ppf_problem *p = &s->problem;
    ppf_config c;
    int rc = ppf_config_read(config, &c, err);
    if (rc) return rc;
    int64_t sizes[4];
    ppf_output_sizes(p, sizes);
    const support_buffer *output = &s->buffers[p->fft ? BUFFER_SPECTRA : BUFFER_FIR];
    return stage_read_canonical(queue, output, c.out_layout, s->result, PPF_CANONICAL_LAYOUT,
                                PPF_LETTERS, sizes, 2 * sizeof(float), err);
}

/* Compares what ppf_read_back read, off the device. The tolerance is
 * worked out in ppf_stage.c. */
static int ppf_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                      skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    (void)queue;
    (void)err;
    ppf_state *s = opaque;
    const ppf_problem *p = &s->problem;
    skytune_verify_floats(report, p->fft ? "spectra" : "fir", s->result, s->expected,
                          ppf_output_count(p) * 2, s->abs_tol, 0.0);
    return SKYTUNE_OK;
}

static void ppf_release(void *opaque)
{
    ppf_launch *l = opaque;
    if (!l) return;
    ppf_fir_release(&l->fir);
    free(l);
}

/* Safe on a partly built state. */
/* What a filter bank exchanges with the host: the station samples and the
 * taps in, the verified product out (the spectra with fft, the FIR output
 * without). */
static int ppf_transfers(void *opaque, skytune_transfer *list, size_t max, size_t *count,
                         skytune_error *err)
{
    const ppf_state *s = opaque;
    const support_buffer *out = &s->buffers[s->problem.fft ? BUFFER_SPECTRA : BUFFER_FIR];
    *count = 0;
    if (skytune_transfer_add(list, max, count, "upload input", 1, s->packed,
                             s->buffers[BUFFER_INPUT].bytes) ||
        skytune_transfer_add(list, max, count, "upload coefficients", 1, s->coefficients,
                             s->buffers[BUFFER_COEFFICIENTS].bytes) ||
        skytune_transfer_add(list, max, count,
                             s->problem.fft ? "download spectra" : "download FIR output", 0, NULL,
                             out->bytes))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more transfers than %zu", max);
    return SKYTUNE_OK;
}

static void ppf_teardown(void *opaque)
{
    ppf_state *s = opaque;
    if (!s) return;
    ppf_fft_destroy(&s->fft);
    support_buffers_release(s->buffers, BUFFERS);
    free(s->input);
    free(s->packed);
    free(s->coefficients);
    free(s->expected);
    free(s->result);
    free(s);
}

/* The thesis's counts (section 4.2.1): a FIR output of complex samples and
 * `taps` real coefficients costs 2 taps multiplications and 2 (taps - 1)
 * additions, 2 + 4 (taps - 1) FLOPs; an FFT of N points is taken as
 * 5 N log2(N) FLOPs. One run computes channels FIR outputs and, with fft,
 * one FFT per transform. */
static double ppf_flops(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    ppf_problem p;
    ppf_problem_read(problem, &p);
    return ppf_count_flops(&p);
}

/* Compulsory traffic of the passes: the FIR reads every input sample
 * (2 * sample_bits / 8 bytes) and the coefficients once and writes its output
 * (8 bytes a complex float); the FFT reads that and writes the spectra (16
 * bytes a point). Rereading inputs for overlapping windows, which caches and
 * sample batching absorb, is not counted. */
static double ppf_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    ppf_problem p;
    ppf_problem_read(problem, &p);
    return ppf_count_bytes(&p);
}

/* -------------------------------------------------------------- description */

static const skytune_plugin ppf_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "ppf",
    .version = "2.0",
    .description = "polyphase filter bank: tuned FIR per channel and its output layout, then "
                   "clFFT across channels (van der Veldt 2011; Kis 2013)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = ppf_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = NULL,
    .kernel_source = ppf_cl_source,
    .generate_source = NULL,
    .defines = ppf_defines,
    .setup = ppf_setup,
    .reference = ppf_reference,
    .reference_data = ppf_reference_data,
    .prepare = ppf_prepare,
    .clear_outputs = ppf_clear_outputs,
    .enqueue = ppf_enqueue,
    .read_back = ppf_read_back,
    .verify = ppf_verify,
    .release = ppf_release,
    .teardown = ppf_teardown,
    .flops = ppf_flops,
    .bytes = ppf_bytes,
    .transfers = ppf_transfers,
};

SKYTUNE_DEFINE_PLUGIN(ppf_plugin)
