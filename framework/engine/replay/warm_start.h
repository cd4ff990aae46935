/* Warm start (--warm-start): recordings of the same space on other devices
 * (a skytune database, a Kernel Tuner cache, T4 results) turned into what a
 * strategy knows of the space before its first evaluation: each recorded
 * configuration's normalised rank on the devices that recorded it
 * (strategy_prior, strategy.h). Ranks and not times, since devices differ
 * by factors in time but much less in which configurations are fast. */
#ifndef SKYTUNE_WARM_START_H
#define SKYTUNE_WARM_START_H

#include <stdint.h>

#include "error.h"
#include "replay_dataset.h"
#include "space.h"
#include "strategy.h"

typedef struct warm_start {
    strategy_prior prior;     /* points into the arrays below */
    size_t recordings;
    uint64_t *ranks;
    double *position;
} warm_start;

/* From datasets already loaded. Each must record the space `sp`: every
 * parameter of the space under its name, no parameter of more than one
 * value that the space lacks, and no recorded value outside the space's
 * list of its parameter; otherwise it is refused with a message naming the
 * dataset, the parameter and the value. One that holds no configuration of
 * the space is refused too. */
int warm_start_build(const replay_dataset *const *datasets, size_t n, const space *sp,
                     warm_start *out, skytune_error *err);

/* The files loaded (replay_load.h), then as warm_start_build. */
int warm_start_load(const char *const *paths, size_t n, const space *sp, uint64_t max_json_bytes,
                    warm_start *out, skytune_error *err);

void warm_start_free(warm_start *w);

/* Tells apart what two warm starts give a strategy, for a campaign's
 * settings: a hash of the ranks and positions. */
uint64_t warm_start_hash(const warm_start *w);

#endif
