/*
 * transpose: a 4-D array of complex samples (float2) over station, channel,
 * time and polarization, copied from one layout into another.
 *
 * The engine builds this source with one -D per parameter, so these names are
 * macros here (never reuse them as variable names):
 *   stations, channels, samples, polarizations   the problem
 *   in_layout, out_layout, variant               unused by the source
 *   tile                                         side of the square tile (tiled)
 *   wg_x, wg_y                                   the work-group's shape
 *
 * The layouts are not macros the kernels read: the host passes their
 * geometry (sizes and strides) as arguments, so one program serves every pair
 * of layouts, as the thesis's generic transpose kernel does. Indices are int:
 * the plugin refuses arrays of more than INT_MAX samples.
 */

/* Kis 2013, Algorithm 2: one work-item per sample. The dimensions are taken
 * in the order of the input layout, outermost first: size.x .. size.w, the
 * input's contiguous dimension last. The NDRange follows them:
 *   dimension 0: the input's innermost dimension (rounded up to wg_x),
 *   dimension 1: the next one out (rounded up to wg_y),
 *   dimension 2: the two outermost together, split with one division.
 * Consecutive work-items read consecutive samples, so reads are coalesced;
 * writes land wherever the output layout puts them, out_stride being each
 * dimension's stride in the output (in the same input order). */
__kernel __attribute__((reqd_work_group_size(wg_x, wg_y, 1)))
void transpose_direct(__global const float2 *restrict in, __global float2 *restrict out,
                      const int4 size, const int4 out_stride)
{
    const int i3 = get_global_id(0), i2 = get_global_id(1), i01 = get_global_id(2);
    if (i3 >= size.w || i2 >= size.z) return;
    const int i0 = i01 / size.y;
    const int i1 = i01 - i0 * size.y;
    const int in_index = (i01 * size.z + i2) * size.w + i3;
    out[i0 * out_stride.x + i1 * out_stride.y + i2 * out_stride.z + i3 * out_stride.w] =
        in[in_index];
}

/* A tiled transpose through local memory, so that both the reads and the
 * writes are contiguous. The host orders the dimensions for it:
 *   .x  A, the input's contiguous dimension (its input stride is 1),
 *   .y  B, the output's innermost dimension other than A,
 *   .z  .w  the other two, in input order: a batch, one work-group column
 *           per pair (NDRange dimension 2, split with one division).
 * A work-group moves one tile of `tile` x `tile` samples (A by B): it reads
 * rows along A, and writes rows along B when B is the output's contiguous
 * dimension, or rows along A again when both layouts end with A
 * (write_along_a). Each work-item moves (tile / wg_x) x (tile / wg_y)
 * samples; tiles at the array's edges are partial and checked per sample.
 * The tile is padded by one sample per row, so that a column of it (read
 * when writing along B) falls into different local-memory banks. */
__kernel __attribute__((reqd_work_group_size(wg_x, wg_y, 1)))
void transpose_tiled(__global const float2 *restrict in, __global float2 *restrict out,
                     const int4 size, const int4 in_stride, const int4 out_stride,
                     const int write_along_a)
{
    __local float2 staged[tile][tile + 1];
    const int a_first = get_group_id(0) * tile, b_first = get_group_id(1) * tile;
    const int batch = get_global_id(2);
    const int d1 = batch / size.w;
    const int d2 = batch - d1 * size.w;
    const int in_base = d1 * in_stride.z + d2 * in_stride.w;
    const int out_base = d1 * out_stride.z + d2 * out_stride.w;
    const int lx = get_local_id(0), ly = get_local_id(1);

    for (int j = ly; j < tile; j += wg_y)
        for (int i = lx; i < tile; i += wg_x) {
            const int a = a_first + i, b = b_first + j;
            if (a < size.x && b < size.y) staged[j][i] = in[in_base + b * in_stride.y + a];
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Neighbouring work-items (i) walk the output's contiguous dimension. */
    for (int j = ly; j < tile; j += wg_y)
        for (int i = lx; i < tile; i += wg_x) {
            const int a_off = write_along_a ? i : j, b_off = write_along_a ? j : i;
            const int a = a_first + a_off, b = b_first + b_off;
            if (a < size.x && b < size.y)
                out[out_base + a * out_stride.x + b * out_stride.y] = staged[b_off][a_off];
        }
}
