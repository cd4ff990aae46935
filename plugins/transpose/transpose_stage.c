#include "transpose_stage.h"

#include <stdio.h>
#include <string.h>

#define DIMS 4

void transpose_kernel_read(const skytune_values *config, transpose_kernel *k)
{
    k->tiled = strcmp(skytune_string(config, "variant"), "tiled") == 0;
    k->tile = skytune_int(config, "tile");
    k->wg_x = skytune_int(config, "wg_x");
    k->wg_y = skytune_int(config, "wg_y");
}

/* The smallest power of two at or above n, at most `cap`. */
static int64_t covering_power_of_two(int64_t n, int64_t cap)
{
    int64_t p = 1;
    while (p < n && p < cap) p *= 2;
    return p;
}

void transpose_kernel_choose(const char *letters, const int64_t *sizes, const char *in,
                             const char *out, transpose_kernel *k)
{
    const int64_t in_inner = sizes[layout_position(letters, in[DIMS - 1])];
    const int64_t in_next = sizes[layout_position(letters, in[DIMS - 2])];
    const int64_t out_inner = sizes[layout_position(letters, out[DIMS - 1])];
    if (in[DIMS - 1] != out[DIMS - 1] && in_inner >= 32 && out_inner >= 32) {
        *k = (transpose_kernel){.tiled = true, .tile = 32, .wg_x = 32, .wg_y = 8};
        return;
    }
    const int64_t wg_x = covering_power_of_two(in_inner, 64);
    *k = (transpose_kernel){.tiled = false, .tile = 8, .wg_x = wg_x,
                            .wg_y = covering_power_of_two(in_next, 256 / wg_x)};
}

void transpose_kernel_name(const transpose_kernel *k, const char *prefix, char *name, size_t len)
{
    snprintf(name, len, "%s%s%s", prefix ? prefix : "", prefix ? "_" : "",
             k->tiled ? "transpose_tiled" : "transpose_direct");
}

int transpose_macros(const transpose_kernel *k, const char *prefix, stage_macros *m,
                     skytune_error *err)
{
    stage_macros_init(m);
    int rc = stage_macros_add_int(m, "tile", k->tile, false) |
             stage_macros_add_int(m, "wg_x", k->wg_x, false) |
             stage_macros_add_int(m, "wg_y", k->wg_y, false);
    if (prefix) {
        static const char *const kernels[] = {"transpose_direct", "transpose_tiled"};
        for (size_t j = 0; j < 2; j++) {
            char renamed[STAGE_MACRO_VALUE_LEN];
            snprintf(renamed, sizeof renamed, "%s_%s", prefix, kernels[j]);
            rc |= stage_macros_add_token(m, kernels[j], renamed, true);
        }
    }
    if (rc != 0)
        return skytune_error_set(err, SKYTUNE_ERR_SETUP,
                                 "the transposition's macros do not fit (prefix '%s')",
                                 prefix ? prefix : "");
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ the device */

/* Index into `letters` (and into sizes and strides) of a layout's k-th
 * letter. */
static int dimension_at(const char *letters, const char *layout, int k)
{
    return layout_position(letters, layout[k]);
}

/* The dimensions in the tiled kernel's order: A, the input's contiguous
 * dimension; B, the output's innermost dimension other than A; then the
 * other two in input order. Indices into `letters`. */
static void tiled_order(const char *letters, const char *in, const char *out, int order[DIMS])
{
    const char a = in[DIMS - 1];
    char b = out[DIMS - 1];
    if (b == a) b = out[DIMS - 2];
    order[0] = layout_position(letters, a);
    order[1] = layout_position(letters, b);
    int next = 2;
    for (int k = 0; k < DIMS; k++)
        if (in[k] != a && in[k] != b) order[next++] = dimension_at(letters, in, k);
}

void transpose_tile_sides(const char *letters, const int64_t *sizes, const char *in,
                          const char *out, int64_t *a, int64_t *b)
{
    int order[DIMS];
    tiled_order(letters, in, out, order);
    *a = sizes[order[0]];
    *b = sizes[order[1]];
}

static size_t round_up(int64_t n, int64_t multiple)
{
    return (size_t)((n + multiple - 1) / multiple * multiple);
}

/* What the kernels take after (in, out) is the layouts' geometry; it lives
 * in the caller until the kernel is created. */
typedef struct transpose_geometry {
    cl_int4 shape[3];
    cl_int write_along_a;
} transpose_geometry;

/* The direct kernel: sizes and output strides in input order; the NDRange
 * over the input's innermost dimension, its next, and the outer two. */
static void shape_direct(support_kernel_spec *spec, transpose_geometry *g,
                         const transpose_kernel *k, const char *letters, const int64_t *sizes,
                         const char *in, const int64_t *out_stride)
{
    int64_t n[DIMS];
    for (int j = 0; j < DIMS; j++) {
        const int d = dimension_at(letters, in, j);
        n[j] = sizes[d];
        g->shape[0].s[j] = (cl_int)n[j];
        g->shape[1].s[j] = (cl_int)out_stride[d];
    }
    spec->args[2] = SUPPORT_ARG(g->shape[0]);
    spec->args[3] = SUPPORT_ARG(g->shape[1]);
    spec->global[0] = round_up(n[3], k->wg_x);
    spec->global[1] = round_up(n[2], k->wg_y);
    spec->global[2] = (size_t)(n[0] * n[1]);
}

/* The tiled kernel: sizes, input and output strides in its own order (see
 * tiled_order), and whether it writes along A; one work-group per tile of
 * A by B and per pair of the other two dimensions. */
static void shape_tiled(support_kernel_spec *spec, transpose_geometry *g,
                        const transpose_kernel *k, const char *letters, const int64_t *sizes,
                        const char *in, const char *out, const int64_t *in_stride,
                        const int64_t *out_stride)
{
    int order[DIMS];
    tiled_order(letters, in, out, order);
    for (int j = 0; j < DIMS; j++) {
        g->shape[0].s[j] = (cl_int)sizes[order[j]];
        g->shape[1].s[j] = (cl_int)in_stride[order[j]];
        g->shape[2].s[j] = (cl_int)out_stride[order[j]];
    }
    g->write_along_a = out[DIMS - 1] == in[DIMS - 1];
    for (int j = 0; j < 3; j++) spec->args[2 + j] = SUPPORT_ARG(g->shape[j]);
    spec->args[5] = SUPPORT_ARG(g->write_along_a);
    spec->global[0] = round_up(sizes[order[0]], k->tile) / (size_t)k->tile * (size_t)k->wg_x;
    spec->global[1] = round_up(sizes[order[1]], k->tile) / (size_t)k->tile * (size_t)k->wg_y;
    spec->global[2] = (size_t)(sizes[order[2]] * sizes[order[3]]);
}

int transpose_stage_prepare(transpose_stage_launch *l, cl_program program,
                            const transpose_kernel *k, const char *prefix, const char *letters,
                            const int64_t *sizes, const char *in_layout, const char *out_layout,
                            cl_mem in, cl_mem out, const char *label, skytune_error *err)
{
    memset(l, 0, sizeof *l);
    int64_t in_stride[LAYOUT_MAX_DIMS], out_stride[LAYOUT_MAX_DIMS];
    if (strlen(letters) != DIMS || layout_strides(in_layout, letters, sizes, in_stride) != 0 ||
        layout_strides(out_layout, letters, sizes, out_stride) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "a transposition from %s to %s is not between layouts of %s",
                                 in_layout, out_layout, letters);
    char name[96];
    transpose_kernel_name(k, prefix, name, sizeof name);
    support_kernel_spec spec = {
        .name = name,
        .label = label,
        .args = {SUPPORT_ARG(in), SUPPORT_ARG(out)},
        .dims = 3,
        .local = {(size_t)k->wg_x, (size_t)k->wg_y, 1},
    };
    transpose_geometry geometry;
    if (k->tiled)
        shape_tiled(&spec, &geometry, k, letters, sizes, in_layout, out_layout, in_stride,
                    out_stride);
    else
        shape_direct(&spec, &geometry, k, letters, sizes, in_layout, out_stride);
    return support_kernel_create(&l->kernel, program, &spec, err);
}

int transpose_stage_enqueue(const transpose_stage_launch *l, cl_command_queue queue,
                            skytune_events *events, skytune_error *err)
{
    return support_kernel_enqueue(&l->kernel, queue, events, err);
}

void transpose_stage_release(transpose_stage_launch *l)
{
    support_kernel_release(&l->kernel);
}

double transpose_count_bytes(double samples)
{
    return 2.0 * samples * 8.0;
}
