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

typedef enum proposal_kind {
    PROPOSAL_NONE = 0,
    PROPOSAL_SAMPLE,
    PROPOSAL_START,
    PROPOSAL_NEIGHBOUR,
} proposal_kind;

typedef struct annealing_state {
    const space *space;
    const history *history;
    pcg32 rng;

    neighbourhood_kind kind;
    double initial_temperature;
    double cooling;
    restart_policy restarts;
    size_t initial_samples;

    double temperature;
    size_t samples_proposed;
    bool walking;
    uint64_t current;
    double current_objective;
    rank_list neighbours;      /* of current, in the order they are tried */
    size_t next_neighbour;

    best_result best;          /* history included */

    proposal_kind pending;
    uint64_t pending_rank;
    bool degraded;             /* out of memory: random proposals */
} annealing_state;

static const strategy_option annealing_options[] = {
    {"neighbourhood", "adjacent-first",
     "adjacent: one parameter to its previous or next value; hamming: to any value; "
     "adjacent-first: the hamming neighbourhood, adjacent moves tried first"},
    {"temperature", "0.1", "initial temperature, as a fraction of the current time"},
    {"cooling", "0.97", "factor applied to the temperature after every evaluation"},
    {"initial_samples", "10", "random configurations sampled; the walk starts at the fastest"},
    {"restart", "perturb",
     "perturb: kick the best configuration so far; random: restart at a random configuration"},
    {"perturbation", "3", "parameters a kick changes"},
    {"patience", "3", "kicks without a new best before one random restart"},
    {NULL, NULL, NULL},
};

static void set_current(annealing_state *s, uint64_t rank, double objective)
{
    s->walking = true;
    s->current = rank;
    s->current_objective = objective;
    s->next_neighbour = 0;
    if (shuffled_neighbours(s->space, rank, s->kind, &s->rng, &s->neighbours) != 0)
        s->degraded = true;
}

static void cool(annealing_state *s)
{
    s->temperature *= s->cooling;
    if (s->temperature < s->initial_temperature * 1e-3) s->temperature = s->initial_temperature;
}

/* The Metropolis rule on relative differences; true when the walk moved. */
static bool consider_neighbour(annealing_state *s, uint64_t rank, double objective)
{
    best_result_note(&s->best, rank, objective);
    bool accept;
    if (objective == INFINITY)
        accept = false;
    else if (objective <= s->current_objective)
        accept = true;
    else {
        double slowdown = (objective - s->current_objective) / s->current_objective;
        accept = s->temperature > 0 && pcg32_double(&s->rng) < exp(-slowdown / s->temperature);
    }
    if (accept) set_current(s, rank, objective);
    return accept;
}

static strategy_answer propose(annealing_state *s, proposal_kind kind, uint64_t rank,
                               uint64_t *out)
{
    s->pending = kind;
    s->pending_rank = rank;
    *out = rank;
    return STRATEGY_PROPOSE;
}

static strategy_answer propose_random(annealing_state *s, proposal_kind kind, uint64_t *out)
{
    uint64_t rank;
    if (!random_unvisited(s->space, s->history, NULL, &s->rng, &rank)) return STRATEGY_DONE;
    return propose(s, kind, rank, out);
}

/* Stuck: reheat and start again, near the best configuration so far as a
 * rule. */
static strategy_answer restart(annealing_state *s, uint64_t *out)
{
    s->walking = false;
    s->temperature = s->initial_temperature;
    uint64_t rank;
    int found = restart_point(&s->restarts, s->space, s->history, &s->best, &s->rng, &rank);
    if (found < 0) {
        s->degraded = true;
        return propose_random(s, PROPOSAL_SAMPLE, out);
    }
    return found ? propose(s, PROPOSAL_START, rank, out) : STRATEGY_DONE;
}

static strategy_answer annealing_ask(void *state, uint64_t *rank)
{
    annealing_state *s = state;
    s->pending = PROPOSAL_NONE;
    size_t free_moves = 0;
    for (;;) {
        if (s->degraded) return propose_random(s, PROPOSAL_SAMPLE, rank);
        if (!s->walking) {
            if (s->samples_proposed < s->initial_samples) {
                s->samples_proposed++;
                return propose_random(s, PROPOSAL_SAMPLE, rank);
            }
            if (!s->best.have) return propose_random(s, PROPOSAL_START, rank);
            set_current(s, s->best.rank, s->best.objective);
            continue;
        }
        if (s->next_neighbour >= s->neighbours.count || free_moves >= FREE_MOVES_PER_PROPOSAL)
            return restart(s, rank);
        uint64_t next = s->neighbours.items[s->next_neighbour++];
        double known;
        if (!history_lookup(s->history, next, &known))
            return propose(s, PROPOSAL_NEIGHBOUR, next, rank);
        if (consider_neighbour(s, next, objective_or_failure(known))) free_moves++;
    }
}

static void annealing_tell(void *state, uint64_t rank, double objective)
{
    annealing_state *s = state;
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
    if (kind != PROPOSAL_NONE) cool(s);
}

static void annealing_destroy(void *state)
{
    annealing_state *s = state;
    if (!s) return;
    rank_list_free(&s->neighbours);
    free(s);
}

static int annealing_create(const strategy_setup *setup, const strategy_options *options,
                            void **state, skytune_error *err)
{
    double temperature = strategy_option_double(options, "temperature");
    double cooling = strategy_option_double(options, "cooling");
    int64_t samples = strategy_option_int(options, "initial_samples");
    if (!(temperature > 0)) return err_set(err, "option temperature must be above 0");
    if (!(cooling > 0 && cooling <= 1)) return err_set(err, "option cooling must be in (0, 1]");
    if (samples < 0) return err_set(err, "option initial_samples must be 0 or more");
    restart_policy restarts;
    if (restart_policy_from_options(options, &restarts, err) != 0) return -1;
    neighbourhood_kind kind;
    if (parse_neighbourhood("neighbourhood", strategy_option_string(options, "neighbourhood"),
                            &kind, err) != 0)
        return -1;

    annealing_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->kind = kind;
    s->space = setup->space;
    s->history = setup->history;
    s->initial_temperature = temperature;
    s->temperature = temperature;
    s->cooling = cooling;
    s->restarts = restarts;
    s->initial_samples = (size_t)samples;
    size_t known = history_count(setup->history);
    s->samples_proposed = known < s->initial_samples ? known : s->initial_samples;
    s->best.have = history_best(setup->history, &s->best.rank, &s->best.objective);
    pcg32_seed(&s->rng, setup->seed, 0x616e6e65616cULL /* "anneal" */);
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
};
