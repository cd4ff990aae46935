/* stencil: one explicit step of heat diffusion on a WIDTH x HEIGHT grid,
 * described to skytune by stencil.json: every interior point moves towards
 * the mean of its four neighbours, next = t + alpha * (n + s + e + w - 4t);
 * the boundary keeps its value.
 *
 * read_only is a tuning parameter named as a word of OpenCL C (as Kernel
 * Tuner's examples name one): skytune passes it as a #define line at the
 * top of this source, so it names the parameter here. With read_only 1
 * the grid is read through a const restrict pointer, which lets the
 * compiler keep and reorder loads; with 0 through a plain one.
 *
 * A work-item updates cells_y cells of one column, so that each loads the
 * column's middle row once for three of its points. */
#if read_only
#define GRID const __global float *restrict
#else
#define GRID __global float *
#endif

__kernel __attribute__((reqd_work_group_size(block_size_x, block_size_y, 1)))
void diffuse(GRID t, __global float *restrict next, const float alpha)
{
    const int x = get_global_id(0);
    const int y0 = get_global_id(1) * cells_y;
    if (x >= WIDTH) return;
    for (int c = 0; c < cells_y; c++) {
        const int y = y0 + c;
        if (y >= HEIGHT) return;
        const int at = y * WIDTH + x;
        if (x == 0 || y == 0 || x == WIDTH - 1 || y == HEIGHT - 1) {
            next[at] = t[at];
        } else {
            const float around = t[at - 1] + t[at + 1] + t[at - WIDTH] + t[at + WIDTH];
            next[at] = t[at] + alpha * (around - 4.0f * t[at]);
        }
    }
}
