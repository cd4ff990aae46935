/* Running a campaign file: every unit of a shard (or of the whole sweep)
 * one after the other, each a tuning run of its own that resumes where it
 * stopped, under the file's limits for the whole campaign; then, unsharded,
 * the cross-measurement step. Running the same file again resumes: a unit
 * that finished is walked through from the database without measuring. */
#ifndef SKYTUNE_CAMPAIGN_SWEEP_H
#define SKYTUNE_CAMPAIGN_SWEEP_H

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

/* Runs shard `shard` of p (p->shards 1: everything) into base->db_path;
 * base holds the supervision options, the worker executable, the stop flag
 * and the run callbacks. The cross step runs when the file asks for it and
 * the plan is unsharded (a sharded campaign runs it after merging, with
 * campaign_cross_run). Fails only when nothing could run at all. */
int campaign_sweep_run(const campaign_file *f, const campaign_plan *p, unsigned shard,
                       const tuning_request *base, const sweep_events *events,
                       sweep_result *out, skytune_error *err);

/* The cross-measurement step alone: each instance's best configurations
 * (the file's cross.top of them) measured in every other instance, on the
 * same device, from the campaigns base->db_path holds. */
int campaign_cross_run(const campaign_file *f, const campaign_plan *p, const tuning_request *base,
                       const sweep_events *events, sweep_result *out, skytune_error *err);

#endif
