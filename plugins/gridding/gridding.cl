/*
 * Convolution gridding (the NAG report on SKA gridding, Listing 1; Romein's
 * work distribution as used in EPIC): every visibility, multiplied by its
 * weight, is convolved with the convolution kernel of its w-plane and added
 * into the grid of its batch and polarization; the weights are summed per
 * batch.
 *
 * Macros from the engine, one per parameter (never reuse these names for
 * variables in this file):
 *   grid_size, oversample, w_planes, support_min, support_max,
 *   visibilities, polarizations, batches, track_length, distribution,
 *   concentration, halo_radius, extent                       the problem
 *   variant, wg_size, tile_size, groups_per_tile, tile_registers,
 *   box_radius, tiled_fraction, pols_per_item, reorder_kernels,
 *   romein_loop, float_atomics                                the configuration
 * and from the plugin's `defines`:
 *   VARIANT_ATOMIC, VARIANT_TILED, VARIANT_HYBRID, VARIANT_ROMEIN   0 or 1
 *   ROMEIN_WHOLE     1: romein_loop is 'whole'
 *   HALF_OS          (oversample + 1) / 2, the largest |oversampling offset|
 *   CUBE_DIM         HALF_OS + support_max * oversample + 1, one side of a
 *                    plane in the original cube of kernels
 *   WEIGHT_SCALE     weights are whole multiples of 1 / WEIGHT_SCALE
 *   SORT_WG          work-items per group of the bucket-sort kernels
 *   SCAN_WG          work-items of the one work-group that scans the buckets
 *   FLOAT_ATOMICS_NATIVE  1: float_atomics is 'native' (NVIDIA's PTX)
 *
 * Layouts (host and device alike):
 *   uvwt     [batch][visibility] float4: u and v in grid cells from the grid
 *            centre, w, and the weight
 *   vis      [batch][visibility][polarization] float2
 *   grid     [batch][polarization][v][u] float2
 *   weights  [batch][2] uint: the sum of weight * WEIGHT_SCALE over the
 *            batch, low and high 32 bits
 *   kernels  original: [plane][iy][ix] float2 with iy, ix < CUBE_DIM (the
 *            report's cube, every plane as large as the largest); reordered:
 *            plane p from plane_start[p] on, [|off_v|][|off_u|][j + s][k + s]
 *            for offsets 0..HALF_OS and footprint positions -s..s (the
 *            report's Listing 12: unit stride along k)
 */

#define LATTICE (2 * support_max + 1)
#define GRID_CENTRE (grid_size / 2)
#define POL_GROUPS (polarizations / pols_per_item)

/* -------------------------------------------------------------- placement */

/* OpenCL's abs() returns an unsigned int, which turns comparisons with
 * negative ints upside down; this one stays signed. */
static inline int iabs(const int x)
{
    return x < 0 ? -x : x;
}


/* Where a visibility lands, as Listing 1 computes it: the grid point nearest
 * (u, v), the oversampling offsets of (u, v) from it, the w-plane
 * round(sqrt(|w|)), and its support. The host's reference repeats this
 * arithmetic operation for operation in float, so both agree exactly. */
typedef struct placement {
    int gu, gv;
    int off_u, off_v;
    int plane, support;
    int conjugate;      /* w > 0: the kernel's imaginary part changes sign */
} placement;

static inline placement place(const float4 uvwt, __global const int *plane_support)
{
    placement p;
    const float ru = round(uvwt.x), rv = round(uvwt.y);
    p.gu = (int)ru + GRID_CENTRE;
    p.gv = (int)rv + GRID_CENTRE;
    p.off_u = (int)round((ru - uvwt.x) * (float)oversample);
    p.off_v = (int)round((rv - uvwt.y) * (float)oversample);
    p.plane = min((int)round(sqrt(fabs(uvwt.z))), w_planes - 1);
    p.support = plane_support[p.plane];
    p.conjugate = uvwt.z > 0.0f;
    return p;
}

/* The kernel value for footprint position (j, k), read in two steps so that
 * loops along k add only the column: kernel_row(p, j) + kernel_column(p, k).
 * Original cube: iy = |off_v + j * oversample|, ix = |off_u + k * oversample|
 * (stride `oversample` along k). Reordered: the row of this offset pair,
 * walked forwards for off_u >= 0 and backwards for off_u < 0 (the kernel is
 * symmetric, so a negative offset reads the positive one's row reversed). */
static inline int kernel_row(const placement p, __global const int *plane_start, const int j)
{
#if reorder_kernels
    const int width = 2 * p.support + 1;
    const int jj = p.off_v < 0 ? -j : j;
    return plane_start[p.plane] +
           ((iabs(p.off_v) * (HALF_OS + 1) + iabs(p.off_u)) * width + jj + p.support) * width +
           p.support;
#else
    (void)plane_start;
    return (p.plane * CUBE_DIM + iabs(p.off_v + j * oversample)) * CUBE_DIM;
#endif
}

static inline int kernel_column(const placement p, const int k)
{
#if reorder_kernels
    return p.off_u < 0 ? -k : k;
#else
    return iabs(p.off_u + k * oversample);
#endif
}

static inline float2 kernel_value(__global const float2 *kernels, const placement p,
                                  const int index)
{
    float2 c = kernels[index];
    if (p.conjugate) c.y = -c.y;
    return c;
}

/* value * c, complex. */
static inline float2 complex_mul(const float2 value, const float2 c)
{
    return (float2)(value.x * c.x - value.y * c.y, value.x * c.y + value.y * c.x);
}

static inline int grid_index(const int batch, const int pol, const int u, const int v)
{
    return ((batch * polarizations + pol) * grid_size + v) * grid_size + u;
}

static inline int on_grid(const int u, const int v)
{
    return u >= 0 && u < grid_size && v >= 0 && v < grid_size;
}

/* ---------------------------------------------------------------- atomics */

/* A float atomic add. OpenCL 1.2 has none: float_atomics=cas swaps the
 * float's bits until no other work-item changed them in between, a loop
 * whose retries grow with contention. float_atomics=native (offered on
 * NVIDIA's OpenCL only, whose compiler takes inline PTX) is the device's own
 * reduction in the memory system, as CUDA's atomicAdd on a float: no
 * return value, no retries. */
static inline void atomic_add_float(volatile __global float *target, const float value)
{
#if FLOAT_ATOMICS_NATIVE
    asm volatile("red.global.add.f32 [%0], %1;" ::"l"(target), "f"(value) : "memory");
#else
    volatile __global unsigned int *bits = (volatile __global unsigned int *)target;
    unsigned int seen = *bits, expected;
    do {
        expected = seen;
        seen = atomic_cmpxchg(bits, expected, as_uint(as_float(expected) + value));
    } while (seen != expected);
#endif
}

static inline void atomic_add_complex(__global float2 *grid, const int index, const float2 value)
{
    volatile __global float *target = (volatile __global float *)(grid + index);
    atomic_add_float(target, value.x);
    atomic_add_float(target + 1, value.y);
}

/* Adds `units` to a 64-bit sum held as two uints, low word first: the
 * work-item whose addition wraps the low word carries into the high one, so
 * the sum is exact in any order. */
static inline void add_weight_units(__global unsigned int *sum, const ulong units)
{
    const unsigned int low = (unsigned int)units, high = (unsigned int)(units >> 32);
    const unsigned int old = atomic_add(&sum[0], low);
    const unsigned int carry = old + low < old ? 1u : 0u;
    if (high + carry) atomic_add(&sum[1], high + carry);
}

static inline ulong weight_units(const float weight)
{
    return (ulong)(weight * (float)WEIGHT_SCALE);
}

/* The weighted values of the polarizations this work-item grids. */
#define LOAD_VALUES(values, vis, n, first_pol, weight)                                  \
    for (int q = 0; q < pols_per_item; q++)                                             \
        values[q] = vis[(n) * polarizations + (first_pol) + q] * (weight);

/* ------------------------------------------------------------ atomic kernel */

#if VARIANT_ATOMIC || VARIANT_HYBRID
/*
 * The report's first GPU kernel (Listing 4): work-groups take visibilities in
 * turn; the work-items of a group share one visibility's footprint, point q
 * of it (row-major, so neighbouring work-items update neighbouring grid
 * points) and q + wg_size, ..., and add into the grid atomically.
 *
 * For the hybrid variant the same kernel grids what the tiles do not: points
 * inside `region` (grid points [region.x, region.z] x [region.y, region.w],
 * those of the tiled tiles) are skipped, and visibilities whose footprint
 * lies inside it entirely are passed over at once. For the atomic variant the
 * region is empty (region.x > region.z).
 *
 * NDRange: (work-groups per batch x wg_size, batches, polarization groups).
 */
__kernel __attribute__((reqd_work_group_size(wg_size, 1, 1)))
void grid_atomic(__global const float4 *restrict uvwt, __global const float2 *restrict vis,
                 __global const float2 *restrict kernels, __global const int *restrict plane_start,
                 __global const int *restrict plane_support, __global float2 *grid,
                 __global unsigned int *weights, const int4 region, const int add_weights)
{
    const int lid = get_local_id(0);
    const int batch = get_global_id(1);
    const int first_pol = get_global_id(2) * pols_per_item;
    ulong units = 0;
    for (int i = get_group_id(0); i < visibilities; i += get_num_groups(0)) {
        const int n = batch * visibilities + i;
        const float4 point = uvwt[n];
        const placement p = place(point, plane_support);
        units += weight_units(point.w);
        const int s = p.support, width = 2 * s + 1;
        if (p.gu - s >= region.x && p.gu + s <= region.z && p.gv - s >= region.y &&
            p.gv + s <= region.w)
            continue;
        float2 values[pols_per_item];
        LOAD_VALUES(values, vis, n, first_pol, point.w)
        for (int q = lid; q < width * width; q += wg_size) {
            const int j = q / width - s, k = q % width - s;
            const int u = p.gu + k, v = p.gv + j;
            if (!on_grid(u, v)) continue;
            if (u >= region.x && u <= region.z && v >= region.y && v <= region.w) continue;
            const float2 c = kernel_value(kernels, p, kernel_row(p, plane_start, j) +
                                                          kernel_column(p, k));
            for (int pol = 0; pol < pols_per_item; pol++)
                atomic_add_complex(grid, grid_index(batch, first_pol + pol, u, v),
                                   complex_mul(values[pol], c));
        }
    }
    if (add_weights && lid == 0 && get_global_id(2) == 0)
        add_weight_units(weights + 2 * batch, units);
}
#endif

/* ------------------------------------------------------------ romein kernel */

#if VARIANT_ROMEIN
/* Romein's work distribution: a work-group per track (track_length
 * consecutive visibilities of one batch, which land near each other). */
static inline int positive_mod(const int x, const int m)
{
    const int r = x % m;
    return r < 0 ? r + m : r;
}

static inline void flush(__global float2 *grid, const int batch, const int first_pol,
                         const int u, const int v, const float2 *sums)
{
    if (!on_grid(u, v)) return;
    for (int pol = 0; pol < pols_per_item; pol++)
        atomic_add_complex(grid, grid_index(batch, first_pol + pol, u, v), sums[pol]);
}

/*
 * romein_loop 'strided' (Romein; EPIC's original kernel): the footprint of
 * the largest support is a LATTICE x LATTICE square, and a work-item owns
 * lattice positions pos = lid, lid + wg_size, ... For each position it walks
 * the track: every visibility's footprint holds exactly one grid point
 * congruent to the position modulo LATTICE, so the work-item accumulates in
 * registers while that grid point stays the same and adds atomically only
 * when it changes (or when the track ends).
 *
 * romein_loop 'whole' (the EPIC note's change): work-items take the track's
 * visibilities in turn (lid, lid + wg_size, ...) and each walks a whole
 * footprint itself, in a loop that does not depend on the work-item index,
 * adding every point atomically.
 *
 * NDRange: (tracks per batch x wg_size, batches, polarization groups).
 */
__kernel __attribute__((reqd_work_group_size(wg_size, 1, 1)))
void grid_romein(__global const float4 *restrict uvwt, __global const float2 *restrict vis,
                 __global const float2 *restrict kernels, __global const int *restrict plane_start,
                 __global const int *restrict plane_support, __global float2 *grid,
                 __global unsigned int *weights)
{
    const int lid = get_local_id(0);
    const int batch = get_global_id(1);
    const int first_pol = get_global_id(2) * pols_per_item;
    const int first = batch * visibilities + get_group_id(0) * track_length;

    if (lid == 0 && get_global_id(2) == 0) {
        ulong units = 0;
        for (int i = 0; i < track_length; i++) units += weight_units(uvwt[first + i].w);
        add_weight_units(weights + 2 * batch, units);
    }

#if ROMEIN_WHOLE
    for (int i = lid; i < track_length; i += wg_size) {
        const float4 point = uvwt[first + i];
        const placement p = place(point, plane_support);
        float2 values[pols_per_item];
        LOAD_VALUES(values, vis, first + i, first_pol, point.w)
        const int s = p.support;
        for (int j = -s; j <= s; j++) {
            const int v = p.gv + j;
            const int row = kernel_row(p, plane_start, j);
            for (int k = -s; k <= s; k++) {
                const int u = p.gu + k;
                if (!on_grid(u, v)) continue;
                const float2 c = kernel_value(kernels, p, row + kernel_column(p, k));
                for (int pol = 0; pol < pols_per_item; pol++)
                    atomic_add_complex(grid, grid_index(batch, first_pol + pol, u, v),
                                       complex_mul(values[pol], c));
            }
        }
    }
#else
    for (int pos = lid; pos < LATTICE * LATTICE; pos += wg_size) {
        const int x = pos % LATTICE, y = pos / LATTICE;
        int current_u = -1, current_v = -1;
        float2 sums[pols_per_item];
        for (int pol = 0; pol < pols_per_item; pol++) sums[pol] = (float2)(0.0f, 0.0f);
        for (int i = 0; i < track_length; i++) {
            const float4 point = uvwt[first + i];
            const placement p = place(point, plane_support);
            /* The corner of the largest footprint, and this position's
             * offset into it. */
            const int u0 = p.gu - support_max, v0 = p.gv - support_max;
            const int du = positive_mod(x - u0, LATTICE), dv = positive_mod(y - v0, LATTICE);
            const int k = du - support_max, j = dv - support_max;
            if (iabs(k) > p.support || iabs(j) > p.support) continue;
            const int u = u0 + du, v = v0 + dv;
            if (u != current_u || v != current_v) {
                flush(grid, batch, first_pol, current_u, current_v, sums);
                current_u = u;
                current_v = v;
                for (int pol = 0; pol < pols_per_item; pol++) sums[pol] = (float2)(0.0f, 0.0f);
            }
            const float2 c =
                kernel_value(kernels, p, kernel_row(p, plane_start, j) + kernel_column(p, k));
            float2 values[pols_per_item];
            LOAD_VALUES(values, vis, first + i, first_pol, point.w)
            for (int pol = 0; pol < pols_per_item; pol++)
                sums[pol] += complex_mul(values[pol], c);
        }
        flush(grid, batch, first_pol, current_u, current_v, sums);
    }
#endif
}
#endif

/* ---------------------------------------------------- tiles: bucket sort */

#if VARIANT_TILED || VARIANT_HYBRID
/*
 * The tile lattice: tile (a, b) covers grid points u in
 * [GRID_CENTRE + a * tile_size - tile_size / 2, ... + tile_size), likewise v,
 * so that the grid centre is in the middle of tile (0, 0). The tiled region
 * is the rectangle of tiles `region` = (first a, first b, columns, rows),
 * chosen by the host; bucket (batch, a, b) holds the visibilities of that
 * batch whose footprint, clipped to the grid, touches tile (a, b).
 */
static inline int floor_div(const int x, const int d)
{
    return x >= 0 ? x / d : -((-x + d - 1) / d);
}

static inline int tile_of(const int x)
{
    return floor_div(x - GRID_CENTRE + tile_size / 2, tile_size);
}

/* The region's tiles that the footprint of p touches: [a0, a1] x [b0, b1],
 * empty when a0 > a1 or b0 > b1. */
static inline int4 touched_tiles(const placement p, const int4 region)
{
    const int s = p.support;
    const int u_lo = max(p.gu - s, 0), u_hi = min(p.gu + s, grid_size - 1);
    const int v_lo = max(p.gv - s, 0), v_hi = min(p.gv + s, grid_size - 1);
    int4 t;
    t.x = max(tile_of(u_lo), region.x);
    t.z = min(tile_of(u_hi), region.x + region.z - 1);
    t.y = max(tile_of(v_lo), region.y);
    t.w = min(tile_of(v_hi), region.y + region.w - 1);
    if (u_lo > u_hi || v_lo > v_hi) t.z = t.x - 1;
    return t;
}

static inline int bucket_of(const int batch, const int a, const int b, const int4 region)
{
    return (batch * region.w + (b - region.y)) * region.z + (a - region.x);
}

/* Step 1 of the sort: count the visibilities of each bucket (the counts are
 * zeroed before), and sum the weights, which this kernel sees once each.
 * NDRange: (visibilities rounded up to SORT_WG, batches). */
__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1)))
void bucket_count(__global const float4 *restrict uvwt, __global const int *restrict plane_support,
                  __global unsigned int *counts, __global unsigned int *weights, const int4 region)
{
    __local unsigned int group_units;
    const int i = get_global_id(0), batch = get_global_id(1);
    if (get_local_id(0) == 0) group_units = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < visibilities) {
        const float4 point = uvwt[batch * visibilities + i];
        const placement p = place(point, plane_support);
        atomic_add(&group_units, (unsigned int)weight_units(point.w));
        const int4 t = touched_tiles(p, region);
        for (int b = t.y; b <= t.w; b++)
            for (int a = t.x; a <= t.z; a++) atomic_inc(&counts[bucket_of(batch, a, b, region)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) add_weight_units(weights + 2 * batch, group_units);
}

/* Step 2: exclusive prefix sums of the counts, into `offsets` and into
 * `cursor`, which step 3 advances. One work-group of SCAN_WG work-items;
 * work-item w sums a contiguous chunk, one work-item scans the chunk sums.
 * NDRange: (SCAN_WG). */
__kernel __attribute__((reqd_work_group_size(SCAN_WG, 1, 1)))
void bucket_scan(__global const unsigned int *restrict counts, __global unsigned int *offsets,
                 __global unsigned int *cursor, const int buckets)
{
    __local unsigned int chunk_sums[SCAN_WG];
    const int lid = get_local_id(0);
    const int chunk = (buckets + SCAN_WG - 1) / SCAN_WG;
    const int begin = min(lid * chunk, buckets), end = min(begin + chunk, buckets);
    unsigned int sum = 0;
    for (int i = begin; i < end; i++) sum += counts[i];
    chunk_sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        unsigned int running = 0;
        for (int w = 0; w < SCAN_WG; w++) {
            const unsigned int here = chunk_sums[w];
            chunk_sums[w] = running;
            running += here;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    unsigned int running = chunk_sums[lid];
    for (int i = begin; i < end; i++) {
        offsets[i] = running;
        cursor[i] = running;
        running += counts[i];
    }
}

/* Step 3 (the report's Listing 5): each visibility takes a slot in every
 * bucket it belongs to by advancing that bucket's cursor, and writes its
 * index there. `capacity` guards against writing past the entries.
 * NDRange: (visibilities rounded up to SORT_WG, batches). */
__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1)))
void bucket_scatter(__global const float4 *restrict uvwt,
                    __global const int *restrict plane_support, __global unsigned int *cursor,
                    __global int *entries, const int4 region, const unsigned int capacity)
{
    const int i = get_global_id(0), batch = get_global_id(1);
    if (i >= visibilities) return;
    const int n = batch * visibilities + i;
    const placement p = place(uvwt[n], plane_support);
    const int4 t = touched_tiles(p, region);
    for (int b = t.y; b <= t.w; b++)
        for (int a = t.x; a <= t.z; a++) {
            const unsigned int slot = atomic_inc(&cursor[bucket_of(batch, a, b, region)]);
            if (slot < capacity) entries[slot] = n;
        }
}

/* ------------------------------------------------------- tiles: gridding */

/* Work-item lid owns column lid % tile_size of the tile and every
 * ROW_STEP-th row from lid / tile_size: ROWS_PER_ITEM points. */
#define ROW_STEP (wg_size / tile_size)
#define ROWS_PER_ITEM (tile_size * tile_size / wg_size)

/*
 * The report's tile kernel (Listing 6, with Listing 8's central box): a
 * group takes every `groups`-th visibility of its tile's bucket and
 * accumulates their contributions to the tile, each work-item to the points
 * it owns, in private memory (tile_registers: a fixed loop over its rows,
 * each checked against the footprint, as the report's registers) or in local
 * memory (a loop over the rows of its column inside the footprint only).
 * Owner computes, so no two work-items ever add to the same point. Then each
 * work-item writes its points to the grid once: stored when the tile has one
 * group, added atomically when several groups share it.
 *
 * A launch covers the `launch` rectangle of tiles (first a, first b,
 * columns, rows) with `groups` groups each, and skips tiles within
 * `skip_radius` of tile (0, 0) in both directions (the central box, which a
 * launch of its own handles; -1 skips nothing).
 *
 * NDRange: (tiles x groups x wg_size, batches, polarization groups).
 */
__kernel __attribute__((reqd_work_group_size(wg_size, 1, 1)))
void grid_tiles(__global const float4 *restrict uvwt, __global const float2 *restrict vis,
                __global const float2 *restrict kernels, __global const int *restrict plane_start,
                __global const int *restrict plane_support, __global float2 *grid,
                __global const unsigned int *restrict offsets,
                __global const unsigned int *restrict counts, __global const int *restrict entries,
                const int4 region, const int4 launch, const int groups, const int skip_radius)
{
    const int lid = get_local_id(0);
    const int tile = get_group_id(0) / groups, g = get_group_id(0) % groups;
    const int a = launch.x + tile % launch.z, b = launch.y + tile / launch.z;
    if (iabs(a) <= skip_radius && iabs(b) <= skip_radius) return; /* -1: never */
    const int batch = get_global_id(1);
    const int first_pol = get_global_id(2) * pols_per_item;
    const int bucket = bucket_of(batch, a, b, region);
    const unsigned int first = offsets[bucket], count = counts[bucket];
    if (count <= (unsigned int)g) return;

    const int tu0 = GRID_CENTRE + a * tile_size - tile_size / 2;
    const int tv0 = GRID_CENTRE + b * tile_size - tile_size / 2;
    const int column = lid % tile_size, first_row = lid / tile_size;

#if tile_registers
    /* Indexed only by fully unrolled loops, so the compiler can keep it in
     * registers. */
    float2 sums[ROWS_PER_ITEM][pols_per_item];
#pragma unroll
    for (int r = 0; r < ROWS_PER_ITEM; r++)
        for (int pol = 0; pol < pols_per_item; pol++) sums[r][pol] = (float2)(0.0f, 0.0f);
#else
    __local float2 sums[tile_size * tile_size * pols_per_item];
    for (int r = 0; r < ROWS_PER_ITEM; r++)
        for (int pol = 0; pol < pols_per_item; pol++)
            sums[((first_row + r * ROW_STEP) * tile_size + column) * pols_per_item + pol] =
                (float2)(0.0f, 0.0f);
#endif

    for (unsigned int e = g; e < count; e += groups) {
        const int n = entries[first + e];
        const float4 point = uvwt[n];
        const placement p = place(point, plane_support);
        const int k = tu0 + column - p.gu;
        if (iabs(k) > p.support) continue;
        const int s = p.support;
        float2 values[pols_per_item];
        LOAD_VALUES(values, vis, n, first_pol, point.w)
        const int kc = kernel_column(p, k);
#if tile_registers
#pragma unroll
        for (int r = 0; r < ROWS_PER_ITEM; r++) {
            const int j = tv0 + first_row + r * ROW_STEP - p.gv;
            if (j < -s || j > s) continue;
            const float2 c = kernel_value(kernels, p, kernel_row(p, plane_start, j) + kc);
            for (int pol = 0; pol < pols_per_item; pol++)
                sums[r][pol] += complex_mul(values[pol], c);
        }
#else
        /* Rows of the tile inside the footprint, then the first of them
         * that this work-item owns. */
        const int y_lo = max(p.gv - s - tv0, 0), y_hi = min(p.gv + s - tv0, tile_size - 1);
        int y = y_lo + (first_row - y_lo % ROW_STEP + ROW_STEP) % ROW_STEP;
        for (; y <= y_hi; y += ROW_STEP) {
            const int j = tv0 + y - p.gv;
            const float2 c = kernel_value(kernels, p, kernel_row(p, plane_start, j) + kc);
            for (int pol = 0; pol < pols_per_item; pol++)
                sums[(y * tile_size + column) * pols_per_item + pol] +=
                    complex_mul(values[pol], c);
        }
#endif
    }

    const int u = tu0 + column;
#pragma unroll
    for (int r = 0; r < ROWS_PER_ITEM; r++) {
        const int y = first_row + r * ROW_STEP, v = tv0 + y;
        if (!on_grid(u, v)) continue;
        for (int pol = 0; pol < pols_per_item; pol++) {
#if tile_registers
            const float2 sum = sums[r][pol];
#else
            const float2 sum = sums[(y * tile_size + column) * pols_per_item + pol];
#endif
            const int index = grid_index(batch, first_pol + pol, u, v);
            if (groups == 1)
                grid[index] = sum;
            else if (sum.x != 0.0f || sum.y != 0.0f)
                atomic_add_complex(grid, index, sum);
        }
    }
}
#endif
