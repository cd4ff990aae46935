/* What the campaign loop calls to evaluate one configuration: a supervised
 * measuring worker, the measurer in the engine's own process, or a recorded
 * dataset standing in for a device (replay). */
#ifndef SKYTUNE_EVALUATOR_H
#define SKYTUNE_EVALUATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "measurement.h"

/* What an evaluator says of the configuration in flight while it works on
 * it: a configuration can take minutes (a slow kernel on a CPU device, a
 * long build), and the person watching must see that it runs. */
typedef struct evaluation_activity {
    measure_stage stage;   /* STAGE_NONE: not begun (a worker starting, a build ahead to finish) */
    double elapsed_s;      /* since the campaign asked for it */
    bool checking_health;  /* re-timing the reference configuration first, after a fault */
} evaluation_activity;

/* An evaluator that reports activity does so at every change of stage and
 * at least this often while a configuration is in flight. */
#define EVALUATOR_ACTIVITY_INTERVAL_S 0.5

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
    /* Optional: the race limit (racing.h) for the evaluations from now on,
     * in nanoseconds; 0: none, every configuration timed in full. An
     * evaluator without it (a recorded dataset) ignores racing. */
    void (*race)(void *ctx, double limit_ns);
    /* Optional: from now on call on_activity(watch_ctx, ...) while a
     * configuration is in flight, as EVALUATOR_ACTIVITY_INTERVAL_S says;
     * on_activity NULL: stop calling. */
    void (*watch)(void *ctx, void (*on_activity)(void *watch_ctx, const evaluation_activity *a),
                  void *watch_ctx);
} evaluator;

#endif
