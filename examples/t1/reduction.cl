/* reduction: partial sums of x, one per work-group, described to skytune by
 * reduction.json.
 *
 * The number of work-groups is itself tuned (num_blocks), so the output
 * has num_blocks elements and no two configurations compute the same
 * partial sums: what must hold is that they add up to the sum of x, which
 * the file checks (Verification.Checks). N, the length of x, is a Define.
 *
 * Work-item lid of group g adds x[g * B + lid], then every B * num_blocks
 * further on (B = block_size_x), so that the groups read neighbouring
 * blocks at each step; the group then folds its B sums in local memory. */
__kernel __attribute__((reqd_work_group_size(block_size_x, 1, 1)))
void sum_partial(__global const float *restrict x, __global float *restrict partial)
{
    __local float sums[block_size_x];
    const int lid = get_local_id(0);
    const int stride = block_size_x * num_blocks;
    float acc = 0.0f;
    for (int i = get_group_id(0) * block_size_x + lid; i < N; i += stride)
        acc += x[i];
    sums[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int width = block_size_x / 2; width > 0; width /= 2) {
        if (lid < width) sums[lid] += sums[lid + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = sums[0];
}
