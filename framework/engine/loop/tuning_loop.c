#include "tuning_loop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "racing.h"
#include "store_writer.h"
#include "value.h"

/* A strategy that keeps proposing configurations it has already seen makes
 * no progress; after this many free proposals in a row the loop ends. */
#define MAX_REPEATED_PROPOSALS 1000000

const char *tuning_loop_stop_name(tuning_loop_stop s)
{
    switch (s) {
    case TUNING_LOOP_EXHAUSTED: return "search complete";
    case TUNING_LOOP_BUDGET: return "budget reached";
    case TUNING_LOOP_TIME_LIMIT: return "time limit reached";
    case TUNING_LOOP_TARGET: return "target reached";
    case TUNING_LOOP_INTERRUPTED: return "interrupted";
    case TUNING_LOOP_DEVICE_TIME: return "device-time budget reached";
    case TUNING_LOOP_GAIN_BELOW: return "expected gain below the threshold";
    }
    return "unknown";
}

const char *tuning_loop_stop_key(tuning_loop_stop s)
{
    switch (s) {
    case TUNING_LOOP_EXHAUSTED: return "search_complete";
    case TUNING_LOOP_BUDGET: return "budget";
    case TUNING_LOOP_TIME_LIMIT: return "time_limit";
    case TUNING_LOOP_TARGET: return "target";
    case TUNING_LOOP_INTERRUPTED: return "interrupted";
    case TUNING_LOOP_DEVICE_TIME: return "device_time";
    case TUNING_LOOP_GAIN_BELOW: return "gain_below";
    }
    return "failed";
}

bool tuning_loop_budget_spent(const tuning_loop_limits *l, uint64_t evaluated, double device_s,
                           tuning_loop_stop *why)
{
    if (l->max_evaluations && evaluated >= l->max_evaluations) {
        *why = TUNING_LOOP_BUDGET;
        return true;
    }
    if (l->device_time_s > 0 && device_s >= l->device_time_s) {
        *why = TUNING_LOOP_DEVICE_TIME;
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
 * compile pool can build it while the device measures. Under a budget of
 * evaluations no more is hinted than the turns left after this one (the
 * `evaluated` before it and itself taken off): a build ahead of the last
 * turn is one the campaign never uses, and a small campaign's compile
 * workers built as many of those as it measured. */
static void hint_upcoming(const tuning_loop_config *cfg, known_set *known, uint64_t rank,
                          uint64_t evaluated, uint64_t *ranks, size_t depth)
{
    uint64_t budget = cfg->limits.max_evaluations;
    if (budget) {
        uint64_t left = budget > evaluated + 1 ? budget - evaluated - 1 : 0;
        if (left < depth) depth = (size_t)left;
    }
    size_t n = depth ? strategy_upcoming(cfg->strategy, ranks, depth) : 0;
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

/* What the evaluator's reports need to become tuning_loop_activity. */
typedef struct activity_relay {
    const tuning_loop_config *cfg;
    const tuning_loop_result *res;
    const char *text;          /* the configuration in flight */
    uint64_t planned;
    double start;
} activity_relay;

static void relay_activity(void *ctx, const evaluation_activity *e)
{
    const activity_relay *r = ctx;
    tuning_loop_activity a = {
        .evaluated = r->res->evaluated,
        .planned = r->planned,
        .config_text = r->text,
        .stage = e->stage,
        .elapsed_s = e->elapsed_s,
        .checking_health = e->checking_health,
        .tuning_loop_elapsed_s = clock_monotonic_s() - r->start,
        .label = r->cfg->label,
    };
    r->cfg->on_activity(r->cfg->activity_ctx, &a);
}

/* What one tuning_loop_run carries from one turn of the loop to the next. */
typedef struct campaign_state {
    const tuning_loop_config *cfg;
    tuning_loop_result *res;
    const space *sp;
    size_t n_params;
    uint16_t *idx;             /* the configuration in flight */
    char *text;                /* and as text */
    size_t text_cap;
    char *best_text;
    double best_objective;
    known_set known;
    config_strings strings;
    store_writer *writer;
    size_t prefetch_depth;
    uint64_t *upcoming;        /* prefetch_depth slots for hint_upcoming */
    int64_t next_seq;          /* the campaign's next sequence number in the store */
    uint64_t count;            /* configurations the strategy can propose */
    uint64_t planned;
    double start;
    uint64_t repeated;         /* proposals in a row answered from the history */
    activity_relay relay;
    bool watching;             /* the evaluator reports activity to relay_activity */
    /* A phase the strategy entered, held until the next event reports it
     * (proposals answered from the history report nothing). */
    char phase_line[256];
    race_field race;           /* the best ok results so far, for the race limit */
    gain_estimate gain;        /* what more evaluations are expected to gain */
} campaign_state;

/* How a turn of the loop ended. */
typedef enum turn_end {
    TURN_NEXT,                 /* on to the next proposal */
    TURN_STOP,                 /* the campaign ends; res->stop says why */
    TURN_FAILED                /* the campaign fails (err) */
} turn_end;

static int allocate_state(campaign_state *c, const tuning_loop_config *cfg, tuning_loop_result *res,
                          skytune_error *err)
{
    *c = (campaign_state){.cfg = cfg, .res = res, .sp = cfg->space};
    c->n_params = space_param_count(c->sp);
    c->text_cap = 64 + c->n_params * (VALUE_TEXT + 64);
    c->idx = calloc(c->n_params + 1, sizeof *c->idx);
    c->text = malloc(c->text_cap);
    c->best_text = calloc(c->text_cap, 1);
    c->known = (known_set){.space = c->sp, .idx = calloc(c->n_params + 1, sizeof(uint16_t)),
                           .max_seq = -1};
    c->prefetch_depth = cfg->eval.prefetch ? cfg->eval.prefetch_depth : 0;
    c->upcoming = c->prefetch_depth ? calloc(c->prefetch_depth, sizeof *c->upcoming) : NULL;
    if (!c->idx || !c->text || !c->best_text || !c->known.idx ||
        config_strings_init(&c->strings, c->sp) != 0 || (c->prefetch_depth && !c->upcoming))
        return err_set(err, "out of memory starting the campaign");
    return 0;
}

static void free_state(campaign_state *c)
{
    free(c->idx);
    free(c->text);
    free(c->best_text);
    free(c->known.idx);
    free(c->known.items);
    free(c->upcoming);
    config_strings_free(&c->strings);
}

/* What the store holds for the campaign already, sorted for find_known, and
 * the writer that records what this run adds. */
static int open_store(campaign_state *c, skytune_error *err)
{
    const tuning_loop_config *cfg = c->cfg;
    if (store_known_measurements(cfg->store, cfg->campaign_id, collect_known, &c->known, err) != 0)
        return -1;
    if (c->known.failed) return err_set(err, "out of memory loading known measurements");
    if (c->known.count > 1)
        qsort(c->known.items, c->known.count, sizeof *c->known.items, compare_known);
    return store_writer_start(cfg->store, &c->writer, err);
}

static void plan(campaign_state *c)
{
    const tuning_loop_config *cfg = c->cfg;
    c->next_seq = c->known.max_seq + 1;
    c->count = cfg->selection_count ? cfg->selection_count : space_count(c->sp);
    c->planned = cfg->limits.max_evaluations && cfg->limits.max_evaluations < c->count
                     ? cfg->limits.max_evaluations
                     : c->count;
    c->start = clock_monotonic_s();
    c->best_objective = INFINITY;
    c->res->stop = TUNING_LOOP_EXHAUSTED;
    race_field_init(&c->race);
    gain_estimate_init(&c->gain);
    c->res->racing = cfg->race && cfg->eval.race;
}

/* The relay lives in the state, on tuning_loop_run's stack: the evaluator is
 * told to stop calling it before tuning_loop_run returns. */
static void start_watching(campaign_state *c)
{
    const tuning_loop_config *cfg = c->cfg;
    c->relay = (activity_relay){
        .cfg = cfg, .res = c->res, .text = c->text, .planned = c->planned, .start = c->start};
    c->watching = cfg->on_activity && cfg->eval.watch;
    if (c->watching) cfg->eval.watch(cfg->eval.ctx, relay_activity, &c->relay);
}

static void stop_watching(campaign_state *c)
{
    if (c->watching) c->cfg->eval.watch(c->cfg->eval.ctx, NULL, NULL);
    c->watching = false;
}

static bool stop_requested(const tuning_loop_config *cfg)
{
    return cfg->stop_requested && *cfg->stop_requested;
}

/* Whether the campaign ends before the next proposal: a stop request, the
 * budget or the time limit (res->stop says which). */
static bool out_of_turns(campaign_state *c)
{
    const tuning_loop_config *cfg = c->cfg;
    tuning_loop_result *res = c->res;
    if (stop_requested(cfg)) {
        res->stop = TUNING_LOOP_INTERRUPTED;
        return true;
    }
    if (tuning_loop_budget_spent(&cfg->limits, res->evaluated,
                              res->build_s + res->verify_s + res->bench_s, &res->stop))
        return true;
    if (cfg->limits.time_limit_s > 0 &&
        clock_monotonic_s() - c->start >= cfg->limits.time_limit_s) {
        res->stop = TUNING_LOOP_TIME_LIMIT;
        return true;
    }
    return false;
}

static known_entry known_from_store(uint64_t rank, const store_known *k)
{
    return (known_entry){
        .rank = rank,
        .measurement_id = k->measurement_id,
        .status = k->status,
        .objective = k->status == MEAS_OK ? k->median_ns : INFINITY,
        .gflops = k->gflops,
        .gbs = k->gbs,
        .in_campaign = k->in_campaign,
    };
}

/* A measurement of the configuration in flight to reuse, in *found (NULL:
 * it is to be measured). The store's, as loaded at the start; or, when
 * other runs share the store, one that another run made since (then kept
 * in *from_other). Without one, the configuration is claimed for this run,
 * and the evaluator hinted at what comes after it. */
static turn_end find_reusable(campaign_state *c, uint64_t rank, known_entry *from_other,
                              known_entry **found, skytune_error *err)
{
    const tuning_loop_config *cfg = c->cfg;
    known_entry *k = cfg->store ? find_known(&c->known, rank) : NULL;
    if (k && k->status != MEAS_OK && cfg->retry_failed) k = NULL;
    if (!k && c->prefetch_depth)
        hint_upcoming(cfg, &c->known, rank, c->res->evaluated, c->upcoming, c->prefetch_depth);
    /* Another run on the same database may have measured it since this
     * one started, or be measuring it now. */
    if (!k && cfg->claims) {
        claim_outcome claim;
        store_known other;
        if (claim_configuration(cfg->claims, cfg->campaign_id, c->text, space_text_hash(c->text),
                                &claim, &other, err) != 0)
            return TURN_FAILED;
        if (claim == CLAIM_STOPPED) {
            c->res->stop = TUNING_LOOP_INTERRUPTED;
            return TURN_STOP;
        }
        if (claim == CLAIM_REUSE) {
            *from_other = known_from_store(rank, &other);
            k = from_other;
        }
    }
    *found = k;
    return TURN_NEXT;
}

/* A measurement from the store as this configuration's: the evaluator
 * learns from it, and the campaign lists it unless it does already. */
static turn_end reuse(campaign_state *c, known_entry *k, measurement *m, skytune_error *err)
{
    const tuning_loop_config *cfg = c->cfg;
    m->status = k->status;
    m->median_ns = k->status == MEAS_OK ? k->objective : 0.0;
    m->gflops = k->gflops;
    m->gbs = k->gbs;
    if (cfg->eval.learn) cfg->eval.learn(cfg->eval.ctx, c->idx, m);
    if (!k->in_campaign) {
        if (store_writer_record_cached(c->writer, cfg->campaign_id, c->next_seq,
                                       k->measurement_id, err) != 0)
            return TURN_FAILED;
        c->next_seq++;
        k->in_campaign = true;
    }
    c->res->reused++;
    return TURN_NEXT;
}

/* The configuration in flight through the evaluator, and its time: *spent,
 * the turn's wall-clock seconds. */
static turn_end measure(campaign_state *c, measurement *m, double turn_start, double *spent,
                        skytune_error *err)
{
    const tuning_loop_config *cfg = c->cfg;
    tuning_loop_result *res = c->res;
    if (res->racing) {
        double limit = race_limit(&c->race);
        if (limit > 0) res->race_margin = race_margin(&c->race);
        cfg->eval.race(cfg->eval.ctx, limit);
    }
    if (cfg->eval.evaluate(cfg->eval.ctx, c->idx, m, err) != 0 ||
        (cfg->derive && !m->replayed && cfg->derive(cfg->derive_ctx, c->idx, m, err) != 0))
        return TURN_FAILED;
    /* A failure that coincides with a stop request may be the stop's doing
     * (a compiler killed by Ctrl-C): it is not recorded, and the
     * configuration is measured again when the run continues. */
    if (m->status != MEAS_OK && stop_requested(cfg)) {
        res->stop = TUNING_LOOP_INTERRUPTED;
        return TURN_STOP;
    }
    *spent = clock_monotonic_s() - turn_start;
    /* A replayed measurement's phases are recorded device time, not time
     * spent here: all of this turn was the engine's. */
    m->overhead_s = m->replayed ? *spent : *spent - m->build_s - m->verify_s - m->bench_s;
    if (m->overhead_s < 0) m->overhead_s = 0;
    if (m->replayed) res->replayed = true;
    res->measured++;
    res->build_s += m->build_s;
    res->verify_s += m->verify_s;
    res->bench_s += m->bench_s;
    return TURN_NEXT;
}

/* The evaluation into the history, the strategy, the counts and the best. */
static int count_evaluation(campaign_state *c, uint64_t rank, double objective,
                            const measurement *m, skytune_error *err)
{
    const tuning_loop_config *cfg = c->cfg;
    tuning_loop_result *res = c->res;
    if (history_add(cfg->history, rank, objective) != 0)
        return err_set(err, "out of memory recording the history");
    strategy_tell(cfg->strategy, rank, objective);
    res->evaluated++;
    if ((unsigned)m->status < MEAS_STATUS_COUNT) res->by_status[m->status]++;
    /* A result reused from the store brings its median alone. */
    if (m->status == MEAS_OK) race_field_add(&c->race, objective, m->samples_ns, m->n_samples);
    if (m->raced) res->raced++;
    if (m->compared_on_device) res->compared_on_device++;
    gain_estimate_add(&c->gain, m->status == MEAS_OK ? objective : 0);
    uint64_t remaining = c->count > res->evaluated ? c->count - res->evaluated : 0;
    res->have_gain = gain_estimate_expected(&c->gain, remaining, &res->expected_gain,
                                            &res->gain_more);
    if (objective < c->best_objective) {
        c->best_objective = objective;
        res->have_best = true;
        res->best_rank = rank;
        res->best_ns = objective;
        res->best_gflops = m->gflops;
        snprintf(c->best_text, c->text_cap, "%s", c->text);
    }
    return 0;
}

static void report_event(campaign_state *c, const measurement *m, bool cached, double spent)
{
    const tuning_loop_config *cfg = c->cfg;
    const tuning_loop_result *res = c->res;
    if (!cfg->on_event) return;
    tuning_loop_event ev = {
        .evaluated = res->evaluated,
        .planned = c->planned,
        .config_text = c->text,
        .m = m,
        .cached = cached,
        .have_best = res->have_best,
        .best_ns = res->best_ns,
        .best_gflops = res->best_gflops,
        .best_text = c->best_text,
        .elapsed_s = clock_monotonic_s() - c->start,
        .device_s = res->build_s + res->verify_s + res->bench_s,
        .label = cfg->label,
        .wall_s = spent,
        .space_count = c->count,
        .limits = &cfg->limits,
        .strategy_phase = c->phase_line[0] ? c->phase_line : NULL,
        .have_gain = res->have_gain,
        .expected_gain = res->expected_gain,
        .gain_more = res->gain_more,
    };
    cfg->on_event(cfg->event_ctx, &ev);
    c->phase_line[0] = '\0';
}

/* The measurement to the store's writer, which takes it. */
static int submit(campaign_state *c, measurement *m, skytune_error *err)
{
    config_strings_fill(&c->strings, c->sp, c->idx);
    if (store_writer_submit(c->writer, c->cfg->campaign_id, c->next_seq, c->text,
                            space_text_hash(c->text), c->strings.names, c->strings.values,
                            c->n_params, m, err) != 0)
        return -1;
    c->next_seq++;
    return 0;
}

static bool target_reached(const campaign_state *c)
{
    const tuning_loop_limits *l = &c->cfg->limits;
    const tuning_loop_result *res = c->res;
    return res->have_best && ((l->target_ns > 0 && res->best_ns <= l->target_ns) ||
                              (l->target_gflops > 0 && res->best_gflops >= l->target_gflops));
}

/* Whether more evaluations are expected to gain less than the campaign
 * asked for. An exhausted space is the strategy's to end (search complete),
 * not this rule's. */
static bool gain_too_small(const campaign_state *c)
{
    const tuning_loop_result *res = c->res;
    return c->cfg->limits.gain_below > 0 && res->have_gain && res->gain_more > 0 &&
           res->expected_gain < c->cfg->limits.gain_below;
}

/* The evaluation counted and reported and, when made now, recorded (k: the
 * measurement reused, or NULL); then whether it reached the target. */
static turn_end record_evaluation(campaign_state *c, uint64_t rank, const known_entry *k,
                                  measurement *m, double spent, skytune_error *err)
{
    double objective = k ? k->objective : measurement_objective(m);
    if (count_evaluation(c, rank, objective, m, err) != 0) return TURN_FAILED;
    report_event(c, m, k != NULL, spent);
    /* Recorded after everything else has read it: the writer takes it. */
    if (!k && c->cfg->store && submit(c, m, err) != 0) return TURN_FAILED;
    if (target_reached(c)) {
        c->res->stop = TUNING_LOOP_TARGET;
        return TURN_STOP;
    }
    if (gain_too_small(c)) {
        c->res->stop = TUNING_LOOP_GAIN_BELOW;
        return TURN_STOP;
    }
    return TURN_NEXT;
}

/* The proposal, reused or measured, then recorded. */
static turn_end evaluate_proposal(campaign_state *c, uint64_t rank, double turn_start,
                                  skytune_error *err)
{
    space_unrank(c->sp, rank, c->idx);
    space_config_text(c->sp, c->idx, c->text, c->text_cap);
    known_entry from_other, *k;
    trace *tr = c->cfg->trace;
    double since = clock_monotonic_s();
    turn_end end = find_reusable(c, rank, &from_other, &k, err);
    if (end != TURN_NEXT) return end;
    trace_span(tr, k ? "reuse a recorded measurement" : "look up and claim", "engine", since,
               clock_monotonic_s(), NULL);
    /* A wait on another run's claim is not this configuration's time (nor
     * the estimate's that the first configuration's time makes). */
    if (c->cfg->claims) turn_start += c->cfg->claims->last_wait_s;
    measurement m;
    measurement_init(&m);
    double spent = 0;          /* the turn's wall-clock seconds; 0 when reused */
    since = clock_monotonic_s();
    end = k ? reuse(c, k, &m, err) : measure(c, &m, turn_start, &spent, err);
    if (!k) trace_span(tr, "evaluate", "engine", since, clock_monotonic_s(), c->text);
    since = clock_monotonic_s();
    if (end == TURN_NEXT) end = record_evaluation(c, rank, k, &m, spent, err);
    trace_span(tr, "record and report", "engine", since, clock_monotonic_s(), NULL);
    measurement_clear(&m);
    return end;
}

/* One proposal of the strategy. One it has had before is answered from
 * the history; too many of those in a row end the campaign. */
static turn_end take_turn(campaign_state *c, skytune_error *err)
{
    const tuning_loop_config *cfg = c->cfg;
    double turn_start = clock_monotonic_s();
    uint64_t rank;
    if (strategy_ask(cfg->strategy, &rank) == STRATEGY_DONE) return TURN_STOP;
    trace_span(cfg->trace, "strategy", "engine", turn_start, clock_monotonic_s(), NULL);
    const char *phase = strategy_phase_change(cfg->strategy);
    if (phase) snprintf(c->phase_line, sizeof c->phase_line, "%s", phase);
    double seen;
    if (history_lookup(cfg->history, rank, &seen)) {
        strategy_tell(cfg->strategy, rank, seen);
        return ++c->repeated >= MAX_REPEATED_PROPOSALS ? TURN_STOP : TURN_NEXT;
    }
    c->repeated = 0;
    return evaluate_proposal(c, rank, turn_start, err);
}

/* The store's writer finished, the claims let go, and the time accounted. */
static int finish(campaign_state *c, skytune_error *err)
{
    tuning_loop_result *res = c->res;
    if (c->cfg->claims) claims_release(c->cfg->claims);
    store_writer *writer = c->writer;
    c->writer = NULL;
    if (store_writer_finish(writer, err) != 0) return -1;
    res->wall_s = clock_monotonic_s() - c->start;
    res->overhead_s = res->replayed ? res->wall_s
                                    : res->wall_s - res->build_s - res->verify_s - res->bench_s;
    /* Builds done ahead, while the device timed other configurations, make
     * the phases add up to more than the wall clock. */
    if (res->overhead_s < 0) res->overhead_s = 0;
    return 0;
}

/* After a failure: the campaign's own error is the one to report. */
static void abandon(campaign_state *c)
{
    skytune_error ignored;
    stop_watching(c);
    if (c->cfg->claims) claims_release(c->cfg->claims);
    store_writer_finish(c->writer, &ignored);
    c->writer = NULL;
}

int tuning_loop_run(const tuning_loop_config *cfg, tuning_loop_result *res, skytune_error *err)
{
    memset(res, 0, sizeof *res);
    campaign_state c;
    int rc = allocate_state(&c, cfg, res, err);
    if (rc == 0 && cfg->store) rc = open_store(&c, err);
    if (rc == 0) {
        plan(&c);
        start_watching(&c);
        turn_end end = TURN_NEXT;
        while (end == TURN_NEXT && !out_of_turns(&c)) end = take_turn(&c, err);
        rc = end == TURN_FAILED ? -1 : finish(&c, err);
    }
    if (rc != 0) abandon(&c);
    stop_watching(&c);
    free_state(&c);
    return rc;
}
