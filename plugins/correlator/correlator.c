/*
 * correlator — the correlator of a radio telescope, tuned as in J. Kis,
 * "Auto-tuning a LOFAR radio astronomy pipeline in JavaCL" (MSc thesis, VU
 * Amsterdam, 2013), chapter 5, after van Nieuwpoort & Romein, "Correlating
 * Radio Astronomy Signals with Many-Core Hardware" (IJPP 39, 2011).
 *
 * Input: complex float samples x[channel][time][station][polarisation], two
 * polarisations (X, Y). Output: for every channel and every baseline, a pair
 * of stations (s1, s2) with s1 >= s2 (autocorrelations included, so
 * stations * (stations + 1) / 2 baselines), the four polarisation products
 *
 *     V[channel][baseline(s1, s2)][p][q] = sum over t of x[channel][t][s1][p] * conj(x[channel][t][s2][q])
 *
 * in the order XX, XY, YX, YY, with baseline(s1, s2) = s1 * (s1 + 1) / 2 + s2.
 *
 * Tuning parameters: the cell (cell_width x cell_height baselines computed
 * by one work-item from cell_width + cell_height stations held in
 * registers), the work-group size, and staging of blocks of samples in local
 * memory (use_local, block_time). Every configuration computes every
 * baseline ("full tiling", thesis section 5.2.2): whole cells cover what they
 * can, and a second kernel computes the remaining baselines one by one.
 * correlator.cl describes the kernels.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pcg32.h>
#include <skytune/plugin.h>
#include <skytune/plugin_checks.h>

extern const char correlator_cl_source[];

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

/* The smallest work-group offered; the C constraint always keeps it. */
#define SMALLEST_WG_SIZE 4

/* Cells up to 4 x 4 in every shape, tall (1 x N, the GTX 480's choice),
 * wide (N x 1) and square (the Xeon's 2 x 2): 16 cells of 2 float4
 * accumulators each already hold 128 floats per work-item, and the thesis
 * saw register spilling on the GTX 480 from 1 x 7 cells on. Work-groups are
 * powers of two from 4: the thesis's CPU runs used 10 to 50 work-items, its
 * GPU optima 96 to 320. Time blocks are powers of two: a block of 64 samples of
 * 64 stations fills 64 KiB. */
static const skytune_tuning_param tuning_params[] = {
    {"cell_width", SKYTUNE_LIST, "1,2,3,4", 0, 0, 0,
     "stations per cell along s2 (the lower-numbered station of a baseline)"},
    {"cell_height", SKYTUNE_LIST, "1,2,3,4", 0, 0, 0,
     "stations per cell along s1 (the higher-numbered station of a baseline)"},
    {"wg_size", SKYTUNE_POW2, NULL, SMALLEST_WG_SIZE, 1024, 0,
     "work-items per work-group: cells of one channel, one cell per work-item"},
    {"use_local", SKYTUNE_BOOLEAN, NULL, 0, 0, 0,
     "1: stage blocks of samples of every station in local memory; 0: read global memory"},
    {"block_time", SKYTUNE_LIST, "4,8,16,32,64", 0, 0, 0,
     "samples per block staged in local memory (use_local only)"},
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
    "use_local == 1 or block_time == 4",
    "use_local == 0 or stations * block_time * 16 <= device.local_mem_size",
    NULL
};

/* ------------------------------------------------------------------ tiling */

static int64_t baseline_count(int64_t stations) { return stations * (stations + 1) / 2; }

/* The whole cells. They lie on a grid: columns of cells start at s2 = 0, w,
 * 2w, ... (while x + w <= stations) and rows at s1 = stations - h,
 * stations - 2h, ... (while >= 0), so the leftover columns are the short
 * ones at the largest s2 and the leftover rows the short ones at the
 * smallest s1. A grid cell at (x, y) is whole when its top-left baseline
 * (y, x + w - 1) is in the triangle: y >= x + w - 1. In the column at x
 * these are the rows y = stations - h - k * h >= x + w - 1, k >= 0. */
static int64_t column_cells(int64_t stations, int64_t x, int64_t w, int64_t h)
{
    const int64_t room = stations - h - (x + w - 1);
    return room < 0 ? 0 : room / h + 1;
}

static int64_t whole_cell_count(int64_t stations, int64_t w, int64_t h)
{
    if (w < 1 || h < 1) return 0;
    int64_t count = 0;
    for (int64_t x = 0; x + w <= stations; x += w) count += column_cells(stations, x, w, h);
    return count;
}

/* Exported so that tests (and curious users, through dlsym) can check the
 * tiling: how many whole cells the first pass computes; the remainder pass
 * computes baselines - cells * w * h. */
SKYTUNE_EXPORT int64_t skytune_correlator_whole_cells(int64_t stations, int64_t cell_width,
                                                      int64_t cell_height);
SKYTUNE_EXPORT int64_t skytune_correlator_whole_cells(int64_t stations, int64_t cell_width,
                                                      int64_t cell_height)
{
    return whole_cell_count(stations, cell_width, cell_height);
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
    const int64_t cells = whole_cell_count(skytune_int(problem, "stations"),
                                           skytune_int(config, "cell_width"),
                                           skytune_int(config, "cell_height"));
    if (wg_size <= SMALLEST_WG_SIZE || wg_size < 2 * cells) return 1;
    *why = "wg_size at least twice the whole cells of a channel (mostly idle work-groups)";
    return 0;
}

/* --------------------------------------------------------------- run state */

typedef struct correlator_problem {
    int64_t stations, channels, samples;
} correlator_problem;

typedef struct correlator_state {
    correlator_problem problem;
    size_t input_floats;    /* channels * samples * stations * 4 */
    size_t output_floats;   /* channels * baselines * 8 */
    float *input;           /* [channel][time][station][X.re, X.im, Y.re, Y.im] */
    float *expected;        /* [channel][baseline][XX, XY, YX, YY][re, im], from `reference` */
    float *result;          /* the same, read back by `verify` */
    cl_mem input_buf, output_buf;
} correlator_state;

/* One pass: a kernel, its list of cells (first s2, first s1) and its
 * geometry. A pass with no cells is not enqueued. */
typedef struct correlator_pass {
    cl_kernel kernel;
    cl_mem cells_buf;
    cl_int cell_count;
    size_t global[2];       /* cells rounded up to whole work-groups, channels */
    size_t local[2];        /* wg_size, 1 */
} correlator_pass;

typedef struct correlator_launch {
    correlator_pass cells;      /* whole cell_width x cell_height cells */
    correlator_pass remainder;  /* 1 x 1 cells for the baselines left over */
} correlator_launch;

/* What the kernels index with int, and the problem parameters that shrink
 * the arrays: for the messages of the size checks. */
#define INDEXED_ITEMS "float4 elements"
#define SIZE_HINT "stations, channels or samples"

/* ---------------------------------------------------------------- callbacks */

static void correlator_teardown(void *opaque);
static void correlator_release(void *opaque);




static correlator_problem problem_read(const skytune_values *problem)
{
    return (correlator_problem){
        .stations = skytune_int(problem, "stations"),
        .channels = skytune_int(problem, "channels"),
        .samples = skytune_int(problem, "samples"),
    };
}

/* Float4 vectors of the input ([channel][time][station][X, Y]) and of the
 * output ([channel][baseline][XX, XY] and [YX, YY]). */
static double input_vectors(const correlator_problem *p)
{
    return (double)p->channels * (double)p->samples * (double)p->stations;
}

static double output_vectors(const correlator_problem *p)
{
    /* In double: baseline_count would overflow for the largest stations. */
    const double baselines = (double)p->stations * ((double)p->stations + 1.0) / 2.0;
    return (double)p->channels * baselines * 2.0;
}

/* The engine calls this before it builds the space: the C constraint walks
 * the cells of a triangle of stations, which takes as long as the stations
 * are many, so a problem too large for the device must be refused first. */
static int correlator_check_problem(const skytune_values *problem,
                                    const skytune_device_info *device, skytune_error *err)
{
    const correlator_problem p = problem_read(problem);
    if (p.stations < 1 || p.channels < 1 || p.samples < 1)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "stations, channels and samples must be at least 1");
    int rc;
    if ((rc = skytune_check_index_extent("input", input_vectors(&p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_index_extent("output", output_vectors(&p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_allocation("input", input_vectors(&p) * 16.0, device, SIZE_HINT,
                                       err)) ||
        (rc = skytune_check_allocation("output", output_vectors(&p) * 16.0, device, SIZE_HINT,
                                       err)))
        return rc;
    return SKYTUNE_OK;
}

/* The problem passed correlator_check_problem (the engine calls it first). */
static int correlator_setup(const skytune_setup_context *ctx, void **state_out,
                            skytune_error *err)
{
    const correlator_problem p = problem_read(ctx->problem);

    correlator_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    s->problem = p;
    s->input_floats = (size_t)input_vectors(&p) * 4;
    s->output_floats = (size_t)output_vectors(&p) * 4;
    s->input = malloc(s->input_floats * sizeof(float));
    s->expected = malloc(s->output_floats * sizeof(float));
    s->result = malloc(s->output_floats * sizeof(float));
    if (!s->input || !s->expected || !s->result) {
        correlator_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the host arrays (%zu input, %zu output floats)",
                                 s->input_floats, s->output_floats);
    }

    /* Real and imaginary parts uniform in [-1, 1): zero-mean, like noise-
     * dominated telescope data, which keeps the cross-correlations' partial
     * sums near sqrt(t) (the verification tolerance relies on it). 2f - 1 is
     * exact for the 24-bit floats of pcg32_float. */
    pcg32 rng;
    pcg32_seed(&rng, ctx->seed, 0);
    for (size_t i = 0; i < s->input_floats; i++) s->input[i] = 2.0f * pcg32_float(&rng) - 1.0f;

    cl_int status = CL_SUCCESS;
    s->input_buf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  s->input_floats * sizeof(float), s->input, &status);
    if (status == CL_SUCCESS)
        s->output_buf = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY,
                                       s->output_floats * sizeof(float), NULL, &status);
    if (status != CL_SUCCESS) {
        correlator_teardown(s);
        return skytune_opencl_failure(err, SKYTUNE_ERR_SETUP, status,
                                      "clCreateBuffer (input, output)");
    }

    *state_out = s;
    return SKYTUNE_OK;
}

/* The definition, summed in double: for each channel and sample, every
 * baseline's four products. Time is the outer loop so that one channel's
 * accumulators (baselines * 8 doubles) stay in cache while the input is read
 * once, in order. The results are the exact sums (to double precision)
 * rounded once to float. */
static int correlator_reference(void *opaque, skytune_error *err)
{
    correlator_state *s = opaque;
    const correlator_problem *p = &s->problem;
    const int64_t baselines = baseline_count(p->stations);
    double *sum = malloc((size_t)baselines * 8 * sizeof *sum);
    if (!sum)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for %lld sums",
                                 (long long)baselines * 8);
    for (int64_t c = 0; c < p->channels; c++) {
        memset(sum, 0, (size_t)baselines * 8 * sizeof *sum);
        for (int64_t t = 0; t < p->samples; t++) {
            const float *row = s->input + (size_t)((c * p->samples + t) * p->stations) * 4;
            for (int64_t s1 = 0; s1 < p->stations; s1++) {
                const float *a = row + s1 * 4;
                for (int64_t s2 = 0; s2 <= s1; s2++) {
                    const float *b = row + s2 * 4;
                    double *v = sum + (s1 * (s1 + 1) / 2 + s2) * 8;
                    /* v[pq] += a_p * conj(b_q), pq = XX, XY, YX, YY */
                    for (int pol_a = 0; pol_a < 2; pol_a++)
                        for (int pol_b = 0; pol_b < 2; pol_b++) {
                            const double ar = a[2 * pol_a], ai = a[2 * pol_a + 1];
                            const double br = b[2 * pol_b], bi = b[2 * pol_b + 1];
                            double *pq = v + (2 * pol_a + pol_b) * 2;
                            pq[0] += ar * br + ai * bi;
                            pq[1] += ai * br - ar * bi;
                        }
                }
            }
        }
        float *out = s->expected + (size_t)(c * baselines) * 8;
        for (int64_t k = 0; k < baselines * 8; k++) out[k] = (float)sum[k];
    }
    free(sum);
    return SKYTUNE_OK;
}

/* The cell lists of both passes for a w x h cell: the whole cells of the
 * grid (see whole_cell_count), then every baseline they do not cover, found
 * with a map of the triangle. Lists hold (first s2, first s1) pairs. */
static int build_cell_lists(int64_t stations, int64_t w, int64_t h, cl_int **cells,
                            int64_t *n_cells, cl_int **remainder, int64_t *n_remainder,
                            skytune_error *err)
{
    const int64_t baselines = baseline_count(stations);
    *n_cells = whole_cell_count(stations, w, h);
    *n_remainder = baselines - *n_cells * w * h;
    *cells = malloc((size_t)(*n_cells > 0 ? *n_cells : 1) * 2 * sizeof(cl_int));
    *remainder = malloc((size_t)(*n_remainder > 0 ? *n_remainder : 1) * 2 * sizeof(cl_int));
    unsigned char *covered = calloc((size_t)baselines, 1);
    if (!*cells || !*remainder || !covered) {
        free(*cells);
        free(*remainder);
        free(covered);
        *cells = *remainder = NULL;
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the cell lists of %lld baselines",
                                 (long long)baselines);
    }
    int64_t k = 0;
    for (int64_t x = 0; x + w <= stations; x += w)
        for (int64_t y = stations - h; y >= x + w - 1; y -= h) {
            (*cells)[2 * k] = (cl_int)x;
            (*cells)[2 * k + 1] = (cl_int)y;
            k++;
            for (int64_t s1 = y; s1 < y + h; s1++)
                for (int64_t s2 = x; s2 < x + w; s2++) covered[s1 * (s1 + 1) / 2 + s2] = 1;
        }
    int64_t r = 0;
    for (int64_t s1 = 0; s1 < stations; s1++)
        for (int64_t s2 = 0; s2 <= s1; s2++)
            if (!covered[s1 * (s1 + 1) / 2 + s2]) {
                (*remainder)[2 * r] = (cl_int)s2;
                (*remainder)[2 * r + 1] = (cl_int)s1;
                r++;
            }
    free(covered);
    /* Both counts follow from the grid's arithmetic; the map must agree. */
    if (k != *n_cells || r != *n_remainder) {
        free(*cells);
        free(*remainder);
        *cells = *remainder = NULL;
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "tiling of %lld stations by %lld x %lld cells: listed %lld cells "
                                 "and %lld remaining baselines, expected %lld and %lld",
                                 (long long)stations, (long long)w, (long long)h, (long long)k,
                                 (long long)r, (long long)*n_cells, (long long)*n_remainder);
    }
    return SKYTUNE_OK;
}

/* Create a pass's kernel and cell buffer and set its arguments:
 * (input, cells, cell_count, visibilities). */
static int prepare_pass(const correlator_state *s, cl_context context, cl_program program,
                        const char *kernel_name, const cl_int *cells, int64_t count,
                        int64_t wg_size, correlator_pass *pass, skytune_error *err)
{
    pass->cell_count = (cl_int)count;
    if (count == 0) return SKYTUNE_OK;
    cl_int status = CL_SUCCESS;
    pass->kernel = clCreateKernel(program, kernel_name, &status);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, kernel_name);
    pass->cells_buf = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                     (size_t)count * 2 * sizeof(cl_int), (void *)cells, &status);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                      "clCreateBuffer (cell list)");
    status = clSetKernelArg(pass->kernel, 0, sizeof(cl_mem), &s->input_buf);
    if (status == CL_SUCCESS)
        status = clSetKernelArg(pass->kernel, 1, sizeof(cl_mem), &pass->cells_buf);
    if (status == CL_SUCCESS)
        status = clSetKernelArg(pass->kernel, 2, sizeof(cl_int), &pass->cell_count);
    if (status == CL_SUCCESS)
        status = clSetKernelArg(pass->kernel, 3, sizeof(cl_mem), &s->output_buf);
    if (status != CL_SUCCESS) return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                                            "clSetKernelArg");
    const int64_t groups = (count + wg_size - 1) / wg_size;
    pass->local[0] = (size_t)wg_size;
    pass->local[1] = 1;
    pass->global[0] = (size_t)(groups * wg_size);
    pass->global[1] = (size_t)s->problem.channels;
    return SKYTUNE_OK;
}

static int correlator_prepare(void *opaque, cl_program program, const skytune_values *config,
                              void **launch_out, skytune_error *err)
{
    correlator_state *s = opaque;
    const int64_t stations = s->problem.stations;
    const int64_t w = skytune_int(config, "cell_width");
    const int64_t h = skytune_int(config, "cell_height");
    const int64_t wg_size = skytune_int(config, "wg_size");
    /* The constraints guarantee these; checking again turns a configuration
     * that bypassed them into a clear error instead of a kernel reading past
     * the stations. */
    if (w < 1 || h < 1 || w + h > stations + 1 || wg_size < 1)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "a %lld x %lld cell does not fit the triangle of %lld stations "
                                 "(cell_width + cell_height must be at most stations + 1)",
                                 (long long)w, (long long)h, (long long)stations);

    cl_context context = NULL;
    cl_int status = clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                      "clGetProgramInfo (context)");

    cl_int *cells = NULL, *remainder = NULL;
    int64_t n_cells = 0, n_remainder = 0;
    int rc = build_cell_lists(stations, w, h, &cells, &n_cells, &remainder, &n_remainder, err);
    if (rc) return rc;

    correlator_launch *l = calloc(1, sizeof *l);
    if (!l) {
        free(cells);
        free(remainder);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    }
    rc = prepare_pass(s, context, program, "correlate_cells", cells, n_cells, wg_size, &l->cells,
                      err);
    if (rc == SKYTUNE_OK)
        rc = prepare_pass(s, context, program, "correlate_remainder", remainder, n_remainder,
                          wg_size, &l->remainder, err);
    free(cells);
    free(remainder);
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
    const float poison = NAN;
    cl_int status = clEnqueueFillBuffer(queue, s->output_buf, &poison, sizeof poison, 0,
                                        s->output_floats * sizeof(float), 0, NULL, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueFillBuffer (NaN)");
    return SKYTUNE_OK;
}

static int enqueue_pass(const correlator_pass *pass, cl_command_queue queue, const char *label,
                        skytune_events *events, skytune_error *err)
{
    if (pass->cell_count == 0) return SKYTUNE_OK;
    cl_event done = NULL;
    cl_int status = clEnqueueNDRangeKernel(queue, pass->kernel, 2, NULL, pass->global,
                                           pass->local, 0, NULL, &done);
    if (status != CL_SUCCESS) return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, label);
    if (skytune_events_add(events, done, label) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "too many events in one run");
    return SKYTUNE_OK;
}

/* Both passes write disjoint baselines, so their order does not matter; the
 * queue is in order and runs them one after the other. */
static int correlator_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                              skytune_error *err)
{
    correlator_launch *l = opaque;
    int rc = enqueue_pass(&l->cells, queue, "cells", events, err);
    if (rc == SKYTUNE_OK) rc = enqueue_pass(&l->remainder, queue, "remainder", events, err);
    return rc;
}

static int correlator_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                             skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    correlator_state *s = opaque;
    cl_int status = clEnqueueReadBuffer(queue, s->output_buf, CL_TRUE, 0,
                                        s->output_floats * sizeof(float), s->result, 0, NULL,
                                        NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                      "clEnqueueReadBuffer (output)");
    /* Each output float is a sum over T = samples steps of two products of
     * input components in [-1, 1), accumulated in float (u = 2^-24) one term
     * at a time; the reference is exact to double precision. Every step
     * rounds by at most u times the partial sum, plus u times the product
     * when it is not fused, so |error| <= u * (2T + sum over the 2T steps of
     * |partial sum|).
     *  - Cross terms (every product but the autocorrelations' XX and YY real
     *    parts) are sums of zero-mean terms of standard deviation
     *    sqrt(2)/3 per sample: a random walk whose partial sums stay within a
     *    few sqrt(t), so the bound is about u * (2T + 4 T sqrt(T)) even with
     *    every rounding error pointing the same way. That is the absolute
     *    tolerance: 1.3e-4 for T = 64, 5e-3 for the thesis's T = 768.
     *  - The autocorrelations' XX and YY real parts sum non-negative terms,
     *    so every partial sum is at most the result: relative error at most
     *    (2T + 1) u; the relative tolerance is 4 T u.
     * A real mistake changes a sum by a whole term, of order 0.5 (a missing
     * sample, station or polarisation, a conjugate on the wrong side) or
     * leaves the NaN poison in place (a missing baseline): far above both. */
    const double u = ldexp(1.0, -24);
    const double samples = (double)s->problem.samples;
    const double abs_tol = u * (2.0 * samples + 4.0 * samples * sqrt(samples));
    const double rel_tol = 4.0 * samples * u;
    skytune_verify_floats(report, "visibilities", s->result, s->expected, s->output_floats, abs_tol,
                          rel_tol);
    return SKYTUNE_OK;
}

static void release_pass(correlator_pass *pass)
{
    if (pass->kernel) clReleaseKernel(pass->kernel);
    if (pass->cells_buf) clReleaseMemObject(pass->cells_buf);
}

static void correlator_release(void *opaque)
{
    correlator_launch *l = opaque;
    if (!l) return;
    release_pass(&l->cells);
    release_pass(&l->remainder);
    free(l);
}

static void correlator_teardown(void *opaque)
{
    correlator_state *s = opaque;
    if (!s) return;
    if (s->input_buf) clReleaseMemObject(s->input_buf);
    if (s->output_buf) clReleaseMemObject(s->output_buf);
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
    return 8.0 * 4.0 * (double)baseline_count(skytune_int(problem, "stations")) *
           (double)skytune_int(problem, "channels") * (double)skytune_int(problem, "samples");
}

static double correlator_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    const double stations = (double)skytune_int(problem, "stations");
    const double channels = (double)skytune_int(problem, "channels");
    const double samples = (double)skytune_int(problem, "samples");
    return 16.0 * channels * samples * stations +
           32.0 * channels * (double)baseline_count(skytune_int(problem, "stations"));
}

/* -------------------------------------------------------------- description */

static const skytune_plugin correlator_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "correlator",
    .version = "1.0",
    .description = "radio-telescope correlator with register-blocked cells (Kis 2013, ch. 5)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = correlator_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = correlator_constraint,
    .kernel_source = correlator_cl_source,
    .generate_source = NULL,
    .defines = NULL,
    .setup = correlator_setup,
    .reference = correlator_reference,
    .prepare = correlator_prepare,
    .clear_outputs = correlator_clear_outputs,
    .enqueue = correlator_enqueue,
    .verify = correlator_verify,
    .release = correlator_release,
    .teardown = correlator_teardown,
    .flops = correlator_flops,
    .bytes = correlator_bytes,
};

SKYTUNE_DEFINE_PLUGIN(correlator_plugin)
