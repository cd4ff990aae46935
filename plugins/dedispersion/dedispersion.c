/*
 * dedispersion — brute-force incoherent dedispersion, after Sclocco et al.,
 * "Auto-Tuning Dedispersion for Many-Core Accelerators" (IPDPSW 2014).
 *
 * Input: `channels` frequency channels of `samples + max_delay` float samples
 * each, channel-major. Output: `dms` dedispersed time series of `samples`
 * floats, DM-major:
 *
 *     output[d][s] = sum over c of input[c][s + delay(c, d)]
 *
 *     delay(c, d) = round(4150 * DM_d * (1/f_c^2 - 1/f_h^2) * samples_per_second)
 *     DM_d = first_dm + d * dm_step            (pc/cm^3)
 *     f_c  = min_freq + c * (max_freq - min_freq) / channels   (MHz)
 *     f_h  = max_freq
 *
 * f_c is the lower edge of channel c: channel 0 starts at min_freq and gets
 * the largest delay. `round` rounds halves away from zero (llround). With
 * zero_dm every delay is 0 (the paper's perfect-reuse experiment, section
 * IV-C): every DM then reads the same input.
 *
 * The four tuning parameters of the paper are wi_samples, wi_dms (work-items
 * per work-group along time and DM) and el_samples, el_dms (outputs per
 * work-item along time and DM). local_mem (stage the input in local memory
 * or rely on caches, which the paper leaves to the platform) and unroll
 * (channels per step of the channel loop) are added here.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pcg32.h>
#include <skytune/plugin.h>
#include <skytune/plugin_checks.h>

#include "plugin_support.h"

extern const char dedispersion_cl_source[];

/* ------------------------------------------------------------ description data */

/* Defaults are the paper's Apertif setup with 256 trial DMs. */
static const skytune_problem_param problem_params[] = {
    {"channels", SKYTUNE_INT, "1024", "frequency channels"},
    {"samples", SKYTUNE_INT, "20000", "output samples per DM (one second at 20000 samples/s)"},
    {"dms", SKYTUNE_INT, "256", "trial dispersion measures"},
    {"min_freq", SKYTUNE_FLOAT, "1420.0", "lowest frequency, MHz (lower edge of channel 0)"},
    {"max_freq", SKYTUNE_FLOAT, "1720.0", "highest frequency, MHz (the reference f_h)"},
    {"first_dm", SKYTUNE_FLOAT, "0.0", "first trial DM, pc/cm^3"},
    {"dm_step", SKYTUNE_FLOAT, "0.25", "step between trial DMs, pc/cm^3"},
    {"samples_per_second", SKYTUNE_INT, "20000", "time resolution"},
    {"zero_dm", SKYTUNE_BOOL, "false", "all delays 0: every DM reads the same input (perfect reuse)"},
    {NULL, 0, NULL, NULL}
};

static const skytune_preset presets[] = {
    {"small",
     "channels=64,samples=256,dms=8,min_freq=1420,max_freq=1720,first_dm=0,dm_step=0.25,"
     "samples_per_second=20000",
     "Apertif frequencies and rate, 64 channels, 256 samples, 8 DMs: for tests and demos"},
    {"apertif",
     "channels=1024,samples=20000,dms=256,min_freq=1420,max_freq=1720,first_dm=0,dm_step=0.25,"
     "samples_per_second=20000",
     "the paper's Apertif setup: 1420-1720 MHz in 1024 channels, 20000 samples/s, one second"},
    {"lofar",
     "channels=32,samples=200000,dms=256,min_freq=138,max_freq=145,first_dm=0,dm_step=0.25,"
     "samples_per_second=200000",
     "the paper's LOFAR setup: 138-145 MHz in 32 channels, 200000 samples/s, one second"},
    {"apertif_zero_dm",
     "channels=1024,samples=20000,dms=256,min_freq=1420,max_freq=1720,first_dm=0,dm_step=0.25,"
     "samples_per_second=20000,zero_dm=true",
     "the paper's zero-DM experiment (section IV-C) on Apertif: every DM's delays 0, perfect "
     "reuse"},
    {"lofar_zero_dm",
     "channels=32,samples=200000,dms=256,min_freq=138,max_freq=145,first_dm=0,dm_step=0.25,"
     "samples_per_second=200000,zero_dm=true",
     "the paper's zero-DM experiment on LOFAR, where it changed the results"},
    {NULL, NULL, NULL}
};

static const skytune_problem_check problem_checks[] = {
    {"channels >= 1", "channels must be at least 1"},
    {"samples >= 1", "samples must be at least 1"},
    {"dms >= 1", "dms must be at least 1"},
    {"min_freq > 0", "min_freq must be greater than 0 MHz"},
    {"max_freq > min_freq", "max_freq must be greater than min_freq (MHz)"},
    {"first_dm >= 0", "first_dm must be at least 0 (a negative DM would shift samples before the input)"},
    {"dm_step >= 0", "dm_step must be at least 0"},
    {"samples_per_second >= 1", "samples_per_second must be at least 1"},
    {NULL, NULL}
};

/* Value lists. Sample counts of real observations are multiples of the
 * sampling rate (20000 = 2^5 * 5^4, 200000 = 2^6 * 5^5), so the lists along
 * samples hold multiples of 5 besides powers of two: the paper's optima
 * include 250 x 4 work-items and 25 x 4 outputs per work-item. DM counts are
 * usually powers of two. Work-groups are at least 16 wide along samples, the
 * direction of coalesced access: narrower ones leave SIMD lanes idle on every
 * device class (the smallest optimum in the paper is 16 work-items, on the
 * Xeon Phi). The lists are sized so that the `small` preset's space stays at
 * a few hundred configurations (minutes to search exhaustively through PoCL
 * on a laptop) while the paper's setups give spaces of thousands. */
static const skytune_tuning_param tuning_params[] = {
    {"wi_samples", SKYTUNE_LIST, "16,25,32,50,64,100,125,128,250,256,500,512,1000,1024", 0, 0, 0,
     "work-items per work-group along samples"},
    {"wi_dms", SKYTUNE_LIST, "1,2,4,8,16,32", 0, 0, 0, "work-items per work-group along DMs"},
    {"el_samples", SKYTUNE_LIST, "1,2,4,5,8,10,16,20,25", 0, 0, 0,
     "outputs per work-item along samples (accumulators in registers)"},
    {"el_dms", SKYTUNE_LIST, "1,2,4,8", 0, 0, 0,
     "outputs per work-item along DMs (accumulators in registers)"},
    {"local_mem", SKYTUNE_BOOLEAN, NULL, 0, 0, 0,
     "1: stage each channel's input span in local memory; 0: read global memory through caches"},
    {"unroll", SKYTUNE_LIST, "1,4,16", 0, 0, 0,
     "channels per step of the channel loop (fully unrolled; with local_mem, staged per barrier)"},
    {NULL, 0, NULL, 0, 0, 0, NULL}
};

/* The tiles divide the output exactly, as in the paper: no work-item ever
 * needs a bounds check. Staging in local memory only pays when the tile has
 * more than one DM: with a single DM every staged float is read exactly once.
 * The fully unrolled body of the channel loop holds unroll * el_samples *
 * el_dms additions; past a few hundred, code size and register pressure
 * only grow, and compile times explode (PoCL takes over 10 s for 1024). The
 * local-memory footprint depends on the delays, so it is the C constraint
 * below. */
static const char *const constraints[] = {
    "wi_samples * wi_dms <= device.max_work_group_size",
    "wi_samples <= device.max_work_item_size_0",
    "wi_dms <= device.max_work_item_size_1",
    "samples % (wi_samples * el_samples) == 0",
    "dms % (wi_dms * el_dms) == 0",
    "channels % unroll == 0",
    "local_mem == 0 or wi_dms * el_dms > 1",
    "unroll * el_samples * el_dms <= 256",
    NULL
};

/* ------------------------------------------------------------------ the problem */

typedef struct dedispersion_problem {
    int64_t channels, samples, dms, samples_per_second;
    double min_freq, max_freq, first_dm, dm_step;
    int zero_dm;
} dedispersion_problem;

static void problem_read(const skytune_values *values, dedispersion_problem *p)
{
    p->channels = skytune_int(values, "channels");
    p->samples = skytune_int(values, "samples");
    p->dms = skytune_int(values, "dms");
    p->samples_per_second = skytune_int(values, "samples_per_second");
    p->min_freq = skytune_float(values, "min_freq");
    p->max_freq = skytune_float(values, "max_freq");
    p->first_dm = skytune_float(values, "first_dm");
    p->dm_step = skytune_float(values, "dm_step");
    p->zero_dm = skytune_int(values, "zero_dm") != 0;
}

/* Samples of delay per unit of DM in channel c: everything of the delay
 * formula but the DM. Largest for channel 0, the lowest frequency. */
static double delay_per_dm(const dedispersion_problem *p, int64_t channel)
{
    const double bandwidth = (p->max_freq - p->min_freq) / (double)p->channels;
    const double f = p->min_freq + (double)channel * bandwidth;
    return 4150.0 * (1.0 / (f * f) - 1.0 / (p->max_freq * p->max_freq)) *
           (double)p->samples_per_second;
}

static int64_t channel_delay(const dedispersion_problem *p, int64_t channel, int64_t dm_index)
{
    if (p->zero_dm) return 0;
    const double dm = p->first_dm + (double)dm_index * p->dm_step;
    return (int64_t)llround(dm * delay_per_dm(p, channel));
}

/* Exported so that tests (and curious users, through dlsym) can check the
 * delay formula against hand-computed values. */
SKYTUNE_EXPORT int64_t skytune_dedispersion_delay(const skytune_values *problem, int64_t channel,
                                                  int64_t dm_index);
SKYTUNE_EXPORT int64_t skytune_dedispersion_delay(const skytune_values *problem, int64_t channel,
                                                  int64_t dm_index)
{
    dedispersion_problem p;
    problem_read(problem, &p);
    return channel_delay(&p, channel, dm_index);
}

/* An upper bound on delay(c, d + tile_dms - 1) - delay(c, d) over every
 * channel c and DM d: how far the shifts of one tile's DMs spread.
 *
 * Unrounded, the spread is delay_per_dm(c) * dm_step * (tile_dms - 1), at
 * most channel 0's. Rounding both ends moves the difference by less than 1,
 * so the rounded spread is at most floor(unrounded) + 1; one more absorbs
 * floating-point noise in the unrounded value. The bound needs only the
 * problem, not the delay table, because the C constraint (which has no plugin
 * state) and `defines` must agree on it; prepare checks it against the table.
 * Saturates at INT32_MAX, far beyond any local memory. */
static int64_t tile_shift_spread(const dedispersion_problem *p, int64_t tile_dms)
{
    if (p->zero_dm || tile_dms <= 1 || p->dm_step == 0.0) return 0;
    const double spread = delay_per_dm(p, 0) * p->dm_step * (double)(tile_dms - 1);
    if (!(spread < (double)INT32_MAX)) return INT32_MAX;
    return (int64_t)floor(spread) + 2;
}

/* Floats staged per channel by a work-group with local_mem on. */
static int64_t max_tile_span(const dedispersion_problem *p, const skytune_values *config)
{
    const int64_t tile_samples =
        skytune_int(config, "wi_samples") * skytune_int(config, "el_samples");
    const int64_t tile_dms = skytune_int(config, "wi_dms") * skytune_int(config, "el_dms");
    return tile_samples + tile_shift_spread(p, tile_dms);
}

/* What an expression cannot say: with local_mem, `unroll` channels of
 * max_tile_span floats each must fit in the device's local memory. */
static int dedispersion_constraint(const skytune_values *config, const skytune_values *problem,
                                   const skytune_device_info *device, const char **why)
{
    if (!skytune_int(config, "local_mem")) return 1;
    dedispersion_problem p;
    problem_read(problem, &p);
    const double bytes = (double)skytune_int(config, "unroll") *
                         (double)max_tile_span(&p, config) * (double)sizeof(float);
    if (bytes <= (double)device->local_mem_size) return 1;
    *why = "local_mem: unroll channels of the tile's span do not fit in local memory";
    return 0;
}

/* --------------------------------------------------------------- run state */

enum { BUFFER_INPUT, BUFFER_SHIFTS, BUFFER_OUTPUT, BUFFERS };

typedef struct dedispersion_state {
    dedispersion_problem problem;
    int64_t max_delay;      /* largest entry of the shift table */
    int64_t in_stride;      /* floats per input channel row: samples + max_delay */
    float *input;           /* [channels][in_stride] */
    int *shifts;            /* [dms][channels] */
    float *expected;        /* [dms][samples], from `reference` */
    float *result;          /* [dms][samples], read back by `read_back` */
    support_buffer buffers[BUFFERS];
} dedispersion_state;

/* What the kernels index with int, and the problem parameters that shrink
 * the arrays: for the messages of the size checks. */
#define INDEXED_ITEMS "elements"
#define SIZE_HINT "channels, samples, dms or the DM range"

/* ---------------------------------------------------------------- callbacks */

static void dedispersion_teardown(void *opaque);

/* The engine calls this before it builds the space and before setup: the
 * delays must fit the int shift table, and the arrays the kernel's int
 * indices and the device's largest buffer. */
static int dedispersion_check_problem(const skytune_values *problem,
                                      const skytune_device_info *device, skytune_error *err)
{
    dedispersion_problem p;
    problem_read(problem, &p);
    if (p.channels < 1 || p.samples < 1 || p.dms < 1)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "channels, samples and dms must be at least 1");
    if (!(p.min_freq > 0.0 && p.max_freq > p.min_freq && p.first_dm >= 0.0 && p.dm_step >= 0.0))
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "need 0 < min_freq < max_freq, first_dm >= 0 and dm_step >= 0 "
                                 "(delays must be non-negative and grow with the DM)");

    /* Shifts grow with the DM and shrink with the frequency, so the largest
     * is channel 0's at the last DM; bound it before rounding so that the
     * table cannot overflow an int. */
    const double last_dm = p.first_dm + (double)(p.dms - 1) * p.dm_step;
    const double largest_delay = p.zero_dm ? 0.0 : last_dm * delay_per_dm(&p, 0);
    if (!(largest_delay < (double)(INT_MAX - p.samples) - 1.0))
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "the largest delay (%.0f samples, channel 0 at DM %g) is out of "
                                 "range; reduce dms, dm_step or samples_per_second",
                                 largest_delay, last_dm);
    const int64_t in_stride = p.samples + channel_delay(&p, 0, p.dms - 1);
    const double input_elements = (double)p.channels * (double)in_stride;
    const double output_elements = (double)p.dms * (double)p.samples;
    const double shift_elements = (double)p.dms * (double)p.channels;
    int rc;
    if ((rc = skytune_check_index_extent("input", input_elements, INDEXED_ITEMS, SIZE_HINT, err)) ||
        (rc = skytune_check_index_extent("output", output_elements,
                                         INDEXED_ITEMS, SIZE_HINT, err)) ||
        (rc = skytune_check_index_extent("shift table", shift_elements,
                                         INDEXED_ITEMS, SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("input", input_elements * sizeof(float),
                                       device, SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("output", output_elements * sizeof(float),
                                       device, SIZE_HINT, err)))
        return rc;
    return SKYTUNE_OK;
}

/* The problem passed dedispersion_check_problem (the engine calls it first). */
static int dedispersion_setup(const skytune_setup_context *ctx, void **state_out,
                              skytune_error *err)
{
    dedispersion_problem p;
    problem_read(ctx->problem, &p);
    const int64_t max_delay = channel_delay(&p, 0, p.dms - 1);
    const int64_t in_stride = p.samples + max_delay;

    dedispersion_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    s->problem = p;
    s->max_delay = max_delay;
    s->in_stride = in_stride;
    const size_t input_count = (size_t)p.channels * (size_t)in_stride;
    const size_t output_count = (size_t)p.dms * (size_t)p.samples;
    const size_t shift_count = (size_t)p.dms * (size_t)p.channels;
    s->input = malloc(input_count * sizeof(float));
    s->shifts = malloc(shift_count * sizeof(int));
    s->expected = malloc(output_count * sizeof(float));
    s->result = malloc(output_count * sizeof(float));
    if (!s->input || !s->shifts || !s->expected || !s->result) {
        dedispersion_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the host arrays (%zu input, %zu output floats)",
                                 input_count, output_count);
    }

    for (int64_t d = 0; d < p.dms; d++)
        for (int64_t c = 0; c < p.channels; c++)
            s->shifts[d * p.channels + c] = (int)channel_delay(&p, c, d);

    /* Uniform in [0, 1): non-negative inputs are what the verification
     * tolerance's error bound relies on (see dedispersion_verify). */
    pcg32 rng;
    pcg32_seed(&rng, ctx->seed, 0);
    for (size_t i = 0; i < input_count; i++) s->input[i] = pcg32_float(&rng);

    s->buffers[BUFFER_INPUT] = support_input("input", s->input, input_count * sizeof(float));
    s->buffers[BUFFER_SHIFTS] = support_input("shifts", s->shifts, shift_count * sizeof(int));
    s->buffers[BUFFER_OUTPUT] = support_output("output", output_count * sizeof(float));
    int rc = support_buffers_create(s->buffers, BUFFERS, ctx->context, SKYTUNE_ERR_SETUP, err);
    if (rc) {
        dedispersion_teardown(s);
        return rc;
    }

    *state_out = s;
    return SKYTUNE_OK;
}

/* Algorithm 1 of the paper, with the channel loop moved outside the sample
 * loop so that the innermost loop runs over contiguous memory. Sums are in
 * double, so the reference is the exact sum rounded once to float. */
static int dedispersion_reference(void *opaque, skytune_error *err)
{
    dedispersion_state *s = opaque;
    const dedispersion_problem *p = &s->problem;
    double *sum = malloc((size_t)p->samples * sizeof *sum);
    if (!sum)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for %lld sums",
                                 (long long)p->samples);
    for (int64_t d = 0; d < p->dms; d++) {
        for (int64_t t = 0; t < p->samples; t++) sum[t] = 0.0;
        for (int64_t c = 0; c < p->channels; c++) {
            const float *row = s->input + c * s->in_stride + s->shifts[d * p->channels + c];
            for (int64_t t = 0; t < p->samples; t++) sum[t] += row[t];
        }
        float *out = s->expected + d * p->samples;
        for (int64_t t = 0; t < p->samples; t++) out[t] = (float)sum[t];
    }
    free(sum);
    return SKYTUNE_OK;
}

/* The reference is the one array `expected`: the engine computes it once
 * per campaign and copies it into every later worker. */
static int dedispersion_reference_data(void *opaque, skytune_region *regions, size_t max,
                                       size_t *count, skytune_error *err)
{
    (void)max;
    (void)err;
    dedispersion_state *s = opaque;
    regions[0] = (skytune_region){s->expected, (size_t)s->problem.dms *
                                                   (size_t)s->problem.samples * sizeof(float)};
    *count = 1;
    return SKYTUNE_OK;
}

/* Build options beyond the parameters: the input row stride and the local
 * staging size, both derived from the delays. */
static int dedispersion_defines(void *opaque, const skytune_values *config, char *buf, size_t len,
                                skytune_error *err)
{
    const dedispersion_state *s = opaque;
    const int written = snprintf(buf, len, "-D IN_STRIDE=%lld -D MAX_TILE_SPAN=%lld",
                                 (long long)s->in_stride,
                                 (long long)max_tile_span(&s->problem, config));
    if (written >= 0 && (size_t)written < len) return SKYTUNE_OK;
    return skytune_error_set(err, SKYTUNE_ERR_SETUP, "the stride and tile defines do not fit");
}

/* The configuration must satisfy the constraints; checking again here turns
 * a configuration that bypassed them into a clear error instead of an
 * out-of-bounds kernel. */
static int check_configuration(const dedispersion_state *s, const skytune_values *config,
                               skytune_error *err)
{
    const dedispersion_problem *p = &s->problem;
    const int64_t wi_samples = skytune_int(config, "wi_samples");
    const int64_t wi_dms = skytune_int(config, "wi_dms");
    const int64_t el_samples = skytune_int(config, "el_samples");
    const int64_t el_dms = skytune_int(config, "el_dms");
    const int64_t unroll = skytune_int(config, "unroll");
    if (wi_samples < 1 || wi_dms < 1 || el_samples < 1 || el_dms < 1 || unroll < 1 ||
        p->samples % (wi_samples * el_samples) != 0 || p->dms % (wi_dms * el_dms) != 0 ||
        p->channels % unroll != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "wi_samples*el_samples must divide samples (%lld), wi_dms*el_dms "
                                 "must divide dms (%lld) and unroll must divide channels (%lld)",
                                 (long long)p->samples, (long long)p->dms,
                                 (long long)p->channels);
    if (!skytune_int(config, "local_mem")) return SKYTUNE_OK;

    /* The staged span must cover the real spread of every tile's shifts. */
    const int64_t tile_dms = wi_dms * el_dms;
    const int64_t room = tile_shift_spread(p, tile_dms);
    for (int64_t first = 0; first < p->dms; first += tile_dms) {
        const int *low = s->shifts + first * p->channels;
        const int *high = s->shifts + (first + tile_dms - 1) * p->channels;
        for (int64_t c = 0; c < p->channels; c++)
            if (high[c] - low[c] > room || high[c] < low[c])
                return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                         "the shifts of DMs %lld..%lld in channel %lld spread "
                                         "by %d samples, more than the %lld staged",
                                         (long long)first, (long long)(first + tile_dms - 1),
                                         (long long)c, high[c] - low[c], (long long)room);
    }
    return SKYTUNE_OK;
}

/* The run is the one kernel "dedisperse": a work-item per el_samples x
 * el_dms outputs, work-groups of wi_samples x wi_dms. */
static int dedispersion_prepare(void *opaque, cl_program program, const skytune_values *config,
                                void **launch_out, skytune_error *err)
{
    dedispersion_state *s = opaque;
    int rc = check_configuration(s, config, err);
    if (rc) return rc;
    const support_kernel_spec kernel = {
        .name = "dedisperse",
        .label = "dedisperse",
        .args = {SUPPORT_ARG(s->buffers[BUFFER_INPUT].mem),
                 SUPPORT_ARG(s->buffers[BUFFER_SHIFTS].mem),
                 SUPPORT_ARG(s->buffers[BUFFER_OUTPUT].mem)},
        .dims = 2,
        .global = {(size_t)(s->problem.samples / skytune_int(config, "el_samples")),
                   (size_t)(s->problem.dms / skytune_int(config, "el_dms"))},
        .local = {(size_t)skytune_int(config, "wi_samples"),
                  (size_t)skytune_int(config, "wi_dms")},
    };
    return support_kernel_new(program, &kernel, launch_out, err);
}

static int dedispersion_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    dedispersion_state *s = opaque;
    return support_buffers_poison(s->buffers, BUFFERS, queue, err);
}

/* The output read back right after the verification run, so that the
 * comparison runs after the timed runs, off the device. */
static int dedispersion_read_back(void *opaque, const skytune_values *config,
                                  cl_command_queue queue, skytune_error *err)
{
    (void)config;
    dedispersion_state *s = opaque;
    return support_buffer_read(&s->buffers[BUFFER_OUTPUT], queue, s->result, err);
}

/* The kernel adds `channels` floats one at a time in float; the reference
 * adds them in double and rounds once. For non-negative terms (the inputs
 * are in [0, 1)), recursive float summation in any order is off by at most
 * (channels - 1) * u relative to the exact sum, with u = 2^-24, and the
 * reference's rounding adds u/2: a relative tolerance of 2 * channels * u
 * holds for every correct kernel with room to spare, while a wrong shift or
 * a missing channel changes a sum by about 1/channels of its value, well
 * above it for every realistic channel count. The sums are positive, so no
 * absolute tolerance is needed. */
static double dedispersion_rel_tol(const dedispersion_state *s)
{
    return 2.0 * (double)s->problem.channels * ldexp(1.0, -24);
}

static size_t dedispersion_output_count(const dedispersion_state *s)
{
    return (size_t)s->problem.dms * (size_t)s->problem.samples;
}

/* Compares what dedispersion_read_back read; the queue is not used. */
static int dedispersion_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                               skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    (void)queue;
    (void)err;
    dedispersion_state *s = opaque;
    skytune_verify_floats(report, "dedispersed", s->result, s->expected,
                          dedispersion_output_count(s), 0.0, dedispersion_rel_tol(s));
    return SKYTUNE_OK;
}

/* The same comparison, for the engine to make on the device: at thousands
 * of DMs the output is gigabytes, which reading back would take longer
 * than the kernel. */
static int dedispersion_device_outputs(void *opaque, const skytune_values *config,
                                       skytune_device_output *outputs, size_t max, size_t *count,
                                       skytune_error *err)
{
    (void)config;
    const dedispersion_state *s = opaque;
    *count = 0;
    if (skytune_device_output_add(outputs, max, count, "dedispersed",
                                  s->buffers[BUFFER_OUTPUT].mem, dedispersion_output_count(s),
                                  s->expected, 0.0, dedispersion_rel_tol(s)))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more outputs than %zu", max);
    return SKYTUNE_OK;
}

/* A dedisperser's exchange with the host: the channels' samples in, the
 * dedispersed series out. The shift table depends on the problem alone and
 * stays on the device. */
static int dedispersion_transfers(void *opaque, skytune_transfer *list, size_t max,
                                  size_t *count, skytune_error *err)
{
    const dedispersion_state *s = opaque;
    *count = 0;
    if (skytune_transfer_add(list, max, count, "upload input", 1, s->input,
                             s->buffers[BUFFER_INPUT].bytes) ||
        skytune_transfer_add(list, max, count, "download output", 0, NULL,
                             s->buffers[BUFFER_OUTPUT].bytes))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more transfers than %zu", max);
    return SKYTUNE_OK;
}

static void dedispersion_teardown(void *opaque)
{
    dedispersion_state *s = opaque;
    if (!s) return;
    support_buffers_release(s->buffers, BUFFERS);
    free(s->input);
    free(s->shifts);
    free(s->expected);
    free(s->result);
    free(s);
}

/* The paper's counts (section III-A): one addition per channel per output;
 * the minimal traffic is 4 bytes read per addition plus 4 bytes written per
 * output, i.e. 4 * dms * samples * (channels + 1) bytes (AI just under 1/4).
 * Reuse between DMs makes the real traffic smaller, which is why tuned
 * kernels can report more GB/s than the memory delivers. */
static double dedispersion_flops(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    return (double)skytune_int(problem, "dms") * (double)skytune_int(problem, "samples") *
           (double)skytune_int(problem, "channels");
}

static double dedispersion_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    return 4.0 * (double)skytune_int(problem, "dms") * (double)skytune_int(problem, "samples") *
           ((double)skytune_int(problem, "channels") + 1.0);
}

/* -------------------------------------------------------------- description */

static const skytune_plugin dedispersion_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "dedispersion",
    .version = "1.0",
    .description = "brute-force dedispersion of channelised time series (Sclocco et al. 2014)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = dedispersion_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = dedispersion_constraint,
    .kernel_source = dedispersion_cl_source,
    .generate_source = NULL,
    .defines = dedispersion_defines,
    .setup = dedispersion_setup,
    .reference = dedispersion_reference,
    .reference_data = dedispersion_reference_data,
    .prepare = dedispersion_prepare,
    .clear_outputs = dedispersion_clear_outputs,
    .enqueue = support_kernel_run,
    .read_back = dedispersion_read_back,
    .verify = dedispersion_verify,
    .release = support_kernel_free,
    .teardown = dedispersion_teardown,
    .flops = dedispersion_flops,
    .bytes = dedispersion_bytes,
    .transfers = dedispersion_transfers,
    .device_outputs = dedispersion_device_outputs,
};

SKYTUNE_DEFINE_PLUGIN(dedispersion_plugin)
