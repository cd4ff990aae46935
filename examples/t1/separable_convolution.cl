/* separable_convolution: a triangle (tent) filter of radius filter_radius
 * over a WIDTH x HEIGHT image, described to skytune by
 * separable_convolution.json. The input has a border of MAX_RADIUS pixels
 * on every side, so every output pixel has its whole neighbourhood.
 *
 * The filter's radius is a tuning parameter that changes the result: the
 * file names it in Verification.OutputParameters, so each configuration is
 * compared with the Default configuration run with its own radius.
 *
 * The tent's weights are separable, w(i, j) = t(i) * t(j), with t(i) =
 * (R + 1 - |i|) / (R + 1)^2, so each work-item filters the 2R + 1 rows it
 * needs along x first and then weights those row results along y: 2(2R+1)
 * weights instead of (2R+1)^2 per row. A work-item computes `per_item`
 * consecutive pixels of one row. */
#define R filter_radius

static float tent(int i)
{
    return (float)(R + 1 - abs(i)) / (float)((R + 1) * (R + 1));
}

__kernel __attribute__((reqd_work_group_size(block_size_x, block_size_y, 1)))
void tent_filter(__global const float *restrict in, __global float *restrict out)
{
    const int y = get_global_id(1);
    const int x0 = get_global_id(0) * per_item;
    if (y >= HEIGHT) return;
    const int pitch = WIDTH + 2 * MAX_RADIUS;
    for (int p = 0; p < per_item; p++) {
        const int x = x0 + p;
        if (x >= WIDTH) return;
        float sum = 0.0f;
        for (int j = -R; j <= R; j++) {
            const __global float *row = in + (y + MAX_RADIUS + j) * pitch + x + MAX_RADIUS;
            float along_x = 0.0f;
            for (int i = -R; i <= R; i++) along_x += tent(i) * row[i];
            sum += tent(j) * along_x;
        }
        out[y * WIDTH + x] = sum;
    }
}
