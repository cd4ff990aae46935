/* matmul_defines: C = A * B for an M x K matrix A and a K x N matrix B,
 * all row-major, described to skytune by matmul_defines.json. The sizes
 * M, N and K are Defines of the file (macros made from ProblemSize), so
 * the kernel takes no size arguments and the compiler knows every bound.
 *
 * A work-group computes a tile x (tile * rows) block of C: work-item
 * (tx, ty) computes `rows` elements of column tx, rows ty, ty + tile, ...
 * The blocks of A and B it needs pass through local memory, one tile-wide
 * step of K at a time. madd, a string parameter, names the builtin that
 * multiplies and adds: fma (exact rounding) or mad (the fastest the device
 * has). */
#define ROWS_PER_GROUP (tile * rows)

__kernel __attribute__((reqd_work_group_size(tile, tile, 1)))
void matmul(__global const float *restrict A, __global const float *restrict B,
            __global float *restrict C)
{
    __local float a_block[ROWS_PER_GROUP][tile];
    __local float b_block[tile][tile];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * tile + tx;
    const int first_row = get_group_id(1) * ROWS_PER_GROUP + ty;
    float acc[rows];
    for (int r = 0; r < rows; r++) acc[r] = 0.0f;
    for (int step = 0; step < K; step += tile) {
        for (int r = 0; r < rows; r++) {
            const int row = first_row + r * tile;
            a_block[ty + r * tile][tx] =
                row < M && step + tx < K ? A[row * K + step + tx] : 0.0f;
        }
        b_block[ty][tx] = step + ty < K && col < N ? B[(step + ty) * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < tile; k++)
            for (int r = 0; r < rows; r++)
                acc[r] = madd(a_block[ty + r * tile][k], b_block[k][tx], acc[r]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int r = 0; r < rows; r++) {
        const int row = first_row + r * tile;
        if (row < M && col < N) C[row * N + col] = acc[r];
    }
}
