/* Helpers the local-search and evolutionary strategies share: sets and lists
 * of ranks, neighbour lists, random unvisited configurations, perturbation
 * and mutation of index vectors, the repair of an index vector to the
 * nearest valid configuration, the best result so far, where a local
 * search restarts, and the walk that hill-climbing and annealing build on.
 *
 * "Visited" always means "in the campaign's history": a strategy that reads
 * a known objective from the history learns it for free, so none of these
 * helpers ever hands back a configuration the campaign has already paid
 * for unless asked to. */
#ifndef SKYTUNE_SEARCH_NEIGHBOURHOOD_H
#define SKYTUNE_SEARCH_NEIGHBOURHOOD_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strategy.h"

/* ------------------------------------------------------------ rank sets */

/* An open-addressing hash set of ranks. Zero-initialised is empty. */
typedef struct rank_set {
    uint64_t *slots;      /* rank + 1; 0 marks an empty slot */
    size_t capacity;      /* power of two, or 0 */
    size_t count;
} rank_set;

/* 1 when added, 0 when already present, -1 when out of memory. */
int rank_set_insert(rank_set *set, uint64_t rank);
/* `copy` (uninitialised) becomes a set of its own with the same ranks; -1
 * when out of memory (copy is then empty). */
int rank_set_copy(rank_set *copy, const rank_set *set);
bool rank_set_contains(const rank_set *set, uint64_t rank);
void rank_set_clear(rank_set *set);
void rank_set_free(rank_set *set);

/* ----------------------------------------------------------- rank lists */

/* A growable array of ranks. Zero-initialised is empty. */
typedef struct rank_list {
    uint64_t *items;
    size_t count;
    size_t capacity;
} rank_list;

int rank_list_push(rank_list *list, uint64_t rank); /* -1 when out of memory */
/* As rank_set_copy, for lists. */
int rank_list_copy(rank_list *copy, const rank_list *list);
void rank_list_free(rank_list *list);

/* Fisher–Yates shuffle. */
void shuffle_ranks(uint64_t *ranks, size_t count, pcg32 *rng);

/* ------------------------------------------------------- neighbourhoods */

/* Which configurations count as neighbours: one parameter changed, to its
 * previous or next value (adjacent) or to any value (hamming). With
 * adjacent-first a neighbour list holds the whole Hamming neighbourhood, the
 * adjacent moves first: a climb tries the cheap local moves and only pays
 * for the long jumps where those fail (variable neighbourhood descent). */
typedef enum neighbourhood_kind {
    NEIGHBOURHOOD_ADJACENT = 0,
    NEIGHBOURHOOD_HAMMING,
    NEIGHBOURHOOD_ADJACENT_FIRST,
} neighbourhood_kind;

/* The option's values, for help texts. */
#define NEIGHBOURHOOD_CHOICES "adjacent-first, adjacent, hamming"

/* "adjacent-first", "adjacent" or "hamming"; anything else fails naming the
 * option and the valid values. */
int parse_neighbourhood(const char *option, const char *text, neighbourhood_kind *kind,
                        skytune_error *err);

/* Replace `out` with every valid neighbour of the configuration at `rank`,
 * in a random order (for adjacent-first: the adjacent ones in a random
 * order, then the others in a random order). -1 when out of memory. */
int shuffled_neighbours(const space *s, uint64_t rank, neighbourhood_kind kind, pcg32 *rng,
                        rank_list *out);

/* A uniformly random valid configuration that is neither in the history nor
 * in `also_taken` (may be NULL). Rejection sampling first; when that keeps
 * hitting visited ones, a scan from a random rank, so the answer is false
 * only when every configuration is taken. */
bool random_unvisited(const space *s, const history *h, const rank_set *also_taken, pcg32 *rng,
                      uint64_t *rank);

/* ------------------------------------------------------ index vectors */

/* Set parameter k to another of its values: the previous or next one with
 * probability `adjacent_probability`, any other one otherwise. Parameters
 * with a single value are left alone. The result may be invalid. */
void mutate_parameter(const space *s, uint16_t *idx, size_t k, double adjacent_probability,
                      pcg32 *rng);

/* Move `strength` distinct parameters (those with more than one value) to
 * random other values. The result may be invalid. */
void perturb_configuration(const space *s, uint16_t *idx, size_t strength, pcg32 *rng);

/* --------------------------------------------------------------- repair */

/* Which valid configurations a repair may end on; NULL accepts any. */
typedef bool (*rank_filter)(void *ctx, uint64_t rank);

#define REPAIR_NO_FIXED_PARAMETER ((size_t)-1)
/* States a repair explores before giving up; enough to cross a few
 * constraints on spaces of ten or so parameters. */
#define REPAIR_DEFAULT_STATES 4096

/* The nearest configuration to `idx` (which may be invalid) that is valid
 * and accepted by `accept`: breadth-first over moves of one parameter to its
 * previous or next value, so nearest means fewest value steps; ties are
 * broken at random. Parameter `fixed` (or REPAIR_NO_FIXED_PARAMETER) keeps
 * its value. Explores at most `max_states` index vectors. Returns 1 with
 * *rank set, 0 when none was found within the limit, -1 when out of
 * memory. */
int repair_to_nearest(const space *s, const uint16_t *idx, size_t fixed, rank_filter accept,
                      void *ctx, pcg32 *rng, size_t max_states, uint64_t *rank);

/* The same, keeping every parameter k with fixed[k] (NULL: none) at its
 * value, for a search that varies several parameters together. */
int repair_to_nearest_keeping(const space *s, const uint16_t *idx, const bool *fixed,
                              rank_filter accept, void *ctx, pcg32 *rng, size_t max_states,
                              uint64_t *rank);

/* A rank_filter accepting configurations not in the history (ctx is the
 * history). */
bool rank_not_in_history(void *ctx, uint64_t rank);

/* A kick, as iterated local search and annealing restart with: the
 * configuration at `from` with `strength` random parameters moved to random
 * values, then repaired to the nearest valid configuration not in the
 * history. Same returns as repair_to_nearest. */
int kicked_configuration(const space *s, const history *h, uint64_t from, size_t strength,
                         pcg32 *rng, uint64_t *rank);

/* ------------------------------------------------------------ objectives */

/* Objectives as the strategies compare them: NaN counts as a failure. */
static inline double objective_or_failure(double objective)
{
    return objective == objective ? objective : (double)INFINITY;
}

/* The fastest configuration that ran, among those a strategy has seen. */
typedef struct best_result {
    bool have;
    uint64_t rank;
    double objective;
} best_result;

/* True when (rank, objective) ran and is faster than the best so far. */
static inline bool best_result_note(best_result *best, uint64_t rank, double objective)
{
    if (!(objective < INFINITY) || (best->have && objective >= best->objective)) return false;
    *best = (best_result){true, rank, objective};
    return true;
}

/* -------------------------------------------------------------- restarts */

/* Where local searches restart when stuck. Kicks from the best
 * configuration so far (see kicked_configuration) keep the search near the
 * region where fast configurations were found; after `patience` kicks in a
 * row that found nothing faster, one restart goes to a random unvisited
 * configuration instead, so a deceptive basin cannot hold the search. With
 * kicks off every restart is random. */
typedef struct restart_policy {
    bool kicks;
    size_t strength;                /* parameters a kick changes */
    size_t patience;
    size_t kicks_without_progress;
    double best_at_last_restart;
} restart_policy;

/* The `restart` option's values. */
#define RESTART_CHOICES "perturb, random"

/* Reads the options restart (perturb|random), perturbation (>= 1) and
 * patience (>= 0); fails naming the option at fault. */
int restart_policy_from_options(const strategy_options *options, restart_policy *policy,
                                skytune_error *err);

/* 1 with *rank set, 0 when every configuration has been evaluated, -1 when
 * out of memory. */
int restart_point(restart_policy *policy, const space *s, const history *h,
                  const best_result *best, pcg32 *rng, uint64_t *rank);

/* ----------------------------------------------------------- local walks */

/* What the last proposal of a local walk was for: the walk is a state
 * machine driven by one tell per proposal, in order. */
typedef enum walk_proposal {
    WALK_NONE = 0,
    WALK_SAMPLE,      /* one of the initial random samples */
    WALK_START,       /* where a walk starts (after a restart) */
    WALK_NEIGHBOUR,   /* a neighbour of the current configuration */
} walk_proposal;

/* The part of a local search that hill-climbing and annealing share: sample
 * `initial_samples` random configurations, walk from the fastest through
 * neighbour lists, restart by the restart policy when stuck, and fall back
 * to random proposals when memory runs out. What a walk does with a
 * neighbour's result is the strategy's own. */
typedef struct local_walk {
    const space *space;
    const history *history;
    pcg32 rng;

    neighbourhood_kind kind;
    restart_policy restarts;
    size_t initial_samples;
    size_t samples_proposed;

    bool walking;
    uint64_t current;
    double current_objective;
    rank_list neighbours;        /* of current, in the order they are tried */
    size_t next_neighbour;
    best_result candidate;       /* the strategy's choice among neighbours, if it keeps one */

    best_result best;            /* history included */

    walk_proposal pending;
    uint64_t pending_rank;
    bool degraded;               /* out of memory: proposes random configurations */
} local_walk;

/* The options every local walk reads besides initial_samples, for its
 * option table: the neighbourhood first and the restart options last, the
 * order in which they enter a campaign's settings (and so its identity). */
#define LOCAL_WALK_NEIGHBOURHOOD_OPTION                                                           \
    {"neighbourhood", "adjacent-first",                                                          \
     "adjacent: one parameter to its previous or next value; hamming: to any value; "            \
     "adjacent-first: the hamming neighbourhood, adjacent moves tried first"}
#define LOCAL_WALK_RESTART_OPTIONS                                                                \
    {"restart", "perturb",                                                                        \
     "perturb: kick the best configuration so far; random: restart at a random configuration"}, \
    {"perturbation", "3", "parameters a kick changes"},                                           \
    {"patience", "3", "kicks without a new best before one random restart"}

/* Reads initial_samples, the restart options and the neighbourhood (failing
 * naming the option at fault); a resumed campaign's results count as
 * samples and the walk starts from their best. `stream` picks the
 * strategy's own PCG stream. */
int local_walk_init(local_walk *w, const strategy_setup *setup, const strategy_options *options,
                    uint64_t stream, skytune_error *err);
void local_walk_free(local_walk *w);
/* `copy` becomes the walk as it is, with a neighbour list of its own,
 * reading `layer` as its history: for a simulation (see
 * simulate_upcoming). -1 when out of memory, with nothing to free. */
int local_walk_copy(local_walk *copy, const local_walk *w, const history *layer);

/* Walk on from `rank`: its neighbours, shuffled, are tried next. */
void local_walk_move(local_walk *w, uint64_t rank, double objective);

strategy_answer local_walk_propose(local_walk *w, walk_proposal kind, uint64_t rank,
                                   uint64_t *out);
/* A random unvisited configuration; DONE when every one is visited. */
strategy_answer local_walk_propose_random(local_walk *w, walk_proposal kind, uint64_t *out);

/* The start of every ask: true with *answer set while the walk is sampling,
 * has no configuration that ran, or is degraded; otherwise the walk is at a
 * configuration (the best so far, when it was not walking) and the strategy
 * goes on with its neighbours. */
bool local_walk_begin(local_walk *w, uint64_t *out, strategy_answer *answer);

/* Stuck: stop walking and propose where the next walk starts. */
strategy_answer local_walk_restart(local_walk *w, uint64_t *out);

/* A tell: which proposal `rank` answers (the pending one is cleared). A
 * start moves the walk there and every result updates the best; a
 * neighbour's result is left to the strategy. */
walk_proposal local_walk_told(local_walk *w, uint64_t rank, double objective);

/* ------------------------------------------------------------ simulation */

/* The results a simulation assumes: slower than anything seen (it ran, and
 * no rule moves to it: what most evaluations of a search turn out to be),
 * and faster than anything seen (every rule moves to it). */
#define SIMULATED_SLOW 1e300
#define SIMULATED_FAST 1e-300

/* A strategy as a simulation drives it: `copy` makes a copy of the state
 * that reads `layer` instead of the campaign's history and shares nothing
 * that its ask or tell write with the original (NULL when out of memory);
 * the others are the strategy's own ops, applied to copies. */
typedef struct simulation_ops {
    void *(*copy)(const void *state, const history *layer);
    strategy_answer (*ask)(void *state, uint64_t *rank);
    void (*tell)(void *state, uint64_t rank, double objective);
    void (*destroy)(void *state);
} simulation_ops;

/* The upcoming op by simulation: what a strategy proposes next, found by
 * running copies of it. Each copy reads a layer over `evaluated` (see
 * history_new_layer) and learns one of `outcomes` for `pending`, the
 * proposal awaiting its tell (NULL: none, and one copy; a known one is
 * told what the history holds); then the copies ask in turn, as the
 * campaign would, each proposal assumed SIMULATED_SLOW, and their
 * proposals are named in that order (the first of each copy in the order
 * of `outcomes`, most likely first, then the second of each, ...), none
 * twice, until `max` are named or no copy proposes any more. The
 * original state is only read, its generator included: the copies draw
 * from copies of it. Returns how many ranks were written (fewer when
 * memory runs out). */
size_t simulate_upcoming(const void *state, const history *evaluated, const simulation_ops *ops,
                         const uint64_t *pending, const double *outcomes, size_t n_outcomes,
                         uint64_t *ranks, size_t max);

#endif
