#include "campaign_sweep.h"

#include <stdlib.h>
#include <string.h>

#include "campaign_cross.h"
#include "clock.h"

/* The tighter of an instance's own limit and what the campaign has left
 * (0 means no limit for both). */
static uint64_t tighter_count(uint64_t own, uint64_t left)
{
    return own == 0 ? left : left == 0 ? own : own < left ? own : left;
}

static double tighter_time(double own, double left)
{
    return own <= 0 ? left : left <= 0 ? own : own < left ? own : left;
}

int campaign_sweep_run(const campaign_file *f, const campaign_plan *p, unsigned shard,
                       const tuning_request *base, const sweep_events *events,
                       sweep_result *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    double started = clock_monotonic_s();
    for (size_t u = 0; u < p->n_units; u++) {
        if (!campaign_plan_in_shard(p, u, shard)) continue;
        if (out->interrupted || out->limit_reached) {
            out->units_left++;
            continue;
        }
        if (base->stop_requested && *base->stop_requested) {
            out->interrupted = true;
            out->units_left++;
            continue;
        }
        double elapsed = clock_monotonic_s() - started;
        if ((f->campaign_budget && out->evaluated >= f->campaign_budget) ||
            (f->campaign_time_limit_s > 0 && elapsed >= f->campaign_time_limit_s)) {
            out->limit_reached = true;
            out->units_left++;
            continue;
        }
        tuning_request rq;
        campaign_unit_request(f, p, u, base, &rq);
        rq.limits.max_evaluations = tighter_count(
            rq.limits.max_evaluations, f->campaign_budget ? f->campaign_budget - out->evaluated : 0);
        rq.limits.time_limit_s = tighter_time(
            rq.limits.time_limit_s,
            f->campaign_time_limit_s > 0 ? f->campaign_time_limit_s - elapsed : 0);
        rq.label = p->instances[p->units[u].instance].label;
        /* A unit stopped part-way is left for the next run, which
         * continues it. */
        if (campaign_unit_run(&rq, p, u, false, events, out)) {
            out->interrupted = true;
            out->units_left++;
        }
    }
    if (out->units_run + out->units_failed == 0 && out->units_left == 0)
        return err_set(err, "shard %u of %u holds no unit of this campaign", shard, p->shards);
    if (f->cross_top && p->shards == 1 && !out->interrupted && !out->limit_reached &&
        out->units_failed == 0)
        return campaign_cross_run(f, p, base, events, out, err);
    return 0;
}
