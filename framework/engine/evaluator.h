/* What the campaign loop calls to evaluate one configuration: a supervised
 * measuring worker, the measurer in the engine's own process, or a recorded
 * dataset standing in for a device (replay). */
#ifndef SKYTUNE_EVALUATOR_H
#define SKYTUNE_EVALUATOR_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "measurement.h"

typedef struct evaluator {
    void *ctx;
    /* Fill *m for the configuration idx (space_param_count values). A
     * configuration that fails is a status in *m and a return of
     * 0; return -1 only when the campaign cannot go on (device lost, dataset
     * gone). */
    int (*evaluate)(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err);
    /* Optional: `next`, the configuration about to be evaluated, and the
     * ones the strategy will probably ask after it, none of them evaluated
     * yet, most likely first (at most prefetch_depth), so that they can be
     * built ahead. */
    size_t prefetch_depth;
    void (*prefetch)(void *ctx, uint64_t next, const uint64_t *ranks, size_t n);
    /* Optional: a result the campaign took from the store instead of
     * evaluating it, so the evaluator knows the device's recorded times
     * (the health check re-times the best of them after a fault). */
    void (*learn)(void *ctx, const uint16_t *idx, const measurement *m);
} evaluator;

#endif
