/*
 * correlator_stage — the correlator as a stage: what the correlator plugin
 * and a pipeline that ends in the correlator both need. The plugin's
 * callbacks (correlator.c) are thin wrappers around these functions.
 *
 * Arrays (S station, C channel, T time, P polarisation; layouts outermost
 * first, plugins/layout/layout.h):
 *   input          complex floats (float2) in the configuration's in_layout
 *                  over "SCTP", two polarisations (LOFAR's: CTSP)
 *   visibilities   [channel][baseline][XX, XY, YX, YY] complex floats, fixed,
 *                  baseline(s1, s2) = s1 (s1 + 1) / 2 + s2 for s1 >= s2
 * The CPU reference reads its input in the canonical order
 * CORRELATOR_CANONICAL_IN; layout_permute converts between it and any
 * layout.
 */
#ifndef SKYTUNE_PLUGINS_CORRELATOR_STAGE_H
#define SKYTUNE_PLUGINS_CORRELATOR_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include <skytune/plugin.h>

#include "layout.h"
#include "plugin_support.h"
#include "stage_macros.h"

/* The kernels' source (correlator.cl, embedded at build time). */
extern const char correlator_cl_source[];

#define CORRELATOR_IN_LETTERS "SCTP"
#define CORRELATOR_CANONICAL_IN "CTSP"

/* The smallest work-group offered; the plugin's C constraint always keeps
 * it. */
#define CORRELATOR_SMALLEST_WG_SIZE 4

/* The longest side of a cell, and the largest area: registers bound the
 * area (2 float4 accumulators per baseline, 128 floats for 16 baselines,
 * the 4 x 4 cell's), so a tall 1 x 8 cell is as cheap as a 2 x 4 one. The
 * pipeline's corr_config is held to the same bounds. */
#define CORRELATOR_MAX_CELL_SIDE 8
#define CORRELATOR_MAX_CELL_AREA 16
#define CORRELATOR_MAX_CELL_AREA_TEXT "16"

/* The orders of the cell list (cell_order): down the grid's columns (the
 * order the plugin always had) or along its rows. */
#define CORRELATOR_CELL_ORDERS "column,row"

/* ------------------------------------------------------------ the problem */

typedef struct correlator_problem {
    int64_t stations, channels, samples;
} correlator_problem;

/* From the problem parameters stations, channels and samples. */
void correlator_problem_read(const skytune_values *problem, correlator_problem *p);

/* The problem checks again, then whether the arrays fit the kernels' int
 * indices and the device's largest allocation; SKYTUNE_ERR_PROBLEM naming
 * what to reduce. */
int correlator_problem_check_device(const correlator_problem *p,
                                    const skytune_device_info *device, skytune_error *err);

/* stations (stations + 1) / 2: the triangle with the autocorrelations. */
int64_t correlator_baselines(int64_t stations);

/* Complex values of the input (channels x samples x stations x 2) and
 * floats of the visibilities (channels x baselines x 8). */
size_t correlator_input_count(const correlator_problem *p);
size_t correlator_output_floats(const correlator_problem *p);

/* The input's sizes along CORRELATOR_IN_LETTERS: stations, channels,
 * samples, 2. */
void correlator_input_sizes(const correlator_problem *p, int64_t sizes[4]);

/* How many whole cell_width x cell_height cells the first pass computes
 * (the grid correlator_stage.c describes); the remainder pass computes
 * baselines - cells * w * h one by one. */
int64_t correlator_whole_cells(int64_t stations, int64_t cell_width, int64_t cell_height);

/* ------------------------------------------------------- a configuration */

typedef struct correlator_config {
    int64_t cell_width, cell_height, wg_size, use_local, block_time;
    bool rows;             /* cell_order: true for "row", false for "column" */
    char in_layout[LAYOUT_MAX_DIMS + 1];
} correlator_config;

/* From the tuning parameters cell_width, cell_height, cell_order, wg_size,
 * use_local, block_time and in_layout. SKYTUNE_ERR_LAUNCH naming in_layout
 * when it is not a layout of "SCTP", or cell_order when it is neither
 * "column" nor "row". */
int correlator_config_read(const skytune_values *config, correlator_config *c,
                           skytune_error *err);

/* The macros correlator.cl is compiled with: every numeric parameter of the
 * correlator plugin (stations, channels, samples, cell_width, cell_height,
 * wg_size, use_local, block_time), as the engine passes them, and the
 * derived IN_STRIDE_S/C/T/P of in_layout. */
int correlator_macros(const correlator_problem *p, const correlator_config *c, stage_macros *m,
                      skytune_error *err);

/* The same from the plugin's parameter values: the problem's and a
 * configuration's. */
int correlator_macros_of_values(const skytune_values *problem, const skytune_values *config,
                                stage_macros *m, skytune_error *err);

/* ------------------------------------------------------- host-side data */

/* Real and imaginary parts uniform in [-1, 1) (PCG32 seeded with `seed`),
 * in the canonical order: zero-mean, like noise-dominated telescope data,
 * which keeps the cross-correlations' partial sums near sqrt(t) (the
 * tolerance relies on it). */
void correlator_generate_input(const correlator_problem *p, uint64_t seed, float *input);

/* The definition, summed in double and rounded once to float, from `input`
 * in CORRELATOR_CANONICAL_IN into `visibilities`. */
int correlator_cpu_reference(const correlator_problem *p, const float *input,
                             float *visibilities, skytune_error *err);

/* The absolute and relative tolerances of every visibility float
 * (correlator_stage.c derives them); an element passes within either. */
void correlator_tolerances(const correlator_problem *p, double *abs_tol, double *rel_tol);

/* ------------------------------------------------------------ the device */

/* One pass: a kernel over its cells (work-items along the cells rounded up
 * to whole work-groups and the channels) and its list of cells (first s2,
 * first s1). A pass with no cells has no kernel and is not enqueued. */
typedef struct correlator_pass {
    support_kernel kernel;
    support_buffer cells;
} correlator_pass;

typedef struct correlator_stage_launch {
    correlator_pass cells;      /* whole cell_width x cell_height cells */
    correlator_pass remainder;  /* 1 x 1 cells for the baselines left over */
} correlator_stage_launch;

/* Build both cell lists (the whole cells in the configuration's
 * cell_order), create "correlate_cells" and
 * "correlate_remainder" from `program` (built with correlator_macros'
 * macros for the same problem and configuration), reading `input` (in
 * in_layout) and writing `visibilities`. On failure nothing is left to
 * release. */
int correlator_stage_prepare(correlator_stage_launch *l, cl_program program,
                             const correlator_problem *p, const correlator_config *c,
                             cl_mem input, cl_mem visibilities, skytune_error *err);

/* The whole cells of a w x h tiling of `stations`, (first s2, first s1)
 * pairs in `rows`' order (down the columns when false), into `cells`,
 * which holds correlator_whole_cells(stations, w, h) pairs. Exported by the
 * plugin for the tests of the order. */
void correlator_list_cells(int64_t stations, int64_t w, int64_t h, bool rows, int32_t *cells);

/* Enqueue both passes; their events go into `events` labelled "cells" and
 * "remainder". */
int correlator_stage_enqueue(const correlator_stage_launch *l, cl_command_queue queue,
                             skytune_events *events, skytune_error *err);

void correlator_stage_release(correlator_stage_launch *l);

/* ------------------------------------------------------------ work counts */

/* Four complex multiply-adds (8 flops each) per baseline, channel and
 * sample. */
double correlator_count_flops(const correlator_problem *p);

/* Compulsory traffic: the input read once (16 bytes per station, channel
 * and sample), the visibilities written once (32 bytes per baseline and
 * channel). */
double correlator_count_bytes(const correlator_problem *p);

#endif
