/* prune: tune each parameter alone, drop the slow values, search what is
 * left (J. Kis, "Auto-tuning a LOFAR radio astronomy pipeline in JavaCL",
 * §5.4 and §7.8).
 *
 * 1. Baseline. `baseline_samples` random configurations are evaluated and
 *    the fastest becomes the baseline (with baseline=first, the first valid
 *    configuration in rank order is evaluated instead). If all of them
 *    failed, sampling goes on until one runs.
 * 2. One parameter at a time. For every parameter and every other value of
 *    it, the baseline with that one value changed is evaluated. When that
 *    configuration breaks a constraint, the nearest valid configuration
 *    that keeps the value is used instead (fewest value steps on the other
 *    parameters). With baseline_update=best the baseline moves to the
 *    fastest configuration a parameter's sweep found before the next
 *    parameter is swept (coordinate descent); with none it stays put, as in
 *    the thesis.
 * 3. Pruning. A value's score is the fastest time among all evaluated
 *    configurations that use it. Values whose score is more than
 *    `threshold` times the parameter's best score are dropped; so are values
 *    that only ever failed. Values never seen (no valid configuration near
 *    the baseline uses them) are kept, and a parameter whose values all
 *    failed keeps them all.
 * 4. The reduced space, the valid configurations in the Cartesian product
 *    of the kept values, is searched: with second=best-first in order of
 *    the product of the values' scores (the separable estimate of its time),
 *    with second=random in random order. When it is larger than the budget
 *    left, that order decides which part is measured. Reduced spaces of
 *    more than PRUNE_MAX_LISTED configurations (or products too large to
 *    walk) are sampled at random instead of listed.
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

typedef enum prune_phase {
    PHASE_BASELINE = 0,
    PHASE_SWEEP,
    PHASE_REDUCED,
    PHASE_CLIMB,
} prune_phase;

typedef struct prune_state {
    const space *space;
    const history *history;
    uint64_t seed;
    pcg32 rng;
    size_t n_params;

    bool baseline_first;
    size_t baseline_samples;
    bool baseline_update;
    double threshold;
    bool best_first;

    prune_phase phase;
    size_t samples_proposed;
    best_result baseline;

    size_t sweep_param;        /* parameter being swept */
    size_t sweep_value;        /* next value index to try */
    best_result sweep_best;    /* fastest configuration of this sweep */

    value_scores scores;
    bool *kept;                /* by value, laid out like scores */
    rank_list reduced;         /* listed reduced space, in search order */
    size_t reduced_next;
    bool reduced_sampled;      /* too large to list: sampled instead */

    strategy *climber;
    bool degraded;             /* out of memory: random proposals */
    bool awaiting_tell;
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
    {"threshold", "1.1", "drop values slower than threshold times the parameter's best value"},
    {"second", "best-first",
     "order of the reduced space: best-first (separable estimate) or random"},
    {NULL, NULL, NULL},
};

static void observe(prune_state *s, uint64_t rank, double objective)
{
    space_unrank(s->space, rank, s->scratch);
    value_scores_add(&s->scores, s->scratch, objective);
    if (s->phase == PHASE_BASELINE) best_result_note(&s->baseline, rank, objective);
    if (s->phase == PHASE_SWEEP) best_result_note(&s->sweep_best, rank, objective);
}

static strategy_answer propose(prune_state *s, uint64_t rank, uint64_t *out)
{
    s->awaiting_tell = true;
    *out = rank;
    return STRATEGY_PROPOSE;
}

static strategy_answer propose_random(prune_state *s, uint64_t *out)
{
    uint64_t rank;
    if (!random_unvisited(s->space, s->history, NULL, &s->rng, &rank)) return STRATEGY_DONE;
    return propose(s, rank, out);
}

/* The parameter just swept is done: maybe move the baseline, go on to the
 * next parameter. */
static void finish_sweep(prune_state *s)
{
    if (s->baseline_update && s->sweep_best.have &&
        s->sweep_best.objective < s->baseline.objective)
        s->baseline = s->sweep_best;
    s->sweep_best.have = false;
    s->sweep_param++;
    s->sweep_value = 0;
}

/* The next one-at-a-time configuration; false when every parameter has
 * been swept. Configurations already evaluated are observed for free. */
static bool next_sweep_configuration(prune_state *s, uint64_t *rank)
{
    while (s->sweep_param < s->n_params) {
        size_t k = s->sweep_param;
        size_t values = space_param(s->space, k)->count;
        space_unrank(s->space, s->baseline.rank, s->idx);
        uint16_t base_value = s->idx[k];
        while (s->sweep_value < values) {
            uint16_t v = (uint16_t)s->sweep_value++;
            if (v == base_value) continue;
            s->idx[k] = v;
            uint64_t r;
            int found = repair_to_nearest(s->space, s->idx, k, NULL, NULL, &s->rng,
                                          REPAIR_DEFAULT_STATES, &r);
            s->idx[k] = base_value;
            if (found < 0) {
                s->degraded = true;
                return false;
            }
            if (found == 0) continue; /* no valid configuration near the baseline has v */
            double known;
            if (history_lookup(s->history, r, &known)) {
                observe(s, r, objective_or_failure(known));
                continue;
            }
            *rank = r;
            return true;
        }
        finish_sweep(s);
    }
    return false;
}

static void decide_kept_values(prune_state *s)
{
    for (size_t k = 0; k < s->n_params; k++) {
        size_t values = space_param(s->space, k)->count;
        double best = INFINITY;
        for (size_t v = 0; v < values; v++) {
            double score = value_score(&s->scores, k, (uint16_t)v);
            if (score < best) best = score;
        }
        for (size_t v = 0; v < values; v++) {
            double score = value_score(&s->scores, k, (uint16_t)v);
            bool unseen = score != score;
            s->kept[s->scores.offset[k] + v] =
                unseen || best == INFINITY || score <= s->threshold * best;
        }
    }
}

/* log of the separable estimate of a configuration's time, up to a
 * constant: unseen values count as the parameter's best. */
static double estimate(const prune_state *s, const uint16_t *idx)
{
    double total = 0.0;
    for (size_t k = 0; k < s->n_params; k++) {
        double score = value_score(&s->scores, k, idx[k]);
        if (score == score) total += log(score);
    }
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

/* Next combination of kept values after idx (odometer, last parameter
 * fastest); false after the last one. */
static bool next_kept_combination(const prune_state *s, uint16_t *idx)
{
    for (size_t k = s->n_params; k-- > 0;) {
        size_t values = space_param(s->space, k)->count;
        const bool *kept = s->kept + s->scores.offset[k];
        size_t v = idx[k] + 1u;
        while (v < values && !kept[v]) v++;
        if (v < values) {
            idx[k] = (uint16_t)v;
            return true;
        }
        v = 0;
        while (!kept[v]) v++;
        idx[k] = (uint16_t)v;
    }
    return false;
}

/* Lists the reduced space's unvisited configurations in search order, or
 * marks it to be sampled when it is too large to list. */
static void build_reduced_space(prune_state *s)
{
    decide_kept_values(s);
    uint64_t product = 1;
    for (size_t k = 0; k < s->n_params; k++) {
        uint64_t kept = 0;
        for (size_t v = 0; v < space_param(s->space, k)->count; v++)
            kept += s->kept[s->scores.offset[k] + v];
        product = kept && product > PRUNE_MAX_WALKED / kept ? PRUNE_MAX_WALKED + 1 : product * kept;
    }
    if (product > PRUNE_MAX_WALKED) {
        s->reduced_sampled = true;
        return;
    }
    for (size_t k = 0; k < s->n_params; k++) {
        const bool *kept = s->kept + s->scores.offset[k];
        size_t v = 0;
        while (!kept[v]) v++;
        s->idx[k] = (uint16_t)v;
    }
    do {
        uint64_t r;
        if (space_is_valid(s->space, s->idx) && space_rank(s->space, s->idx, &r) == 0 &&
            !history_lookup(s->history, r, NULL)) {
            if (s->reduced.count >= PRUNE_MAX_LISTED) {
                s->reduced.count = 0;
                s->reduced_sampled = true;
                return;
            }
            if (rank_list_push(&s->reduced, r) != 0) {
                s->degraded = true;
                return;
            }
        }
    } while (next_kept_combination(s, s->idx));

    shuffle_ranks(s->reduced.items, s->reduced.count, &s->rng);
    if (!s->best_first) return;
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
        for (size_t k = 0; k < s->n_params; k++) {
            size_t values = space_param(s->space, k)->count;
            const bool *kept = s->kept + s->scores.offset[k];
            size_t n_kept = 0;
            for (size_t v = 0; v < values; v++) n_kept += kept[v];
            size_t pick = pcg32_bounded(&s->rng, (uint32_t)n_kept);
            size_t v = 0;
            for (;; v++)
                if (kept[v] && pick-- == 0) break;
            s->idx[k] = (uint16_t)v;
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

static void prune_destroy(void *state)
{
    prune_state *s = state;
    if (!s) return;
    strategy_free(s->climber);
    value_scores_free(&s->scores);
    rank_list_free(&s->reduced);
    free(s->kept);
    free(s->idx);
    free(s->scratch);
    free(s);
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
    if (strcmp(second, "best-first") != 0 && strcmp(second, "random") != 0)
        return err_set(err, "option second='%s': valid values are best-first, random", second);
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
    if (!s->idx || !s->scratch || value_scores_init(&s->scores, setup->space) != 0 ||
        !(s->kept = calloc(s->scores.offset[s->n_params] + 1, sizeof *s->kept))) {
        prune_destroy(s);
        return err_set(err, "out of memory");
    }
    s->baseline_first = strcmp(baseline, "first") == 0;
    s->baseline_samples = s->baseline_first ? 1 : (size_t)samples;
    s->baseline_update = strcmp(update, "best") == 0;
    s->threshold = threshold;
    s->best_first = strcmp(second, "best-first") == 0;
    pcg32_seed(&s->rng, setup->seed, 0x7072756e65ULL /* "prune" */);
    /* A resumed campaign's earlier results count as baseline samples and as
     * evidence about the values. */
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
    .create = prune_create,
    .ask = prune_ask,
    .tell = prune_tell,
    .destroy = prune_destroy,
};
