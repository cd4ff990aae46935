/*
 * pipeline_problem — the LOFAR pipeline's problem: its sizes, the
 * configurations its stages run with, and the stage problems they make.
 *
 * The pipeline tunes data layouts; each stage's own tuning parameters are
 * fixed for a problem, given as the problem parameters fir_config,
 * bf_config and corr_config in the stage plugin's configuration text
 * without its layouts ("wg_size=64,channels_per_item=2,...": what `skytune
 * best` prints for a campaign of that plugin, layouts left out).
 */
#ifndef SKYTUNE_PLUGINS_PIPELINE_PROBLEM_H
#define SKYTUNE_PLUGINS_PIPELINE_PROBLEM_H

#include <stdbool.h>
#include <stdint.h>

#include <skytune/plugin.h>

#include "beamformer_stage.h"
#include "correlator_stage.h"
#include "ppf_stage.h"

typedef struct pipeline_problem {
    int64_t stations, channels, samples, taps, sample_bits, beams;
    int pipeline;            /* 1: FIR, FFT, beam former; 2: and the correlator */
    bool fft;                /* false: the FFT left out */
    /* The stages' problems: the filter bank's (its FFT taken as a stage of
     * its own, so fft is false here), the beam former's, the correlator's
     * (the beams standing for its stations). */
    ppf_problem fir;
    ppf_problem fft_problem; /* the same with fft, for the FFT plan and reference */
    beamformer_problem bf;
    correlator_problem corr;
    /* The stages' own tuning parameters (their layouts come from each
     * configuration of the pipeline). */
    ppf_config fir_config;
    beamformer_config bf_config;
    correlator_config corr_config;
} pipeline_problem;

/* From the pipeline's problem parameters. Fails naming the problem
 * parameter (fir_config, bf_config or corr_config) whose text is not the
 * stage's tuning parameters with integer values, or whose configuration
 * breaks the stage's own rules for this problem; and naming any size the
 * stages refuse. */
int pipeline_problem_read(const skytune_values *values, pipeline_problem *p, skytune_error *err);

#endif
