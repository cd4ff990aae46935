/* matmul: C = A * B, A of m x n floats, B of n x n, C of m x n (row-major),
 * tiled in local memory; described to skytune by matmul.json alone. n is
 * ProblemSize[0] (columns) and m ProblemSize[1] (rows); both arrive as
 * arguments.
 *
 * Macros from the build: block_size (a work-group is block_size x
 * block_size work-items) and work_per_x (columns of C each work-item
 * computes, block_size apart).
 *
 * A work-group computes a block_size x (block_size * work_per_x) block of
 * C. For each step of block_size along k it stages a block of A in As and
 * work_per_x blocks of B in Bs (both __local arguments whose sizes the T1
 * file gives), then every work-item accumulates its work_per_x sums. Every
 * configuration adds the products of one element in the same order of k,
 * so all of them give the same result to within rounding. */
__kernel __attribute__((reqd_work_group_size(block_size, block_size, 1)))
void matmul(__global const float *restrict A, __global const float *restrict B,
            __global float *restrict C, __local float *As, __local float *Bs, const int n,
            const int m)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int row = get_group_id(1) * block_size + ly;
    const int col0 = get_group_id(0) * block_size * work_per_x + lx;
    const int bs_width = block_size * work_per_x;
    float acc[work_per_x];
    for (int w = 0; w < work_per_x; w++) acc[w] = 0.0f;

    for (int t = 0; t < n; t += block_size) {
        As[ly * block_size + lx] = row < m && t + lx < n ? A[row * n + t + lx] : 0.0f;
        for (int w = 0; w < work_per_x; w++) {
            const int col = col0 + w * block_size;
            Bs[ly * bs_width + lx + w * block_size] =
                t + ly < n && col < n ? B[(t + ly) * n + col] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < block_size; k++) {
            const float a = As[ly * block_size + k];
            for (int w = 0; w < work_per_x; w++) acc[w] += a * Bs[k * bs_width + lx + w * block_size];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int w = 0; w < work_per_x; w++) {
        const int col = col0 + w * block_size;
        if (row < m && col < n) C[row * n + col] = acc[w];
    }
}
