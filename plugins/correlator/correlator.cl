/*
 * The correlator of a radio telescope (van Nieuwpoort & Romein, "Correlating
 * Radio Astronomy Signals with Many-Core Hardware"; J. Kis, "Auto-tuning a
 * LOFAR radio astronomy pipeline in JavaCL", chapter 5): for every channel
 * and every baseline (s1, s2) with s1 >= s2, the four polarisation products
 *
 *     V[channel][baseline][p][q] = sum over t of x(s1, channel, t, p) * conj(x(s2, channel, t, q))
 *
 * Section-safe: a pipeline compiles this file into one program with other
 * stages' sources, each between #defines of its macros and #undefs of them
 * (plugins/stage/stage_macros.h). So its kernels and helper functions carry
 * the stage's name, and every helper macro it defines is #undef'd at its
 * end; nothing it declares can clash with another section's.
 *
 * Macros, one per parameter (never reuse these names for variables in this
 * file), from the engine or the pipeline (correlator_macros in
 * correlator_stage.c lists them):
 *   stations, channels, samples     problem shape
 *   cell_width, cell_height         stations per cell along s2 and along s1
 *   wg_size                         work-items per work-group (one cell each)
 *   use_local                       1: stage blocks of samples in local memory
 *   block_time                      use_local only: samples per staged block
 *   IN_STRIDE_S, IN_STRIDE_C, IN_STRIDE_T, IN_STRIDE_P
 *                                   strides of the input's layout (in_layout
 *                                   over SCTP), in float2 elements (derived)
 *
 * Layouts. The input is complex floats in the tuned layout in_layout: element
 * (s, c, t, p) at s * IN_STRIDE_S + c * IN_STRIDE_C + t * IN_STRIDE_T +
 * p * IN_STRIDE_P, the index arithmetic generated from the layout (Kis 2013,
 * Algorithm 1) with constants the compiler folds. LOFAR's (and the default)
 * is [channel][time][station][polarisation], "CTSP", the layout after its
 * transpose: one station's two polarisations are one float4 (X.re, X.im,
 * Y.re, Y.im), and the stations of one sample of one channel are
 * consecutive. Layouts ending in P keep that float4 load; others load the
 * two polarisations apart. The output is
 * [channel][baseline][XX, XY, YX, YY] complex floats: two float4 per
 * baseline, (XX.re, XX.im, XY.re, XY.im) then (YX.re, YX.im, YY.re, YY.im),
 * with baseline(s1, s2) = s1 * (s1 + 1) / 2 + s2.
 *
 * Work decomposition. The host lists cells, each a cell_width x cell_height
 * block of the baseline triangle given by its first s2 (x) and first s1 (y):
 * the cell holds baselines (y + j, x + i) for i < cell_width, j < cell_height.
 * Work-item (i, c) of the NDRange computes cell i of the list for channel c;
 * a work-group is wg_size cells of one channel (local size wg_size x 1), so
 * that its work-items share one channel's samples, which is what the
 * local-memory variant stages. The global size along cells is the cell count
 * rounded up to whole work-groups; the excess work-items compute nothing.
 *
 * A work-item loads the cell_width + cell_height stations of its cell once
 * per sample into registers and forms all cell_width * cell_height products
 * from them: the register blocking of the triangle whose shape the thesis
 * tunes. Every baseline of a listed cell lies in the triangle (the host's
 * guarantee), so no work-item checks s1 >= s2.
 *
 * Full tiling. correlate_cells runs the list of whole cell_width x
 * cell_height cells; correlate_remainder runs 1 x 1 cells for the baselines
 * those leave out (along the diagonal, and the edges that whole cells do not
 * reach when the cell size does not divide the station count). Both kernels
 * share the code below; the remainder's loops have one iteration.
 */

#define BASELINES (stations * (stations + 1) / 2)

/* The input as the kernels walk it: a channel's base, a sample's row at
 * CORRELATOR_STRIDE_T elements from the one before, and station s's two
 * polarisations in a row as one float4. With P innermost they are adjacent
 * and every stride is even (P's size is 2), so the input is read as float4
 * with the strides halved, constants all: for the default CTSP exactly the
 * loads of the fixed layout. Otherwise it is read as float2, the two
 * polarisations apart. */
#if IN_STRIDE_P == 1
#define CORRELATOR_ELEMENT float4
#define CORRELATOR_STRIDE_S (IN_STRIDE_S / 2)
#define CORRELATOR_STRIDE_C (IN_STRIDE_C / 2)
#define CORRELATOR_STRIDE_T (IN_STRIDE_T / 2)
#define CORRELATOR_AT(row, s) ((row)[(s) * CORRELATOR_STRIDE_S])
#else
#define CORRELATOR_ELEMENT float2
#define CORRELATOR_STRIDE_S IN_STRIDE_S
#define CORRELATOR_STRIDE_C IN_STRIDE_C
#define CORRELATOR_STRIDE_T IN_STRIDE_T
#define CORRELATOR_AT(row, s) \
    ((float4)((row)[(s) * IN_STRIDE_S], (row)[(s) * IN_STRIDE_S + IN_STRIDE_P]))
#endif

/* One sample's contribution to the cell: a[j] is station first_s1 + j and
 * b[i] station first_s2 + i, each (X.re, X.im, Y.re, Y.im). For a in
 * polarisation p, a_p * conj(b_X) and a_p * conj(b_Y) together are
 *
 *   (re(a_p) * b.re + im(a_p) * b.im, im(a_p) * b.re - re(a_p) * b.im) for b = b_X, b_Y
 *   = re(a_p) * (bX.re, -bX.im, bY.re, -bY.im) + im(a_p) * (bX.im, bX.re, bY.im, bY.re)
 *
 * so each baseline costs four float4 multiply-adds: 32 flops. The two
 * rearrangements of b are made once per station, not per baseline. */
static inline __attribute__((always_inline))
void correlator_accumulate(const float4 *a, const float4 *b, float4 (*sum_x)[cell_width],
                float4 (*sum_y)[cell_width], const int width, const int height)
{
    float4 b_conj[cell_width], b_swap[cell_width];
    for (int i = 0; i < width; i++) {
        b_conj[i] = (float4)(b[i].x, -b[i].y, b[i].z, -b[i].w);
        b_swap[i] = (float4)(b[i].y, b[i].x, b[i].w, b[i].z);
    }
    for (int j = 0; j < height; j++)
        for (int i = 0; i < width; i++) {
            sum_x[j][i] += a[j].x * b_conj[i];
            sum_x[j][i] += a[j].y * b_swap[i];
            sum_y[j][i] += a[j].z * b_conj[i];
            sum_y[j][i] += a[j].w * b_swap[i];
        }
}

/* Correlate one cell of width x height baselines over all samples of one
 * channel and write it. width and height are compile-time constants at both
 * call sites, so after inlining every loop over them unrolls and the arrays
 * live in registers. With use_local, every work-item of the group must get
 * here (it takes part in the barriers); `active` says whether it has a cell. */
static inline __attribute__((always_inline))
void correlator_cell(__global const float4 *restrict input,
#if use_local
                    __local float4 *restrict staged,
#endif
                    const int2 first, const int active, const int width, const int height,
                    __global float4 *restrict visibilities)
{
    const int channel = get_global_id(1);
    const int first_s2 = first.x, first_s1 = first.y;
    float4 a[cell_height], b[cell_width];
    float4 sum_x[cell_height][cell_width], sum_y[cell_height][cell_width];
    for (int j = 0; j < height; j++)
        for (int i = 0; i < width; i++)
            sum_x[j][i] = sum_y[j][i] = (float4)(0.0f);

    __global const CORRELATOR_ELEMENT *channel_input =
        (__global const CORRELATOR_ELEMENT *)input + channel * CORRELATOR_STRIDE_C;
#if use_local
    /* The group's cells all belong to this channel and together touch most
     * of its stations, so the group copies block_time samples of every
     * station into local memory, [time][station], and each work-item then
     * reads its stations from there. The last block may be shorter. */
    for (int block = 0; block < samples; block += block_time) {
        const int count = min(block_time, samples - block) * stations;
#if IN_STRIDE_P == 1 && IN_STRIDE_S == 2 && IN_STRIDE_T == 2 * stations
        /* The layout ends in TSP (as CTSP does): the block is
         * block_time * stations consecutive float4, copied with coalesced
         * reads. */
        __global const float4 *source = channel_input + block * stations;
        for (int k = get_local_id(0); k < count; k += wg_size)
            staged[k] = source[k];
#else
        for (int k = get_local_id(0); k < count; k += wg_size)
            staged[k] = CORRELATOR_AT(channel_input + (block + k / stations) * CORRELATOR_STRIDE_T,
                                      k % stations);
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
        if (active) {
            for (int row = 0; row < count; row += stations) {
                for (int j = 0; j < height; j++) a[j] = staged[row + first_s1 + j];
                for (int i = 0; i < width; i++) b[i] = staged[row + first_s2 + i];
                correlator_accumulate(a, b, sum_x, sum_y, width, height);
            }
        }
        /* The next block overwrites `staged`: wait until everyone has read it. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    /* Straight from global memory: reuse of a station between the cells of
     * a work-group is left to the caches. */
    for (int t = 0; t < samples; t++) {
        __global const CORRELATOR_ELEMENT *row = channel_input + t * CORRELATOR_STRIDE_T;
        for (int j = 0; j < height; j++) a[j] = CORRELATOR_AT(row, first_s1 + j);
        for (int i = 0; i < width; i++) b[i] = CORRELATOR_AT(row, first_s2 + i);
        correlator_accumulate(a, b, sum_x, sum_y, width, height);
    }
#endif

    if (!active) return;
    __global float4 *out = visibilities + channel * (BASELINES * 2);
    for (int j = 0; j < height; j++) {
        const int s1 = first_s1 + j;
        for (int i = 0; i < width; i++) {
            const int baseline = s1 * (s1 + 1) / 2 + first_s2 + i;
            out[2 * baseline] = sum_x[j][i];
            out[2 * baseline + 1] = sum_y[j][i];
        }
    }
}

/* Whole cell_width x cell_height cells. `cells` holds (first s2, first s1)
 * of each. */
__kernel __attribute__((reqd_work_group_size(wg_size, 1, 1)))
void correlate_cells(__global const float4 *restrict input,
                     __global const int2 *restrict cells, const int cell_count,
                     __global float4 *restrict visibilities)
{
    const int cell = get_global_id(0);
    const int active = cell < cell_count;
#if use_local
    __local float4 staged[block_time * stations];
    /* Work-items without a cell still stage and wait; they work on the
     * first cell's stations and write nothing. */
    const int2 first = cells[active ? cell : 0];
    correlator_cell(input, staged, first, active, cell_width, cell_height, visibilities);
#else
    if (!active) return;
    correlator_cell(input, cells[cell], active, cell_width, cell_height, visibilities);
#endif
}

/* The baselines the whole cells leave out, one per work-item. */
__kernel __attribute__((reqd_work_group_size(wg_size, 1, 1)))
void correlate_remainder(__global const float4 *restrict input,
                         __global const int2 *restrict cells, const int cell_count,
                         __global float4 *restrict visibilities)
{
    const int cell = get_global_id(0);
    const int active = cell < cell_count;
#if use_local
    __local float4 staged[block_time * stations];
    const int2 first = cells[active ? cell : 0];
    correlator_cell(input, staged, first, active, 1, 1, visibilities);
#else
    if (!active) return;
    correlator_cell(input, cells[cell], active, 1, 1, visibilities);
#endif
}

#undef BASELINES
#undef CORRELATOR_ELEMENT
#undef CORRELATOR_STRIDE_S
#undef CORRELATOR_STRIDE_C
#undef CORRELATOR_STRIDE_T
#undef CORRELATOR_AT
