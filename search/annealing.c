/* annealing: simulated annealing over neighbourhood moves.
 *
 * From the current configuration it tries a random neighbour (one parameter
 * changed: to the previous or next value with neighbourhood=adjacent, to
 * any value with neighbourhood=hamming, to any value but adjacent moves
 * first with neighbourhood=adjacent-first). A faster neighbour is always
 * accepted; a slower one with probability exp(-d / T), where d is the
 * relative slowdown (new - current) / current, so the temperature T is a
 * fraction of the current time and the schedule does not depend on the
 * kernel's time scale: at T = 0.1 a move 10% slower is accepted with
 * probability 1/e. A failed neighbour (+infinity) is never accepted.
 *
 * T starts at `temperature` and is multiplied by `cooling` after every
 * evaluation; once it falls below `temperature` / 1000 it is reheated. A
 * neighbour already evaluated costs nothing, so the walk may cross known
 * ground for free, up to FREE_MOVES_PER_PROPOSAL moves per proposal. When
 * every neighbour of the current configuration has been tried without a
 * move, or the free moves run out, the search is stuck: the temperature is
 * reheated and the walk restarts as hill-climbing does (restart,
 * perturbation, patience): from the best configuration so far kicked by
 * `perturbation` random parameter changes and moved to the nearest valid
 * unvisited configuration, or, after `patience` kicks that found nothing
 * faster, from a random unvisited configuration.
 *
 * The first configuration is the fastest of `initial_samples` random ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "neighbourhood.h"
#include "strategy.h"

/* Moves across already-evaluated configurations one proposal may make
 * before the walk counts as stuck. */
#define FREE_MOVES_PER_PROPOSAL 256

typedef struct annealing_state {
    local_walk walk;
    double initial_temperature;
    double cooling;
    double temperature;
} annealing_state;

static const strategy_option annealing_options[] = {
    LOCAL_WALK_NEIGHBOURHOOD_OPTION,
    {"temperature", "0.1", "initial temperature, as a fraction of the current time"},
    {"cooling", "0.97", "factor applied to the temperature after every evaluation"},
    {"initial_samples", "10", "random configurations sampled; the walk starts at the fastest"},
    LOCAL_WALK_RESTART_OPTIONS,
    {NULL, NULL, NULL},
};

static void cool(annealing_state *s)
{
    s->temperature *= s->cooling;
    if (s->temperature < s->initial_temperature * 1e-3) s->temperature = s->initial_temperature;
}

/* The Metropolis rule on relative differences; true when the walk moved. */
static bool consider_neighbour(annealing_state *s, uint64_t rank, double objective)
{
    local_walk *w = &s->walk;
    best_result_note(&w->best, rank, objective);
    bool accept;
    if (objective == INFINITY)
        accept = false;
    else if (objective <= w->current_objective)
        accept = true;
    else {
        double slowdown = (objective - w->current_objective) / w->current_objective;
        accept = s->temperature > 0 && pcg32_double(&w->rng) < exp(-slowdown / s->temperature);
    }
    if (accept) local_walk_move(w, rank, objective);
    return accept;
}

static strategy_answer annealing_ask(void *state, uint64_t *rank)
{
    annealing_state *s = state;
    local_walk *w = &s->walk;
    w->pending = WALK_NONE;
    size_t free_moves = 0;
    for (;;) {
        strategy_answer answer;
        if (local_walk_begin(w, rank, &answer)) return answer;
        if (w->next_neighbour >= w->neighbours.count || free_moves >= FREE_MOVES_PER_PROPOSAL) {
            /* Stuck: reheat and start again, near the best so far as a rule. */
            s->temperature = s->initial_temperature;
            return local_walk_restart(w, rank);
        }
        uint64_t next = w->neighbours.items[w->next_neighbour++];
        double known;
        if (!history_lookup(w->history, next, &known))
            return local_walk_propose(w, WALK_NEIGHBOUR, next, rank);
        if (consider_neighbour(s, next, objective_or_failure(known))) free_moves++;
    }
}

static void annealing_tell(void *state, uint64_t rank, double objective)
{
    annealing_state *s = state;
    objective = objective_or_failure(objective);
    walk_proposal kind = local_walk_told(&s->walk, rank, objective);
    if (kind == WALK_NEIGHBOUR) consider_neighbour(s, rank, objective);
    if (kind != WALK_NONE) cool(s);
}

static void annealing_destroy(void *state)
{
    annealing_state *s = state;
    if (!s) return;
    local_walk_free(&s->walk);
    free(s);
}

static void *annealing_copy(const void *state, const history *layer)
{
    const annealing_state *s = state;
    annealing_state *copy = malloc(sizeof *copy);
    if (!copy) return NULL;
    *copy = *s;
    if (local_walk_copy(&copy->walk, &s->walk, layer) != 0) {
        free(copy);
        return NULL;
    }
    return copy;
}

static const simulation_ops annealing_simulation = {annealing_copy, annealing_ask,
                                                    annealing_tell, annealing_destroy};

/* Relative slowdown of the result assumed for a slower neighbour that the
 * walk accepts: small enough that the Metropolis draw accepts it at any
 * temperature a campaign uses. */
#define BARELY_SLOWER 1e-12

/* The walk's next proposals by simulation, one run per way the pending
 * proposal can turn out: slower and refused (the common case, one draw of
 * the generator), faster (accepted without a draw), and for a neighbour,
 * slower but accepted (a draw, then the move). Each names the next proposal
 * exactly for its case, short of a failed neighbour (refused without a
 * draw) followed by a restart. Later proposals are assumed slower and
 * refused: the neighbours left, in the walk's order. */
static size_t annealing_upcoming(void *state, uint64_t *ranks, size_t max)
{
    const annealing_state *s = state;
    const local_walk *w = &s->walk;
    double outcomes[3] = {SIMULATED_SLOW, SIMULATED_FAST};
    size_t n_outcomes = 2;
    if (w->pending == WALK_NEIGHBOUR && isfinite(w->current_objective))
        outcomes[n_outcomes++] = w->current_objective * (1 + BARELY_SLOWER);
    const uint64_t *pending = w->pending != WALK_NONE ? &w->pending_rank : NULL;
    return simulate_upcoming(s, w->history, &annealing_simulation, pending, outcomes, n_outcomes,
                             ranks, max);
}

static int annealing_create(const strategy_setup *setup, const strategy_options *options,
                            void **state, skytune_error *err)
{
    double temperature = strategy_option_double(options, "temperature");
    double cooling = strategy_option_double(options, "cooling");
    if (!(temperature > 0)) return err_set(err, "option temperature must be above 0");
    if (!(cooling > 0 && cooling <= 1)) return err_set(err, "option cooling must be in (0, 1]");
    annealing_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    if (local_walk_init(&s->walk, setup, options, 0x616e6e65616cULL /* "anneal" */, err) != 0) {
        free(s);
        return -1;
    }
    s->initial_temperature = temperature;
    s->temperature = temperature;
    s->cooling = cooling;
    *state = s;
    return 0;
}

const strategy_ops strategy_annealing = {
    .name = "annealing",
    .summary = "simulated annealing over neighbourhood moves with restarts from the best",
    .options = annealing_options,
    .create = annealing_create,
    .ask = annealing_ask,
    .tell = annealing_tell,
    .destroy = annealing_destroy,
    .upcoming = annealing_upcoming,
};
