/*
 * ppf_stage — the polyphase filter bank as a stage: what the ppf plugin and
 * a pipeline that runs the filter bank in front of other stages both need.
 * The plugin's callbacks (ppf.c) are thin wrappers around these functions.
 *
 * Arrays (S station, C channel, T output step, P polarization; layouts
 * outermost first, plugins/layout/layout.h):
 *   input         [block][station][channel][pol] complex int8 or int16 (re,
 *                 im): a fixed layout, LOFAR's station data
 *   coefficients  [tap][channel] float
 *   fir           the FIR output, complex float, in the configuration's
 *                 out_layout over "SCTP" (LOFAR's: TPSC)
 *   spectra       the FFT output, complex float, in the same layout (clFFT
 *                 transforms runs of `channels` contiguous values, so the
 *                 FFT needs a layout ending in C and keeps it)
 * The CPU reference works in the canonical order PPF_CANONICAL_LAYOUT;
 * layout_permute converts between it and any layout.
 */
#ifndef SKYTUNE_PLUGINS_PPF_STAGE_H
#define SKYTUNE_PLUGINS_PPF_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include <clFFT.h>
#include <skytune/plugin.h>

#include "layout.h"
#include "plugin_support.h"
#include "stage_macros.h"

/* The FIR kernel's source (ppf.cl, embedded at build time). */
extern const char ppf_cl_source[];

/* The dimensions of the FIR output and the spectra, and the order the CPU
 * reference writes them in (the plugin's default out_layout). */
#define PPF_LETTERS "SCTP"
#define PPF_CANONICAL_LAYOUT "TPSC"

/* ------------------------------------------------------------ the problem */

typedef struct ppf_problem {
    int64_t stations, channels, taps, samples, sample_bits;
    bool fft;            /* false: the FIR alone */
    int64_t blocks;      /* samples / channels: input blocks per stream */
    int64_t steps;       /* blocks - taps + 1: output steps per stream */
    int64_t transforms;  /* stations * 2 * steps: FFTs per run */
} ppf_problem;

/* From the problem parameters stations, channels, taps, samples,
 * sample_bits and fft. */
void ppf_problem_read(const skytune_values *problem, ppf_problem *p);

/* The plugin's problem checks again, for callers that bypass problem
 * resolution; SKYTUNE_ERR_PROBLEM naming the parameter. */
int ppf_problem_check(const ppf_problem *p, skytune_error *err);

/* Whether the arrays fit the kernel's int indices and the device's largest
 * allocation; SKYTUNE_ERR_PROBLEM naming the array and what to reduce. */
int ppf_problem_check_device(const ppf_problem *p, const skytune_device_info *device,
                             skytune_error *err);

/* Element counts: complex samples of the input, floats of the
 * coefficients, complex points of the FIR output (= of the spectra). */
size_t ppf_input_count(const ppf_problem *p);
size_t ppf_coefficient_count(const ppf_problem *p);
size_t ppf_output_count(const ppf_problem *p);

/* Bytes of the input on the device (sample_bits / 8 per component). */
size_t ppf_input_bytes(const ppf_problem *p);

/* The sizes of the FIR output along PPF_LETTERS: stations, channels,
 * steps, 2. */
void ppf_output_sizes(const ppf_problem *p, int64_t sizes[4]);

/* ------------------------------------------------------- a configuration */

typedef struct ppf_config {
    int64_t wg_size, channels_per_item, samples_per_item, both_pols;
    char out_layout[LAYOUT_MAX_DIMS + 1];
} ppf_config;

/* From the tuning parameters wg_size, channels_per_item, samples_per_item,
 * both_pols and out_layout. SKYTUNE_ERR_LAUNCH naming out_layout when it is
 * not a layout of "SCTP". */
int ppf_config_read(const skytune_values *config, ppf_config *c, skytune_error *err);

/* The plugin's constraints again: tiles divide the station-channels,
 * batches divide the steps, and with the FFT the layout ends in C. A
 * configuration that bypassed them gets SKYTUNE_ERR_LAUNCH instead of an
 * out-of-bounds kernel. */
int ppf_config_check(const ppf_problem *p, const ppf_config *c, skytune_error *err);

/* The macros ppf.cl is compiled with: every numeric parameter of the ppf
 * plugin (stations, channels, taps, samples, sample_bits, fft, wg_size,
 * channels_per_item, samples_per_item, both_pols), as the engine passes
 * them, and the derived OUT_STRIDE_S/C/T/P of out_layout. */
int ppf_macros(const ppf_problem *p, const ppf_config *c, stage_macros *m, skytune_error *err);

/* The same from the plugin's parameter values: the problem's and a
 * configuration's. */
int ppf_macros_of_values(const skytune_values *problem, const skytune_values *config,
                         stage_macros *m, skytune_error *err);

/* ------------------------------------------------------- host-side data */

/* Station samples, uniform over the whole range of the sample type (PCG32
 * seeded with `seed`), as int16 pairs in the input's layout:
 * ppf_input_count(p) * 2 values. */
void ppf_generate_input(const ppf_problem *p, uint64_t seed, int16_t *input);

/* The input as the device takes it (ppf_input_bytes(p) bytes): 16-bit
 * samples as they are, 8-bit ones narrowed to bytes. */
void ppf_pack_input(const ppf_problem *p, const int16_t *input, void *device_input);

/* The Hamming-windowed sinc prototype, [tap][channel]. */
void ppf_make_coefficients(const ppf_problem *p, float *coefficients);

/* The FIR in double, exactly as the thesis's delay line computes it, with
 * the float coefficients the kernel uses, rounded once to float: fir in
 * PPF_CANONICAL_LAYOUT, ppf_output_count(p) complex values. */
void ppf_fir_reference(const ppf_problem *p, const int16_t *input, const float *coefficients,
                       float *fir);

/* The forward, unscaled transform of every run of `channels` values of
 * `fir` (canonical layout) in double, into `spectra` (the same layout).
 * *largest_norm is the largest transform's 2-norm, for the tolerance. */
int ppf_fft_reference(const ppf_problem *p, const float *fir, float *spectra,
                      double *largest_norm, skytune_error *err);

/* Absolute tolerances (ppf_stage.c derives them): for the FIR output, and
 * for the spectra given the largest transform's 2-norm. */
double ppf_fir_tolerance(const ppf_problem *p, const float *coefficients);
double ppf_spectra_tolerance(const ppf_problem *p, const float *coefficients,
                             double largest_norm);

/* ------------------------------------------------------------ the device */

/* The FIR kernel of a built program, its arguments and geometry. */
typedef struct ppf_fir_launch {
    support_kernel kernel;
} ppf_fir_launch;

/* Create "ppf_fir" from `program` (built with ppf_macros' macros for the
 * same problem and configuration), reading `input` and `coefficients` and
 * writing `fir`. Refuses a work-group larger than the kernel allows on the
 * device. On failure nothing is left to release. */
int ppf_fir_prepare(ppf_fir_launch *l, cl_program program, const ppf_problem *p,
                    const ppf_config *c, cl_mem input, cl_mem coefficients, cl_mem fir,
                    skytune_error *err);

/* Enqueue the FIR; its event goes into `events` labelled "fir" and, when
 * `done` is not NULL, into *done (borrowed from `events`). */
int ppf_fir_enqueue(const ppf_fir_launch *l, cl_command_queue queue, skytune_events *events,
                    cl_event *done, skytune_error *err);

void ppf_fir_release(ppf_fir_launch *l);

/* The clFFT plan of a problem: `transforms` forward, unscaled
 * single-precision transforms of `channels` contiguous complex values, out
 * of place. clfftSetup and clfftTeardown act on the whole process; the
 * stage counts its open plans and sets clFFT up with the first and tears
 * it down after the last. That count belongs to the module that links this
 * stage, so two modules linking it must not hold plans in one process at
 * once. */
typedef struct ppf_fft {
    clfftPlanHandle plan;
    bool has_plan;
    bool holds_clfft;
} ppf_fft;

/* Create and bake the plan on `queue` (no measurement then includes
 * clFFT's compilation). SKYTUNE_ERR_PROBLEM when clFFT would need several
 * kernels per transform (only the last one's event could be timed). On
 * failure call ppf_fft_destroy. */
int ppf_fft_create(ppf_fft *fft, cl_context context, cl_command_queue queue,
                   const ppf_problem *p, skytune_error *err);

/* Enqueue the transform of `in` into `out` after `wait` (may be NULL); its
 * event goes into `events` labelled "fft". */
int ppf_fft_enqueue(const ppf_fft *fft, cl_command_queue queue, cl_event wait, cl_mem in,
                    cl_mem out, skytune_events *events, skytune_error *err);

/* Safe on a zeroed or partly created plan. */
void ppf_fft_destroy(ppf_fft *fft);

/* ------------------------------------------------------------ work counts */

/* The thesis's counts: FIR 2 + 4 (taps - 1) per complex output, FFT
 * 5 N log2 N per transform when the problem has the FFT. */
double ppf_count_flops(const ppf_problem *p);

/* Compulsory traffic: the input and coefficients read once, the FIR output
 * written (8 bytes a point) and, with the FFT, read and the spectra written. */
double ppf_count_bytes(const ppf_problem *p);

#endif
