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
 * Sampling, restarts and the walk's state are shared with annealing
 * (local_walk in neighbourhood.h); what is the climb's own is the rule for
 * moving. */
#include <stdlib.h>
#include <string.h>

#include "neighbourhood.h"
#include "strategy.h"

typedef struct hill_state {
    local_walk walk;   /* walk.candidate: with improvement=best, the fastest faster neighbour */
    bool best_improvement;
} hill_state;

static const strategy_option hill_options[] = {
    LOCAL_WALK_NEIGHBOURHOOD_OPTION,
    {"improvement", "first", "first: move to the first faster neighbour; best: to the fastest"},
    {"initial_samples", "10", "random configurations sampled before the first climb"},
    LOCAL_WALK_RESTART_OPTIONS,
    {NULL, NULL, NULL},
};

/* A neighbour's result: true when the climb moved to it. */
static bool consider_neighbour(hill_state *s, uint64_t rank, double objective)
{
    local_walk *w = &s->walk;
    best_result_note(&w->best, rank, objective);
    if (s->best_improvement) {
        if (objective < w->current_objective) best_result_note(&w->candidate, rank, objective);
        return false;
    }
    if (objective < w->current_objective) {
        local_walk_move(w, rank, objective);
        return true;
    }
    return false;
}

static strategy_answer hill_ask(void *state, uint64_t *rank)
{
    hill_state *s = state;
    local_walk *w = &s->walk;
    w->pending = WALK_NONE;
    for (;;) {
        strategy_answer answer;
        if (local_walk_begin(w, rank, &answer)) return answer;
        bool moved = false;
        while (!moved && w->next_neighbour < w->neighbours.count) {
            uint64_t next = w->neighbours.items[w->next_neighbour++];
            double known;
            if (!history_lookup(w->history, next, &known))
                return local_walk_propose(w, WALK_NEIGHBOUR, next, rank);
            moved = consider_neighbour(s, next, objective_or_failure(known));
        }
        if (moved || w->degraded) continue;
        if (w->candidate.have) {
            local_walk_move(w, w->candidate.rank, w->candidate.objective);
            continue;
        }
        return local_walk_restart(w, rank);
    }
}

static void hill_tell(void *state, uint64_t rank, double objective)
{
    hill_state *s = state;
    objective = objective_or_failure(objective);
    if (local_walk_told(&s->walk, rank, objective) == WALK_NEIGHBOUR)
        consider_neighbour(s, rank, objective);
}

static void hill_destroy(void *state)
{
    hill_state *s = state;
    if (!s) return;
    local_walk_free(&s->walk);
    free(s);
}

static void *hill_copy(const void *state, const history *layer)
{
    const hill_state *s = state;
    hill_state *copy = malloc(sizeof *copy);
    if (!copy) return NULL;
    copy->best_improvement = s->best_improvement;
    if (local_walk_copy(&copy->walk, &s->walk, layer) != 0) {
        free(copy);
        return NULL;
    }
    return copy;
}

static const simulation_ops hill_simulation = {hill_copy, hill_ask, hill_tell, hill_destroy};

/* The climb's next proposals by simulation. What follows the pending
 * proposal depends on its result only through whether it is faster (than
 * the configuration the climb is at; for a sample, than the best so far):
 * one run assumes it is not, one that it is, so the next proposal is named
 * whichever it turns out to be, short of a restart whose kick or random
 * start follows from a best the runs do not share. Every later proposal is
 * assumed slower, as most neighbours of a climb are: the neighbours left,
 * in the order the climb will try them. */
static size_t hill_upcoming(void *state, uint64_t *ranks, size_t max)
{
    const hill_state *s = state;
    static const double outcomes[] = {SIMULATED_SLOW, SIMULATED_FAST};
    const uint64_t *pending = s->walk.pending != WALK_NONE ? &s->walk.pending_rank : NULL;
    return simulate_upcoming(s, s->walk.history, &hill_simulation, pending, outcomes, 2, ranks,
                             max);
}

static int hill_create(const strategy_setup *setup, const strategy_options *options,
                       void **state, skytune_error *err)
{
    const char *improvement = strategy_option_string(options, "improvement");
    if (strcmp(improvement, "first") != 0 && strcmp(improvement, "best") != 0)
        return err_set(err, "option improvement='%s': valid values are first, best", improvement);
    hill_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    if (local_walk_init(&s->walk, setup, options, 0x68696c6c636c6d62ULL /* "hillclmb" */, err) != 0) {
        free(s);
        return -1;
    }
    s->best_improvement = strcmp(improvement, "best") == 0;
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
    .upcoming = hill_upcoming,
};
