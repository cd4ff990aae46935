#include "campaign_sweep.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

/* The start facts reach the caller through this, labelled with the unit. */
typedef struct unit_ctx {
    const sweep_events *events;
    const campaign_plan *plan;
    size_t unit;
    bool cross;
} unit_ctx;

static void on_unit_start(void *ctx, const tuning_started *s)
{
    unit_ctx *u = ctx;
    if (u->events && u->events->unit_started)
        u->events->unit_started(u->events->ctx, u->plan, u->unit, u->cross, s);
}

static void tell_finished(const sweep_events *ev, const campaign_plan *p, size_t unit, bool cross,
                          const tuning_outcome *out, const skytune_error *error)
{
    if (ev && ev->unit_finished) ev->unit_finished(ev->ctx, p, unit, cross, out, error);
}

bool campaign_unit_run(const tuning_request *rq, const campaign_plan *p, size_t unit, bool cross,
                     const sweep_events *events, sweep_result *out)
{
    unit_ctx uc = {events, p, unit, cross};
    bool stopped = false;
    const char *device = p->units[unit].device;
    if (device && strcmp(device, "all") == 0) {
        tuning_device_outcome *outcomes = NULL;
        size_t n = 0;
        skytune_error error;
        if (tuning_run_devices(rq, "all", on_unit_start, &uc, &outcomes, &n, &error) != 0) {
            tell_finished(events, p, unit, cross, NULL, &error);
            out->units_failed++;
            return false;
        }
        bool failed = false;
        for (size_t k = 0; k < n; k++) {
            if (outcomes[k].status != 0) {
                failed = true;
                tell_finished(events, p, unit, cross, NULL, &outcomes[k].error);
                continue;
            }
            const tuning_outcome *o = &outcomes[k].outcome;
            out->evaluated += o->result.evaluated;
            stopped = stopped || o->result.stop == CAMPAIGN_INTERRUPTED;
            tell_finished(events, p, unit, cross, o, NULL);
        }
        free(outcomes);
        if (failed) out->units_failed++;
        else if (!stopped) cross ? out->cross_runs++ : out->units_run++;
        return stopped;
    }
    tuning_outcome *o = malloc(sizeof *o);
    skytune_error error;
    if (!o) {
        err_set(&error, "out of memory");
        tell_finished(events, p, unit, cross, NULL, &error);
        out->units_failed++;
        return false;
    }
    if (tuning_run(rq, on_unit_start, &uc, o, &error) != 0) {
        /* Ctrl-C while the unit's space was being built stops the sweep
         * there: the unit is left to do, not failed. */
        stopped = rq->stop_requested && *rq->stop_requested;
        if (!stopped) {
            tell_finished(events, p, unit, cross, NULL, &error);
            out->units_failed++;
        }
    } else {
        out->evaluated += o->result.evaluated;
        stopped = o->result.stop == CAMPAIGN_INTERRUPTED;
        tell_finished(events, p, unit, cross, o, NULL);
        if (!stopped) cross ? out->cross_runs++ : out->units_run++;
    }
    free(o);
    return stopped;
}

int campaign_sweep_run(const campaign_file *f, const campaign_plan *p, unsigned shard,
                       const tuning_request *base, const sweep_events *events,
                       sweep_result *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    double started = now_s();
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
        double elapsed = now_s() - started;
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
        if (campaign_unit_run(&rq, p, u, false, events, out)) out->interrupted = true;
    }
    if (out->units_run + out->units_failed == 0 && out->units_left == 0)
        return err_set(err, "shard %u of %u holds no unit of this campaign", shard, p->shards);
    if (f->cross_top && p->shards == 1 && !out->interrupted && !out->limit_reached &&
        out->units_failed == 0)
        return campaign_cross_run(f, p, base, events, out, err);
    return 0;
}
