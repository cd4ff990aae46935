/* prune: tune each parameter alone, drop the slow values, search what is
 * left (J. Kis, "Auto-tuning a LOFAR radio astronomy pipeline in JavaCL",
 * §5.4 and §7.8).
 *
 * 1. Baseline. `baseline_samples` random configurations are evaluated and
 *    the fastest becomes the baseline (with baseline=first, the first valid
 *    configuration in rank order is evaluated instead). If all of them
 *    failed, sampling goes on until one runs.
 * 2. One group at a time. A group is one parameter, or several that the
 *    `groups` option names together (a pipeline stage's read and write
 *    layouts, say), whose value combinations ("tuples") are swept jointly.
 *    For every group and every other tuple of it, the baseline with that
 *    tuple in place is evaluated. When that configuration breaks a
 *    constraint, the nearest valid configuration that keeps the tuple is
 *    used instead (fewest value steps on the other parameters). With
 *    baseline_update=best the baseline moves to the fastest configuration a
 *    group's sweep found before the next group is swept (coordinate
 *    descent); with none it stays put, as in the thesis.
 * 3. Pruning. A tuple's time is that of its configuration in its group's
 *    sweep (the baseline's own tuple: the baseline's time), and it is only
 *    compared with tuples measured in the same context, the same values
 *    outside the group: those measured around the baseline share its
 *    context, and a tuple reached through a repair that moved other
 *    parameters is compared with the tuples the repairs moved alike. Tuples
 *    slower than `threshold` times their context's fastest are dropped; so
 *    are tuples that failed. A tuple alone in its context is kept (nothing
 *    measured was like it), as are tuples with no valid configuration near
 *    the baseline, and a group whose tuples all failed keeps them all.
 *    Without the contexts, the slowness of what a repair moved would be
 *    charged to the tuple: a pipeline's scheme swept around a baseline whose
 *    layouts agree lost its `transpose` value that way (docs/strategies.md).
 * 4. The reduced space, the valid configurations in the Cartesian product
 *    of the kept tuples, is searched exhaustively when the budget left
 *    covers it (or the budget is unknown), in best-first order: by the
 *    product of its values' slowdowns relative to their sweep's fastest,
 *    the separable estimate of its time (per group). When it is larger than the budget
 *    left, `second` decides: hill-climbing skips to step 5 at once (a local
 *    search spends a short budget better than a fraction of a large
 *    product, whose best-first order follows the separable estimate into
 *    whatever basin the baseline was in); best-first and random measure the
 *    part of it the budget allows in that order. Reduced spaces of more than
 *    PRUNE_MAX_LISTED configurations (or products too large to walk) count
 *    as larger than any budget, and are sampled at random for
 *    second=best-first or random.
 * 5. After the reduced space, the search goes on over the whole space with
 *    hill-climbing (default options, no initial samples) from the best
 *    configuration so far, so the strategy stays useful up to any budget. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "neighbourhood.h"
#include "strategy.h"

extern const strategy_ops strategy_hill_climbing;

/* Limits on listing the reduced space: configurations kept in memory and
 * Cartesian combinations walked to find them. */
#define PRUNE_MAX_LISTED ((size_t)1 << 20)
#define PRUNE_MAX_WALKED ((uint64_t)1 << 24)
/* Random draws from a reduced space too large to list before giving up on
 * it (all recent draws were invalid or already evaluated). */
#define PRUNE_SAMPLE_TRIES 1000
/* Cartesian combinations a simulation (prune_upcoming) walks to list a
 * reduced space; past that it stops rather than spend, on every evaluation
 * near the end of the sweeps, what the real listing spends once. */
#define PRUNE_SIMULATION_MAX_WALKED ((uint64_t)1 << 16)

typedef enum prune_phase {
    PHASE_BASELINE = 0,
    PHASE_SWEEP,
    PHASE_REDUCED,
    PHASE_CLIMB,
} prune_phase;

/* What to do with a reduced space larger than the budget left. */
typedef enum reduced_order {
    SECOND_HILL_CLIMBING = 0,
    SECOND_BEST_FIRST,
    SECOND_RANDOM,
} reduced_order;

typedef struct prune_state {
    const space *space;
    const history *history;
    uint64_t seed;
    pcg32 rng;
    size_t n_params;
    /* Groups, in the order of their first parameter: group g's parameters
     * are group_params[group_start[g] .. group_start[g + 1]), and its tuples
     * are [offset[g] .. offset[g + 1]) of sweep_time, log_slowdown and kept,
     * numbered in mixed radix over its parameters (the last fastest). */
    size_t n_groups;
    size_t *group_params;
    size_t *group_start;
    bool *in_sweep;            /* scratch: the parameters of the group swept */

    bool baseline_first;
    size_t baseline_samples;
    bool baseline_update;
    double threshold;
    reduced_order second;
    uint64_t budget;
    size_t evaluated_before;   /* history entries when the strategy started */

    prune_phase phase;
    size_t samples_proposed;
    best_result baseline;

    size_t sweep_group;        /* group being swept */
    size_t sweep_tuple;        /* next tuple to try */
    best_result sweep_best;    /* fastest configuration of this sweep */

    size_t *offset;            /* group g's tuples start at [offset[g]] of: */
    double *sweep_time;        /* each tuple's time in its sweep; NAN: not measured */
    uint64_t *sweep_rank;      /* the configuration that time is of (when measured) */
    double *context_fastest;   /* the fastest tuple's time in each tuple's context */
    double *log_slowdown;      /* log(time / sweep's fastest); 0 when unknown */
    bool *kept;
    rank_list reduced;         /* listed reduced space, in search order */
    size_t reduced_next;
    bool reduced_sampled;      /* too large to list: sampled instead */
    bool reduced_borrowed;     /* a simulation's copy reading the original's list */
    uint64_t reduced_product;  /* the kept values' product; PRUNE_MAX_WALKED + 1: more */
    bool reduced_skipped;      /* larger than the budget left: climbed instead */

    strategy *climber;
    bool degraded;             /* out of memory: random proposals */
    bool awaiting_tell;
    uint64_t pending_rank;     /* the proposal awaiting its tell, when awaiting_tell */
    bool simulation;           /* a copy that prune_upcoming drives */
    bool simulation_stopped;   /* it reached a reduced space too large to list cheaply */
    size_t pending_group;      /* the sweep tuple a proposal measures, */
    size_t pending_tuple;      /* when phase is PHASE_SWEEP */
    uint16_t *idx;
    uint16_t *scratch;
} prune_state;

static const strategy_option prune_options[] = {
    {"baseline", "sample",
     "sample: the fastest of baseline_samples random configurations; first: the first valid "
     "configuration"},
    {"baseline_samples", "10", "random configurations the baseline is chosen from"},
    {"baseline_update", "best",
     "best: move the baseline to each sweep's fastest configuration; none: keep it (the thesis)"},
    {"threshold", "1.5", "drop values slower than threshold times the parameter's best value"},
    {"groups", "",
     "parameters swept together, their value combinations pruned as one: names joined by ',', "
     "groups by ';' (e.g. 'in_layout,out_layout;wg'); the others each alone"},
    {"second", "hill-climbing",
     "for a reduced space larger than the budget left: hill-climbing (skip it and climb from the "
     "best), best-first (separable estimate) or random order"},
    {NULL, NULL, NULL},
};

static void observe(prune_state *s, uint64_t rank, double objective)
{
    if (s->phase == PHASE_BASELINE) best_result_note(&s->baseline, rank, objective);
    if (s->phase == PHASE_SWEEP) {
        best_result_note(&s->sweep_best, rank, objective);
        s->sweep_time[s->offset[s->pending_group] + s->pending_tuple] = objective;
        s->sweep_rank[s->offset[s->pending_group] + s->pending_tuple] = rank;
    }
}

static strategy_answer propose(prune_state *s, uint64_t rank, uint64_t *out)
{
    s->awaiting_tell = true;
    s->pending_rank = rank;
    *out = rank;
    return STRATEGY_PROPOSE;
}

static strategy_answer propose_random(prune_state *s, uint64_t *out)
{
    uint64_t rank;
    if (!random_unvisited(s->space, s->history, NULL, &s->rng, &rank)) return STRATEGY_DONE;
    return propose(s, rank, out);
}

/* Tuples of group g: the product of its parameters' value counts. */
static size_t tuple_count(const prune_state *s, size_t g)
{
    return s->offset[g + 1] - s->offset[g];
}

/* Group g's tuple in idx. */
static size_t tuple_of(const prune_state *s, size_t g, const uint16_t *idx)
{
    size_t t = 0;
    for (size_t j = s->group_start[g]; j < s->group_start[g + 1]; j++) {
        size_t k = s->group_params[j];
        t = t * space_param(s->space, k)->count + idx[k];
    }
    return t;
}

/* Put group g's tuple t into idx. */
static void set_tuple(const prune_state *s, size_t g, size_t t, uint16_t *idx)
{
    for (size_t j = s->group_start[g + 1]; j-- > s->group_start[g];) {
        size_t k = s->group_params[j];
        size_t values = space_param(s->space, k)->count;
        idx[k] = (uint16_t)(t % values);
        t /= values;
    }
}

/* The group just swept is done: maybe move the baseline, go on to the next
 * group. */
static void finish_sweep(prune_state *s)
{
    if (s->baseline_update && s->sweep_best.have &&
        s->sweep_best.objective < s->baseline.objective)
        s->baseline = s->sweep_best;
    s->sweep_best.have = false;
    s->sweep_group++;
    s->sweep_tuple = 0;
}

/* The next one-group-at-a-time configuration; false when every group has
 * been swept. Configurations already evaluated are observed for free. */
static bool next_sweep_configuration(prune_state *s, uint64_t *rank)
{
    while (s->sweep_group < s->n_groups) {
        size_t g = s->sweep_group;
        size_t tuples = tuple_count(s, g);
        space_unrank(s->space, s->baseline.rank, s->idx);
        size_t base_tuple = tuple_of(s, g, s->idx);
        if (s->sweep_tuple == 0) {
            s->sweep_time[s->offset[g] + base_tuple] = s->baseline.objective;
            s->sweep_rank[s->offset[g] + base_tuple] = s->baseline.rank;
        }
        for (size_t j = s->group_start[g]; j < s->group_start[g + 1]; j++)
            s->in_sweep[s->group_params[j]] = true;
        bool proposed = false;
        while (s->sweep_tuple < tuples) {
            size_t t = s->sweep_tuple++;
            if (t == base_tuple) continue;
            set_tuple(s, g, t, s->idx);
            uint64_t r;
            int found = repair_to_nearest_keeping(s->space, s->idx, s->in_sweep, NULL, NULL,
                                                  &s->rng, REPAIR_DEFAULT_STATES, &r);
            set_tuple(s, g, base_tuple, s->idx);
            if (found < 0) {
                s->degraded = true;
                break;
            }
            if (found == 0) continue; /* no valid configuration near the baseline has t */
            s->pending_group = g;
            s->pending_tuple = t;
            double known;
            if (history_lookup(s->history, r, &known)) {
                observe(s, r, objective_or_failure(known));
                continue;
            }
            *rank = r;
            proposed = true;
            break;
        }
        for (size_t j = s->group_start[g]; j < s->group_start[g + 1]; j++)
            s->in_sweep[s->group_params[j]] = false;
        if (proposed) return true;
        if (s->degraded) return false;
        finish_sweep(s);
    }
    return false;
}

/* The fastest time in group g's sweep; +infinity when all failed or none
 * was measured. */
static double sweep_fastest(const prune_state *s, size_t g)
{
    double fastest = INFINITY;
    for (size_t t = s->offset[g]; t < s->offset[g + 1]; t++)
        if (s->sweep_time[t] < fastest) fastest = s->sweep_time[t];
    return fastest;
}

/* A measured tuple of the group being judged, and its context: the
 * values of its configuration outside the group. */
typedef struct tuple_context {
    const uint16_t *values; /* n_params values, the group's own set to 0 */
    size_t n_params;
    size_t tuple;           /* index into sweep_time */
} tuple_context;

/* Orders contexts by their values; 0: the same context. */
static int compare_context_values(const tuple_context *x, const tuple_context *y)
{
    for (size_t k = 0; k < x->n_params; k++)
        if (x->values[k] != y->values[k]) return x->values[k] < y->values[k] ? -1 : 1;
    return 0;
}

/* qsort order: by context, then by tuple (a stable order for equal ones). */
static int compare_contexts(const void *a, const void *b)
{
    const tuple_context *x = a, *y = b;
    int by_values = compare_context_values(x, y);
    if (by_values != 0) return by_values;
    return (x->tuple > y->tuple) - (x->tuple < y->tuple);
}

/* Into context_fastest[t] for every measured tuple t of group g: the
 * fastest time among the group's tuples measured in the same context.
 * Tuples measured around the baseline share its context; a tuple measured
 * through a repair that moved other parameters is compared only with
 * tuples the repairs moved alike, so the slowness of what a repair changed
 * is never charged to it against the baseline. Returns -1 when out of
 * memory (context_fastest untouched). */
static int fastest_in_context(const prune_state *s, size_t g, double *context_fastest)
{
    size_t tuples = tuple_count(s, g), measured = 0;
    tuple_context *order = malloc((tuples + 1) * sizeof *order);
    uint16_t *values = malloc((tuples * s->n_params + 1) * sizeof *values);
    if (!order || !values) {
        free(order);
        free(values);
        return -1;
    }
    for (size_t t = s->offset[g]; t < s->offset[g + 1]; t++) {
        if (s->sweep_time[t] != s->sweep_time[t]) continue;
        uint16_t *v = values + measured * s->n_params;
        space_unrank(s->space, s->sweep_rank[t], v);
        for (size_t j = s->group_start[g]; j < s->group_start[g + 1]; j++)
            v[s->group_params[j]] = 0;
        order[measured++] = (tuple_context){v, s->n_params, t};
    }
    qsort(order, measured, sizeof *order, compare_contexts);
    /* Each run of equal contexts, [first, end), shares its fastest. */
    for (size_t first = 0, end; first < measured; first = end) {
        double fastest = INFINITY;
        for (end = first; end < measured && compare_context_values(&order[end], &order[first]) == 0;
             end++)
            if (s->sweep_time[order[end].tuple] < fastest)
                fastest = s->sweep_time[order[end].tuple];
        for (size_t j = first; j < end; j++) context_fastest[order[j].tuple] = fastest;
    }
    free(order);
    free(values);
    return 0;
}

/* Decides which tuples stay, and each tuple's slowdown against its sweep's
 * fastest for the best-first order. A tuple is judged against the fastest
 * of its context (out of memory: of its whole sweep); one alone in its
 * context is kept unless it failed, and ordered by its whole time. */
static void decide_kept_tuples(prune_state *s)
{
    for (size_t g = 0; g < s->n_groups; g++) {
        double fastest = sweep_fastest(s, g);
        for (size_t t = s->offset[g]; t < s->offset[g + 1]; t++) s->context_fastest[t] = fastest;
        fastest_in_context(s, g, s->context_fastest);
        for (size_t t = s->offset[g]; t < s->offset[g + 1]; t++) {
            double time = s->sweep_time[t];
            bool unmeasured = time != time;
            s->kept[t] = unmeasured || fastest == INFINITY ||
                         (time < INFINITY && time <= s->threshold * s->context_fastest[t]);
            /* Unmeasured tuples count as the fastest: nothing is known against them. */
            s->log_slowdown[t] = !unmeasured && time < INFINITY && fastest < INFINITY
                                     ? log(time / fastest)
                                     : 0.0;
        }
    }
}

/* log of the separable estimate of a configuration's time, relative to the
 * estimate's optimum. */
static double estimate(const prune_state *s, const uint16_t *idx)
{
    double total = 0.0;
    for (size_t g = 0; g < s->n_groups; g++)
        total += s->log_slowdown[s->offset[g] + tuple_of(s, g, idx)];
    return total;
}

typedef struct estimated_rank {
    double estimate;
    uint64_t rank;
} estimated_rank;

static int compare_estimates(const void *a, const void *b)
{
    const estimated_rank *x = a, *y = b;
    if (x->estimate != y->estimate) return x->estimate < y->estimate ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The first kept tuple of group g at or after t; tuple_count when none. */
static size_t next_kept_tuple(const prune_state *s, size_t g, size_t t)
{
    while (t < tuple_count(s, g) && !s->kept[s->offset[g] + t]) t++;
    return t;
}

/* Next combination of kept tuples after idx (odometer over the groups, the
 * last group fastest); false after the last one. */
static bool next_kept_combination(const prune_state *s, uint16_t *idx)
{
    for (size_t g = s->n_groups; g-- > 0;) {
        size_t t = next_kept_tuple(s, g, tuple_of(s, g, idx) + 1);
        if (t < tuple_count(s, g)) {
            set_tuple(s, g, t, idx);
            return true;
        }
        set_tuple(s, g, next_kept_tuple(s, g, 0), idx);
    }
    return false;
}

/* Lists the reduced space's unvisited configurations in search order, or
 * marks it to be sampled when it is too large to list. */
static void build_reduced_space(prune_state *s)
{
    decide_kept_tuples(s);
    uint64_t product = 1;
    for (size_t g = 0; g < s->n_groups; g++) {
        uint64_t kept = 0;
        for (size_t t = s->offset[g]; t < s->offset[g + 1]; t++) kept += s->kept[t];
        product = kept && product > PRUNE_MAX_WALKED / kept ? PRUNE_MAX_WALKED + 1 : product * kept;
    }
    s->reduced_product = product;
    s->reduced_skipped = false;
    if (s->simulation && product > PRUNE_SIMULATION_MAX_WALKED) {
        s->simulation_stopped = true;
        return;
    }
    if (product > PRUNE_MAX_WALKED) {
        s->reduced_sampled = s->second != SECOND_HILL_CLIMBING;
        s->reduced_skipped = !s->reduced_sampled;
        return;
    }
    for (size_t g = 0; g < s->n_groups; g++) set_tuple(s, g, next_kept_tuple(s, g, 0), s->idx);
    do {
        uint64_t r;
        if (space_is_valid(s->space, s->idx) && space_rank(s->space, s->idx, &r) == 0 &&
            !history_lookup(s->history, r, NULL)) {
            if (s->reduced.count >= PRUNE_MAX_LISTED) {
                s->reduced.count = 0;
                s->reduced_sampled = s->second != SECOND_HILL_CLIMBING;
                s->reduced_skipped = !s->reduced_sampled;
                return;
            }
            if (rank_list_push(&s->reduced, r) != 0) {
                s->degraded = true;
                return;
            }
        }
    } while (next_kept_combination(s, s->idx));

    uint64_t spent = history_count(s->history) - s->evaluated_before;
    uint64_t left = s->budget > spent ? s->budget - spent : 0;
    bool fits = s->budget == 0 || s->reduced.count <= left;
    if (!fits && s->second == SECOND_HILL_CLIMBING) {
        s->reduced.count = 0;
        s->reduced_skipped = true;
        return;
    }
    shuffle_ranks(s->reduced.items, s->reduced.count, &s->rng);
    if (!fits && s->second == SECOND_RANDOM) return;
    estimated_rank *order = malloc((s->reduced.count + 1) * sizeof *order);
    if (!order) return; /* random order is still a valid search order */
    for (size_t j = 0; j < s->reduced.count; j++) {
        space_unrank(s->space, s->reduced.items[j], s->scratch);
        order[j].estimate = estimate(s, s->scratch);
        order[j].rank = s->reduced.items[j];
    }
    qsort(order, s->reduced.count, sizeof *order, compare_estimates);
    for (size_t j = 0; j < s->reduced.count; j++) s->reduced.items[j] = order[j].rank;
    free(order);
}

/* A random unvisited configuration of a reduced space too large to list. */
static bool sample_reduced(prune_state *s, uint64_t *rank)
{
    for (int attempt = 0; attempt < PRUNE_SAMPLE_TRIES; attempt++) {
        for (size_t g = 0; g < s->n_groups; g++) {
            const bool *kept = s->kept + s->offset[g];
            size_t n_kept = 0;
            for (size_t t = 0; t < tuple_count(s, g); t++) n_kept += kept[t];
            size_t pick = pcg32_bounded(&s->rng, (uint32_t)n_kept);
            size_t t = 0;
            for (;; t++)
                if (kept[t] && pick-- == 0) break;
            set_tuple(s, g, t, s->idx);
        }
        uint64_t r;
        if (space_is_valid(s->space, s->idx) && space_rank(s->space, s->idx, &r) == 0 &&
            !history_lookup(s->history, r, NULL)) {
            *rank = r;
            return true;
        }
    }
    return false;
}

static int start_climber(prune_state *s)
{
    strategy_setup setup = {.space = s->space, .history = s->history, .seed = s->seed};
    static const char *const settings[] = {"initial_samples=0"};
    skytune_error ignored = {0};
    return strategy_create(strategy_hill_climbing.name, &setup, settings, 1, &s->climber,
                           &ignored);
}

static strategy_answer prune_ask(void *state, uint64_t *rank)
{
    prune_state *s = state;
    s->awaiting_tell = false;
    for (;;) {
        if (s->degraded) return propose_random(s, rank);
        switch (s->phase) {
        case PHASE_BASELINE:
            if (s->baseline_first && s->samples_proposed == 0) {
                s->samples_proposed++;
                double known;
                if (!history_lookup(s->history, 0, &known)) return propose(s, 0, rank);
                observe(s, 0, objective_or_failure(known));
                continue;
            }
            if (s->samples_proposed < s->baseline_samples || !s->baseline.have) {
                s->samples_proposed++;
                return propose_random(s, rank);
            }
            s->phase = PHASE_SWEEP;
            continue;
        case PHASE_SWEEP:
            if (next_sweep_configuration(s, rank)) return propose(s, *rank, rank);
            if (s->degraded) continue;
            build_reduced_space(s);
            if (s->simulation_stopped) return STRATEGY_DONE;
            s->phase = PHASE_REDUCED;
            continue;
        case PHASE_REDUCED:
            if (s->reduced_sampled) {
                if (sample_reduced(s, rank)) return propose(s, *rank, rank);
            } else {
                while (s->reduced_next < s->reduced.count) {
                    uint64_t r = s->reduced.items[s->reduced_next++];
                    if (!history_lookup(s->history, r, NULL)) return propose(s, r, rank);
                }
            }
            if (start_climber(s) != 0) {
                s->degraded = true;
                continue;
            }
            s->phase = PHASE_CLIMB;
            continue;
        case PHASE_CLIMB:
            return strategy_ask(s->climber, rank);
        }
    }
}

static void prune_tell(void *state, uint64_t rank, double objective)
{
    prune_state *s = state;
    objective = objective_or_failure(objective);
    if (s->phase == PHASE_CLIMB) {
        strategy_tell(s->climber, rank, objective);
        return;
    }
    if (!s->awaiting_tell) return;
    s->awaiting_tell = false;
    observe(s, rank, objective);
}

/* One line per phase for the campaign's log: how many values the sweeps
 * kept is what pruning bought, and the reduced space's size says how many
 * evaluations the combined search takes (the thesis's 60 of 864). */
static void prune_describe_phase(void *state, char *buf, size_t len)
{
    prune_state *s = state;
    if (s->degraded) {
        snprintf(buf, len, "prune: out of memory, proposing at random");
        return;
    }
    size_t tuples = s->offset[s->n_groups], kept = 0;
    for (size_t t = 0; t < tuples; t++) kept += s->kept[t];
    switch (s->phase) {
    case PHASE_BASELINE:
        if (s->baseline_first)
            snprintf(buf, len, "prune: baseline, the first valid configuration");
        else
            snprintf(buf, len, "prune: baseline, the fastest of %zu random configurations",
                     s->baseline_samples);
        return;
    case PHASE_SWEEP:
        snprintf(buf, len, "prune: sweeping %zu unit%s one at a time around the baseline (%zu "
                 "values or tuples in all)", s->n_groups, s->n_groups == 1 ? "" : "s", tuples);
        return;
    case PHASE_REDUCED:
        if (s->reduced_sampled)
            snprintf(buf, len, "prune: kept %zu of %zu values or tuples; reduced space of more "
                     "than %llu configurations, sampled at random", kept, tuples,
                     (unsigned long long)PRUNE_MAX_LISTED);
        else
            snprintf(buf, len, "prune: kept %zu of %zu values or tuples; reduced space of %llu "
                     "combinations, %zu valid and not yet measured, searched %s", kept, tuples,
                     (unsigned long long)s->reduced_product, s->reduced.count,
                     s->second == SECOND_RANDOM ? "in random order" : "best first");
        return;
    case PHASE_CLIMB:
        if (s->reduced_skipped)
            snprintf(buf, len, "prune: kept %zu of %zu values or tuples; the reduced space is "
                     "larger than the budget left, so hill-climbing from the best so far", kept,
                     tuples);
        else
            snprintf(buf, len, "prune: kept %zu of %zu values or tuples; reduced space of %llu "
                     "combinations searched, hill-climbing over the whole space from the best so "
                     "far", kept, tuples, (unsigned long long)s->reduced_product);
        return;
    }
}

static void prune_destroy(void *state)
{
    prune_state *s = state;
    if (!s) return;
    strategy_free(s->climber);
    free(s->group_params);
    free(s->group_start);
    free(s->in_sweep);
    free(s->offset);
    free(s->sweep_time);
    free(s->sweep_rank);
    free(s->context_fastest);
    free(s->log_slowdown);
    if (!s->reduced_borrowed) rank_list_free(&s->reduced);
    free(s->kept);
    free(s->idx);
    free(s->scratch);
    free(s);
}

/* A duplicate of n items of `size` bytes, or NULL when out of memory. */
static void *duplicate(const void *items, size_t n, size_t size)
{
    void *copy = calloc(n ? n : 1, size);
    if (copy && n) memcpy(copy, items, n * size);
    return copy;
}

/* A copy before the climb (the climb's proposals are the climber's). The
 * reduced space's list is only read once it is built, so a copy made after
 * that reads the original's instead of duplicating up to
 * PRUNE_MAX_LISTED ranks on every evaluation. */
static void *prune_copy(const void *state, const history *layer)
{
    const prune_state *s = state;
    prune_state *copy = malloc(sizeof *copy);
    if (!copy) return NULL;
    *copy = *s;
    copy->history = layer;
    copy->simulation = true;
    copy->climber = NULL;
    size_t n_tuples = s->offset[s->n_groups];
    copy->group_params = duplicate(s->group_params, s->n_params + 1, sizeof *s->group_params);
    copy->group_start = duplicate(s->group_start, s->n_groups + 1, sizeof *s->group_start);
    copy->in_sweep = duplicate(s->in_sweep, s->n_params + 1, sizeof *s->in_sweep);
    copy->offset = duplicate(s->offset, s->n_groups + 1, sizeof *s->offset);
    copy->sweep_time = duplicate(s->sweep_time, n_tuples + 1, sizeof *s->sweep_time);
    copy->sweep_rank = duplicate(s->sweep_rank, n_tuples + 1, sizeof *s->sweep_rank);
    copy->context_fastest =
        duplicate(s->context_fastest, n_tuples + 1, sizeof *s->context_fastest);
    copy->log_slowdown = duplicate(s->log_slowdown, n_tuples + 1, sizeof *s->log_slowdown);
    copy->kept = duplicate(s->kept, n_tuples + 1, sizeof *s->kept);
    copy->idx = duplicate(s->idx, s->n_params + 1, sizeof *s->idx);
    copy->scratch = duplicate(s->scratch, s->n_params + 1, sizeof *s->scratch);
    copy->reduced_borrowed = s->phase == PHASE_REDUCED;
    if (!copy->reduced_borrowed) copy->reduced = (rank_list){0};
    if (!copy->group_params || !copy->group_start || !copy->in_sweep || !copy->offset ||
        !copy->sweep_time || !copy->sweep_rank || !copy->context_fastest ||
        !copy->log_slowdown || !copy->kept || !copy->idx || !copy->scratch) {
        prune_destroy(copy);
        return NULL;
    }
    return copy;
}

static const simulation_ops prune_simulation = {prune_copy, prune_ask, prune_tell, prune_destroy};

/* Prune's next proposals: in the climb, the climber's; before it, by
 * simulation. The baseline samples, each sweep (the nearest valid
 * configurations around a fixed baseline) and the reduced space's order
 * follow from the generator and the history alone and are named exactly.
 * Where a phase ends the pending result matters: the last sample or the
 * best of a sweep may become the baseline, so one run assumes it is
 * slower than any and another faster than any, and the baseline the next
 * sweep goes around is one of theirs. Which values the reduced space
 * keeps depends on every sweep result, and is named only as far as the
 * assumption that the results to come are slower holds. */
static size_t prune_upcoming(void *state, uint64_t *ranks, size_t max)
{
    prune_state *s = state;
    if (s->phase == PHASE_CLIMB) return strategy_upcoming(s->climber, ranks, max);
    static const double outcomes[] = {SIMULATED_SLOW, SIMULATED_FAST};
    return simulate_upcoming(s, s->history, &prune_simulation,
                             s->awaiting_tell ? &s->pending_rank : NULL, outcomes, 2, ranks, max);
}

/* A group's sweep measures each of its tuples once: beyond this many, a
 * group of parameters is better searched by a strategy than swept. */
#define PRUNE_MAX_GROUP_TUPLES ((size_t)1 << 16)

/* The group each parameter is named in by the `groups` option ("a,b;c"),
 * into group_of (SIZE_MAX: none); fails naming an unknown or repeated
 * parameter, or an empty name. */
static int parse_groups(const prune_state *s, const char *text, size_t *group_of,
                        size_t *n_named, skytune_error *err)
{
    for (size_t k = 0; k < s->n_params; k++) group_of[k] = SIZE_MAX;
    *n_named = 0;
    const char *p = text;
    while (*p) {
        for (;;) {
            while (*p == ' ') p++;
            size_t len = strcspn(p, ",;");
            while (len > 0 && p[len - 1] == ' ') len--;
            char name[128];
            if (len == 0 || len >= sizeof name)
                return err_set(err, "option groups='%s': a parameter name is %s; write names "
                                    "joined by ',' and groups by ';', e.g. 'a,b;c'",
                               text, len == 0 ? "missing" : "too long");
            memcpy(name, p, len);
            name[len] = '\0';
            int k = space_param_index(s->space, name);
            if (k < 0) {
                char valid[1024];
                size_t used = 0;
                valid[0] = '\0';
                for (size_t j = 0; j < s->n_params && used < sizeof valid; j++)
                    used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s",
                                             j ? ", " : "", space_param(s->space, j)->name);
                return err_set(err, "option groups: '%s' is not a tuning parameter; they are: %s",
                               name, valid);
            }
            if (group_of[k] != SIZE_MAX)
                return err_set(err, "option groups: '%s' is named twice", name);
            group_of[k] = *n_named;
            p += strcspn(p, ",;");
            if (*p != ',') break;
            p++;
        }
        (*n_named)++;
        if (*p == ';') p++;
    }
    return 0;
}

/* The groups in the order of their first parameter, every parameter not
 * named in the option a group of its own, and their tuples' offsets. */
static int set_groups(prune_state *s, const char *text, skytune_error *err)
{
    size_t *group_of = calloc(s->n_params + 1, sizeof *group_of);
    bool *placed = calloc(s->n_params + 1, sizeof *placed);
    s->group_params = calloc(s->n_params + 1, sizeof *s->group_params);
    s->group_start = calloc(s->n_params + 2, sizeof *s->group_start);
    s->offset = calloc(s->n_params + 2, sizeof *s->offset);
    int rc = 0;
    size_t n_named = 0;
    if (!group_of || !placed || !s->group_params || !s->group_start || !s->offset) {
        rc = err_set(err, "out of memory");
        goto done;
    }
    if ((rc = parse_groups(s, text ? text : "", group_of, &n_named, err)) != 0) goto done;
    size_t n = 0;
    for (size_t k = 0; k < s->n_params; k++) {
        if (placed[k]) continue;
        size_t g = s->n_groups;
        s->group_start[g] = n;
        size_t tuples = 1;
        for (size_t j = k; j < s->n_params; j++) {
            if (j != k && (group_of[k] == SIZE_MAX || group_of[j] != group_of[k])) continue;
            s->group_params[n++] = j;
            placed[j] = true;
            size_t values = space_param(s->space, j)->count;
            tuples = tuples > PRUNE_MAX_GROUP_TUPLES / values ? PRUNE_MAX_GROUP_TUPLES + 1
                                                               : tuples * values;
        }
        if (tuples > PRUNE_MAX_GROUP_TUPLES) {
            rc = err_set(err, "option groups: the group holding '%s' has more than %zu value "
                              "combinations to sweep; make it smaller",
                         space_param(s->space, k)->name, PRUNE_MAX_GROUP_TUPLES);
            goto done;
        }
        s->offset[g + 1] = s->offset[g] + tuples;
        s->n_groups++;
        s->group_start[s->n_groups] = n;
    }
done:
    free(group_of);
    free(placed);
    return rc;
}

static int prune_create(const strategy_setup *setup, const strategy_options *options,
                        void **state, skytune_error *err)
{
    const char *baseline = strategy_option_string(options, "baseline");
    const char *update = strategy_option_string(options, "baseline_update");
    const char *second = strategy_option_string(options, "second");
    int64_t samples = strategy_option_int(options, "baseline_samples");
    double threshold = strategy_option_double(options, "threshold");
    if (strcmp(baseline, "sample") != 0 && strcmp(baseline, "first") != 0)
        return err_set(err, "option baseline='%s': valid values are sample, first", baseline);
    if (strcmp(update, "best") != 0 && strcmp(update, "none") != 0)
        return err_set(err, "option baseline_update='%s': valid values are best, none", update);
    reduced_order order;
    if (strcmp(second, "hill-climbing") == 0)
        order = SECOND_HILL_CLIMBING;
    else if (strcmp(second, "best-first") == 0)
        order = SECOND_BEST_FIRST;
    else if (strcmp(second, "random") == 0)
        order = SECOND_RANDOM;
    else
        return err_set(err, "option second='%s': valid values are hill-climbing, best-first, random",
                       second);
    if (samples < 1) return err_set(err, "option baseline_samples must be 1 or more");
    if (!(threshold >= 1.0)) return err_set(err, "option threshold must be 1 or more");

    prune_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->space = setup->space;
    s->history = setup->history;
    s->seed = setup->seed;
    s->n_params = space_param_count(setup->space);
    s->idx = calloc(s->n_params + 1, sizeof *s->idx);
    s->scratch = calloc(s->n_params + 1, sizeof *s->scratch);
    s->in_sweep = calloc(s->n_params + 1, sizeof *s->in_sweep);
    if (!s->idx || !s->scratch || !s->in_sweep) {
        prune_destroy(s);
        return err_set(err, "out of memory");
    }
    if (set_groups(s, strategy_option_string(options, "groups"), err) != 0) {
        prune_destroy(s);
        return -1;
    }
    size_t n_tuples = s->offset[s->n_groups];
    s->sweep_time = malloc((n_tuples + 1) * sizeof *s->sweep_time);
    s->sweep_rank = calloc(n_tuples + 1, sizeof *s->sweep_rank);
    s->context_fastest = calloc(n_tuples + 1, sizeof *s->context_fastest);
    s->log_slowdown = calloc(n_tuples + 1, sizeof *s->log_slowdown);
    s->kept = calloc(n_tuples + 1, sizeof *s->kept);
    if (!s->sweep_time || !s->sweep_rank || !s->context_fastest || !s->log_slowdown ||
        !s->kept) {
        prune_destroy(s);
        return err_set(err, "out of memory");
    }
    for (size_t t = 0; t < n_tuples; t++) s->sweep_time[t] = NAN;
    s->baseline_first = strcmp(baseline, "first") == 0;
    s->baseline_samples = s->baseline_first ? 1 : (size_t)samples;
    s->baseline_update = strcmp(update, "best") == 0;
    s->threshold = threshold;
    s->second = order;
    s->budget = setup->budget;
    s->evaluated_before = history_count(setup->history);
    pcg32_seed(&s->rng, setup->seed, 0x7072756e65ULL /* "prune" */);
    /* A resumed campaign's earlier results count as baseline samples. */
    size_t known = history_count(setup->history);
    for (size_t j = 0; j < known; j++)
        observe(s, history_rank_at(setup->history, j),
                objective_or_failure(history_objective_at(setup->history, j)));
    if (!s->baseline_first)
        s->samples_proposed = known < s->baseline_samples ? known : s->baseline_samples;
    *state = s;
    return 0;
}

const strategy_ops strategy_prune = {
    .name = "prune",
    .summary = "tune each parameter alone, drop slow values, search the reduced space (Kis)",
    .options = prune_options,
    .reads_budget = true, /* whether the reduced space fits in what is left */
    .create = prune_create,
    .ask = prune_ask,
    .tell = prune_tell,
    .destroy = prune_destroy,
    .upcoming = prune_upcoming,
    .describe_phase = prune_describe_phase,
};
