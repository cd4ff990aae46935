/* stencil: one step of a 5-point Laplacian on an nx x ny grid of floats
 * (row-major), for the side-by-side runs with Kernel Tuner
 * (pocl_vs_kernel_tuner.sh). Border cells are copied.
 *
 * Macros from the build: block_size_x, block_size_y (the work-group) and
 * tile_y (rows each work-item computes, block_size_y apart, so that a
 * work-group's rows stay contiguous). */
__kernel __attribute__((reqd_work_group_size(block_size_x, block_size_y, 1)))
void stencil(__global const float *restrict in, __global float *restrict out, const int nx,
             const int ny)
{
    const int x = get_global_id(0);
    const int y0 = get_group_id(1) * block_size_y * tile_y + get_local_id(1);
    if (x >= nx) return;
    for (int t = 0; t < tile_y; t++) {
        const int y = y0 + t * block_size_y;
        if (y >= ny) return;
        const int i = y * nx + x;
        if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
            out[i] = in[i];
        else
            out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]) - in[i];
    }
}
