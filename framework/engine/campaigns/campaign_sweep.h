/* Running a campaign file: every unit of a shard (or of the whole sweep)
 * one after the other, each a tuning run of its own that resumes where it
 * stopped, under the file's limits for the whole campaign; then, unsharded,
 * the cross-measurement step. Running the same file again resumes: a unit
 * that finished is walked through from the database without measuring. */
#ifndef SKYTUNE_CAMPAIGN_SWEEP_H
#define SKYTUNE_CAMPAIGN_SWEEP_H

#include "campaign_unit.h"

/* Runs shard `shard` of p (p->shards 1: everything) into base->db_path;
 * base holds the supervision options, the worker executable, the stop flag
 * and the run callbacks. The cross step runs when the file asks for it and
 * the plan is unsharded (a sharded campaign runs it after merging, with
 * campaign_cross_run). Fails only when nothing could run at all. */
int campaign_sweep_run(const campaign_file *f, const campaign_plan *p, unsigned shard,
                       const tuning_request *base, const sweep_events *events,
                       sweep_result *out, skytune_error *err);

#endif
