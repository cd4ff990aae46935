/* convolution: a 2-D convolution of an image with a filter, in the shape
 * of the benchmark hub's convolution space (its tuning parameters and
 * conditions, convolution.json); described to skytune by that file alone.
 *
 * The output is problem_size_0 x problem_size_1 pixels (width x height);
 * the input is (width + filter_width - 1) x (height + filter_height - 1).
 *
 * Macros from the build:
 *   block_size_x, block_size_y  work-items of a work-group
 *   tile_size_x, tile_size_y    output pixels per work-item, a block apart
 *   use_shmem                   stage the input tile in local memory
 *   use_padding                 one float of padding per local row
 *   read_only_input             the input pointer is const restrict (the hub's
 *                               read_only: that name is an OpenCL C keyword)
 *   use_cmem                    the filter in __constant memory
 *   filter_width, filter_height
 *
 * Every configuration sums one pixel's products in the same order, so all
 * of them give the same image to within rounding. */
#define image_width problem_size_0
#define image_height problem_size_1
#define input_width (image_width + filter_width - 1)
#define input_height (image_height + filter_height - 1)

#if read_only_input
#define INPUT __global const float *restrict
#else
#define INPUT __global float *
#endif
#if use_cmem
#define FILTER __constant float *
#else
#define FILTER __global const float *
#endif

#define tile_width (block_size_x * tile_size_x + filter_width - 1)
#define tile_height (block_size_y * tile_size_y + filter_height - 1)
#define tile_stride (tile_width + use_padding)

__kernel __attribute__((reqd_work_group_size(block_size_x, block_size_y, 1)))
void convolution_kernel(__global float *output_image, INPUT input_image, FILTER d_filter)
{
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int x0 = get_group_id(0) * block_size_x * tile_size_x;
    const int y0 = get_group_id(1) * block_size_y * tile_size_y;
#if use_shmem
    __local float tile[tile_height * tile_stride];
    for (int i = ty; i < tile_height; i += block_size_y)
        for (int j = tx; j < tile_width; j += block_size_x) {
            const int y = y0 + i, x = x0 + j;
            tile[i * tile_stride + j] =
                y < input_height && x < input_width ? input_image[y * input_width + x] : 0.0f;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    float sum[tile_size_y][tile_size_x];
    for (int yi = 0; yi < tile_size_y; yi++)
        for (int xj = 0; xj < tile_size_x; xj++) sum[yi][xj] = 0.0f;
    for (int i = 0; i < filter_height; i++)
        for (int j = 0; j < filter_width; j++) {
            const float f = d_filter[i * filter_width + j];
            for (int yi = 0; yi < tile_size_y; yi++)
                for (int xj = 0; xj < tile_size_x; xj++) {
                    const int ly = ty + yi * block_size_y + i, lx = tx + xj * block_size_x + j;
#if use_shmem
                    const float v = tile[ly * tile_stride + lx];
#else
                    const int y = y0 + ly, x = x0 + lx;
                    const float v =
                        y < input_height && x < input_width ? input_image[y * input_width + x] : 0.0f;
#endif
                    sum[yi][xj] += f * v;
                }
        }
    for (int yi = 0; yi < tile_size_y; yi++)
        for (int xj = 0; xj < tile_size_x; xj++) {
            const int y = y0 + ty + yi * block_size_y, x = x0 + tx + xj * block_size_x;
            if (y < image_height && x < image_width) output_image[y * image_width + x] = sum[yi][xj];
        }
}
