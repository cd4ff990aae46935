#include "campaign.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "store_writer.h"
#include "value.h"

/* A strategy that keeps proposing configurations it has already seen makes
 * no progress; after this many free proposals in a row the loop ends. */
#define MAX_REPEATED_PROPOSALS 1000000

const char *campaign_stop_name(campaign_stop s)
{
    switch (s) {
    case CAMPAIGN_EXHAUSTED: return "search complete";
    case CAMPAIGN_BUDGET: return "budget reached";
    case CAMPAIGN_TIME_LIMIT: return "time limit reached";
    case CAMPAIGN_TARGET: return "target reached";
    case CAMPAIGN_INTERRUPTED: return "interrupted";
    case CAMPAIGN_DEVICE_TIME: return "device-time budget reached";
    }
    return "unknown";
}

const char *campaign_stop_key(campaign_stop s)
{
    switch (s) {
    case CAMPAIGN_EXHAUSTED: return "search_complete";
    case CAMPAIGN_BUDGET: return "budget";
    case CAMPAIGN_TIME_LIMIT: return "time_limit";
    case CAMPAIGN_TARGET: return "target";
    case CAMPAIGN_INTERRUPTED: return "interrupted";
    case CAMPAIGN_DEVICE_TIME: return "device_time";
    }
    return "failed";
}

bool campaign_budget_spent(const campaign_limits *l, uint64_t evaluated, double device_s,
                           campaign_stop *why)
{
    if (l->max_evaluations && evaluated >= l->max_evaluations) {
        *why = CAMPAIGN_BUDGET;
        return true;
    }
    if (l->device_time_s > 0 && device_s >= l->device_time_s) {
        *why = CAMPAIGN_DEVICE_TIME;
        return true;
    }
    return false;
}

/* What the store already holds for this campaign's key, by rank. */
typedef struct known_entry {
    uint64_t rank;
    int64_t measurement_id;
    measurement_status status;
    double objective;
    double gflops, gbs;
    bool in_campaign;
} known_entry;

typedef struct known_set {
    const space *space;
    uint16_t *idx;
    known_entry *items;
    size_t count, capacity;
    int64_t max_seq;
    int failed;
} known_set;

static int collect_known(void *ctx, const store_known *k)
{
    known_set *ks = ctx;
    skytune_error ignored;
    uint64_t rank;
    /* Measurements of configurations outside this run's space (another
     * --restrict, a changed value list) stay in the store but are not used. */
    if (space_parse_config(ks->space, k->config_text, ks->idx, &ignored) != 0 ||
        space_rank(ks->space, ks->idx, &rank) != 0)
        return 0;
    if (ks->count == ks->capacity) {
        size_t capacity = ks->capacity ? 2 * ks->capacity : 256;
        known_entry *grown = realloc(ks->items, capacity * sizeof *grown);
        if (!grown) {
            ks->failed = 1;
            return 1;
        }
        ks->items = grown;
        ks->capacity = capacity;
    }
    known_entry *e = &ks->items[ks->count++];
    e->rank = rank;
    e->measurement_id = k->measurement_id;
    e->status = k->status;
    e->objective = k->status == MEAS_OK ? k->median_ns : INFINITY;
    e->gflops = k->gflops;
    e->gbs = k->gbs;
    e->in_campaign = k->in_campaign;
    if (k->in_campaign && k->seq > ks->max_seq) ks->max_seq = k->seq;
    return 0;
}

static int compare_known(const void *a, const void *b)
{
    const known_entry *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static known_entry *find_known(known_set *ks, uint64_t rank)
{
    size_t lo = 0, hi = ks->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ks->items[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ks->count && ks->items[lo].rank == rank ? &ks->items[lo] : NULL;
}

/* Parameter names and the configuration's values as text, for the store. */
typedef struct config_strings {
    size_t n;
    const char **names;
    const char **values;
    char *buffer;         /* n slots of VALUE_TEXT bytes */
} config_strings;

#define VALUE_TEXT 256

static int config_strings_init(config_strings *cs, const space *s)
{
    cs->n = space_param_count(s);
    cs->names = calloc(cs->n + 1, sizeof *cs->names);
    cs->values = calloc(cs->n + 1, sizeof *cs->values);
    cs->buffer = malloc((cs->n + 1) * VALUE_TEXT);
    if (!cs->names || !cs->values || !cs->buffer) return -1;
    for (size_t k = 0; k < cs->n; k++) {
        cs->names[k] = space_param(s, k)->name;
        cs->values[k] = cs->buffer + k * VALUE_TEXT;
    }
    return 0;
}

static void config_strings_fill(config_strings *cs, const space *s, const uint16_t *idx)
{
    for (size_t k = 0; k < cs->n; k++)
        value_format(&space_param(s, k)->values[idx[k]], cs->buffer + k * VALUE_TEXT, VALUE_TEXT);
}

static void config_strings_free(config_strings *cs)
{
    free(cs->names);
    free(cs->values);
    free(cs->buffer);
}

/* Tell the evaluator what the strategy will probably ask after `rank`,
 * leaving out what is evaluated already or recorded in the store, so that a
 * compile pool can build it while the device measures. */
static void hint_upcoming(const campaign_config *cfg, known_set *known, uint64_t rank,
                          uint64_t *ranks, size_t depth)
{
    size_t n = strategy_upcoming(cfg->strategy, ranks, depth);
    size_t kept = 0;
    double seen;
    for (size_t k = 0; k < n; k++) {
        const known_entry *e = find_known(known, ranks[k]);
        if (ranks[k] == rank || history_lookup(cfg->history, ranks[k], &seen) ||
            (e && (e->status == MEAS_OK || !cfg->retry_failed)))
            continue;
        ranks[kept++] = ranks[k];
    }
    cfg->eval.prefetch(cfg->eval.ctx, rank, ranks, kept);
}

/* What the evaluator's reports need to become campaign_activity. */
typedef struct activity_relay {
    const campaign_config *cfg;
    const campaign_result *res;
    const char *text;          /* the configuration in flight */
    uint64_t planned;
    double start;
} activity_relay;

static void relay_activity(void *ctx, const evaluation_activity *e)
{
    const activity_relay *r = ctx;
    campaign_activity a = {
        .evaluated = r->res->evaluated,
        .planned = r->planned,
        .config_text = r->text,
        .stage = e->stage,
        .elapsed_s = e->elapsed_s,
        .checking_health = e->checking_health,
        .campaign_elapsed_s = clock_monotonic_s() - r->start,
        .label = r->cfg->label,
    };
    r->cfg->on_activity(r->cfg->activity_ctx, &a);
}

int campaign_run(const campaign_config *cfg, campaign_result *res, skytune_error *err)
{
    memset(res, 0, sizeof *res);
    const space *sp = cfg->space;
    size_t n_params = space_param_count(sp);
    size_t text_cap = 64 + n_params * (VALUE_TEXT + 64);
    uint16_t *idx = calloc(n_params + 1, sizeof *idx);
    char *text = malloc(text_cap);
    char *best_text = calloc(text_cap, 1);
    known_set known = {.space = sp, .idx = calloc(n_params + 1, sizeof(uint16_t)), .max_seq = -1};
    config_strings strings = {0};
    store_writer *writer = NULL;
    size_t prefetch_depth = cfg->eval.prefetch ? cfg->eval.prefetch_depth : 0;
    uint64_t *upcoming = prefetch_depth ? calloc(prefetch_depth, sizeof *upcoming) : NULL;
    bool watching = false;     /* the evaluator reports activity to relay_activity */
    int rc = 0;
    if (!idx || !text || !best_text || !known.idx || config_strings_init(&strings, sp) != 0 ||
        (prefetch_depth && !upcoming)) {
        rc = err_set(err, "out of memory starting the campaign");
        goto done;
    }
    if (cfg->store) {
        if (store_known_measurements(cfg->store, cfg->campaign_id, collect_known, &known, err) != 0)
            goto fail;
        if (known.failed) {
            rc = err_set(err, "out of memory loading known measurements");
            goto done;
        }
        if (known.count > 1) qsort(known.items, known.count, sizeof *known.items, compare_known);
        if (store_writer_start(cfg->store, &writer, err) != 0) goto fail;
    }
    int64_t next_seq = known.max_seq + 1;
    uint64_t count = cfg->selection_count ? cfg->selection_count : space_count(sp);
    uint64_t planned = cfg->limits.max_evaluations && cfg->limits.max_evaluations < count
                           ? cfg->limits.max_evaluations
                           : count;
    double start = clock_monotonic_s();
    double best_objective = INFINITY;
    uint64_t repeated = 0;
    res->stop = CAMPAIGN_EXHAUSTED;
    /* The relay lives on this stack: the evaluator is told to stop calling
     * it before the function returns. */
    activity_relay relay = {.cfg = cfg, .res = res, .text = text, .planned = planned, .start = start};
    watching = cfg->on_activity && cfg->eval.watch;
    if (watching) cfg->eval.watch(cfg->eval.ctx, relay_activity, &relay);

    /* A phase the strategy entered, held until the next event reports it
     * (proposals answered from the history report nothing). */
    char phase_line[256] = "";
    for (;;) {
        if (cfg->stop_requested && *cfg->stop_requested) {
            res->stop = CAMPAIGN_INTERRUPTED;
            break;
        }
        if (campaign_budget_spent(&cfg->limits, res->evaluated,
                                  res->build_s + res->verify_s + res->bench_s, &res->stop))
            break;
        if (cfg->limits.time_limit_s > 0 &&
            clock_monotonic_s() - start >= cfg->limits.time_limit_s) {
            res->stop = CAMPAIGN_TIME_LIMIT;
            break;
        }
        double iteration_start = clock_monotonic_s();
        double spent = 0;
        uint64_t rank;
        if (strategy_ask(cfg->strategy, &rank) == STRATEGY_DONE) break;
        const char *phase = strategy_phase_change(cfg->strategy);
        if (phase) snprintf(phase_line, sizeof phase_line, "%s", phase);
        double seen;
        if (history_lookup(cfg->history, rank, &seen)) {
            strategy_tell(cfg->strategy, rank, seen);
            if (++repeated >= MAX_REPEATED_PROPOSALS) break;
            continue;
        }
        repeated = 0;
        space_unrank(sp, rank, idx);
        space_config_text(sp, idx, text, text_cap);

        measurement m;
        measurement_init(&m);
        known_entry *k = cfg->store ? find_known(&known, rank) : NULL;
        if (k && k->status != MEAS_OK && cfg->retry_failed) k = NULL;
        if (!k && prefetch_depth) hint_upcoming(cfg, &known, rank, upcoming, prefetch_depth);
        /* Another run on the same database may have measured it since this
         * one started, or be measuring it now. */
        known_entry from_other;
        if (!k && cfg->claims) {
            claim_outcome claim;
            store_known other;
            if (claim_configuration(cfg->claims, cfg->campaign_id, text, space_text_hash(text),
                                    &claim, &other, err) != 0)
                goto fail;
            if (claim == CLAIM_STOPPED) {
                res->stop = CAMPAIGN_INTERRUPTED;
                break;
            }
            if (claim == CLAIM_REUSE) {
                from_other = (known_entry){
                    .rank = rank,
                    .measurement_id = other.measurement_id,
                    .status = other.status,
                    .objective = other.status == MEAS_OK ? other.median_ns : INFINITY,
                    .gflops = other.gflops,
                    .gbs = other.gbs,
                    .in_campaign = other.in_campaign,
                };
                k = &from_other;
            }
        }
        bool cached = k != NULL;
        double objective;
        if (k) {
            m.status = k->status;
            m.median_ns = k->status == MEAS_OK ? k->objective : 0.0;
            m.gflops = k->gflops;
            m.gbs = k->gbs;
            objective = k->objective;
            if (cfg->eval.learn) cfg->eval.learn(cfg->eval.ctx, idx, &m);
            if (!k->in_campaign) {
                if (store_writer_record_cached(writer, cfg->campaign_id, next_seq,
                                               k->measurement_id, err) != 0)
                    goto fail;
                next_seq++;
                k->in_campaign = true;
            }
            res->reused++;
        } else {
            if (cfg->eval.evaluate(cfg->eval.ctx, idx, &m, err) != 0 ||
                (cfg->derive && !m.replayed && cfg->derive(cfg->derive_ctx, idx, &m, err) != 0)) {
                measurement_clear(&m);
                goto fail;
            }
            /* A failure that coincides with a stop request may be the stop's
             * doing (a compiler killed by Ctrl-C): it is not recorded, and
             * the configuration is measured again when the run continues. */
            if (m.status != MEAS_OK && cfg->stop_requested && *cfg->stop_requested) {
                measurement_clear(&m);
                res->stop = CAMPAIGN_INTERRUPTED;
                break;
            }
            spent = clock_monotonic_s() - iteration_start;
            /* A replayed measurement's phases are recorded device time, not
             * time spent here: all of this turn was the engine's. */
            m.overhead_s = m.replayed ? spent : spent - m.build_s - m.verify_s - m.bench_s;
            if (m.overhead_s < 0) m.overhead_s = 0;
            if (m.replayed) res->replayed = true;
            objective = measurement_objective(&m);
            res->measured++;
            res->build_s += m.build_s;
            res->verify_s += m.verify_s;
            res->bench_s += m.bench_s;
        }
        if (history_add(cfg->history, rank, objective) != 0) {
            measurement_clear(&m);
            rc = err_set(err, "out of memory recording the history");
            goto done;
        }
        strategy_tell(cfg->strategy, rank, objective);
        res->evaluated++;
        if ((unsigned)m.status < MEAS_STATUS_COUNT) res->by_status[m.status]++;
        if (objective < best_objective) {
            best_objective = objective;
            res->have_best = true;
            res->best_rank = rank;
            res->best_ns = objective;
            res->best_gflops = m.gflops;
            snprintf(best_text, text_cap, "%s", text);
        }
        if (cfg->on_event) {
            campaign_event ev = {
                .evaluated = res->evaluated,
                .planned = planned,
                .config_text = text,
                .m = &m,
                .cached = cached,
                .have_best = res->have_best,
                .best_ns = res->best_ns,
                .best_gflops = res->best_gflops,
                .best_text = best_text,
                .elapsed_s = clock_monotonic_s() - start,
                .device_s = res->build_s + res->verify_s + res->bench_s,
                .label = cfg->label,
                .wall_s = spent,
                .space_count = count,
                .limits = &cfg->limits,
                .strategy_phase = phase_line[0] ? phase_line : NULL,
            };
            cfg->on_event(cfg->event_ctx, &ev);
            phase_line[0] = '\0';
        }
        /* Recorded after everything else has read it: the writer takes it. */
        if (!cached && cfg->store) {
            config_strings_fill(&strings, sp, idx);
            if (store_writer_submit(writer, cfg->campaign_id, next_seq, text, space_text_hash(text),
                                    strings.names, strings.values, n_params, &m, err) != 0) {
                measurement_clear(&m);
                goto fail;
            }
            next_seq++;
        }
        measurement_clear(&m);
        if (res->have_best && ((cfg->limits.target_ns > 0 && res->best_ns <= cfg->limits.target_ns) ||
                               (cfg->limits.target_gflops > 0 &&
                                res->best_gflops >= cfg->limits.target_gflops))) {
            res->stop = CAMPAIGN_TARGET;
            break;
        }
    }
    if (cfg->claims) claims_release(cfg->claims);
    if (store_writer_finish(writer, err) != 0) {
        writer = NULL;
        goto fail;
    }
    writer = NULL;
    res->wall_s = clock_monotonic_s() - start;
    res->overhead_s = res->replayed ? res->wall_s
                                    : res->wall_s - res->build_s - res->verify_s - res->bench_s;
    /* Builds done ahead, while the device timed other configurations, make
     * the phases add up to more than the wall clock. */
    if (res->overhead_s < 0) res->overhead_s = 0;
    goto done;
fail:
    rc = -1;
    if (watching) cfg->eval.watch(cfg->eval.ctx, NULL, NULL);
    watching = false;
    {
        /* The campaign's own error is the one to report. */
        skytune_error ignored;
        if (cfg->claims) claims_release(cfg->claims);
        store_writer_finish(writer, &ignored);
    }
done:
    if (watching) cfg->eval.watch(cfg->eval.ctx, NULL, NULL);
    free(idx);
    free(text);
    free(best_text);
    free(known.idx);
    free(known.items);
    free(upcoming);
    config_strings_free(&strings);
    return rc;
}
