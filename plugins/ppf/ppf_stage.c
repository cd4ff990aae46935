#include "ppf_stage.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pcg32.h>
#include <skytune/plugin_checks.h>

#include "stage_buffer.h"

/* ------------------------------------------------------------ the problem */

void ppf_problem_read(const skytune_values *problem, ppf_problem *p)
{
    p->stations = skytune_int(problem, "stations");
    p->channels = skytune_int(problem, "channels");
    p->taps = skytune_int(problem, "taps");
    p->samples = skytune_int(problem, "samples");
    p->sample_bits = skytune_int(problem, "sample_bits");
    p->fft = skytune_int(problem, "fft") != 0;
    p->blocks = p->channels > 0 ? p->samples / p->channels : 0;
    p->steps = p->blocks - p->taps + 1;
    p->transforms = p->stations * 2 * p->steps;
}

int ppf_problem_check(const ppf_problem *p, skytune_error *err)
{
    if (p->stations < 1)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "stations must be at least 1");
    if (p->channels < 1)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "channels must be at least 1");
    if (p->fft &&
        (p->channels < 2 || p->channels > 4096 || (p->channels & (p->channels - 1)) != 0))
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "with fft, channels must be a power of two from 2 to 4096, not "
                                 "%lld",
                                 (long long)p->channels);
    if (p->samples < p->channels || p->samples % p->channels != 0)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "samples must be a positive multiple of channels (%lld), not %lld",
                                 (long long)p->channels, (long long)p->samples);
    if (p->taps < 1 || p->taps > p->blocks)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "taps must be from 1 to samples / channels = %lld, not %lld",
                                 (long long)p->blocks, (long long)p->taps);
    if (p->sample_bits != 8 && p->sample_bits != 16)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "sample_bits must be 8 or 16, not %lld",
                                 (long long)p->sample_bits);
    return SKYTUNE_OK;
}

/* Counts in double for the checks: an int64_t product could overflow for
 * the largest problems. */
static double input_values(const ppf_problem *p)
{
    return (double)p->stations * 2.0 * (double)p->samples;
}

static double output_values(const ppf_problem *p)
{
    return (double)p->transforms * (double)p->channels;
}

/* What the kernel indexes with int, and the problem parameters that shrink
 * the arrays: for the messages of the size checks. */
#define INDEXED_ITEMS "elements"
#define SIZE_HINT "stations or samples"

int ppf_problem_check_device(const ppf_problem *p, const skytune_device_info *device,
                             skytune_error *err)
{
    int rc = ppf_problem_check(p, err);
    if (rc) return rc;
    const double sample_bytes = 2.0 * (double)p->sample_bits / 8.0;
    if ((rc = skytune_check_index_extent("input", input_values(p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_index_extent("output", output_values(p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_allocation("input", input_values(p) * sample_bytes, device,
                                       SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("FIR output", output_values(p) * 8.0, device, SIZE_HINT,
                                       err)))
        return rc;
    return SKYTUNE_OK;
}

size_t ppf_input_count(const ppf_problem *p) { return (size_t)input_values(p); }

size_t ppf_coefficient_count(const ppf_problem *p) { return (size_t)(p->taps * p->channels); }

size_t ppf_output_count(const ppf_problem *p) { return (size_t)output_values(p); }

size_t ppf_input_bytes(const ppf_problem *p)
{
    return ppf_input_count(p) * 2 * (size_t)(p->sample_bits / 8);
}

void ppf_output_sizes(const ppf_problem *p, int64_t sizes[4])
{
    sizes[0] = p->stations;
    sizes[1] = p->channels;
    sizes[2] = p->steps;
    sizes[3] = 2;
}

/* ------------------------------------------------------- a configuration */

int ppf_config_read(const skytune_values *config, ppf_config *c, skytune_error *err)
{
    c->wg_size = skytune_int(config, "wg_size");
    c->channels_per_item = skytune_int(config, "channels_per_item");
    c->samples_per_item = skytune_int(config, "samples_per_item");
    c->both_pols = skytune_int(config, "both_pols") != 0;
    return stage_read_layout(config, "out_layout", PPF_LETTERS, c->out_layout, err);
}

int ppf_config_check(const ppf_problem *p, const ppf_config *c, skytune_error *err)
{
    const int64_t lanes = 2 - c->both_pols;
    if (c->wg_size < lanes || c->wg_size % lanes != 0 || c->channels_per_item < 1 ||
        c->samples_per_item < 1 ||
        (p->stations * p->channels * lanes) % (c->wg_size * c->channels_per_item) != 0 ||
        p->steps % c->samples_per_item != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "wg_size * channels_per_item must divide stations * channels * "
                                 "(2 - both_pols) = %lld and samples_per_item must divide the "
                                 "%lld output steps",
                                 (long long)(p->stations * p->channels * lanes),
                                 (long long)p->steps);
    if (p->fft && c->out_layout[strlen(c->out_layout) - 1] != 'C')
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "out_layout '%s': with fft the layout must end in C (the FFT "
                                 "transforms contiguous channels)",
                                 c->out_layout);
    return SKYTUNE_OK;
}

int ppf_macros(const ppf_problem *p, const ppf_config *c, stage_macros *m, skytune_error *err)
{
    stage_macros_init(m);
    int64_t sizes[4];
    ppf_output_sizes(p, sizes);
    if (stage_macros_add_int(m, "stations", p->stations, false) ||
        stage_macros_add_int(m, "channels", p->channels, false) ||
        stage_macros_add_int(m, "taps", p->taps, false) ||
        stage_macros_add_int(m, "samples", p->samples, false) ||
        stage_macros_add_int(m, "sample_bits", p->sample_bits, false) ||
        stage_macros_add_int(m, "fft", p->fft, false) ||
        stage_macros_add_int(m, "wg_size", c->wg_size, false) ||
        stage_macros_add_int(m, "channels_per_item", c->channels_per_item, false) ||
        stage_macros_add_int(m, "samples_per_item", c->samples_per_item, false) ||
        stage_macros_add_int(m, "both_pols", c->both_pols, false) ||
        stage_macros_add_strides(m, "OUT", c->out_layout, PPF_LETTERS, sizes))
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "cannot list the FIR's macros for out_layout '%s'",
                                 c->out_layout);
    return SKYTUNE_OK;
}

int ppf_macros_of_values(const skytune_values *problem, const skytune_values *config,
                         stage_macros *m, skytune_error *err)
{
    ppf_problem p;
    ppf_config c;
    ppf_problem_read(problem, &p);
    int rc = ppf_config_read(config, &c, err);
    return rc ? rc : ppf_macros(&p, &c, m, err);
}

/* ------------------------------------------------------- host-side data */

void ppf_generate_input(const ppf_problem *p, uint64_t seed, int16_t *input)
{
    /* Uniform over the whole range of the sample type: the largest values a
     * station can send are the ones that test the float conversion and the
     * tolerance. */
    pcg32 rng;
    pcg32_seed(&rng, seed, 0);
    const uint32_t range = 1u << p->sample_bits;
    const int32_t lowest = -(int32_t)(range / 2);
    const size_t values = ppf_input_count(p) * 2;
    for (size_t i = 0; i < values; i++)
        input[i] = (int16_t)(lowest + (int32_t)pcg32_bounded(&rng, range));
}

void ppf_pack_input(const ppf_problem *p, const int16_t *input, void *device_input)
{
    const size_t values = ppf_input_count(p) * 2;
    if (p->sample_bits == 16) {
        memcpy(device_input, input, values * sizeof *input);
        return;
    }
    int8_t *narrow = device_input;
    for (size_t i = 0; i < values; i++) narrow[i] = (int8_t)input[i];
}

/* Coefficient n of the prototype low-pass filter, 0 <= n < length with
 * length = channels * taps: an ideal low-pass with cutoff 1/channels of the
 * sampling rate (one channel's width; its impulse response is
 * sinc(m / channels)), centred on (length - 1) / 2 and shaped by a Hamming
 * window. Channel c's FIR uses h[t * channels + c] for tap t. The peak is 1
 * and each channel's coefficients sum to about 1, so a channel passes its
 * band at unit gain. */
static double prototype_coefficient(int64_t n, int64_t length, int64_t channels)
{
    const double pi = 3.14159265358979323846;
    const double m = ((double)n - (double)(length - 1) / 2.0) / (double)channels;
    const double sinc = m == 0.0 ? 1.0 : sin(pi * m) / (pi * m);
    const double window =
        length > 1 ? 0.54 - 0.46 * cos(2.0 * pi * (double)n / (double)(length - 1)) : 1.0;
    return sinc * window;
}

void ppf_make_coefficients(const ppf_problem *p, float *coefficients)
{
    const int64_t length = p->channels * p->taps;
    for (int64_t n = 0; n < length; n++)
        coefficients[n] = (float)prototype_coefficient(n, length, p->channels);
}

void ppf_fir_reference(const ppf_problem *p, const int16_t *input, const float *coefficients,
                       float *fir)
{
    const int64_t n = p->channels, station_channels = p->stations * p->channels;
    for (int64_t step = 0; step < p->steps; step++)
        for (int64_t pol = 0; pol < 2; pol++)
            for (int64_t station = 0; station < p->stations; station++) {
                /* Canonical TPSC: [step][pol][station][channel]. */
                float *out = fir + (((step * 2 + pol) * p->stations + station) * n) * 2;
                for (int64_t c = 0; c < n; c++) {
                    double sum_re = 0.0, sum_im = 0.0;
                    for (int64_t t = 0; t < p->taps; t++) {
                        const int64_t block = step + p->taps - 1 - t;
                        const int16_t *x =
                            input + ((block * station_channels + station * n + c) * 2 + pol) * 2;
                        const double h = coefficients[t * n + c];
                        sum_re += h * x[0];
                        sum_im += h * x[1];
                    }
                    out[2 * c] = (float)sum_re;
                    out[2 * c + 1] = (float)sum_im;
                }
            }
}

/* ------------------------------------------------------------ tolerances */

static int64_t log2_exact(int64_t n)
{
    int64_t bits = 0;
    while (n > 1) {
        n >>= 1;
        bits++;
    }
    return bits;
}

/* A = 2^(sample_bits - 1) * max over channels of sum |h|: bounds the sum of
 * |h x| of every FIR output component, and so every FIR output. */
static double fir_bound(const ppf_problem *p, const float *coefficients)
{
    double largest_gain = 0.0;
    for (int64_t c = 0; c < p->channels; c++) {
        double gain = 0.0;
        for (int64_t t = 0; t < p->taps; t++)
            gain += fabs((double)coefficients[t * p->channels + c]);
        if (gain > largest_gain) largest_gain = gain;
    }
    return ldexp(1.0, (int)p->sample_bits - 1) * largest_gain;
}

/* The inputs are integers that float holds exactly, so the kernel's errors
 * are roundings (u = 2^-24). Each FIR component is a sum of `taps`
 * products: its `taps` product roundings and `taps - 1` addition roundings
 * are each at most u times a partial sum of |h x|, so at most taps * u * A
 * in all. The reference is the exact sum rounded once to float, at most
 * u A / 2 away. Twice (taps + 1) u A covers both. It is absolute because
 * outputs near zero make a relative tolerance meaningless, while a wrong
 * tap, channel or sample moves an output by a coefficient times a sample,
 * orders of magnitude above it. */
double ppf_fir_tolerance(const ppf_problem *p, const float *coefficients)
{
    const double u = ldexp(1.0, -24);
    return 2.0 * (double)(p->taps + 1) * u * fir_bound(p, coefficients);
}

/* The spectra's tolerance:
 *  - the FFT inputs: the kernel's FIR is within taps * u * A of the exact
 *    one, the reference's float FIR within u A / 2 (see ppf_fir_tolerance);
 *    through the FFT, N such differences add into each bin: at most
 *    sqrt(2) * N * (taps + 1/2) * u * A;
 *  - the FFT: a radix-2 FFT of N points has a 2-norm error of at most about
 *    log2(N) * (4 sqrt(2) + 1 + 1) u ||Y|| (Higham, Accuracy and Stability,
 *    section 24.1, with twiddles rounded to float), and no single bin's
 *    error exceeds that 2-norm. Taking 8 log2(N) u max||Y||, with max||Y||
 *    the largest transform's 2-norm, covers clFFT's radix-4 and radix-8
 *    passes.
 * The tolerance is twice the sum, with taps + 1 for taps + 1/2, absolute
 * because its scale is the data's: no bin exceeds ||Y|| (Parseval), while
 * bins near zero (a spectrum has them) make any relative tolerance
 * meaningless. A wrong tap, channel or sample moves whole transforms by a
 * coefficient times a sample, orders of magnitude above it. */
double ppf_spectra_tolerance(const ppf_problem *p, const float *coefficients,
                             double largest_norm)
{
    const double u = ldexp(1.0, -24), n = (double)p->channels;
    return 2.0 * (sqrt(2.0) * n * (double)(p->taps + 1) * u * fir_bound(p, coefficients) +
                  8.0 * (double)log2_exact(p->channels) * u * largest_norm);
}

/* ------------------------------------------------------------ the device */

int ppf_fir_prepare(ppf_fir_launch *l, cl_program program, const ppf_problem *p,
                    const ppf_config *c, cl_mem input, cl_mem coefficients, cl_mem fir,
                    skytune_error *err)
{
    memset(l, 0, sizeof *l);
    int rc = ppf_config_check(p, c, err);
    if (rc) return rc;
    const int64_t lanes = 2 - c->both_pols;
    const support_kernel_spec kernel = {
        .name = "ppf_fir",
        .label = "fir",
        .args = {SUPPORT_ARG(input), SUPPORT_ARG(coefficients), SUPPORT_ARG(fir)},
        .dims = 2,
        .global = {(size_t)(p->stations * p->channels * lanes / c->channels_per_item),
                   (size_t)(p->steps / c->samples_per_item)},
        .local = {(size_t)c->wg_size, 1},
        /* The sliding window's registers may cap the work-group below the
         * device's limit. */
        .check_work_group = true,
    };
    return support_kernel_create(&l->kernel, program, &kernel, err);
}

int ppf_fir_enqueue(const ppf_fir_launch *l, cl_command_queue queue, skytune_events *events,
                    cl_event *done, skytune_error *err)
{
    int rc = support_kernel_enqueue(&l->kernel, queue, events, err);
    /* The event the kernel just added, borrowed from `events`. */
    if (rc == SKYTUNE_OK && done)
        *done = l->kernel.kernel ? events->events[events->count - 1] : NULL;
    return rc;
}

void ppf_fir_release(ppf_fir_launch *l)
{
    support_kernel_release(&l->kernel);
}

/* ------------------------------------------------------------ work counts */

double ppf_count_flops(const ppf_problem *p)
{
    const double transforms = (double)p->transforms, n = (double)p->channels;
    const double fir = transforms * n * (2.0 + 4.0 * (double)(p->taps - 1));
    const double fft = p->fft ? transforms * 5.0 * n * (double)log2_exact(p->channels) : 0.0;
    return fir + fft;
}

double ppf_count_bytes(const ppf_problem *p)
{
    const double input =
        (double)p->stations * 2.0 * (double)p->samples * 2.0 * (double)p->sample_bits / 8.0;
    const double coefficients = 4.0 * (double)(p->taps * p->channels);
    const double points = output_values(p);
    return input + coefficients + 8.0 * points + (p->fft ? 16.0 * points : 0.0);
}
