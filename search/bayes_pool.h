/* How many candidates bayes scores by expected improvement in a space of a
 * given size (bayes.c, "Proposals"). Its own file so that the rule can be
 * checked without running the strategy. */
#ifndef SKYTUNE_BAYES_POOL_H
#define SKYTUNE_BAYES_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most valid configurations the automatic rule scores all of. The
 * model's update is O(observations × candidates): at this many candidates
 * a step of a campaign of 200 evaluations costs under a millisecond
 * (docs/benchmarks.md), nothing next to compiling and timing a kernel. */
#define BAYES_WHOLE_SPACE_LIMIT 8192

/* Slots for the untried neighbours of the best configuration so far,
 * added where the pool is a sample: there the optimum is most likely
 * outside the pool, and the region around the best is where a sample
 * is thinnest compared with what the search needs. */
#define BAYES_LOCAL_SLOTS 256

/* Slots for what the acquisition search steps to (bayes.c, "Acquisition
 * search"): configurations outside the sample near its best candidates,
 * kept from step to step so that a later search that passes them again
 * pays nothing for them, the oldest given up first. */
#define BAYES_CLIMB_SLOTS 512

typedef struct bayes_pool {
    bool whole_space;   /* every valid configuration is a candidate */
    size_t pool;        /* the whole space's count, or the random sample's size */
    size_t local;       /* local slots: 0 with the whole space */
    size_t climb;       /* the acquisition search's slots: 0 with the whole space */
} bayes_pool;

/* The candidates for a space of `valid` configurations; `requested` is the
 * candidates option, 0 for the automatic rule (BAYES_WHOLE_SPACE_LIMIT). */
bayes_pool bayes_pool_size(uint64_t valid, size_t requested);

#endif
