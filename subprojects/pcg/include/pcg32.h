/* PCG32 (XSH RR 64/32): a small, fast, statistically good random number
 * generator with 64-bit state, from M. E. O'Neill, "PCG: A Family of Simple
 * Fast Space-Efficient Statistically Good Algorithms for Random Number
 * Generation" (2014). Seeding and stepping follow the reference
 * pcg32_srandom_r / pcg32_random_r, so sequences match the reference
 * implementation's for the same (initstate, initseq). */
#ifndef PCG32_H
#define PCG32_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pcg32 {
    uint64_t state;
    uint64_t inc; /* always odd */
} pcg32;

/* Seed with a starting state and a stream selector (any values). */
void pcg32_seed(pcg32 *rng, uint64_t initstate, uint64_t initseq);

/* Next 32 uniformly distributed bits. */
uint32_t pcg32_next(pcg32 *rng);

/* Move the generator `delta` outputs ahead, as `delta` calls of pcg32_next
 * would, in O(log delta) steps: what lets parts of one sequence be drawn in
 * parallel, each starting where the one before it ends. */
void pcg32_advance(pcg32 *rng, uint64_t delta);

/* Uniform integer in [0, bound), without modulo bias. bound 0 yields 0. */
uint32_t pcg32_bounded(pcg32 *rng, uint32_t bound);

/* Uniform integer in [0, bound) for 64-bit bounds. bound 0 yields 0. */
uint64_t pcg32_bounded64(pcg32 *rng, uint64_t bound);

/* Uniform double in [0, 1) with 53 random bits. */
double pcg32_double(pcg32 *rng);

/* Uniform float in [0, 1) with 24 random bits. */
float pcg32_float(pcg32 *rng);

#ifdef __cplusplus
}
#endif

#endif
