/* hill-climbing: iterated local search with restarts.
 *
 * It starts by sampling `initial_samples` random configurations and climbs
 * from the fastest of them. Climbing evaluates the neighbours of the
 * current configuration (one parameter changed) in a random order:
 *   neighbourhood=adjacent        to its previous or next value;
 *   neighbourhood=hamming         to any other value;
 *   neighbourhood=adjacent-first  to any other value, but the adjacent moves
 *                                 first (variable neighbourhood descent: the
 *                                 cheap local moves, then the long jumps that
 *                                 parameters such as block sizes, fast only
 *                                 at powers of two, need).
 * With improvement=first it moves to the first neighbour that is faster;
 * with improvement=best it evaluates them all and moves to the fastest. A
 * neighbour already in the history costs nothing: its known time is used
 * directly, so a climb never pays twice for a configuration.
 *
 * When no neighbour is faster the current configuration is a local optimum
 * and the search restarts. With restart=perturb it kicks the best
 * configuration found so far: `perturbation` random parameters get random
 * other values, the result is moved to the nearest valid configuration not
 * yet evaluated, and the climb starts again from there. Kicks stay near the
 * best region, where good configurations cluster; after `patience` kicks in
 * a row that did not improve the best, one restart goes to a random
 * configuration instead, so a deceptive basin cannot hold the search
 * forever. With restart=random every restart is random.
 *
 * A failed configuration (+infinity) is slower than any that ran. When
 * everything near the best has been evaluated the restarts fall back to
 * random unvisited configurations, so the strategy keeps proposing until the
 * whole space is evaluated. A resumed campaign's results count as samples,
 * and the climb starts from their best.
 *
 * The loop is sequential (one tell per proposal, in order), so the strategy
 * is a state machine: `pending` says what the last proposal was for. */
#include <stdlib.h>
#include <string.h>

#include "neighbourhood.h"
#include "strategy.h"

typedef enum proposal_kind {
    PROPOSAL_NONE = 0,
    PROPOSAL_SAMPLE,     /* one of the initial random samples */
    PROPOSAL_START,      /* where a new climb starts (after a restart) */
    PROPOSAL_NEIGHBOUR,  /* a neighbour of the current configuration */
} proposal_kind;

typedef struct hill_state {
    const space *space;
    const history *history;
    pcg32 rng;

    neighbourhood_kind kind;
    bool best_improvement;
    restart_policy restarts;
    size_t initial_samples;

    size_t samples_proposed;
    bool climbing;
    uint64_t current;
    double current_objective;
    rank_list neighbours;       /* of current, in the order they are tried */
    size_t next_neighbour;
    best_result candidate;      /* improvement=best: fastest faster neighbour so far */

    best_result best;           /* history included */

    proposal_kind pending;
    uint64_t pending_rank;
    bool degraded;              /* out of memory: proposes random configurations */
} hill_state;

static const strategy_option hill_options[] = {
    {"neighbourhood", "adjacent-first",
     "adjacent: one parameter to its previous or next value; hamming: to any value; "
     "adjacent-first: the hamming neighbourhood, adjacent moves tried first"},
    {"improvement", "first", "first: move to the first faster neighbour; best: to the fastest"},
    {"initial_samples", "10", "random configurations sampled before the first climb"},
    {"restart", "perturb",
     "perturb: kick the best configuration so far; random: restart at a random configuration"},
    {"perturbation", "3", "parameters a kick changes"},
    {"patience", "3", "kicks without a new best before one random restart"},
    {NULL, NULL, NULL},
};

static void set_current(hill_state *s, uint64_t rank, double objective)
{
    s->climbing = true;
    s->current = rank;
    s->current_objective = objective;
    s->next_neighbour = 0;
    s->candidate.have = false;
    if (shuffled_neighbours(s->space, rank, s->kind, &s->rng, &s->neighbours) != 0)
        s->degraded = true;
}

/* A neighbour's result: true when the climb moved to it. */
static bool consider_neighbour(hill_state *s, uint64_t rank, double objective)
{
    best_result_note(&s->best, rank, objective);
    if (s->best_improvement) {
        if (objective < s->current_objective) best_result_note(&s->candidate, rank, objective);
        return false;
    }
    if (objective < s->current_objective) {
        set_current(s, rank, objective);
        return true;
    }
    return false;
}

static strategy_answer propose(hill_state *s, proposal_kind kind, uint64_t rank, uint64_t *out)
{
    s->pending = kind;
    s->pending_rank = rank;
    *out = rank;
    return STRATEGY_PROPOSE;
}

static strategy_answer propose_random(hill_state *s, proposal_kind kind, uint64_t *out)
{
    uint64_t rank;
    if (!random_unvisited(s->space, s->history, NULL, &s->rng, &rank)) return STRATEGY_DONE;
    return propose(s, kind, rank, out);
}

/* The current configuration is a local optimum: choose where to climb next. */
static strategy_answer restart(hill_state *s, uint64_t *out)
{
    s->climbing = false;
    uint64_t rank;
    int found = restart_point(&s->restarts, s->space, s->history, &s->best, &s->rng, &rank);
    if (found < 0) {
        s->degraded = true;
        return propose_random(s, PROPOSAL_SAMPLE, out);
    }
    return found ? propose(s, PROPOSAL_START, rank, out) : STRATEGY_DONE;
}

static strategy_answer hill_ask(void *state, uint64_t *rank)
{
    hill_state *s = state;
    s->pending = PROPOSAL_NONE;
    for (;;) {
        if (s->degraded) return propose_random(s, PROPOSAL_SAMPLE, rank);
        if (!s->climbing) {
            if (s->samples_proposed < s->initial_samples) {
                s->samples_proposed++;
                return propose_random(s, PROPOSAL_SAMPLE, rank);
            }
            if (!s->best.have) return propose_random(s, PROPOSAL_START, rank);
            set_current(s, s->best.rank, s->best.objective);
            continue;
        }
        bool moved = false;
        while (!moved && s->next_neighbour < s->neighbours.count) {
            uint64_t next = s->neighbours.items[s->next_neighbour++];
            double known;
            if (!history_lookup(s->history, next, &known))
                return propose(s, PROPOSAL_NEIGHBOUR, next, rank);
            moved = consider_neighbour(s, next, objective_or_failure(known));
        }
        if (moved || s->degraded) continue;
        if (s->candidate.have) {
            set_current(s, s->candidate.rank, s->candidate.objective);
            continue;
        }
        return restart(s, rank);
    }
}

static void hill_tell(void *state, uint64_t rank, double objective)
{
    hill_state *s = state;
    objective = objective_or_failure(objective);
    proposal_kind kind = rank == s->pending_rank ? s->pending : PROPOSAL_NONE;
    s->pending = PROPOSAL_NONE;
    switch (kind) {
    case PROPOSAL_START:
        best_result_note(&s->best, rank, objective);
        set_current(s, rank, objective);
        break;
    case PROPOSAL_NEIGHBOUR:
        consider_neighbour(s, rank, objective);
        break;
    case PROPOSAL_SAMPLE:
    case PROPOSAL_NONE:
        best_result_note(&s->best, rank, objective);
        break;
    }
}

static void hill_destroy(void *state)
{
    hill_state *s = state;
    if (!s) return;
    rank_list_free(&s->neighbours);
    free(s);
}

static int hill_create(const strategy_setup *setup, const strategy_options *options,
                       void **state, skytune_error *err)
{
    const char *improvement = strategy_option_string(options, "improvement");
    int64_t samples = strategy_option_int(options, "initial_samples");
    if (strcmp(improvement, "first") != 0 && strcmp(improvement, "best") != 0)
        return err_set(err, "option improvement='%s': valid values are first, best", improvement);
    if (samples < 0) return err_set(err, "option initial_samples must be 0 or more");
    restart_policy restarts;
    if (restart_policy_from_options(options, &restarts, err) != 0) return -1;
    neighbourhood_kind kind;
    if (parse_neighbourhood("neighbourhood", strategy_option_string(options, "neighbourhood"),
                            &kind, err) != 0)
        return -1;

    hill_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->kind = kind;
    s->space = setup->space;
    s->history = setup->history;
    s->best_improvement = strcmp(improvement, "best") == 0;
    s->restarts = restarts;
    s->initial_samples = (size_t)samples;
    /* A resumed campaign's earlier results count as samples. */
    size_t known = history_count(setup->history);
    s->samples_proposed = known < s->initial_samples ? known : s->initial_samples;
    /* A resumed campaign already knows some results: climb from its best. */
    s->best.have = history_best(setup->history, &s->best.rank, &s->best.objective);
    pcg32_seed(&s->rng, setup->seed, 0x68696c6c636c6d62ULL /* "hillclmb" */);
    *state = s;
    return 0;
}

const strategy_ops strategy_hill_climbing = {
    .name = "hill-climbing",
    .summary = "iterated local search: climb from the best of a few samples, kick, repeat",
    .options = hill_options,
    .create = hill_create,
    .ask = hill_ask,
    .tell = hill_tell,
    .destroy = hill_destroy,
};
