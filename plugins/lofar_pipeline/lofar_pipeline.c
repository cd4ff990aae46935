/*
 * lofar_pipeline — LOFAR's pipeline of kernels tuned as a whole for its data
 * layouts, as in J. Kis, "Auto-tuning a LOFAR radio astronomy pipeline in
 * JavaCL" (MSc thesis, VU Amsterdam, 2013), chapter 7: the FIR filter, the
 * FFT (clFFT), the beam former and, in Pipeline 2, the correlator, each
 * reading the layout the one before wrote. Between two stages whose layouts
 * differ a transposition kernel converts; where they agree the first writes
 * what the second reads (the thesis's "common write & read"). The objective
 * is the whole pipeline's time; each stage and each transposition is a
 * labelled part of it.
 *
 * The stages are the stage plugins' own modules (plugins/<stage>/<stage>_stage.h)
 * and kernel sources: one program holds a section of each source, between
 * the #defines and #undefs of that stage's macros. Each stage's own tuning
 * parameters are fixed per problem (problem parameters fir_config, bf_config,
 * corr_config); the pipeline tunes the layouts and the scheme.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <skytune/plugin.h>

#include "beamformer_stage.h"
#include "correlator_stage.h"
#include "layout.h"
#include "pipeline_problem.h"
#include "ppf_stage.h"
#include "stage_buffer.h"
#include "stage_macros.h"
#include "transpose_stage.h"

/* ------------------------------------------------------------ description data */

/* The stages' configurations of the thesis's setup (section 7.3: beam
 * blocks of 10, correlator cells of 1 x 6 without local memory, as the
 * tuned pipeline had it, section 7.5), with work-groups that suit the
 * sizes. The cells are numbered down the columns, the correlator's order
 * before cell_order was tunable; corr_config may name cell_order=row. */
#define THESIS_FIR "wg_size=64,channels_per_item=2,samples_per_item=8,both_pols=1"
#define THESIS_BF "beam_block=10,station_block=8,wg_time=32,wg_beams=2,use_local=0"
#define THESIS_CORR "cell_width=1,cell_height=6,wg_size=64,use_local=0,block_time=4"
#define SMALL_FIR "wg_size=16,channels_per_item=2,samples_per_item=4,both_pols=1"
#define SMALL_BF "beam_block=2,station_block=2,wg_time=16,wg_beams=2,use_local=0"
#define SMALL_CORR "cell_width=2,cell_height=2,wg_size=4,use_local=0,block_time=4"

static const skytune_problem_param problem_params[] = {
    {"stations", SKYTUNE_INT, "64", "stations, two polarizations each"},
    {"channels", SKYTUNE_INT, "256", "channels each station's band is split into: the FFT size"},
    {"samples", SKYTUNE_INT, "512", "time samples per channel after the filter bank"},
    {"taps", SKYTUNE_INT, "8", "FIR taps per channel"},
    {"sample_bits", SKYTUNE_INT, "8", "bits per component of the station samples: 8 or 16"},
    {"beams", SKYTUNE_INT, "100", "beams formed (the correlator's inputs in Pipeline 2)"},
    {"pipeline", SKYTUNE_INT, "2",
     "1: FIR, FFT, beam former (the thesis's Pipeline 1); 2: and the correlator"},
    {"fft", SKYTUNE_BOOL, "true", "false: the FFT left out, the FIR output going to the beam former"},
    {"fir_config", SKYTUNE_STRING, THESIS_FIR,
     "the FIR filter's tuning parameters (ppf's, without out_layout)"},
    {"bf_config", SKYTUNE_STRING, THESIS_BF,
     "the beam former's tuning parameters (beamformer's, without its layouts)"},
    {"corr_config", SKYTUNE_STRING, THESIS_CORR,
     "the correlator's tuning parameters (correlator's, without in_layout; cell_order may be "
     "left out: column)"},
    {NULL, 0, NULL, NULL}};

static const skytune_preset presets[] = {
    {"thesis",
     "stations=64,channels=256,samples=512,taps=8,sample_bits=8,beams=100,fir_config='" THESIS_FIR
     "',bf_config='" THESIS_BF "',corr_config='" THESIS_CORR "'",
     "Kis 2013, section 7.3: 64 stations, 256 channels, 512 samples, 8 taps, 8-bit samples, "
     "100 beams"},
    {"small",
     "stations=2,channels=32,samples=64,taps=4,sample_bits=8,beams=4,fir_config='" SMALL_FIR
     "',bf_config='" SMALL_BF "',corr_config='" SMALL_CORR "'",
     "2 stations, 32 channels, 64 samples, 4 taps, 4 beams: for tests and demos"},
    {NULL, NULL, NULL}};

static const skytune_problem_check problem_checks[] = {
    {"stations >= 1", "stations must be at least 1"},
    {"channels >= 2", "channels must be at least 2"},
    {"samples >= 1", "samples must be at least 1"},
    {"taps >= 1", "taps must be at least 1"},
    {"sample_bits == 8 or sample_bits == 16", "sample_bits must be 8 or 16"},
    {"beams >= 1", "beams must be at least 1"},
    {"pipeline == 1 or pipeline == 2", "pipeline must be 1 (FIR, FFT, beam former) or 2 (and "
                                       "the correlator)"},
    {NULL, NULL}};

/* The layouts of the thesis's pipelines (section 7.2, Figure 7.1). The FIR
 * writes in any of the 24 orders of SCTP; the FFT transforms the channels,
 * which must be contiguous, so its layout ends in C; the beam former reads
 * and writes both polarizations of a sample together, so its layouts end
 * in P, as does the correlator's input, whose stations are the beams:
 * 24 x 6 x 6 = 864 combinations in Pipeline 1 and x 6 x 6 = 31,104 in
 * Pipeline 2. */
#define FFT_LAYOUTS "STPC,SPTC,TSPC,TPSC,PSTC,PTSC"
#define BF_IN_LAYOUTS "SCTP,STCP,CSTP,CTSP,TSCP,TCSP"
#define BEAM_LAYOUTS "BCTP,BTCP,CBTP,CTBP,TBCP,TCBP"

static const skytune_tuning_param tuning_params[] = {
    {"fir_layout", SKYTUNE_PERMUTATION, "SCTP", 0, 0, 0, "the FIR filter's write layout"},
    {"fft_layout", SKYTUNE_ENUM, FFT_LAYOUTS, 0, 0, 0, "the FFT's read and write layout"},
    {"bf_in_layout", SKYTUNE_ENUM, BF_IN_LAYOUTS, 0, 0, 0, "the beam former's read layout"},
    {"bf_out_layout", SKYTUNE_ENUM, BEAM_LAYOUTS, 0, 0, 0, "the beam former's write layout"},
    {"corr_layout", SKYTUNE_ENUM, BEAM_LAYOUTS, 0, 0, 0, "the correlator's read layout"},
    {"scheme", SKYTUNE_ENUM, "transpose,common", 0, 0, 0,
     "common: each stage writes what the next reads wherever it can (no transposition but the "
     "FFT's to the beam former, which no layout avoids); transpose: a transposition kernel "
     "between at least two stages whose layouts differ"},
    {NULL, 0, NULL, 0, 0, 0, NULL}};

/* Parameters a pipeline does not run are pinned to LOFAR's layouts, so
 * that the space holds each pipeline once: Pipeline 1 the beam former's
 * write layout and the correlator's read layout, a pipeline without the
 * FFT the FFT's layout. Under the common scheme every junction that can
 * agree does; under the transpose scheme at least one such junction does
 * not, so the two schemes split the space between them. */
static const char *const constraints[] = {
    "pipeline == 2 or (bf_out_layout == 'CBTP' and corr_layout == 'CTBP')",
    "fft == 1 or fft_layout == 'TPSC'",
    "scheme == 'transpose' or ((fft == 0 or fir_layout == fft_layout) and "
    "(fft == 1 or fir_layout == bf_in_layout) and (pipeline == 1 or bf_out_layout == corr_layout))",
    "scheme == 'common' or (fft == 1 and fir_layout != fft_layout) or "
    "(fft == 0 and fir_layout != bf_in_layout) or (pipeline == 2 and bf_out_layout != corr_layout)",
    NULL};

/* ------------------------------------------------------------ a configuration */

/* The layouts of a configuration, and where transpositions go. */
typedef struct pipeline_layouts {
    char fir[LAYOUT_MAX_DIMS + 1], fft[LAYOUT_MAX_DIMS + 1];
    char bf_in[LAYOUT_MAX_DIMS + 1], bf_out[LAYOUT_MAX_DIMS + 1];
    char corr[LAYOUT_MAX_DIMS + 1];       /* over BCTP */
    char corr_stations[LAYOUT_MAX_DIMS + 1]; /* the same over SCTP, as the correlator reads it */
    bool t_fir_fft, t_fft_bf, t_fir_bf, t_bf_corr;
} pipeline_layouts;

static int read_layouts(const skytune_values *config, const pipeline_problem *p,
                        pipeline_layouts *l, skytune_error *err)
{
    int rc = stage_read_layout(config, "fir_layout", "SCTP", l->fir, err);
    if (rc == SKYTUNE_OK) rc = stage_read_layout(config, "fft_layout", "SCTP", l->fft, err);
    if (rc == SKYTUNE_OK) rc = stage_read_layout(config, "bf_in_layout", "SCTP", l->bf_in, err);
    if (rc == SKYTUNE_OK) rc = stage_read_layout(config, "bf_out_layout", "BCTP", l->bf_out, err);
    if (rc == SKYTUNE_OK) rc = stage_read_layout(config, "corr_layout", "BCTP", l->corr, err);
    if (rc != SKYTUNE_OK) return rc;
    memcpy(l->corr_stations, l->corr, sizeof l->corr);
    *strchr(l->corr_stations, 'B') = 'S';
    l->t_fir_fft = p->fft && strcmp(l->fir, l->fft) != 0;
    l->t_fft_bf = p->fft; /* an FFT layout ends in C, a beam former's in P */
    l->t_fir_bf = !p->fft && strcmp(l->fir, l->bf_in) != 0;
    l->t_bf_corr = p->pipeline == 2 && strcmp(l->bf_out, l->corr) != 0;
    return SKYTUNE_OK;
}

static int transposes_of(const pipeline_layouts *l)
{
    return l->t_fir_fft + l->t_fft_bf + l->t_fir_bf + l->t_bf_corr;
}

/* The kernels a configuration's program holds: the stages', and a
 * transposition section per junction, each renamed by its prefix. */
#define T_FIR_FFT "fir_fft"
#define T_FFT_BF "fft_bf"
#define T_FIR_BF "fir_bf"
#define T_BF_CORR "bf_corr"

static void fir_sizes(const pipeline_problem *p, int64_t sizes[4])
{
    ppf_output_sizes(&p->fir, sizes);
}

static void beam_sizes(const pipeline_problem *p, int64_t sizes[4])
{
    beamformer_output_sizes(&p->bf, sizes);
}

/* The transposition's shape at a junction, from one layout of an array of
 * `sizes` along `letters` into another. */
static void junction_kernel(const char *letters, const int64_t *sizes, const char *from,
                            const char *to, transpose_kernel *k)
{
    transpose_kernel_choose(letters, sizes, from, to, k);
}

/* Appends `source` as a section with macros `m` to *text. */
static int append_section(char **text, size_t *len, const stage_macros *m, const char *source,
                          skytune_error *err)
{
    char *section = stage_macros_section(m, source);
    if (!section) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    size_t add = strlen(section);
    char *grown = realloc(*text, *len + add + 1);
    if (!grown) {
        free(section);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    }
    memcpy(grown + *len, section, add + 1);
    *text = grown;
    *len += add;
    free(section);
    return SKYTUNE_OK;
}

static int append_transpose(char **text, size_t *len, const char *prefix, const char *letters,
                            const int64_t *sizes, const char *from, const char *to,
                            skytune_error *err)
{
    transpose_kernel k;
    junction_kernel(letters, sizes, from, to, &k);
    stage_macros m;
    int rc = transpose_macros(&k, prefix, &m, err);
    return rc == SKYTUNE_OK ? append_section(text, len, &m, transpose_cl_source, err) : rc;
}

/* One program for a configuration: a section of each stage's source with
 * its macros, and one of the transposition's per junction. */
static int pipeline_generate_source(const skytune_values *config, const skytune_values *problem,
                                    char **source, skytune_error *err)
{
    pipeline_problem p;
    pipeline_layouts l;
    int rc = pipeline_problem_read(problem, &p, err);
    if (rc == SKYTUNE_OK) rc = read_layouts(config, &p, &l, err);
    if (rc != SKYTUNE_OK) return rc;
    ppf_config fir = p.fir_config;
    beamformer_config bf = p.bf_config;
    correlator_config corr = p.corr_config;
    memcpy(fir.out_layout, l.fir, sizeof l.fir);
    memcpy(bf.in_layout, l.bf_in, sizeof l.bf_in);
    memcpy(bf.out_layout, l.bf_out, sizeof l.bf_out);
    memcpy(corr.in_layout, l.corr_stations, sizeof l.corr_stations);
    char *text = NULL;
    size_t len = 0;
    int64_t sizes[4], beams[4];
    fir_sizes(&p, sizes);
    beam_sizes(&p, beams);
    stage_macros m;
    if ((rc = ppf_macros(&p.fir, &fir, &m, err)) == SKYTUNE_OK)
        rc = append_section(&text, &len, &m, ppf_cl_source, err);
    if (rc == SKYTUNE_OK && (rc = beamformer_macros(&p.bf, &bf, &m, err)) == SKYTUNE_OK)
        rc = append_section(&text, &len, &m, beamformer_cl_source, err);
    if (rc == SKYTUNE_OK && p.pipeline == 2 &&
        (rc = correlator_macros(&p.corr, &corr, &m, err)) == SKYTUNE_OK)
        rc = append_section(&text, &len, &m, correlator_cl_source, err);
    if (rc == SKYTUNE_OK && l.t_fir_fft)
        rc = append_transpose(&text, &len, T_FIR_FFT, "SCTP", sizes, l.fir, l.fft, err);
    if (rc == SKYTUNE_OK && l.t_fft_bf)
        rc = append_transpose(&text, &len, T_FFT_BF, "SCTP", sizes, l.fft, l.bf_in, err);
    if (rc == SKYTUNE_OK && l.t_fir_bf)
        rc = append_transpose(&text, &len, T_FIR_BF, "SCTP", sizes, l.fir, l.bf_in, err);
    if (rc == SKYTUNE_OK && l.t_bf_corr)
        rc = append_transpose(&text, &len, T_BF_CORR, "BCTP", beams, l.bf_out, l.corr, err);
    if (rc != SKYTUNE_OK) {
        free(text);
        return rc;
    }
    *source = text;
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ the problem */

static int pipeline_check_problem(const skytune_values *problem,
                                  const skytune_device_info *device, skytune_error *err)
{
    pipeline_problem p;
    int rc = pipeline_problem_read(problem, &p, err);
    if (rc == SKYTUNE_OK) rc = ppf_problem_check_device(&p.fir, device, err);
    if (rc == SKYTUNE_OK) rc = beamformer_problem_check_device(&p.bf, device, err);
    if (rc == SKYTUNE_OK && p.pipeline == 2)
        rc = correlator_problem_check_device(&p.corr, device, err);
    skytune_error why = {0};
    if (rc == SKYTUNE_OK &&
        beamformer_config_check(&p.bf, &p.bf_config, device->local_mem_size, &why) != SKYTUNE_OK)
        rc = skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                               "bf_config '%s' does not suit this device: %s",
                               skytune_string(problem, "bf_config"), why.message);
    return rc;
}

/* ------------------------------------------------------------ run state */

/* Device arrays: the inputs, then what a stage or a transposition writes
 * (each stage's output, and the transpositions' outputs), in the order
 * clear_outputs poisons them. Those a problem's pipeline does not run have
 * no bytes and are not created. */
enum {
    BUFFER_INPUT, BUFFER_COEFFICIENTS, BUFFER_WEIGHTS,
    BUFFER_FIR, BUFFER_FFT_IN, BUFFER_SPECTRA, BUFFER_BF_IN, BUFFER_BEAMS, BUFFER_CORR_IN,
    BUFFER_VIS, BUFFERS
};

typedef struct pipeline_state {
    pipeline_problem p;
    int64_t local_mem_size;
    /* Host data in the stages' canonical orders: the inputs, then each
     * stage's reference output. */
    int16_t *input;
    void *packed;            /* the station samples as uploaded (ppf_pack_input) */
    float *coefficients, *weights;
    float *fir_ref, *spectra_ref, *beams_ref, *vis_ref;
    double fir_tol, spectra_tol, beams_tol, vis_tol;
    /* The outputs of the verification run read back, in canonical order:
     * one array each, since they are compared only after the timed runs. */
    float *fir_out, *spectra_out, *beams_out, *vis_out;
    support_buffer buffers[BUFFERS];
    ppf_fft fft;
} pipeline_state;

static void pipeline_teardown(void *opaque)
{
    pipeline_state *s = opaque;
    if (!s) return;
    ppf_fft_destroy(&s->fft);
    support_buffers_release(s->buffers, BUFFERS);
    free(s->input);
    free(s->packed);
    free(s->coefficients);
    free(s->weights);
    free(s->fir_ref);
    free(s->spectra_ref);
    free(s->beams_ref);
    free(s->vis_ref);
    free(s->fir_out);
    free(s->spectra_out);
    free(s->beams_out);
    free(s->vis_out);
    free(s);
}

/* An input the pipeline's kernels read, uploaded from `host`. */
static support_buffer pipeline_input(const char *name, const void *host, size_t bytes)
{
    return (support_buffer){.name = name, .flags = CL_MEM_READ_WRITE, .bytes = bytes,
                            .host = host};
}

/* The problem passed pipeline_check_problem (the engine calls it first). */
static int pipeline_setup(const skytune_setup_context *ctx, void **state_out, skytune_error *err)
{
    pipeline_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    *state_out = s;
    int rc = pipeline_problem_read(ctx->problem, &s->p, err);
    if (rc != SKYTUNE_OK) return rc;
    const pipeline_problem *p = &s->p;
    s->local_mem_size = ctx->device_info->local_mem_size;
    const size_t points = ppf_output_count(&p->fir);
    const size_t beams = beamformer_output_count(&p->bf);
    const size_t visibilities = p->pipeline == 2 ? correlator_output_floats(&p->corr) : 0;
    s->input = malloc(ppf_input_count(&p->fir) * 2 * sizeof *s->input);
    s->coefficients = malloc(ppf_coefficient_count(&p->fir) * sizeof(float));
    s->weights = malloc(beamformer_weight_count(&p->bf) * 2 * sizeof(float));
    /* The references' arrays too, though pipeline_reference fills them:
     * pipeline_reference_data names them before, and another worker's
     * reference may be copied into them instead. */
    s->fir_ref = malloc(points * 2 * sizeof(float));
    s->beams_ref = malloc(beams * 2 * sizeof(float));
    s->fir_out = malloc(points * 2 * sizeof(float));
    s->beams_out = malloc(beams * 2 * sizeof(float));
    if (p->fft) {
        s->spectra_ref = malloc(points * 2 * sizeof(float));
        s->spectra_out = malloc(points * 2 * sizeof(float));
    }
    if (p->pipeline == 2) {
        s->vis_ref = malloc(visibilities * sizeof(float));
        s->vis_out = malloc(visibilities * sizeof(float));
    }
    void *packed = s->packed = malloc(ppf_input_bytes(&p->fir));
    if (!s->input || !s->coefficients || !s->weights || !s->fir_ref || !s->beams_ref ||
        !s->fir_out || !s->beams_out || (p->fft && (!s->spectra_ref || !s->spectra_out)) ||
        (p->pipeline == 2 && (!s->vis_ref || !s->vis_out)) || !packed) {
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the host arrays");
    }
    ppf_generate_input(&p->fir, ctx->seed, s->input);
    ppf_make_coefficients(&p->fir, s->coefficients);
    beamformer_generate_weights(&p->bf, ctx->seed, s->weights);
    ppf_pack_input(&p->fir, s->input, packed);
    const size_t point_bytes = points * 8, beam_bytes = beams * 8;
    const size_t fft_bytes = p->fft ? point_bytes : 0;
    const size_t corr_bytes = p->pipeline == 2 ? beam_bytes : 0;
    support_buffer *b = s->buffers;
    b[BUFFER_INPUT] = pipeline_input("station samples", packed, ppf_input_bytes(&p->fir));
    b[BUFFER_COEFFICIENTS] = pipeline_input("taps", s->coefficients,
                                            ppf_coefficient_count(&p->fir) * sizeof(float));
    b[BUFFER_WEIGHTS] =
        pipeline_input("weights", s->weights, beamformer_weight_count(&p->bf) * 8);
    b[BUFFER_FIR] = support_read_write("FIR", point_bytes);
    b[BUFFER_FFT_IN] = support_read_write("FFT input", fft_bytes);
    b[BUFFER_SPECTRA] = support_read_write("spectra", fft_bytes);
    b[BUFFER_BF_IN] = support_read_write("beam former input", point_bytes);
    b[BUFFER_BEAMS] = support_read_write("beams", beam_bytes);
    b[BUFFER_CORR_IN] = support_read_write("correlator input", corr_bytes);
    b[BUFFER_VIS] = support_read_write("visibilities", visibilities * sizeof(float));
    rc = support_buffers_create(b, BUFFERS, ctx->context, SKYTUNE_ERR_SETUP, err);
    /* The plan is baked here, so no measurement includes clFFT's own
     * compilation. */
    if (rc == SKYTUNE_OK && p->fft)
        rc = ppf_fft_create(&s->fft, ctx->context, ctx->queue, &p->fft_problem, err);
    return rc;
}

/* What the pipeline exchanges with the host in a telescope: the station
 * samples, the filter's taps and the beam former's weights in, and the
 * pipeline's product out (the visibilities of Pipeline 2, the beams of
 * Pipeline 1). The other outputs are read back for verification only. */
static int pipeline_transfers(void *opaque, skytune_transfer *list, size_t max, size_t *count,
                              skytune_error *err)
{
    const pipeline_state *s = opaque;
    const support_buffer *b = s->buffers;
    const bool visibilities = s->p.pipeline == 2;
    *count = 0;
    if (skytune_transfer_add(list, max, count, "upload station samples", 1, s->packed,
                             b[BUFFER_INPUT].bytes) ||
        skytune_transfer_add(list, max, count, "upload taps", 1, s->coefficients,
                             b[BUFFER_COEFFICIENTS].bytes) ||
        skytune_transfer_add(list, max, count, "upload weights", 1, s->weights,
                             b[BUFFER_WEIGHTS].bytes) ||
        skytune_transfer_add(list, max, count,
                             visibilities ? "download visibilities" : "download beams", 0, NULL,
                             b[visibilities ? BUFFER_VIS : BUFFER_BEAMS].bytes))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more transfers than %zu", max);
    return SKYTUNE_OK;
}

/* The largest |re| + |im| of `count` complex values: bounds each component
 * of a product with a unit-modulus weight, and of the value itself. */
static double largest_magnitude(const float *values, size_t count)
{
    double largest = 0.0;
    for (size_t k = 0; k < count; k++)
        largest = fmax(largest, fabs((double)values[2 * k]) + fabs((double)values[2 * k + 1]));
    return largest;
}

/* The stages' CPU references chained, each reading the one before's output
 * (rounded to float, as the device's is) converted to its canonical order,
 * and each output's tolerance: the stage's own, plus what the error allowed
 * in its input can do to it.
 *   beams: each output float sums S products of an input component with a
 *     unit-modulus weight's: an input off by d moves it by at most
 *     S * sqrt(2) * d;
 *   visibilities: a product of two beams, each off by at most e and at most
 *     X in |re| + |im|, moves by at most 2 X e + e^2 per sample, over T
 *     samples; the correlator's own float sums of T products of size X^2
 *     round by at most u (2T + T^2) X^2 (every partial sum at its largest).
 * The bounds are loose (errors do not all point one way), but a sample,
 * station or beam in the wrong place moves outputs by a whole term. */
static int pipeline_reference(void *opaque, skytune_error *err)
{
    pipeline_state *s = opaque;
    const pipeline_problem *p = &s->p;
    const size_t points = ppf_output_count(&p->fir);
    const size_t beams = beamformer_output_count(&p->bf);
    const double u = ldexp(1.0, -24);
    float *bf_input = malloc(points * 2 * sizeof(float));
    float *corr_input = p->pipeline == 2 ? malloc(beams * 2 * sizeof(float)) : NULL;
    int rc = SKYTUNE_OK;
    if (!bf_input || (p->pipeline == 2 && !corr_input)) {
        rc = skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the references");
        goto done;
    }
    ppf_fir_reference(&p->fir, s->input, s->coefficients, s->fir_ref);
    s->fir_tol = ppf_fir_tolerance(&p->fir, s->coefficients);
    double input_tol = s->fir_tol;
    const float *bf_source = s->fir_ref;
    if (p->fft) {
        double norm = 0.0;
        rc = ppf_fft_reference(&p->fft_problem, s->fir_ref, s->spectra_ref, &norm, err);
        if (rc != SKYTUNE_OK) goto done;
        s->spectra_tol = ppf_spectra_tolerance(&p->fft_problem, s->coefficients, norm);
        input_tol = s->spectra_tol;
        bf_source = s->spectra_ref;
    }
    int64_t sizes[4];
    ppf_output_sizes(&p->fir, sizes);
    layout_permute(bf_input, BEAMFORMER_CANONICAL_IN, bf_source, PPF_CANONICAL_LAYOUT, "SCTP",
                   sizes, 8);
    rc = beamformer_cpu_reference(&p->bf, bf_input, s->weights, s->beams_ref, err);
    if (rc != SKYTUNE_OK) goto done;
    s->beams_tol = (double)p->stations * sqrt(2.0) * input_tol + beamformer_tolerance(&p->bf);
    if (p->pipeline == 2) {
        int64_t beam_sizes_[4];
        beam_sizes(p, beam_sizes_);
        /* The correlator's canonical CTSP over SCTP, its stations the
         * beams: CTBP over BCTP. */
        layout_permute(corr_input, "CTBP", s->beams_ref, BEAMFORMER_CANONICAL_OUT, "BCTP",
                       beam_sizes_, 8);
        rc = correlator_cpu_reference(&p->corr, corr_input, s->vis_ref, err);
        if (rc != SKYTUNE_OK) goto done;
        const double x = largest_magnitude(s->beams_ref, beams) + s->beams_tol;
        const double t = (double)p->samples;
        s->vis_tol = t * (2.0 * x * s->beams_tol + s->beams_tol * s->beams_tol) +
                     u * (2.0 * t + t * t) * x * x;
    }
done:
    free(bf_input);
    free(corr_input);
    return rc;
}

/* What the reference computes, for the engine to compute it once per
 * campaign: each stage's expected output and its tolerance (which depends
 * on the reference's values), in the stages' order, the spectra only with
 * fft and the visibilities only in pipeline 2. */
static int pipeline_reference_data(void *opaque, skytune_region *regions, size_t max,
                                   size_t *count, skytune_error *err)
{
    pipeline_state *s = opaque;
    const pipeline_problem *p = &s->p;
    const size_t points = ppf_output_count(&p->fir) * 2 * sizeof(float);
    skytune_region named[8];
    size_t n = 0;
    named[n++] = (skytune_region){s->fir_ref, points};
    named[n++] = (skytune_region){&s->fir_tol, sizeof s->fir_tol};
    if (p->fft) {
        named[n++] = (skytune_region){s->spectra_ref, points};
        named[n++] = (skytune_region){&s->spectra_tol, sizeof s->spectra_tol};
    }
    named[n++] = (skytune_region){s->beams_ref,
                                  beamformer_output_count(&p->bf) * 2 * sizeof(float)};
    named[n++] = (skytune_region){&s->beams_tol, sizeof s->beams_tol};
    if (p->pipeline == 2) {
        named[n++] = (skytune_region){s->vis_ref,
                                      correlator_output_floats(&p->corr) * sizeof(float)};
        named[n++] = (skytune_region){&s->vis_tol, sizeof s->vis_tol};
    }
    if (n > max)
        return skytune_error_set(err, SKYTUNE_ERR_SETUP,
                                 "the reference is %zu regions, room for %zu", n, max);
    memcpy(regions, named, n * sizeof *named);
    *count = n;
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ a configuration */

typedef struct pipeline_launch {
    const pipeline_state *state;
    pipeline_layouts layouts;
    ppf_fir_launch fir;
    transpose_stage_launch t_fir_fft, t_fft_bf, t_fir_bf, t_bf_corr;
    beamformer_stage_launch bf;
    correlator_stage_launch corr;
} pipeline_launch;

static void pipeline_release(void *opaque)
{
    pipeline_launch *l = opaque;
    if (!l) return;
    ppf_fir_release(&l->fir);
    transpose_stage_release(&l->t_fir_fft);
    transpose_stage_release(&l->t_fft_bf);
    transpose_stage_release(&l->t_fir_bf);
    transpose_stage_release(&l->t_bf_corr);
    beamformer_stage_release(&l->bf);
    correlator_stage_release(&l->corr);
    free(l);
}

static int prepare_transpose(transpose_stage_launch *t, cl_program program, const char *prefix,
                             const char *letters, const int64_t *sizes, const char *from,
                             const char *to, cl_mem in, cl_mem out, const char *label,
                             skytune_error *err)
{
    transpose_kernel k;
    junction_kernel(letters, sizes, from, to, &k);
    return transpose_stage_prepare(t, program, &k, prefix, letters, sizes, from, to, in, out,
                                   label, err);
}

static int pipeline_prepare(void *opaque, cl_program program, const skytune_values *config,
                            void **launch_out, skytune_error *err)
{
    const pipeline_state *s = opaque;
    const pipeline_problem *p = &s->p;
    pipeline_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    l->state = s;
    pipeline_layouts *ly = &l->layouts;
    int rc = read_layouts(config, p, ly, err);
    ppf_config fir = p->fir_config;
    beamformer_config bf = p->bf_config;
    correlator_config corr = p->corr_config;
    memcpy(fir.out_layout, ly->fir, sizeof ly->fir);
    memcpy(bf.in_layout, ly->bf_in, sizeof ly->bf_in);
    memcpy(bf.out_layout, ly->bf_out, sizeof ly->bf_out);
    memcpy(corr.in_layout, ly->corr_stations, sizeof ly->corr_stations);
    int64_t sizes[4], beams[4];
    fir_sizes(p, sizes);
    beam_sizes(p, beams);
    cl_mem mem[BUFFERS];
    for (size_t k = 0; k < BUFFERS; k++) mem[k] = s->buffers[k].mem;
    /* Where each stage reads: its predecessor's output, or the
     * transposition's in between. */
    cl_mem fft_in = mem[ly->t_fir_fft ? BUFFER_FFT_IN : BUFFER_FIR];
    cl_mem bf_in = mem[p->fft || ly->t_fir_bf ? BUFFER_BF_IN : BUFFER_FIR];
    cl_mem corr_in = mem[ly->t_bf_corr ? BUFFER_CORR_IN : BUFFER_BEAMS];
    if (rc == SKYTUNE_OK)
        rc = ppf_fir_prepare(&l->fir, program, &p->fir, &fir, mem[BUFFER_INPUT],
                             mem[BUFFER_COEFFICIENTS], mem[BUFFER_FIR], err);
    if (rc == SKYTUNE_OK && ly->t_fir_fft)
        rc = prepare_transpose(&l->t_fir_fft, program, T_FIR_FFT, "SCTP", sizes, ly->fir, ly->fft,
                               mem[BUFFER_FIR], fft_in, "transpose_fir_fft", err);
    if (rc == SKYTUNE_OK && ly->t_fft_bf)
        rc = prepare_transpose(&l->t_fft_bf, program, T_FFT_BF, "SCTP", sizes, ly->fft, ly->bf_in,
                               mem[BUFFER_SPECTRA], bf_in, "transpose_fft_bf", err);
    if (rc == SKYTUNE_OK && ly->t_fir_bf)
        rc = prepare_transpose(&l->t_fir_bf, program, T_FIR_BF, "SCTP", sizes, ly->fir, ly->bf_in,
                               mem[BUFFER_FIR], bf_in, "transpose_fir_bf", err);
    if (rc == SKYTUNE_OK)
        rc = beamformer_stage_prepare(&l->bf, program, &p->bf, &bf, s->local_mem_size, bf_in,
                                      mem[BUFFER_WEIGHTS], mem[BUFFER_BEAMS], err);
    if (rc == SKYTUNE_OK && ly->t_bf_corr)
        rc = prepare_transpose(&l->t_bf_corr, program, T_BF_CORR, "BCTP", beams, ly->bf_out,
                               ly->corr, mem[BUFFER_BEAMS], corr_in, "transpose_bf_corr", err);
    if (rc == SKYTUNE_OK && p->pipeline == 2)
        rc = correlator_stage_prepare(&l->corr, program, &p->corr, &corr, corr_in,
                                      mem[BUFFER_VIS], err);
    if (rc != SKYTUNE_OK) {
        pipeline_release(l);
        return rc;
    }
    *launch_out = l;
    return SKYTUNE_OK;
}

/* Every array a stage or a transposition writes, so that one that writes
 * nothing cannot pass on the previous configuration's data. */
static int pipeline_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    const pipeline_state *s = opaque;
    return support_buffers_poison(s->buffers, BUFFERS, queue, err);
}

static int pipeline_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                            skytune_error *err)
{
    const pipeline_launch *l = opaque;
    const pipeline_state *s = l->state;
    const pipeline_layouts *ly = &l->layouts;
    cl_event fir_done = NULL;
    int rc = ppf_fir_enqueue(&l->fir, queue, events, &fir_done, err);
    if (rc == SKYTUNE_OK && ly->t_fir_fft)
        rc = transpose_stage_enqueue(&l->t_fir_fft, queue, events, err);
    if (rc == SKYTUNE_OK && s->p.fft) {
        /* In order on one queue: the FFT follows whatever came last. */
        cl_event last = events->count ? events->events[events->count - 1] : fir_done;
        const support_buffer *in = &s->buffers[ly->t_fir_fft ? BUFFER_FFT_IN : BUFFER_FIR];
        rc = ppf_fft_enqueue(&s->fft, queue, last, in->mem, s->buffers[BUFFER_SPECTRA].mem, events,
                             err);
    }
    if (rc == SKYTUNE_OK && ly->t_fft_bf)
        rc = transpose_stage_enqueue(&l->t_fft_bf, queue, events, err);
    if (rc == SKYTUNE_OK && ly->t_fir_bf)
        rc = transpose_stage_enqueue(&l->t_fir_bf, queue, events, err);
    if (rc == SKYTUNE_OK) rc = beamformer_stage_enqueue(&l->bf, queue, events, err);
    if (rc == SKYTUNE_OK && ly->t_bf_corr)
        rc = transpose_stage_enqueue(&l->t_bf_corr, queue, events, err);
    if (rc == SKYTUNE_OK && s->p.pipeline == 2)
        rc = correlator_stage_enqueue(&l->corr, queue, events, err);
    return rc;
}

/* Each stage's output of the verification run read back from its layout
 * into canonical order, right after the run. */
static int pipeline_read_back(void *opaque, const skytune_values *config, cl_command_queue queue,
                              skytune_error *err)
{
    pipeline_state *s = opaque;
    const pipeline_problem *p = &s->p;
    pipeline_layouts ly;
    int rc = read_layouts(config, p, &ly, err);
    if (rc != SKYTUNE_OK) return rc;
    int64_t sizes[4], beams[4];
    fir_sizes(p, sizes);
    beam_sizes(p, beams);
    rc = stage_read_canonical(queue, &s->buffers[BUFFER_FIR], ly.fir, s->fir_out,
                              PPF_CANONICAL_LAYOUT, "SCTP", sizes, 8, err);
    if (rc == SKYTUNE_OK && p->fft)
        rc = stage_read_canonical(queue, &s->buffers[BUFFER_SPECTRA], ly.fft, s->spectra_out,
                                  PPF_CANONICAL_LAYOUT, "SCTP", sizes, 8, err);
    if (rc == SKYTUNE_OK)
        rc = stage_read_canonical(queue, &s->buffers[BUFFER_BEAMS], ly.bf_out, s->beams_out,
                                  BEAMFORMER_CANONICAL_OUT, "BCTP", beams, 8, err);
    if (rc == SKYTUNE_OK && p->pipeline == 2)
        rc = support_buffer_read(&s->buffers[BUFFER_VIS], queue, s->vis_out, err);
    return rc;
}

/* What pipeline_read_back read, compared off the device: each stage's
 * output with its reference, under a name and tolerance of its own, so
 * that a wrong stage is named. */
static int pipeline_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                           skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    (void)queue;
    (void)err;
    pipeline_state *s = opaque;
    const pipeline_problem *p = &s->p;
    const size_t points = ppf_output_count(&p->fir);
    const size_t beam_count = beamformer_output_count(&p->bf);
    skytune_verify_floats(report, "fir", s->fir_out, s->fir_ref, points * 2, s->fir_tol, 0.0);
    if (p->fft)
        skytune_verify_floats(report, "spectra", s->spectra_out, s->spectra_ref, points * 2,
                              s->spectra_tol, 0.0);
    skytune_verify_floats(report, "beams", s->beams_out, s->beams_ref, beam_count * 2,
                          s->beams_tol, 0.0);
    if (p->pipeline == 2)
        skytune_verify_floats(report, "visibilities", s->vis_out, s->vis_ref,
                              correlator_output_floats(&p->corr), s->vis_tol, 0.0);
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ work counts */

/* The stages' counts (the filter bank's with the FFT when the pipeline has
 * it). */
static double pipeline_flops(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    pipeline_problem p;
    skytune_error ignored;
    if (pipeline_problem_read(problem, &p, &ignored) != SKYTUNE_OK) return 0.0;
    double flops = ppf_count_flops(p.fft ? &p.fft_problem : &p.fir) + beamformer_count_flops(&p.bf);
    if (p.pipeline == 2) flops += correlator_count_flops(&p.corr);
    return flops;
}

/* The stages' compulsory traffic and the transpositions' (every sample read
 * and written once). */
static double pipeline_bytes(const skytune_values *problem, const skytune_values *config)
{
    pipeline_problem p;
    pipeline_layouts ly;
    skytune_error ignored;
    if (pipeline_problem_read(problem, &p, &ignored) != SKYTUNE_OK ||
        read_layouts(config, &p, &ly, &ignored) != SKYTUNE_OK)
        return 0.0;
    const double points = (double)ppf_output_count(&p.fir);
    const double beams = (double)beamformer_output_count(&p.bf);
    double bytes = ppf_count_bytes(p.fft ? &p.fft_problem : &p.fir) + beamformer_count_bytes(&p.bf);
    if (p.pipeline == 2) bytes += correlator_count_bytes(&p.corr);
    bytes += (ly.t_fir_fft + ly.t_fft_bf + ly.t_fir_bf) * transpose_count_bytes(points);
    bytes += ly.t_bf_corr * transpose_count_bytes(beams);
    return bytes;
}

/* How many transpositions a configuration's pipeline runs: where the
 * thesis's schemes differ. */
static double pipeline_transposes(const skytune_values *problem, const skytune_values *config)
{
    pipeline_problem p;
    pipeline_layouts ly;
    skytune_error ignored;
    if (pipeline_problem_read(problem, &p, &ignored) != SKYTUNE_OK ||
        read_layouts(config, &p, &ly, &ignored) != SKYTUNE_OK)
        return -1.0;
    return (double)transposes_of(&ly);
}

static const skytune_derived_value derived_values[] = {
    {"transposes", "transposition kernels the pipeline runs between its stages",
     pipeline_transposes},
    {NULL, NULL, NULL}};

/* ------------------------------------------------------------ description */

static const skytune_plugin lofar_pipeline_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "lofar_pipeline",
    .version = "1.0",
    .description = "LOFAR's FIR, FFT, beam former and correlator tuned together for their data "
                   "layouts (Kis 2013, chapter 7)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .check_problem = pipeline_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .generate_source = pipeline_generate_source,
    .setup = pipeline_setup,
    .reference = pipeline_reference,
    .reference_data = pipeline_reference_data,
    .prepare = pipeline_prepare,
    .clear_outputs = pipeline_clear_outputs,
    .enqueue = pipeline_enqueue,
    .read_back = pipeline_read_back,
    .verify = pipeline_verify,
    .release = pipeline_release,
    .teardown = pipeline_teardown,
    .flops = pipeline_flops,
    .bytes = pipeline_bytes,
    .derived_values = derived_values,
    .transfers = pipeline_transfers,
};

SKYTUNE_DEFINE_PLUGIN(lofar_pipeline_plugin)
