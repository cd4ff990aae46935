/*
 * beamformer — the beam former of a radio telescope, after Sclocco,
 * Varbanescu, Mol and van Nieuwpoort, "Radio astronomy beam forming on
 * many-core architectures" (IPDPS 2012), as summarised and used in J. Kis,
 * "Auto-tuning a LOFAR radio astronomy pipeline in JavaCL" (MSc thesis, VU
 * Amsterdam, 2013), sections 2.1.2 and 7.3.
 *
 * Input: complex float samples input[channel][station][time][polarisation]
 * and complex weights weights[channel][beam][station] (float2: real,
 * imaginary). Output: output[channel][beam][time][polarisation],
 *
 *     output[c][b][t][p] = sum over s of weights[c][b][s] * input[c][s][t][p]
 *
 * a complex multiply-add per station. The weight of a station is the phase
 * shift that aligns its signal with the others for the direction of beam b;
 * adding the aligned signals of all stations forms one virtual antenna
 * pointing that way.
 *
 * Tuning parameters: beam_block (beams per work-item, accumulated in
 * registers: the beam blocking of the paper), station_block (stations per
 * unrolled step of the station loop), wg_time and wg_beams (the work-group)
 * and use_local (stage the samples in local memory). beamformer.cl describes
 * the kernel.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pcg32.h>
#include <skytune/plugin.h>
#include <skytune/plugin_checks.h>

extern const char beamformer_cl_source[];

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
 * minutes to search exhaustively through PoCL on two cores) while the
 * thesis's setup gives about a thousand (1070 on PoCL). */
static const skytune_tuning_param tuning_params[] = {
    {"beam_block", SKYTUNE_LIST, "1,2,4,5,8,10,20,25,50,100", 0, 0, 0,
     "beams per work-item (accumulators in registers)"},
    {"station_block", SKYTUNE_LIST, "1,2,4,8,16", 0, 0, 0,
     "stations per step of the station loop (fully unrolled; with use_local, staged per barrier)"},
    {"wg_time", SKYTUNE_POW2, NULL, 1, 1024, 0, "work-items per work-group along time"},
    {"wg_beams", SKYTUNE_LIST, "1,2,4,8", 0, 0, 0, "work-items per work-group along beams"},
    {"use_local", SKYTUNE_BOOLEAN, NULL, 0, 0, 0,
     "1: stage the work-group's samples in local memory; 0: read global memory through caches"},
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

/* ------------------------------------------------------------------ the problem */

typedef struct beamformer_problem {
    int64_t stations, channels, samples, polarizations, beams;
} beamformer_problem;

static void problem_read(const skytune_values *values, beamformer_problem *p)
{
    p->stations = skytune_int(values, "stations");
    p->channels = skytune_int(values, "channels");
    p->samples = skytune_int(values, "samples");
    p->polarizations = skytune_int(values, "polarizations");
    p->beams = skytune_int(values, "beams");
}

/* Complex values (float2) in each array. */
static double input_count(const beamformer_problem *p)
{
    return (double)p->channels * (double)p->stations * (double)p->samples *
           (double)p->polarizations;
}

static double weight_count(const beamformer_problem *p)
{
    return (double)p->channels * (double)p->beams * (double)p->stations;
}

static double output_count(const beamformer_problem *p)
{
    return (double)p->channels * (double)p->beams * (double)p->samples * (double)p->polarizations;
}

/* --------------------------------------------------------------- run state */

/* Host arrays hold complex values as interleaved (real, imaginary) floats,
 * the memory layout of OpenCL's float2. */
typedef struct beamformer_state {
    beamformer_problem problem;
    int64_t local_mem_size; /* bytes, from the device: checked again in prepare */
    size_t input_values, weight_values, output_values;  /* complex values per array */
    float *input;           /* [channels][stations][samples][polarizations][2] */
    float *weights;         /* [channels][beams][stations][2] */
    float *expected;        /* [channels][beams][samples][polarizations][2], from `reference` */
    float *result;          /* as expected, read back by `verify` */
    cl_mem input_buf, weights_buf, output_buf;
} beamformer_state;

typedef struct beamformer_launch {
    cl_kernel kernel;
    size_t global[3];       /* work-items along time, beam groups, channels */
    size_t local[3];        /* wg_time, wg_beams, 1 */
} beamformer_launch;

/* For tests: the device buffer of station samples of a state made by setup,
 * so that a test can corrupt the input after the reference was computed and
 * check that verification notices. */
SKYTUNE_EXPORT cl_mem skytune_beamformer_input_buffer(const void *state);
SKYTUNE_EXPORT cl_mem skytune_beamformer_input_buffer(const void *state)
{
    return state ? ((const beamformer_state *)state)->input_buf : NULL;
}

/* What the kernels index with int, and the problem parameters that shrink
 * the arrays: for the messages of the size checks. */
#define INDEXED_ITEMS "complex values"
#define SIZE_HINT "stations, channels, samples, polarizations or beams"

/* ---------------------------------------------------------------- callbacks */

static void beamformer_teardown(void *opaque);




/* The engine calls this before it builds the space and before setup. */
static int beamformer_check_problem(const skytune_values *problem,
                                    const skytune_device_info *device, skytune_error *err)
{
    beamformer_problem p;
    problem_read(problem, &p);
    if (p.stations < 1 || p.channels < 1 || p.samples < 1 || p.beams < 1 ||
        p.polarizations < 1 || p.polarizations > 2)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "stations, channels, samples and beams must be at least 1 and "
                                 "polarizations 1 or 2");
    const double complex_bytes = 2.0 * sizeof(float);
    int rc;
    if ((rc = skytune_check_index_extent("input", input_count(&p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_index_extent("weight table", weight_count(&p), INDEXED_ITEMS,
                                         SIZE_HINT, err)) ||
        (rc = skytune_check_index_extent("output", output_count(&p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_allocation("input", input_count(&p) * complex_bytes, device,
                                       SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("weight table", weight_count(&p) * complex_bytes, device,
                                       SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("output", output_count(&p) * complex_bytes, device,
                                       SIZE_HINT, err)))
        return rc;
    return SKYTUNE_OK;
}

/* The problem passed beamformer_check_problem (the engine calls it first). */
static int beamformer_setup(const skytune_setup_context *ctx, void **state_out,
                            skytune_error *err)
{
    beamformer_problem p;
    problem_read(ctx->problem, &p);

    beamformer_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    s->problem = p;
    s->local_mem_size = ctx->device_info->local_mem_size;
    s->input_values = (size_t)input_count(&p);
    s->weight_values = (size_t)weight_count(&p);
    s->output_values = (size_t)output_count(&p);
    const size_t complex_size = 2 * sizeof(float);
    s->input = malloc(s->input_values * complex_size);
    s->weights = malloc(s->weight_values * complex_size);
    s->expected = malloc(s->output_values * complex_size);
    s->result = malloc(s->output_values * complex_size);
    if (!s->input || !s->weights || !s->expected || !s->result) {
        beamformer_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the host arrays (%zu input, %zu weight, "
                                 "%zu output complex values)",
                                 s->input_values, s->weight_values, s->output_values);
    }

    /* Samples: real and imaginary parts uniform in [-1, 1). Weights: unit
     * phasors e^{i phi}, phi uniform in [0, 2 pi), the phase shifts a real
     * beam former applies. Both bounds are what the verification tolerance
     * relies on (see beamformer_verify). Separate PCG32 streams keep the
     * samples the same whatever the number of beams. */
    pcg32 rng;
    pcg32_seed(&rng, ctx->seed, 0);
    for (size_t i = 0; i < 2 * s->input_values; i++)
        s->input[i] = 2.0f * pcg32_float(&rng) - 1.0f;
    pcg32_seed(&rng, ctx->seed, 1);
    const double two_pi = 6.283185307179586476925286766559;
    for (size_t i = 0; i < s->weight_values; i++) {
        const double phase = two_pi * pcg32_double(&rng);
        s->weights[2 * i] = (float)cos(phase);
        s->weights[2 * i + 1] = (float)sin(phase);
    }

    cl_int status = CL_SUCCESS;
    s->input_buf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  s->input_values * complex_size, s->input, &status);
    if (status == CL_SUCCESS)
        s->weights_buf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                        s->weight_values * complex_size, s->weights, &status);
    if (status == CL_SUCCESS)
        s->output_buf = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY,
                                       s->output_values * complex_size, NULL, &status);
    if (status != CL_SUCCESS) {
        beamformer_teardown(s);
        return skytune_opencl_failure(err, SKYTUNE_ERR_SETUP, status,
                              "clCreateBuffer (input, weights, output)");
    }

    *state_out = s;
    return SKYTUNE_OK;
}

/* The definition, summed in double so that the reference is the exact sum
 * (to about 2^-53 relative) rounded once to float. Loops run beam by beam
 * and station by station with the contiguous time-polarisation row
 * innermost. */
static int beamformer_reference(void *opaque, skytune_error *err)
{
    beamformer_state *s = opaque;
    const beamformer_problem *p = &s->problem;
    const size_t row = (size_t)p->samples * (size_t)p->polarizations; /* complex values */
    double *sum = malloc(2 * row * sizeof *sum);
    if (!sum)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for %zu sums", 2 * row);
    for (int64_t c = 0; c < p->channels; c++) {
        const float *channel_input = s->input + 2 * (size_t)c * (size_t)p->stations * row;
        for (int64_t b = 0; b < p->beams; b++) {
            for (size_t k = 0; k < 2 * row; k++) sum[k] = 0.0;
            const float *w = s->weights + 2 * (size_t)(c * p->beams + b) * (size_t)p->stations;
            for (int64_t st = 0; st < p->stations; st++) {
                const double w_re = w[2 * st], w_im = w[2 * st + 1];
                const float *x = channel_input + 2 * (size_t)st * row;
                for (size_t k = 0; k < row; k++) {
                    const double x_re = x[2 * k], x_im = x[2 * k + 1];
                    sum[2 * k] += w_re * x_re - w_im * x_im;
                    sum[2 * k + 1] += w_re * x_im + w_im * x_re;
                }
            }
            float *out = s->expected + 2 * (size_t)(c * p->beams + b) * row;
            for (size_t k = 0; k < 2 * row; k++) out[k] = (float)sum[k];
        }
    }
    free(sum);
    return SKYTUNE_OK;
}

/* The configuration must satisfy the constraints; checking again here turns
 * a configuration that bypassed them into a clear error instead of an
 * out-of-bounds kernel. */
static int check_configuration(const beamformer_state *s, const skytune_values *config,
                               skytune_error *err)
{
    const beamformer_problem *p = &s->problem;
    const int64_t beam_block = skytune_int(config, "beam_block");
    const int64_t station_block = skytune_int(config, "station_block");
    const int64_t wg_time = skytune_int(config, "wg_time");
    const int64_t wg_beams = skytune_int(config, "wg_beams");
    if (beam_block < 1 || station_block < 1 || wg_time < 1 || wg_beams < 1 ||
        p->samples % wg_time != 0 || p->beams % (beam_block * wg_beams) != 0 ||
        station_block > p->stations)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "wg_time must divide samples (%lld), beam_block*wg_beams must "
                                 "divide beams (%lld) and station_block must not exceed "
                                 "stations (%lld)",
                                 (long long)p->samples, (long long)p->beams,
                                 (long long)p->stations);
    if (!skytune_int(config, "use_local")) return SKYTUNE_OK;
    const double staged_bytes =
        (double)station_block * (double)wg_time * (double)p->polarizations * 8.0;
    if (staged_bytes > (double)s->local_mem_size)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "staging %lld stations x %lld samples needs %.0f bytes of local "
                                 "memory; the device has %lld",
                                 (long long)station_block, (long long)wg_time, staged_bytes,
                                 (long long)s->local_mem_size);
    return SKYTUNE_OK;
}

static int beamformer_prepare(void *opaque, cl_program program, const skytune_values *config,
                              void **launch_out, skytune_error *err)
{
    beamformer_state *s = opaque;
    int rc = check_configuration(s, config, err);
    if (rc) return rc;

    beamformer_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    cl_int status = CL_SUCCESS;
    l->kernel = clCreateKernel(program, "beamform", &status);
    if (status != CL_SUCCESS) {
        free(l);
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clCreateKernel(beamform)");
    }
    status = clSetKernelArg(l->kernel, 0, sizeof(cl_mem), &s->input_buf);
    if (status == CL_SUCCESS) status = clSetKernelArg(l->kernel, 1, sizeof(cl_mem), &s->weights_buf);
    if (status == CL_SUCCESS) status = clSetKernelArg(l->kernel, 2, sizeof(cl_mem), &s->output_buf);
    if (status != CL_SUCCESS) {
        clReleaseKernel(l->kernel);
        free(l);
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clSetKernelArg");
    }
    l->local[0] = (size_t)skytune_int(config, "wg_time");
    l->local[1] = (size_t)skytune_int(config, "wg_beams");
    l->local[2] = 1;
    l->global[0] = (size_t)s->problem.samples;
    l->global[1] = (size_t)(s->problem.beams / skytune_int(config, "beam_block"));
    l->global[2] = (size_t)s->problem.channels;
    *launch_out = l;
    return SKYTUNE_OK;
}

static int beamformer_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    beamformer_state *s = opaque;
    const float poison = NAN;
    cl_int status = clEnqueueFillBuffer(queue, s->output_buf, &poison, sizeof poison, 0,
                                        s->output_values * 2 * sizeof(float), 0, NULL, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueFillBuffer (NaN)");
    return SKYTUNE_OK;
}

static int beamformer_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                              skytune_error *err)
{
    beamformer_launch *l = opaque;
    cl_event done = NULL;
    cl_int status =
        clEnqueueNDRangeKernel(queue, l->kernel, 3, NULL, l->global, l->local, 0, NULL, &done);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueNDRangeKernel");
    if (skytune_events_add(events, done, "beamform") != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "too many events in one run");
    return SKYTUNE_OK;
}

/* The tolerance, for S = stations and u = 2^-24 (float's unit roundoff).
 * Each real component of a product w * x is a difference or sum of two
 * products, a*b -/+ c*d, computed in float with an error of at most
 * 2u(|ab| + |cd|); by the Cauchy-Schwarz inequality |ab| + |cd| <= |w| |x|,
 * which the inputs bound by 1 * sqrt(2) (unit phasors, components in
 * [-1, 1)). Adding the S terms in float, in any order, adds at most
 * (S - 1)u times the sum of their magnitudes, so a kernel's output is off
 * the exact sum by at most (S + 1) S sqrt(2) u (to first order in u; fused
 * multiply-adds only remove roundings). The reference is the exact sum
 * rounded once, at most S sqrt(2) u away. An absolute tolerance of
 * 2 S (S + 2) u covers both with room to spare for every correct kernel,
 * whatever its summation order. It is absolute because an output, a sum of
 * terms with random phases, can be arbitrarily close to zero. For 64
 * stations it is 5e-4, while one wrong or missing term changes an output
 * by about |w x|, 0.8 on average. Elements are the floats of the output,
 * real and imaginary parts apart: first_mismatch / 2 is the complex index. */
static double beamformer_tolerance(int64_t stations)
{
    return 2.0 * (double)stations * (double)(stations + 2) * ldexp(1.0, -24);
}

static int beamformer_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                             skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    beamformer_state *s = opaque;
    const size_t floats = 2 * s->output_values;
    cl_int status = clEnqueueReadBuffer(queue, s->output_buf, CL_TRUE, 0, floats * sizeof(float),
                                        s->result, 0, NULL, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                      "clEnqueueReadBuffer (output)");
    skytune_verify_floats(report, "beams", s->result, s->expected, floats,
                          beamformer_tolerance(s->problem.stations), 0.0);
    return SKYTUNE_OK;
}

static void beamformer_release(void *opaque)
{
    beamformer_launch *l = opaque;
    if (!l) return;
    if (l->kernel) clReleaseKernel(l->kernel);
    free(l);
}

static void beamformer_teardown(void *opaque)
{
    beamformer_state *s = opaque;
    if (!s) return;
    if (s->input_buf) clReleaseMemObject(s->input_buf);
    if (s->weights_buf) clReleaseMemObject(s->weights_buf);
    if (s->output_buf) clReleaseMemObject(s->output_buf);
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
    problem_read(problem, &p);
    return 8.0 * output_count(&p) * (double)p.stations;
}

static double beamformer_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    beamformer_problem p;
    problem_read(problem, &p);
    return 8.0 * (input_count(&p) + weight_count(&p) + output_count(&p));
}

/* -------------------------------------------------------------- description */

static const skytune_plugin beamformer_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "beamformer",
    .version = "1.0",
    .description = "complex-weighted beam forming of station signals (Sclocco et al. 2012)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = beamformer_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = NULL,
    .kernel_source = beamformer_cl_source,
    .generate_source = NULL,
    .defines = NULL,
    .setup = beamformer_setup,
    .reference = beamformer_reference,
    .prepare = beamformer_prepare,
    .clear_outputs = beamformer_clear_outputs,
    .enqueue = beamformer_enqueue,
    .verify = beamformer_verify,
    .release = beamformer_release,
    .teardown = beamformer_teardown,
    .flops = beamformer_flops,
    .bytes = beamformer_bytes,
};

SKYTUNE_DEFINE_PLUGIN(beamformer_plugin)
