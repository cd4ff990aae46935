/* vector_add: c = a + b over n floats, described to skytune by
 * vector_add.json alone.
 *
 * The tuning parameters arrive as macros (-D wg_size=64 -D per_item=2), and
 * so does the problem (-D problem_size_0=1048576); n is also an argument,
 * set from the same ProblemSize by the T1 file.
 *
 * A work-group covers wg_size * per_item consecutive elements; work-item
 * lid adds elements lid, lid + wg_size, ... of its tile, so that the group
 * touches consecutive floats at every step. The last tile checks each index
 * against n. */
__kernel __attribute__((reqd_work_group_size(wg_size, 1, 1)))
void vector_add(__global const float *restrict a, __global const float *restrict b,
                __global float *restrict c, const int n)
{
    const size_t first = get_group_id(0) * (size_t)(wg_size * per_item) + get_local_id(0);
    for (int k = 0; k < per_item; k++) {
        const size_t i = first + (size_t)k * wg_size;
        if (i < (size_t)n) c[i] = a[i] + b[i];
    }
}
