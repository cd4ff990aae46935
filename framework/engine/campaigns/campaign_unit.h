/* One unit of a campaign file run: its tuning run's request on one device
 * or on every device of the node, what the run tells as it goes, and the
 * counts a sweep and the cross-measurement step add up. */
#ifndef SKYTUNE_CAMPAIGN_UNIT_H
#define SKYTUNE_CAMPAIGN_UNIT_H

#include <stdbool.h>

#include "campaign_file.h"
#include "campaign_plan.h"
#include "tuning_run.h"

/* What the sweep tells as it goes (each may be NULL). */
typedef struct sweep_events {
    /* A unit (or a cross-measurement run) starts: its run's start facts. */
    void (*unit_started)(void *ctx, const campaign_plan *p, size_t unit, bool cross,
                         const tuning_started *s);
    /* It ended: out on success, error otherwise. */
    void (*unit_finished)(void *ctx, const campaign_plan *p, size_t unit, bool cross,
                          const tuning_outcome *out, const skytune_error *error);
    void *ctx;
} sweep_events;

typedef struct sweep_result {
    size_t units_run;          /* units of this shard that ran to their end */
    size_t units_failed;       /* units whose run failed (their error was told) */
    size_t units_left;         /* units of this shard not run: a stop or a campaign limit */
    size_t cross_runs;         /* cross-measurement runs made */
    bool interrupted;          /* stopped by a request (Ctrl-C) */
    bool limit_reached;        /* campaign_budget or campaign_time_limit */
    uint64_t evaluated;        /* distinct configurations over the units run */
} sweep_result;

/* One run of a unit's request (rq, from campaign_unit_request): on one
 * device, or on every device of the node for "all"; its events told, its
 * counts added to *out. Returns whether it was stopped by a request. */
bool campaign_unit_run(const tuning_request *rq, const campaign_plan *p, size_t unit, bool cross,
                       const sweep_events *events, sweep_result *out);

#endif
