/*
 * beamformer_stage — the beam former as a stage: what the beamformer plugin
 * and a pipeline that forms beams between other stages both need. The
 * plugin's callbacks (beamformer.c) are thin wrappers around these
 * functions.
 *
 * Arrays (S station, C channel, T time, P polarisation, B beam; layouts
 * outermost first, plugins/layout/layout.h), complex floats (float2; on the
 * host interleaved real and imaginary floats):
 *   input    the configuration's in_layout over "SCTP" (LOFAR's: CSTP)
 *   weights  [channel][beam][station], fixed
 *   output   the configuration's out_layout over "BCTP" (LOFAR's: CBTP)
 * The CPU reference works in the canonical orders BEAMFORMER_CANONICAL_IN
 * and BEAMFORMER_CANONICAL_OUT; layout_permute converts between them and
 * any layout.
 */
#ifndef SKYTUNE_PLUGINS_BEAMFORMER_STAGE_H
#define SKYTUNE_PLUGINS_BEAMFORMER_STAGE_H

#include <stdint.h>

#include <skytune/plugin.h>

#include "layout.h"
#include "plugin_support.h"
#include "stage_macros.h"

/* The kernel's source (beamformer.cl, embedded at build time). */
extern const char beamformer_cl_source[];

#define BEAMFORMER_IN_LETTERS "SCTP"
#define BEAMFORMER_OUT_LETTERS "BCTP"
#define BEAMFORMER_CANONICAL_IN "CSTP"
#define BEAMFORMER_CANONICAL_OUT "CBTP"

/* ------------------------------------------------------------ the problem */

typedef struct beamformer_problem {
    int64_t stations, channels, samples, polarizations, beams;
} beamformer_problem;

/* From the problem parameters stations, channels, samples, polarizations
 * and beams. */
void beamformer_problem_read(const skytune_values *problem, beamformer_problem *p);

/* The problem checks again, then whether the arrays fit the kernel's int
 * indices and the device's largest allocation; SKYTUNE_ERR_PROBLEM naming
 * what to reduce. */
int beamformer_problem_check_device(const beamformer_problem *p,
                                    const skytune_device_info *device, skytune_error *err);

/* Complex values of each array. */
size_t beamformer_input_count(const beamformer_problem *p);
size_t beamformer_weight_count(const beamformer_problem *p);
size_t beamformer_output_count(const beamformer_problem *p);

/* Sizes along BEAMFORMER_IN_LETTERS (stations, channels, samples,
 * polarizations) and BEAMFORMER_OUT_LETTERS (beams, channels, samples,
 * polarizations). */
void beamformer_input_sizes(const beamformer_problem *p, int64_t sizes[4]);
void beamformer_output_sizes(const beamformer_problem *p, int64_t sizes[4]);

/* ------------------------------------------------------- a configuration */

typedef struct beamformer_config {
    int64_t beam_block, station_block, wg_time, wg_beams, use_local;
    char in_layout[LAYOUT_MAX_DIMS + 1], out_layout[LAYOUT_MAX_DIMS + 1];
} beamformer_config;

/* From the tuning parameters beam_block, station_block, wg_time, wg_beams,
 * use_local, in_layout and out_layout. SKYTUNE_ERR_LAUNCH naming the layout
 * parameter when a layout is not a permutation of its letters. */
int beamformer_config_read(const skytune_values *config, beamformer_config *c,
                           skytune_error *err);

/* The plugin's constraints again (work-groups tile time and beams, the
 * station block fits, the staged samples fit `local_mem_size` bytes): a
 * configuration that bypassed them gets SKYTUNE_ERR_LAUNCH instead of an
 * out-of-bounds kernel. */
int beamformer_config_check(const beamformer_problem *p, const beamformer_config *c,
                            int64_t local_mem_size, skytune_error *err);

/* The macros beamformer.cl is compiled with: every numeric parameter of
 * the beamformer plugin (stations, channels, samples, polarizations,
 * beams, beam_block, station_block, wg_time, wg_beams, use_local), as the
 * engine passes them, and the derived IN_STRIDE_S/C/T/P and
 * OUT_STRIDE_B/C/T/P of the two layouts. */
int beamformer_macros(const beamformer_problem *p, const beamformer_config *c, stage_macros *m,
                      skytune_error *err);

/* The same from the plugin's parameter values: the problem's and a
 * configuration's. */
int beamformer_macros_of_values(const skytune_values *problem, const skytune_values *config,
                                stage_macros *m, skytune_error *err);

/* ------------------------------------------------------- host-side data */

/* Samples with real and imaginary parts uniform in [-1, 1), in the canonical
 * input order; weights e^{i phi} with phi uniform in [0, 2 pi). Separate
 * PCG32 streams of `seed` keep the samples the same whatever the number of
 * beams. The verification tolerance relies on both bounds. */
void beamformer_generate_input(const beamformer_problem *p, uint64_t seed, float *input);
void beamformer_generate_weights(const beamformer_problem *p, uint64_t seed, float *weights);

/* The definition, summed in double and rounded once to float: `input` in
 * BEAMFORMER_CANONICAL_IN, `output` in BEAMFORMER_CANONICAL_OUT. */
int beamformer_cpu_reference(const beamformer_problem *p, const float *input,
                             const float *weights, float *output, skytune_error *err);

/* The absolute tolerance of every output float (beamformer_stage.c derives
 * it from the input bounds). */
double beamformer_tolerance(const beamformer_problem *p);

/* ------------------------------------------------------------ the device */

typedef struct beamformer_stage_launch {
    /* Work-items along time, beam groups and channels; work-groups of
     * wg_time x wg_beams x 1. */
    support_kernel kernel;
} beamformer_stage_launch;

/* Create "beamform" from `program` (built with beamformer_macros' macros
 * for the same problem and configuration), reading `input` (in in_layout)
 * and `weights` and writing `output` (in out_layout). On failure nothing is
 * left to release. */
int beamformer_stage_prepare(beamformer_stage_launch *l, cl_program program,
                             const beamformer_problem *p, const beamformer_config *c,
                             int64_t local_mem_size, cl_mem input, cl_mem weights, cl_mem output,
                             skytune_error *err);

/* Enqueue the kernel; its event goes into `events` labelled "beamform". */
int beamformer_stage_enqueue(const beamformer_stage_launch *l, cl_command_queue queue,
                             skytune_events *events, skytune_error *err);

void beamformer_stage_release(beamformer_stage_launch *l);

/* ------------------------------------------------------------ work counts */

/* 8 flops (a complex multiply-add) per station per output value. */
double beamformer_count_flops(const beamformer_problem *p);

/* Compulsory traffic: every sample, weight and output moved once, 8 bytes
 * each. */
double beamformer_count_bytes(const beamformer_problem *p);

#endif
