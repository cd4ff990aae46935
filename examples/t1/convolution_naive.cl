/* convolution_naive: a 2-D convolution of a WIDTH x HEIGHT image with an
 * FW x FH filter, described to skytune by convolution_naive.json, verified
 * against `convolution_reference`, the plainest kernel that computes it,
 * from the same file (Verification.Method "ReferenceKernel"): no Default
 * is needed, and no answer is precomputed into a file.
 *
 * The tuned kernel stages the block of the image its work-group needs
 * (its pixels and the filter's reach around them) in local memory, and a
 * work-item computes tile_y pixels of a column, reusing FH - 1 of the
 * image rows it reads for the next. The image is padded: its input is
 * (WIDTH + FW - 1) x (HEIGHT + FH - 1). */
#define PITCH (WIDTH + FW - 1)
#define BLOCK_W (block_size_x + FW - 1)
#define BLOCK_H (block_size_y * tile_y + FH - 1)

__kernel __attribute__((reqd_work_group_size(block_size_x, block_size_y, 1)))
void convolution(__global const float *restrict image, __global const float *restrict filter,
                 __global float *restrict out)
{
    __local float block[BLOCK_H][BLOCK_W];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx0 = get_group_id(0) * block_size_x;
    const int gy0 = get_group_id(1) * block_size_y * tile_y;
    for (int by = ly; by < BLOCK_H; by += block_size_y)
        for (int bx = lx; bx < BLOCK_W; bx += block_size_x) {
            const int ix = gx0 + bx, iy = gy0 + by;
            block[by][bx] = ix < PITCH && iy < HEIGHT + FH - 1 ? image[iy * PITCH + ix] : 0.0f;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = gx0 + lx;
    for (int t = 0; t < tile_y; t++) {
        const int row = ly * tile_y + t;
        const int y = gy0 + row;
        float sum = 0.0f;
        for (int j = 0; j < FH; j++)
            for (int i = 0; i < FW; i++) sum += filter[j * FW + i] * block[row + j][lx + i];
        if (x < WIDTH && y < HEIGHT) out[y * WIDTH + x] = sum;
    }
}

/* One work-item per output pixel, straight from global memory. */
__kernel void convolution_reference(__global const float *restrict image,
                                    __global const float *restrict filter,
                                    __global float *restrict out)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= WIDTH || y >= HEIGHT) return;
    float sum = 0.0f;
    for (int j = 0; j < FH; j++)
        for (int i = 0; i < FW; i++) sum += filter[j * FW + i] * image[(y + j) * PITCH + x + i];
    out[y * WIDTH + x] = sum;
}
