/*
 * transpose_stage — the transposition as a stage: what the transpose plugin
 * and a pipeline that converts between its stages' layouts both need. The
 * plugin's callbacks (transpose.c) are thin wrappers around these
 * functions.
 *
 * A transposition copies a 4-D array of complex floats (float2) from one
 * layout into another (plugins/layout/layout.h). The kernels (transpose.cl)
 * take the layouts' geometry as arguments, so one build serves every pair
 * of layouts; what is compiled in is the kernel's shape: the tile of the
 * tiled kernel and the work-group.
 */
#ifndef SKYTUNE_PLUGINS_TRANSPOSE_STAGE_H
#define SKYTUNE_PLUGINS_TRANSPOSE_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include <skytune/plugin.h>

#include "layout.h"
#include "plugin_support.h"
#include "stage_macros.h"

/* The kernels' source (transpose.cl, embedded at build time). */
extern const char transpose_cl_source[];

/* ------------------------------------------------------ the kernel's shape */

typedef struct transpose_kernel {
    bool tiled;              /* false: the direct kernel (Kis 2013, Algorithm 2) */
    int64_t tile;            /* side of the square tile (tiled) */
    int64_t wg_x, wg_y;      /* the work-group */
} transpose_kernel;

/* From the transpose plugin's tuning parameters variant, tile, wg_x and
 * wg_y. */
void transpose_kernel_read(const skytune_values *config, transpose_kernel *k);

/* A shape for converting an array of `sizes` (along `letters`) from `in` to
 * `out`, for a caller that does not tune it (a pipeline between its
 * stages): the tiled kernel with 32 x 32 tiles and 32 x 8 work-groups when
 * the two layouts' contiguous dimensions differ and both hold at least 32
 * elements, so that reads and writes are both contiguous; otherwise the
 * direct kernel, its work-group the powers of two just covering the input's
 * two innermost dimensions (at most 64 along the innermost and 256 in
 * all), so that few work-items idle. */
void transpose_kernel_choose(const char *letters, const int64_t *sizes, const char *in,
                             const char *out, transpose_kernel *k);

/* The macros transpose.cl is compiled with: tile, wg_x and wg_y. With
 * `prefix` (may be NULL) the kernels are renamed <prefix>_transpose_direct
 * and <prefix>_transpose_tiled, so that several sections of the source,
 * each of its own shape, can live in one program. */
int transpose_macros(const transpose_kernel *k, const char *prefix, stage_macros *m,
                     skytune_error *err);

/* The name of the kernel transpose_macros gives `k` with `prefix`, into
 * name[len]. */
void transpose_kernel_name(const transpose_kernel *k, const char *prefix, char *name, size_t len);

/* The sizes of the two dimensions the tiled kernel tiles between `in` and
 * `out`: A, the input's contiguous dimension, and B, the output's innermost
 * other than A. */
void transpose_tile_sides(const char *letters, const int64_t *sizes, const char *in,
                          const char *out, int64_t *a, int64_t *b);

/* ------------------------------------------------------------ the device */

typedef struct transpose_stage_launch {
    support_kernel kernel;   /* labelled with the launch's label */
} transpose_stage_launch;

/* Create the kernel of shape `k` (renamed with `prefix`, as by
 * transpose_macros) from `program`, converting `in` (an array of `sizes`
 * along `letters`, stored in `in_layout`) into `out` (in `out_layout`). On
 * failure nothing is left to release. */
int transpose_stage_prepare(transpose_stage_launch *l, cl_program program,
                            const transpose_kernel *k, const char *prefix, const char *letters,
                            const int64_t *sizes, const char *in_layout, const char *out_layout,
                            cl_mem in, cl_mem out, const char *label, skytune_error *err);

/* Enqueue the kernel; its event goes into `events` under the launch's
 * label. */
int transpose_stage_enqueue(const transpose_stage_launch *l, cl_command_queue queue,
                            skytune_events *events, skytune_error *err);

void transpose_stage_release(transpose_stage_launch *l);

/* Bytes a transposition moves: every sample read once and written once. */
double transpose_count_bytes(double samples);

#endif
