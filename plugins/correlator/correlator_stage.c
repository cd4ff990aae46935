#include "correlator_stage.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <skytune/plugin_checks.h>

#include "stage_buffer.h"
#include "stage_random.h"

/* ------------------------------------------------------------ the problem */

void correlator_problem_read(const skytune_values *problem, correlator_problem *p)
{
    p->stations = skytune_int(problem, "stations");
    p->channels = skytune_int(problem, "channels");
    p->samples = skytune_int(problem, "samples");
}

int64_t correlator_baselines(int64_t stations) { return stations * (stations + 1) / 2; }

/* Float4 vectors of the input (a station's two polarisations) and of the
 * output ([channel][baseline][XX, XY] and [YX, YY]), in double for the
 * checks: an int64_t product could overflow for the largest problems. */
static double input_vectors(const correlator_problem *p)
{
    return (double)p->channels * (double)p->samples * (double)p->stations;
}

static double output_vectors(const correlator_problem *p)
{
    const double baselines = (double)p->stations * ((double)p->stations + 1.0) / 2.0;
    return (double)p->channels * baselines * 2.0;
}

/* What the kernels index with int, and the problem parameters that shrink
 * the arrays: for the messages of the size checks. */
#define INDEXED_ITEMS "float4 elements"
#define SIZE_HINT "stations, channels or samples"

int correlator_problem_check_device(const correlator_problem *p,
                                    const skytune_device_info *device, skytune_error *err)
{
    if (p->stations < 1 || p->channels < 1 || p->samples < 1)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "stations, channels and samples must be at least 1");
    int rc;
    if ((rc = skytune_check_index_extent("input", input_vectors(p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_index_extent("output", output_vectors(p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_allocation("input", input_vectors(p) * 16.0, device, SIZE_HINT,
                                       err)) ||
        (rc = skytune_check_allocation("output", output_vectors(p) * 16.0, device, SIZE_HINT,
                                       err)))
        return rc;
    return SKYTUNE_OK;
}

size_t correlator_input_count(const correlator_problem *p)
{
    return (size_t)input_vectors(p) * 2;
}

size_t correlator_output_floats(const correlator_problem *p)
{
    return (size_t)output_vectors(p) * 4;
}

void correlator_input_sizes(const correlator_problem *p, int64_t sizes[4])
{
    sizes[0] = p->stations;
    sizes[1] = p->channels;
    sizes[2] = p->samples;
    sizes[3] = 2;
}

/* ------------------------------------------------------------------ tiling */

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

int64_t correlator_whole_cells(int64_t stations, int64_t w, int64_t h)
{
    if (w < 1 || h < 1) return 0;
    int64_t count = 0;
    for (int64_t x = 0; x + w <= stations; x += w) count += column_cells(stations, x, w, h);
    return count;
}

/* ------------------------------------------------------- a configuration */

int correlator_config_read(const skytune_values *config, correlator_config *c,
                           skytune_error *err)
{
    c->cell_width = skytune_int(config, "cell_width");
    c->cell_height = skytune_int(config, "cell_height");
    c->wg_size = skytune_int(config, "wg_size");
    c->use_local = skytune_int(config, "use_local") != 0;
    c->block_time = skytune_int(config, "block_time");
    const char *order = skytune_string(config, "cell_order");
    if (strcmp(order, "column") != 0 && strcmp(order, "row") != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "cell_order '%s' is neither of " CORRELATOR_CELL_ORDERS, order);
    c->rows = strcmp(order, "row") == 0;
    return stage_read_layout(config, "in_layout", CORRELATOR_IN_LETTERS, c->in_layout, err);
}

int correlator_macros(const correlator_problem *p, const correlator_config *c, stage_macros *m,
                      skytune_error *err)
{
    stage_macros_init(m);
    int64_t sizes[4];
    correlator_input_sizes(p, sizes);
    if (stage_macros_add_int(m, "stations", p->stations, false) ||
        stage_macros_add_int(m, "channels", p->channels, false) ||
        stage_macros_add_int(m, "samples", p->samples, false) ||
        stage_macros_add_int(m, "cell_width", c->cell_width, false) ||
        stage_macros_add_int(m, "cell_height", c->cell_height, false) ||
        stage_macros_add_int(m, "wg_size", c->wg_size, false) ||
        stage_macros_add_int(m, "use_local", c->use_local, false) ||
        stage_macros_add_int(m, "block_time", c->block_time, false) ||
        stage_macros_add_strides(m, "IN", c->in_layout, CORRELATOR_IN_LETTERS, sizes))
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "cannot list the correlator's macros for in_layout '%s'",
                                 c->in_layout);
    return SKYTUNE_OK;
}

int correlator_macros_of_values(const skytune_values *problem, const skytune_values *config,
                                stage_macros *m, skytune_error *err)
{
    correlator_problem p;
    correlator_config c;
    correlator_problem_read(problem, &p);
    int rc = correlator_config_read(config, &c, err);
    return rc ? rc : correlator_macros(&p, &c, m, err);
}

/* ------------------------------------------------------- host-side data */

void correlator_generate_input(const correlator_problem *p, uint64_t seed, float *input)
{
    stage_fill_signed_uniform(input, (size_t)(correlator_input_count(p) * 2), seed);
}

/* The channels one thread of the reference sums: c = first, first + step,
 * ... (channels are independent). */
typedef struct reference_part {
    const correlator_problem *p;
    const float *input;
    float *visibilities;
    int64_t first, step;
    int failed;              /* out of memory for its sums */
} reference_part;

static void *sum_channels(void *arg);

/* Threads for the reference: the thesis problem's 256 channels take ~3 s on
 * one core of an H200 host, all of it before the first configuration can be
 * measured. */
#define REFERENCE_THREADS_MAX 16

/* The definition, summed in double: for each channel and sample, every
 * baseline's four products. Time is the outer loop so that one channel's
 * accumulators (baselines * 8 doubles) stay in cache while the input is read
 * once, in order. The results are the exact sums (to double precision)
 * rounded once to float, the same whichever thread sums a channel. */
int correlator_cpu_reference(const correlator_problem *p, const float *input,
                             float *visibilities, skytune_error *err)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t n = cpus < 1 ? 1 : cpus > REFERENCE_THREADS_MAX ? REFERENCE_THREADS_MAX : cpus;
    if (n > p->channels) n = p->channels;
    reference_part parts[REFERENCE_THREADS_MAX];
    pthread_t threads[REFERENCE_THREADS_MAX];
    int64_t started = 0;
    for (int64_t k = 0; k < n; k++) {
        parts[k] = (reference_part){p, input, visibilities, k, n, 0};
        /* The first part is this thread's; a thread that cannot start
         * leaves its channels to it too (below). */
        if (k > 0 && pthread_create(&threads[k], NULL, sum_channels, &parts[k]) != 0) break;
        started = k + 1;
    }
    if (started < n) {
        /* Fewer threads than planned: this thread sums what the missing
         * ones would have, channel by channel. */
        for (int64_t k = started; k < n; k++) parts[k] = (reference_part){p, input, visibilities,
                                                                          k, n, 0};
        for (int64_t k = started; k < n; k++) sum_channels(&parts[k]);
    }
    sum_channels(&parts[0]);
    int failed = parts[0].failed;
    for (int64_t k = 1; k < n; k++) {
        if (k < started) pthread_join(threads[k], NULL);
        failed |= parts[k].failed;
    }
    if (failed)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for %lld sums",
                                 (long long)correlator_baselines(p->stations) * 8);
    return SKYTUNE_OK;
}

static void *sum_channels(void *arg)
{
    reference_part *part = arg;
    const correlator_problem *p = part->p;
    const float *input = part->input;
    float *visibilities = part->visibilities;
    const int64_t baselines = correlator_baselines(p->stations);
    double *sum = malloc((size_t)baselines * 8 * sizeof *sum);
    if (!sum) {
        part->failed = 1;
        return NULL;
    }
    for (int64_t c = part->first; c < p->channels; c += part->step) {
        memset(sum, 0, (size_t)baselines * 8 * sizeof *sum);
        for (int64_t t = 0; t < p->samples; t++) {
            const float *row = input + (size_t)((c * p->samples + t) * p->stations) * 4;
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
        float *out = visibilities + (size_t)(c * baselines) * 8;
        for (int64_t k = 0; k < baselines * 8; k++) out[k] = (float)sum[k];
    }
    free(sum);
    return NULL;
}

void correlator_tolerances(const correlator_problem *p, double *abs_tol, double *rel_tol)
{
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
    const double samples = (double)p->samples;
    *abs_tol = u * (2.0 * samples + 4.0 * samples * sqrt(samples));
    *rel_tol = 4.0 * samples * u;
}

/* ------------------------------------------------------------ the device */

/* The whole cells on the grid of correlator_whole_cells. Down the columns,
 * consecutive cells (neighbouring work-items) share their s2 stations and
 * their s1 stations step by h; along the rows they share s1 and their s2
 * stations step by w. Which of the two a warp reads as one address and
 * which strided is what cell_order tunes: a tall 1 x N cell's N s1 loads
 * stride by N stations across a warp down the columns, and are shared along
 * the rows. */
void correlator_list_cells(int64_t stations, int64_t w, int64_t h, bool rows, int32_t *cells)
{
    int64_t k = 0;
    if (rows) {
        for (int64_t y = stations - h; y >= 0; y -= h)
            for (int64_t x = 0; x + w <= stations && y >= x + w - 1; x += w) {
                cells[2 * k] = (int32_t)x;
                cells[2 * k + 1] = (int32_t)y;
                k++;
            }
        return;
    }
    for (int64_t x = 0; x + w <= stations; x += w)
        for (int64_t y = stations - h; y >= x + w - 1; y -= h) {
            cells[2 * k] = (int32_t)x;
            cells[2 * k + 1] = (int32_t)y;
            k++;
        }
}

/* The cell lists of both passes for a w x h cell: the whole cells of the
 * grid (see correlator_whole_cells) in the order asked for, then every
 * baseline they do not cover, found with a map of the triangle. Lists hold
 * (first s2, first s1) pairs. */
static int build_cell_lists(int64_t stations, int64_t w, int64_t h, bool rows, cl_int **cells,
                            int64_t *n_cells, cl_int **remainder, int64_t *n_remainder,
                            skytune_error *err)
{
    const int64_t baselines = correlator_baselines(stations);
    *n_cells = correlator_whole_cells(stations, w, h);
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
    correlator_list_cells(stations, w, h, rows, *cells);
    /* Marking each listed cell once, a cell listed twice shows up as a
     * remainder count that does not match. */
    int64_t k = 0;
    for (; k < *n_cells; k++) {
        const int64_t x = (*cells)[2 * k], y = (*cells)[2 * k + 1];
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

/* A pass over `count` cells: its cell list uploaded, and its kernel, whose
 * arguments are (input, cells, cell_count, visibilities), a work-item per
 * cell and channel. */
static int prepare_pass(const correlator_problem *p, cl_context context, cl_program program,
                        const char *kernel_name, const char *label, const cl_int *cells,
                        int64_t count, int64_t wg_size, cl_mem input, cl_mem visibilities,
                        correlator_pass *pass, skytune_error *err)
{
    if (count == 0) return SKYTUNE_OK;
    pass->cells = support_input("cell list", cells, (size_t)count * 2 * sizeof(cl_int));
    int rc = support_buffers_create(&pass->cells, 1, context, SKYTUNE_ERR_LAUNCH, err);
    if (rc) return rc;
    const cl_int cell_count = (cl_int)count;
    const int64_t groups = (count + wg_size - 1) / wg_size;
    const support_kernel_spec kernel = {
        .name = kernel_name,
        .label = label,
        .args = {SUPPORT_ARG(input), SUPPORT_ARG(pass->cells.mem), SUPPORT_ARG(cell_count),
                 SUPPORT_ARG(visibilities)},
        .dims = 2,
        .global = {(size_t)(groups * wg_size), (size_t)p->channels},
        .local = {(size_t)wg_size, 1},
    };
    return support_kernel_create(&pass->kernel, program, &kernel, err);
}

static void release_pass(correlator_pass *pass)
{
    support_kernel_release(&pass->kernel);
    support_buffers_release(&pass->cells, 1);
}

int correlator_stage_prepare(correlator_stage_launch *l, cl_program program,
                             const correlator_problem *p, const correlator_config *c,
                             cl_mem input, cl_mem visibilities, skytune_error *err)
{
    memset(l, 0, sizeof *l);
    const int64_t stations = p->stations, w = c->cell_width, h = c->cell_height;
    /* The constraints guarantee these; checking again turns a configuration
     * that bypassed them into a clear error instead of a kernel reading past
     * the stations. */
    if (w < 1 || h < 1 || w + h > stations + 1 || c->wg_size < 1)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "a %lld x %lld cell does not fit the triangle of %lld stations "
                                 "(cell_width + cell_height must be at most stations + 1)",
                                 (long long)w, (long long)h, (long long)stations);

    cl_context context = NULL;
    int rc = support_program_context(program, &context, err);
    if (rc) return rc;

    cl_int *cells = NULL, *remainder = NULL;
    int64_t n_cells = 0, n_remainder = 0;
    rc = build_cell_lists(stations, w, h, c->rows, &cells, &n_cells, &remainder, &n_remainder, err);
    if (rc) return rc;
    rc = prepare_pass(p, context, program, "correlate_cells", "cells", cells, n_cells, c->wg_size,
                      input, visibilities, &l->cells, err);
    if (rc == SKYTUNE_OK)
        rc = prepare_pass(p, context, program, "correlate_remainder", "remainder", remainder,
                          n_remainder, c->wg_size, input, visibilities, &l->remainder, err);
    free(cells);
    free(remainder);
    if (rc) correlator_stage_release(l);
    return rc;
}

/* Both passes write disjoint baselines, so their order does not matter; the
 * queue is in order and runs them one after the other. */
int correlator_stage_enqueue(const correlator_stage_launch *l, cl_command_queue queue,
                             skytune_events *events, skytune_error *err)
{
    int rc = support_kernel_enqueue(&l->cells.kernel, queue, events, err);
    if (rc == SKYTUNE_OK) rc = support_kernel_enqueue(&l->remainder.kernel, queue, events, err);
    return rc;
}

void correlator_stage_release(correlator_stage_launch *l)
{
    release_pass(&l->cells);
    release_pass(&l->remainder);
}

/* ------------------------------------------------------------ work counts */

/* Counting only the baselines of the triangle, as the thesis does (section
 * 5.3); what a configuration re-reads through caches or local memory is not
 * counted in the bytes. */
double correlator_count_flops(const correlator_problem *p)
{
    return 8.0 * 4.0 * (double)correlator_baselines(p->stations) * (double)p->channels *
           (double)p->samples;
}

double correlator_count_bytes(const correlator_problem *p)
{
    return 16.0 * (double)p->channels * (double)p->samples * (double)p->stations +
           32.0 * (double)p->channels * (double)correlator_baselines(p->stations);
}
