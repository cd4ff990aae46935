#include "campaign_unit.h"

#include <stdlib.h>
#include <string.h>

#include "device_campaigns.h"

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
                /* As below: stopped while its space was being built. */
                if (rq->stop_requested && *rq->stop_requested) {
                    stopped = true;
                    continue;
                }
                failed = true;
                tell_finished(events, p, unit, cross, NULL, &outcomes[k].error);
                continue;
            }
            const tuning_outcome *o = &outcomes[k].outcome;
            out->evaluated += o->result.evaluated;
            stopped = stopped || o->result.stop == TUNING_LOOP_INTERRUPTED;
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
        stopped = o->result.stop == TUNING_LOOP_INTERRUPTED;
        tell_finished(events, p, unit, cross, o, NULL);
        if (!stopped) cross ? out->cross_runs++ : out->units_run++;
    }
    free(o);
    return stopped;
}
