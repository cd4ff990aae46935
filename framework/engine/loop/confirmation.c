#include "confirmation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement.h"
#include "median_interval.h"
#include "stats.h"
#include "store_campaigns.h"
#include "store_confirmations.h"

/* What a confirmation holds while it runs. */
typedef struct confirming {
    char **texts;                    /* the configurations, the campaign's best first */
    double *campaign_ns;             /* their medians in the campaign */
    size_t n;                        /* configurations confirmed */
    size_t capacity;
    size_t found;                    /* of the campaign's best, before index_top */
    char outside[256];               /* why the first one left out is not in the space */
    bool out_of_memory;              /* collect_top could not keep one */
    uint16_t *idx;                   /* n × space_param_count */
    double *visit_ns;                /* n × rounds: the medians of the ok visits */
    store_confirmed *entries;
    store_confirmation_visit *visits;
    size_t n_visits;
} confirming;

static void confirming_free(confirming *c)
{
    for (size_t k = 0; c->texts && k < c->n; k++) free(c->texts[k]);
    free(c->texts);
    free(c->campaign_ns);
    free(c->idx);
    free(c->visit_ns);
    free(c->entries);
    free(c->visits);
}

/* store_campaign_top's visit: one more of the campaign's best. */
static int collect_top(void *ctx, const char *config_text, double median_ns)
{
    confirming *c = ctx;
    char *copy = c->n < c->capacity ? strdup(config_text) : NULL;
    if (!copy) {
        c->out_of_memory = true;
        return -1;
    }
    c->texts[c->n] = copy;
    c->campaign_ns[c->n++] = median_ns;
    return 0;
}

static bool stop_asked(const confirmation_request *rq)
{
    return rq->stop_requested && *rq->stop_requested;
}

/* The configurations as indices of the space; one that is no longer in it
 * (the plugin's space changed since) is left out. */
static int index_top(const confirmation_request *rq, confirming *c, skytune_error *err)
{
    size_t params = space_param_count(rq->space);
    c->idx = calloc(c->n * (params + 1), sizeof *c->idx);
    if (!c->idx) return err_set(err, "out of memory");
    size_t kept = 0;
    c->found = c->n;
    for (size_t k = 0; k < c->n; k++) {
        skytune_error why;
        if (space_parse_config(rq->space, c->texts[k], c->idx + kept * (params + 1), &why) != 0) {
            if (!c->outside[0]) snprintf(c->outside, sizeof c->outside, "%.200s", why.message);
            free(c->texts[k]);
            continue;
        }
        c->texts[kept] = c->texts[k];
        c->campaign_ns[kept++] = c->campaign_ns[k];
    }
    c->n = kept;
    return 0;
}

/* Every round visits every configuration once, in the campaign's order. */
static int visit_all(const confirmation_request *rq, confirming *c, confirmation_outcome *out,
                     skytune_error *err)
{
    size_t params = space_param_count(rq->space);
    for (unsigned round = 1; round <= rq->rounds; round++) {
        for (size_t k = 0; k < c->n; k++) {
            if (stop_asked(rq)) {
                snprintf(out->skipped, sizeof out->skipped, "interrupted");
                return 1;
            }
            measurement m;
            measurement_init(&m);
            if (rq->eval.evaluate(rq->eval.ctx, c->idx + k * (params + 1), &m, err) != 0) {
                measurement_clear(&m);
                return -1;
            }
            bool ok = m.status == MEAS_OK && m.median_ns > 0.0;
            /* A failure that coincides with a stop request may be the
             * stop's doing: the confirmation ends unrecorded. */
            if (!ok && stop_asked(rq)) {
                measurement_clear(&m);
                snprintf(out->skipped, sizeof out->skipped, "interrupted");
                return 1;
            }
            store_confirmation_visit *v = &c->visits[c->n_visits++];
            *v = (store_confirmation_visit){
                .round = round,
                .slot = k + 1,
                .entry = k,
                .status = measurement_status_name(m.status),
                .median_ns = ok ? m.median_ns : NAN,
                .n_samples = m.n_samples,
            };
            if (ok)
                c->visit_ns[k * rq->rounds + c->entries[k].ok_visits++] = m.median_ns;
            else
                out->failed_visits++;
            measurement_clear(&m);
        }
    }
    return 0;
}

/* Each configuration's confirmed median and interval, and the places. */
static size_t decide(const confirmation_request *rq, confirming *c)
{
    size_t winner = c->n;
    for (size_t k = 0; k < c->n; k++) {
        store_confirmed *e = &c->entries[k];
        const double *x = c->visit_ns + k * rq->rounds;
        e->confirmed_median_ns = NAN;
        if (e->ok_visits == 0) continue;
        e->confirmed_median_ns = stats_median(x, e->ok_visits);
        median_interval ci;
        if (median_interval_of(x, e->ok_visits, MEDIAN_INTERVAL_LEVEL, &ci) == 0) {
            e->has_interval = true;
            e->ci_low_ns = ci.low;
            e->ci_high_ns = ci.high;
            e->ci_coverage = ci.coverage;
        }
    }
    /* Only a configuration that passed every visit can win or be placed:
     * one that failed once is not a safe winner, however fast. */
    for (size_t place = 1; place <= c->n; place++) {
        size_t next = c->n;
        for (size_t k = 0; k < c->n; k++) {
            store_confirmed *e = &c->entries[k];
            if (e->confirmed_place || e->ok_visits != rq->rounds) continue;
            if (next == c->n || e->confirmed_median_ns < c->entries[next].confirmed_median_ns)
                next = k;
        }
        if (next == c->n) break;
        c->entries[next].confirmed_place = place;
        if (place == 1) winner = next;
    }
    return winner;
}

static void describe(const confirming *c, size_t winner, confirmation_outcome *out)
{
    out->has_winner = winner < c->n;
    out->changed = out->has_winner && winner != 0;
    snprintf(out->campaign_best, sizeof out->campaign_best, "%s", c->texts[0]);
    out->campaign_best_ns = c->campaign_ns[0];
    out->campaign_best_confirmed_ns = c->entries[0].ok_visits ? c->entries[0].confirmed_median_ns
                                                              : NAN;
    if (out->has_winner) {
        snprintf(out->winner, sizeof out->winner, "%s", c->texts[winner]);
        out->winner_confirmed_ns = c->entries[winner].confirmed_median_ns;
    } else {
        out->winner_confirmed_ns = NAN;
    }
}

int confirm_campaign_best(const confirmation_request *rq, confirmation_outcome *out,
                          skytune_error *err)
{
    memset(out, 0, sizeof *out);
    out->campaign_best_confirmed_ns = out->winner_confirmed_ns = NAN;
    confirming c = {0};
    int rc = -1;
    c.capacity = rq->top;
    c.texts = calloc(rq->top, sizeof *c.texts);
    c.campaign_ns = calloc(rq->top, sizeof *c.campaign_ns);
    if (!c.texts || !c.campaign_ns) {
        err_set(err, "out of memory");
        goto done;
    }
    if (store_campaign_top(rq->store, rq->campaign_id, rq->top, collect_top, &c, err) != 0) {
        if (c.out_of_memory) err_set(err, "out of memory");
        goto done;
    }
    if (index_top(rq, &c, err) != 0) goto done;
    if (c.n < 2 && c.found > c.n) {
        /* The plugin changed since the campaign (a parameter added). */
        snprintf(out->skipped, sizeof out->skipped,
                 "%zu of the campaign's %zu best are not in the plugin's space now (%s): "
                 "nothing to confirm",
                 c.found - c.n, c.found, c.outside);
        rc = 0;
        goto done;
    }
    if (c.n < 2) {
        snprintf(out->skipped, sizeof out->skipped,
                 "%s: nothing to confirm",
                 c.n ? "one configuration passed verification" : "no configuration passed verification");
        rc = 0;
        goto done;
    }
    c.visit_ns = calloc(c.n * rq->rounds, sizeof *c.visit_ns);
    c.entries = calloc(c.n, sizeof *c.entries);
    c.visits = calloc(c.n * rq->rounds, sizeof *c.visits);
    if (!c.visit_ns || !c.entries || !c.visits) {
        err_set(err, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < c.n; k++) {
        c.entries[k].config_text = c.texts[k];
        c.entries[k].campaign_place = k + 1;
        c.entries[k].campaign_median_ns = c.campaign_ns[k];
    }
    /* Every visit is timed in full: racing is the campaign's shortcut, and
     * these are the configurations it never stops anyway. */
    if (rq->eval.race) rq->eval.race(rq->eval.ctx, 0.0);
    int visited = visit_all(rq, &c, out, err);
    if (visited != 0) {
        rc = visited > 0 ? 0 : -1;
        goto done;
    }
    size_t winner = decide(rq, &c);
    store_confirmation record = {
        .campaign_id = rq->campaign_id,
        .rounds = rq->rounds,
        .runs = rq->runs,
        .entries = c.entries,
        .n_entries = c.n,
        .visits = c.visits,
        .n_visits = c.n_visits,
        .winner = winner,
    };
    if (store_record_confirmation(rq->store, &record, &out->confirmation_id, err) != 0) goto done;
    describe(&c, winner, out);
    out->confirmed = true;
    out->top = (unsigned)c.n;
    out->rounds = rq->rounds;
    rc = 0;
done:
    confirming_free(&c);
    return rc;
}
