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
 * cutoff 1/channels (see prototype_coefficient).
 *
 * The FIR is this plugin's kernel (ppf.cl) and is what gets tuned; the FFT is
 * clFFT, planned once per problem in setup and enqueued after the FIR on the
 * same queue. Their events are labelled "fir" and "fft", so every measurement
 * reports the two medians besides the total.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pcg32.h>
#include <skytune/plugin.h>
#include <skytune/plugin_checks.h>

#include <clFFT.h>

extern const char ppf_cl_source[];

/* ------------------------------------------------------------ description data */

/* Defaults are the thesis's main LOFAR scenario, 256 channels x 16 taps. */
static const skytune_problem_param problem_params[] = {
    {"stations", SKYTUNE_INT, "64", "stations, each with two polarizations"},
    {"channels", SKYTUNE_INT, "256", "channels = FFT size: a power of two from 2 to 4096"},
    {"taps", SKYTUNE_INT, "16", "FIR taps per channel"},
    {"samples", SKYTUNE_INT, "200448",
     "complex input samples per station and polarization, a multiple of channels"},
    {"sample_bits", SKYTUNE_INT, "16", "bits per real or imaginary input component: 8 or 16"},
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
 * time would miss passes. Checks run in order and stop at the first failure,
 * so each later check may assume the earlier ones. */
static const skytune_problem_check problem_checks[] = {
    {"stations >= 1", "stations must be at least 1"},
    {"channels >= 2 and 4096 % channels == 0",
     "channels must be a power of two from 2 to 4096 (it is the FFT size)"},
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
 * samples_per_item reaches the thesis's largest batch, 32. */
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
    {NULL, 0, NULL, 0, 0, 0, NULL}
};

/* A work-group covers wg_size * channels_per_item / (2 - both_pols)
 * consecutive station-channels (2 - both_pols work-items per station-channel),
 * so the third rule makes tiles divide the stations' channels exactly; the
 * fourth makes batches divide the output steps. With those, the kernel needs
 * no bounds checks. The last rule bounds the registers of the sliding window
 * and the sums (4 floats per unit: 32 units are 128 registers, half of what a
 * GPU work-item may hold) and with them the unrolled code the compiler sees. */
static const char *const constraints[] = {
    "wg_size <= device.max_work_group_size",
    "wg_size <= device.max_work_item_size_0",
    "(stations * channels * (2 - both_pols)) % (wg_size * channels_per_item) == 0",
    "(samples // channels - taps + 1) % samples_per_item == 0",
    "channels_per_item * samples_per_item * (1 + both_pols) <= 32",
    NULL
};

/* ------------------------------------------------------------------ the problem */

typedef struct ppf_problem {
    int64_t stations, channels, taps, samples, sample_bits;
    int64_t blocks;      /* samples / channels: input blocks per stream */
    int64_t steps;       /* blocks - taps + 1: output steps per stream */
    int64_t transforms;  /* stations * 2 * steps: FFTs per run */
} ppf_problem;

static void problem_read(const skytune_values *values, ppf_problem *p)
{
    p->stations = skytune_int(values, "stations");
    p->channels = skytune_int(values, "channels");
    p->taps = skytune_int(values, "taps");
    p->samples = skytune_int(values, "samples");
    p->sample_bits = skytune_int(values, "sample_bits");
    p->blocks = p->channels > 0 ? p->samples / p->channels : 0;
    p->steps = p->blocks - p->taps + 1;
    p->transforms = p->stations * 2 * p->steps;
}

static int64_t log2_exact(int64_t n)
{
    int64_t bits = 0;
    while (n > 1) {
        n >>= 1;
        bits++;
    }
    return bits;
}

/* Coefficient n of the prototype low-pass filter, 0 <= n < length with
 * length = channels * taps: an ideal low-pass with cutoff 1/channels of the
 * sampling rate (one channel's width; its impulse response is
 * sinc(m / channels)), centred on (length - 1) / 2 and shaped by a Hamming
 * window. Channel c's FIR uses h[t * channels + c] for tap t. The peak is 1 and
 * each channel's coefficients sum to about 1, so a channel passes its band at
 * unit gain. */
static double prototype_coefficient(int64_t n, int64_t length, int64_t channels)
{
    const double pi = 3.14159265358979323846;
    const double m = ((double)n - (double)(length - 1) / 2.0) / (double)channels;
    const double sinc = m == 0.0 ? 1.0 : sin(pi * m) / (pi * m);
    const double window =
        length > 1 ? 0.54 - 0.46 * cos(2.0 * pi * (double)n / (double)(length - 1)) : 1.0;
    return sinc * window;
}

/* --------------------------------------------------------------- run state */

typedef struct ppf_state {
    ppf_problem problem;
    int16_t *input;          /* [block][station][channel][pol][re, im], the host copy */
    float *coefficients;     /* [tap][channel] */
    float *expected;         /* [step][pol][station][channel][re, im], from `reference` */
    float *result;           /* the same, read back by `verify` */
    double abs_tol;          /* from `reference`; see ppf_reference */
    cl_mem input_buf, coefficients_buf;
    cl_mem fir_buf;          /* [step][pol][station][channel] float2: FIR out, FFT in */
    cl_mem spectra_buf;      /* [step][pol][station][frequency] float2: FFT out */
    clfftPlanHandle plan;
    int has_plan;
    int holds_clfft;         /* counted in clfft_users, released in teardown */
} ppf_state;

typedef struct ppf_launch {
    cl_kernel kernel;
    size_t global[2], local[2];
    /* Borrowed from the state, which outlives every launch. */
    clfftPlanHandle plan;
    cl_mem fir_buf, spectra_buf;
} ppf_launch;

/* ---------------------------------------------------------------- clFFT */

/* clfftSetup and clfftTeardown act on the whole process: clFFT keeps one
 * cache of generated kernels and plans for everyone, and clfftTeardown
 * destroys every plan still alive. Several problem states can be open at
 * once (the engine's and a test's own, say), so the first state in calls
 * clfftSetup and the last one out calls clfftTeardown. This counter is the
 * plugin's only mutable global; the engine calls a plugin from one thread at a
 * time, so it needs no lock. */
static unsigned clfft_users;

static const char *clfft_status_text(clfftStatus status)
{
    switch (status) {
    case CLFFT_BUGCHECK: return "CLFFT_BUGCHECK";
    case CLFFT_NOTIMPLEMENTED: return "CLFFT_NOTIMPLEMENTED";
    case CLFFT_TRANSPOSED_NOTIMPLEMENTED: return "CLFFT_TRANSPOSED_NOTIMPLEMENTED";
    case CLFFT_FILE_NOT_FOUND: return "CLFFT_FILE_NOT_FOUND";
    case CLFFT_FILE_CREATE_FAILURE: return "CLFFT_FILE_CREATE_FAILURE";
    case CLFFT_VERSION_MISMATCH: return "CLFFT_VERSION_MISMATCH";
    case CLFFT_INVALID_PLAN: return "CLFFT_INVALID_PLAN";
    case CLFFT_DEVICE_NO_DOUBLE: return "CLFFT_DEVICE_NO_DOUBLE";
    case CLFFT_DEVICE_MISMATCH: return "CLFFT_DEVICE_MISMATCH";
    default: return "an OpenCL error";
    }
}

/* clFFT's codes are OpenCL's plus a few of its own above 4096: pass the
 * OpenCL ones on as cl_error so that the engine names them. */
static int clfft_failure(skytune_error *err, int code, clfftStatus status, const char *what)
{
    if (err && (int)status < CLFFT_BUGCHECK) err->cl_error = (int)status;
    return skytune_error_set(err, code, "%s failed (clFFT status %d, %s)", what, (int)status,
                             clfft_status_text(status));
}

static int clfft_acquire(skytune_error *err)
{
    if (clfft_users == 0) {
        /* What clfftInitSetupData fills in; that function is an inline in
         * clFFT.h that the library does not export, so it is not called. */
        clfftSetupData setup_data = {
            .major = clfftVersionMajor,
            .minor = clfftVersionMinor,
            .patch = clfftVersionPatch,
            .debugFlags = 0,
        };
        clfftStatus status = clfftSetup(&setup_data);
        if (status != CLFFT_SUCCESS) return clfft_failure(err, SKYTUNE_ERR_SETUP, status, "clfftSetup");
    }
    clfft_users++;
    return SKYTUNE_OK;
}

static void clfft_release(void)
{
    if (clfft_users == 0) return;
    if (--clfft_users == 0) clfftTeardown();
}

/* One plan for the whole problem: `transforms` single-precision complex FFTs
 * of size `channels`, packed back to back, forward (exp(-2 pi i ...)) and
 * unscaled, from fir_buf into spectra_buf. Baking compiles clFFT's kernel now
 * rather than in the first timed run. */
static int create_plan(ppf_state *s, cl_context context, cl_command_queue queue,
                       skytune_error *err)
{
    const ppf_problem *p = &s->problem;
    size_t length = (size_t)p->channels;
    clfftStatus status = clfftCreateDefaultPlan(&s->plan, context, CLFFT_1D, &length);
    if (status != CLFFT_SUCCESS)
        return clfft_failure(err, SKYTUNE_ERR_SETUP, status, "clfftCreateDefaultPlan");
    s->has_plan = 1;
    const char *what = "clfftSetPlanPrecision";
    status = clfftSetPlanPrecision(s->plan, CLFFT_SINGLE);
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetLayout";
        status = clfftSetLayout(s->plan, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetResultLocation";
        status = clfftSetResultLocation(s->plan, CLFFT_OUTOFPLACE);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetPlanBatchSize";
        status = clfftSetPlanBatchSize(s->plan, (size_t)p->transforms);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetPlanDistance";
        status = clfftSetPlanDistance(s->plan, length, length);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetPlanScale";
        status = clfftSetPlanScale(s->plan, CLFFT_FORWARD, 1.0f);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftBakePlan";
        status = clfftBakePlan(s->plan, 1, &queue, NULL, NULL);
    }
    if (status != CLFFT_SUCCESS) return clfft_failure(err, SKYTUNE_ERR_SETUP, status, what);

    /* A plan that needs scratch space runs in several kernels (see the
     * channels check): its "fft" event would time only the last of them. */
    size_t scratch = 0;
    status = clfftGetTmpBufSize(s->plan, &scratch);
    if (status != CLFFT_SUCCESS)
        return clfft_failure(err, SKYTUNE_ERR_SETUP, status, "clfftGetTmpBufSize");
    if (scratch > 0)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "channels=%lld: on this device clFFT splits a transform of this "
                                 "size into several kernels, and only the last one could be "
                                 "timed; use fewer channels",
                                 (long long)p->channels);
    return SKYTUNE_OK;
}

/* What the kernels index with int, and the problem parameters that shrink
 * the arrays: for the messages of the size checks. */
#define INDEXED_ITEMS "elements"
#define SIZE_HINT "stations or samples"

/* ---------------------------------------------------------------- callbacks */

static void ppf_teardown(void *opaque);




/* The problem checks again, for callers that bypass problem resolution. */
static int check_problem_values(const ppf_problem *p, skytune_error *err)
{
    if (p->stations < 1)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "stations must be at least 1");
    if (p->channels < 2 || p->channels > 4096 || (p->channels & (p->channels - 1)) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "channels must be a power of two from 2 to 4096, not %lld",
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

/* Counts of complex values of the input and of the FIR output. */
static double input_count(const ppf_problem *p)
{
    return (double)p->stations * 2.0 * (double)p->samples;
}

static double output_count(const ppf_problem *p)
{
    return (double)p->transforms * (double)p->channels;
}

/* The engine calls this before it builds the space and before setup. */
static int ppf_check_problem(const skytune_values *problem, const skytune_device_info *device,
                             skytune_error *err)
{
    ppf_problem p;
    problem_read(problem, &p);
    int rc = check_problem_values(&p, err);
    if (rc) return rc;
    const double sample_bytes = 2.0 * (double)p.sample_bits / 8.0;
    if ((rc = skytune_check_index_extent("input", input_count(&p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_index_extent("output", output_count(&p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_allocation("input", input_count(&p) * sample_bytes, device,
                                       SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("FIR output", output_count(&p) * 8.0, device, SIZE_HINT,
                                       err)))
        return rc;
    return SKYTUNE_OK;
}

/* The problem passed ppf_check_problem (the engine calls it first). */
static int ppf_setup(const skytune_setup_context *ctx, void **state_out, skytune_error *err)
{
    ppf_problem p;
    problem_read(ctx->problem, &p);
    const double sample_bytes = 2.0 * (double)p.sample_bits / 8.0;
    int rc;

    ppf_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    s->problem = p;
    const size_t inputs = (size_t)input_count(&p), outputs = (size_t)output_count(&p);
    const size_t coefficient_count = (size_t)(p.taps * p.channels);
    s->input = malloc(inputs * 2 * sizeof *s->input);
    s->coefficients = malloc(coefficient_count * sizeof *s->coefficients);
    s->expected = malloc(outputs * 2 * sizeof *s->expected);
    s->result = malloc(outputs * 2 * sizeof *s->result);
    if (!s->input || !s->coefficients || !s->expected || !s->result) {
        ppf_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the host arrays (%zu input and %zu output "
                                 "complex values)",
                                 inputs, outputs);
    }

    /* Uniform over the whole range of the sample type: the largest values a
     * station can send are the ones that test the float conversion and the
     * tolerance. */
    pcg32 rng;
    pcg32_seed(&rng, ctx->seed, 0);
    const uint32_t range = 1u << p.sample_bits;
    const int32_t lowest = -(int32_t)(range / 2);
    for (size_t i = 0; i < inputs * 2; i++)
        s->input[i] = (int16_t)(lowest + (int32_t)pcg32_bounded(&rng, range));

    const int64_t length = p.channels * p.taps;
    for (int64_t n = 0; n < length; n++)
        s->coefficients[n] = (float)prototype_coefficient(n, length, p.channels);

    /* The device takes 8-bit samples as bytes; 16-bit ones as they are. */
    void *device_input = s->input;
    int8_t *narrow = NULL;
    if (p.sample_bits == 8) {
        narrow = malloc(inputs * 2);
        if (!narrow) {
            ppf_teardown(s);
            return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                     "out of memory for %zu 8-bit input samples", inputs);
        }
        for (size_t i = 0; i < inputs * 2; i++) narrow[i] = (int8_t)s->input[i];
        device_input = narrow;
    }

    cl_int status = CL_SUCCESS;
    s->input_buf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  (size_t)(input_count(&p) * sample_bytes), device_input, &status);
    free(narrow);
    if (status == CL_SUCCESS)
        s->coefficients_buf =
            clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           coefficient_count * sizeof(float), s->coefficients, &status);
    if (status == CL_SUCCESS)
        s->fir_buf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, outputs * 2 * sizeof(float),
                                    NULL, &status);
    if (status == CL_SUCCESS)
        s->spectra_buf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE,
                                        outputs * 2 * sizeof(float), NULL, &status);
    if (status != CL_SUCCESS) {
        ppf_teardown(s);
        return skytune_opencl_failure(err, SKYTUNE_ERR_SETUP, status,
                              "clCreateBuffer (input, coefficients, FIR output, spectra)");
    }

    if ((rc = clfft_acquire(err)) != SKYTUNE_OK) {
        ppf_teardown(s);
        return rc;
    }
    s->holds_clfft = 1;
    if ((rc = create_plan(s, ctx->context, ctx->queue, err)) != SKYTUNE_OK) {
        ppf_teardown(s);
        return rc;
    }

    *state_out = s;
    return SKYTUNE_OK;
}

/* The transform of one FIR output vector, in place, in double: a direct DFT
 * up to 32 points (the obviously correct definition), an iterative radix-2
 * FFT above (a direct DFT costs N^2 per transform, too slow for the LOFAR
 * presets). Twiddles come from the caller: cos_table[k] + i sin_table[k] =
 * exp(-2 pi i k / n). `scratch` holds n complex values. */
static void reference_transform(double *re, double *im, int64_t n, const double *cos_table,
                                const double *sin_table, double *scratch)
{
    if (n <= 32) {
        for (int64_t f = 0; f < n; f++) {
            double sum_re = 0.0, sum_im = 0.0;
            for (int64_t c = 0; c < n; c++) {
                const int64_t k = (c * f) % n;
                sum_re += re[c] * cos_table[k] - im[c] * sin_table[k];
                sum_im += re[c] * sin_table[k] + im[c] * cos_table[k];
            }
            scratch[2 * f] = sum_re;
            scratch[2 * f + 1] = sum_im;
        }
        for (int64_t f = 0; f < n; f++) {
            re[f] = scratch[2 * f];
            im[f] = scratch[2 * f + 1];
        }
        return;
    }
    /* Bit-reversal permutation, then log2(n) stages of butterflies. */
    for (int64_t i = 1, j = 0; i < n; i++) {
        int64_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    for (int64_t half = 1; half < n; half *= 2) {
        const int64_t stride = n / (2 * half); /* twiddle index step */
        for (int64_t start = 0; start < n; start += 2 * half)
            for (int64_t k = 0; k < half; k++) {
                const double w_re = cos_table[k * stride], w_im = sin_table[k * stride];
                const int64_t a = start + k, b = a + half;
                const double t_re = re[b] * w_re - im[b] * w_im;
                const double t_im = re[b] * w_im + im[b] * w_re;
                re[b] = re[a] - t_re;
                im[b] = im[a] - t_im;
                re[a] += t_re;
                im[a] += t_im;
            }
    }
}

/* The filter bank in double: the FIR exactly as the thesis's delay line
 * computes it (with the float coefficients the kernel uses, so that their
 * rounding is not an error), then each output vector's transform.
 *
 * The tolerance. The inputs are integers that float holds exactly, so the
 * kernel's errors are roundings (u = 2^-24):
 *  - FIR: each component is a sum of `taps` products, off by at most
 *    taps * u * A, where A = max |sample component| * max over channels of
 *    sum |h| bounds sum |h x|. Through the FFT, N such errors add into each
 *    bin: at most sqrt(2) * N * taps * u * A.
 *  - FFT: a radix-2 FFT of N points has a 2-norm error of at most about
 *    log2(N) * (4 sqrt(2) + 1 + 1) u ||Y|| (Higham, Accuracy and Stability,
 *    section 24.1, with twiddles rounded to float), and no single bin's error
 *    exceeds that 2-norm. Taking 8 log2(N) u max||Y||, with max||Y|| the
 *    largest transform's 2-norm, covers clFFT's radix-4 and radix-8 passes.
 * The tolerance is twice the sum, an absolute one, because its scale is the
 * data's: no bin exceeds ||Y|| (Parseval), while bins near zero (a spectrum
 * has them) make any relative tolerance meaningless. A wrong tap, channel or
 * sample moves whole transforms by a coefficient times a sample, orders of
 * magnitude above it. For the small preset the tolerance is 0.027 on outputs
 * up to 1600, for lofar_256x16 104 on outputs up to 1.6e6; PoCL with clFFT
 * stays 100 to 500 times below it. */
static int ppf_reference(void *opaque, skytune_error *err)
{
    ppf_state *s = opaque;
    const ppf_problem *p = &s->problem;
    const int64_t n = p->channels, station_channels = p->stations * p->channels;
    double *work = malloc((size_t)n * 6 * sizeof *work);
    if (!work)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the reference");
    double *re = work, *im = work + n, *cos_table = work + 2 * n, *sin_table = work + 3 * n;
    double *scratch = work + 4 * n;
    const double pi = 3.14159265358979323846;
    for (int64_t k = 0; k < n; k++) {
        cos_table[k] = cos(2.0 * pi * (double)k / (double)n);
        sin_table[k] = -sin(2.0 * pi * (double)k / (double)n);
    }

    double largest_norm = 0.0;
    for (int64_t step = 0; step < p->steps; step++)
        for (int64_t pol = 0; pol < 2; pol++)
            for (int64_t station = 0; station < p->stations; station++) {
                for (int64_t c = 0; c < n; c++) {
                    double sum_re = 0.0, sum_im = 0.0;
                    for (int64_t t = 0; t < p->taps; t++) {
                        const int64_t block = step + p->taps - 1 - t;
                        const int16_t *x =
                            s->input + ((block * station_channels + station * n + c) * 2 + pol) * 2;
                        const double h = s->coefficients[t * n + c];
                        sum_re += h * x[0];
                        sum_im += h * x[1];
                    }
                    re[c] = sum_re;
                    im[c] = sum_im;
                }
                reference_transform(re, im, n, cos_table, sin_table, scratch);
                double norm2 = 0.0;
                float *out = s->expected + (((step * 2 + pol) * p->stations + station) * n) * 2;
                for (int64_t f = 0; f < n; f++) {
                    norm2 += re[f] * re[f] + im[f] * im[f];
                    out[2 * f] = (float)re[f];
                    out[2 * f + 1] = (float)im[f];
                }
                if (norm2 > largest_norm) largest_norm = norm2;
            }
    free(work);

    double largest_gain = 0.0; /* max over channels of sum |h| */
    for (int64_t c = 0; c < n; c++) {
        double gain = 0.0;
        for (int64_t t = 0; t < p->taps; t++) gain += fabs((double)s->coefficients[t * n + c]);
        if (gain > largest_gain) largest_gain = gain;
    }
    const double u = ldexp(1.0, -24);
    const double a = ldexp(1.0, (int)p->sample_bits - 1) * largest_gain;
    s->abs_tol = 2.0 * (sqrt(2.0) * (double)n * (double)p->taps * u * a +
                        8.0 * (double)log2_exact(n) * u * sqrt(largest_norm));
    return SKYTUNE_OK;
}

/* The constraints again: a configuration that bypassed them gets a clear
 * error instead of an out-of-bounds kernel. */
static int check_configuration(const ppf_problem *p, const skytune_values *config,
                               skytune_error *err)
{
    const int64_t wg_size = skytune_int(config, "wg_size");
    const int64_t per_item = skytune_int(config, "channels_per_item");
    const int64_t batch = skytune_int(config, "samples_per_item");
    const int64_t lanes = 2 - (skytune_int(config, "both_pols") != 0);
    if (wg_size < lanes || wg_size % lanes != 0 || per_item < 1 || batch < 1 ||
        (p->stations * p->channels * lanes) % (wg_size * per_item) != 0 || p->steps % batch != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "wg_size * channels_per_item must divide stations * channels * "
                                 "(2 - both_pols) = %lld and samples_per_item must divide the "
                                 "%lld output steps",
                                 (long long)(p->stations * p->channels * lanes),
                                 (long long)p->steps);
    return SKYTUNE_OK;
}

static int ppf_prepare(void *opaque, cl_program program, const skytune_values *config,
                       void **launch_out, skytune_error *err)
{
    ppf_state *s = opaque;
    const ppf_problem *p = &s->problem;
    int rc = check_configuration(p, config, err);
    if (rc) return rc;

    ppf_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    cl_int status = CL_SUCCESS;
    l->kernel = clCreateKernel(program, "ppf_fir", &status);
    if (status != CL_SUCCESS) {
        free(l);
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clCreateKernel(ppf_fir)");
    }
    status = clSetKernelArg(l->kernel, 0, sizeof(cl_mem), &s->input_buf);
    if (status == CL_SUCCESS)
        status = clSetKernelArg(l->kernel, 1, sizeof(cl_mem), &s->coefficients_buf);
    if (status == CL_SUCCESS) status = clSetKernelArg(l->kernel, 2, sizeof(cl_mem), &s->fir_buf);
    if (status != CL_SUCCESS) {
        clReleaseKernel(l->kernel);
        free(l);
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clSetKernelArg");
    }

    const int64_t wg_size = skytune_int(config, "wg_size");
    const int64_t lanes = 2 - (skytune_int(config, "both_pols") != 0);
    l->local[0] = (size_t)wg_size;
    l->local[1] = 1;
    l->global[0] =
        (size_t)(p->stations * p->channels * lanes / skytune_int(config, "channels_per_item"));
    l->global[1] = (size_t)(p->steps / skytune_int(config, "samples_per_item"));

    /* A kernel that needs many registers may not run in work-groups as large
     * as the device's limit; say so here rather than fail in the launch. */
    size_t kernel_limit = 0;
    status = clGetKernelWorkGroupInfo(l->kernel, NULL, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof kernel_limit, &kernel_limit, NULL);
    if (status == CL_SUCCESS && kernel_limit > 0 && kernel_limit < l->local[0]) {
        clReleaseKernel(l->kernel);
        free(l);
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "this configuration's kernel runs at most %zu work-items per "
                                 "work-group on this device, fewer than wg_size=%lld",
                                 kernel_limit, (long long)wg_size);
    }

    l->plan = s->plan;
    l->fir_buf = s->fir_buf;
    l->spectra_buf = s->spectra_buf;
    *launch_out = l;
    return SKYTUNE_OK;
}

/* Both the FIR output and the spectra are poisoned: with only the spectra
 * poisoned, a FIR kernel that wrote nothing would pass on the previous
 * configuration's FIR output. */
static int ppf_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    ppf_state *s = opaque;
    const float poison = NAN;
    const size_t bytes =
        (size_t)s->problem.transforms * (size_t)s->problem.channels * 2 * sizeof(float);
    cl_int status =
        clEnqueueFillBuffer(queue, s->fir_buf, &poison, sizeof poison, 0, bytes, 0, NULL, NULL);
    if (status == CL_SUCCESS)
        status = clEnqueueFillBuffer(queue, s->spectra_buf, &poison, sizeof poison, 0, bytes, 0,
                                     NULL, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueFillBuffer (NaN)");
    return SKYTUNE_OK;
}

/* The FIR kernel, then the batched FFT, which waits for it (the queue is in
 * order; the wait also holds on one that is not). */
static int ppf_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                       skytune_error *err)
{
    ppf_launch *l = opaque;
    cl_event fir_done = NULL;
    cl_int status = clEnqueueNDRangeKernel(queue, l->kernel, 2, NULL, l->global, l->local, 0,
                                           NULL, &fir_done);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                      "clEnqueueNDRangeKernel (FIR)");
    if (skytune_events_add(events, fir_done, "fir") != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "too many events in one run");

    cl_event fft_done = NULL;
    clfftStatus fft_status = clfftEnqueueTransform(l->plan, CLFFT_FORWARD, 1, &queue, 1,
                                                   &fir_done, &fft_done, &l->fir_buf,
                                                   &l->spectra_buf, NULL);
    if (fft_status != CLFFT_SUCCESS)
        return clfft_failure(err, SKYTUNE_ERR_LAUNCH, fft_status, "clfftEnqueueTransform");
    if (skytune_events_add(events, fft_done, "fft") != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "too many events in one run");
    return SKYTUNE_OK;
}

static int ppf_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                      skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    ppf_state *s = opaque;
    const size_t count = (size_t)s->problem.transforms * (size_t)s->problem.channels * 2;
    cl_int status = clEnqueueReadBuffer(queue, s->spectra_buf, CL_TRUE, 0, count * sizeof(float),
                                        s->result, 0, NULL, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                      "clEnqueueReadBuffer (spectra)");
    /* The absolute tolerance is worked out in ppf_reference. */
    skytune_verify_floats(report, "spectra", s->result, s->expected, count, s->abs_tol, 0.0);
    return SKYTUNE_OK;
}

static void ppf_release(void *opaque)
{
    ppf_launch *l = opaque;
    if (!l) return;
    if (l->kernel) clReleaseKernel(l->kernel);
    free(l);
}

/* Safe on a partly built state. The plan goes before clFFT's reference. */
static void ppf_teardown(void *opaque)
{
    ppf_state *s = opaque;
    if (!s) return;
    if (s->has_plan) clfftDestroyPlan(&s->plan);
    if (s->holds_clfft) clfft_release();
    if (s->input_buf) clReleaseMemObject(s->input_buf);
    if (s->coefficients_buf) clReleaseMemObject(s->coefficients_buf);
    if (s->fir_buf) clReleaseMemObject(s->fir_buf);
    if (s->spectra_buf) clReleaseMemObject(s->spectra_buf);
    free(s->input);
    free(s->coefficients);
    free(s->expected);
    free(s->result);
    free(s);
}

/* The thesis's counts (section 4.2.1): a FIR output of complex samples and
 * `taps` real coefficients costs 2 taps multiplications and 2 (taps - 1)
 * additions, 2 + 4 (taps - 1) FLOPs; an FFT of N points is taken as
 * 5 N log2(N) FLOPs. One run computes channels FIR outputs and one FFT per
 * transform. */
static double ppf_flops(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    ppf_problem p;
    problem_read(problem, &p);
    const double transforms = (double)p.transforms, n = (double)p.channels;
    const double fir = transforms * n * (2.0 + 4.0 * (double)(p.taps - 1));
    const double fft = transforms * 5.0 * n * (double)log2_exact(p.channels);
    return fir + fft;
}

/* Compulsory traffic of the two passes: the FIR reads every input sample
 * (2 * sample_bits / 8 bytes) and the coefficients once and writes its output
 * (8 bytes a complex float); the FFT reads that and writes the spectra (16
 * bytes a point). Rereading inputs for overlapping windows, which caches and
 * sample batching absorb, is not counted. */
static double ppf_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    ppf_problem p;
    problem_read(problem, &p);
    const double input = (double)p.stations * 2.0 * (double)p.samples * 2.0 *
                         (double)p.sample_bits / 8.0;
    const double coefficients = 4.0 * (double)(p.taps * p.channels);
    const double points = (double)p.transforms * (double)p.channels;
    return input + coefficients + 8.0 * points + 16.0 * points;
}

/* -------------------------------------------------------------- description */

static const skytune_plugin ppf_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "ppf",
    .version = "1.0",
    .description = "polyphase filter bank: tuned FIR per channel, then clFFT across channels "
                   "(van der Veldt 2011)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = ppf_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = NULL,
    .kernel_source = ppf_cl_source,
    .generate_source = NULL,
    .defines = NULL,
    .setup = ppf_setup,
    .reference = ppf_reference,
    .prepare = ppf_prepare,
    .clear_outputs = ppf_clear_outputs,
    .enqueue = ppf_enqueue,
    .verify = ppf_verify,
    .release = ppf_release,
    .teardown = ppf_teardown,
    .flops = ppf_flops,
    .bytes = ppf_bytes,
};

SKYTUNE_DEFINE_PLUGIN(ppf_plugin)
