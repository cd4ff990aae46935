/*
 * vector_add: c = a + b over n floats.
 *
 * The engine builds this source with one -D per parameter, so these names are
 * macros here (never reuse them as variable names in the kernel):
 *   n         problem size (number of elements)
 *   wg_size   work-items per work-group
 *   per_item  elements each work-item adds
 *
 * A work-group covers a tile of wg_size * per_item consecutive elements.
 * Work-item `lid` of the group adds elements tile + lid, tile + lid + wg_size,
 * tile + lid + 2 * wg_size, ...: at every step the whole work-group touches
 * wg_size consecutive floats, so reads and writes stay coalesced on GPUs and
 * vectorise across work-items on CPUs, whatever per_item is.
 *
 * n need not be a multiple of the tile: the last work-group checks each
 * element against n, so every configuration is valid for every n.
 */

/* reqd_work_group_size lets the compiler size registers and barriers for
 * exactly this work-group; the host must launch with local size wg_size. */
__kernel __attribute__((reqd_work_group_size(wg_size, 1, 1)))
void vector_add(__global const float *restrict a,
                __global const float *restrict b,
                __global float *restrict c)
{
    /* size_t keeps the index exact for n beyond 2^31 elements. */
    const size_t tile_first = get_group_id(0) * (size_t)(wg_size * per_item);
    const size_t first = tile_first + get_local_id(0);

    /* per_item is a compile-time constant, so the compiler can unroll this loop
     * completely and drop the loop counter. */
    for (int k = 0; k < per_item; k++) {
        const size_t i = first + (size_t)k * wg_size;
        if (i < (size_t)n)
            c[i] = a[i] + b[i];
    }
}
