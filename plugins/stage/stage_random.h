/*
 * stage_random — a stage's random input, drawn on every CPU. The inputs of
 * the correlator and the beam former are hundreds of megabytes (201 MB for
 * the thesis's correlator): drawn one float at a time they took 0.4 s of
 * every worker's set-up, on the path to the campaign's first configuration.
 * The parts are drawn in parallel from one sequence, each thread jumping
 * ahead to its part (pcg32_advance), so the input is the same, float for
 * float, whatever the number of threads.
 */
#ifndef SKYTUNE_PLUGINS_STAGE_RANDOM_H
#define SKYTUNE_PLUGINS_STAGE_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* out[i] = 2 u_i - 1 for i < n, u_i the i-th pcg32_float of a generator
 * seeded with (seed, 0): floats uniform in [-1, 1). */
void stage_fill_signed_uniform(float *out, size_t n, uint64_t seed);

#endif
