/* evolutionary: a genetic algorithm over index vectors.
 *
 * The first generation is `population` random valid configurations not yet
 * evaluated. Every later generation keeps the `elitism` fastest individuals
 * of the previous one and fills the rest with children. A child's parents
 * are chosen by tournament (the fastest of `tournament` individuals drawn at
 * random); with probability `crossover` the child takes each parameter from
 * either parent with equal chance (uniform crossover), otherwise it copies
 * the first parent. Each parameter then mutates with probability
 * `mutation`: to its previous or next value with probability
 * `adjacent_mutation`, to any other value otherwise.
 *
 * A child that breaks a constraint is repaired, never discarded: it becomes
 * the nearest valid configuration (fewest value steps, see
 * repair_to_nearest). A child that has already been evaluated, or that
 * duplicates a sibling, is moved the same way to the nearest configuration
 * that has not, so no configuration is measured twice. When nothing is
 * found near it, the child is a random unvisited configuration.
 *
 * After `stagnation` generations in a row without a new best, the next
 * generation is random configurations (the elites stay): a population that
 * has converged on one basin would otherwise only ever search that basin.
 *
 * Failures (+infinity) lose every tournament against a configuration that
 * ran. population=0 sizes the population from the budget: a twentieth of
 * it, between 8 and 20 (10 when the budget is unknown). Small populations
 * see more generations in a short campaign, which on recorded GPU data
 * matters more than their diversity (see docs/strategies.md).
 *
 * Children are bred one at a time when asked for; since each generation's
 * parents are fixed, that is the same as breeding the whole generation at
 * once. */
#include <stdlib.h>
#include <string.h>

#include "neighbourhood.h"
#include "strategy.h"

#define AUTO_POPULATION_MIN 8
#define AUTO_POPULATION_MAX 20
#define AUTO_POPULATION_UNKNOWN_BUDGET 10
#define AUTO_POPULATION_DIVISOR 20

typedef struct individual {
    uint64_t rank;
    double objective;
} individual;

typedef struct evolution_state {
    const space *space;
    const history *history;
    pcg32 rng;
    size_t n_params;

    size_t population_size;
    size_t tournament;
    size_t elitism;
    double crossover;
    double mutation;
    double adjacent_mutation;

    individual *population;    /* the current generation's parents */
    size_t population_count;
    individual *children;      /* the generation being bred */
    size_t children_count;     /* proposed so far */
    size_t children_told;
    rank_set children_ranks;   /* no two siblings alike */
    bool initialised;          /* the first generation is complete */
    size_t stagnation;         /* option: generations without progress before reseeding */
    size_t stale_generations;
    best_result best;          /* fastest individual so far */
    bool reseeding;            /* this generation's children are random */

    bool awaiting_tell;
    bool degraded;             /* out of memory: random proposals */
    uint16_t *child;
    uint16_t *other;
} evolution_state;

static const strategy_option evolution_options[] = {
    {"population", "0", "individuals per generation; 0: a twentieth of the budget, 8 to 20"},
    {"tournament", "3", "individuals drawn per tournament selection"},
    {"elitism", "2", "fastest individuals carried into the next generation unchanged"},
    {"crossover", "1", "probability a child mixes its parents (uniform crossover)"},
    {"mutation", "0.15", "probability each parameter of a child mutates"},
    {"stagnation", "8",
     "generations without a new best before one generation of random configurations; 0: never"},
    {"adjacent_mutation", "0.5",
     "probability a mutation moves to the previous or next value rather than any value"},
    {NULL, NULL, NULL},
};

static int compare_individuals(const void *a, const void *b)
{
    const individual *x = a, *y = b;
    if (x->objective != y->objective) return x->objective < y->objective ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static const individual *tournament_winner(evolution_state *s)
{
    const individual *winner = NULL;
    for (size_t round = 0; round < s->tournament; round++) {
        const individual *drawn =
            &s->population[pcg32_bounded(&s->rng, (uint32_t)s->population_count)];
        if (!winner || drawn->objective < winner->objective) winner = drawn;
    }
    return winner;
}

typedef struct unvisited_filter {
    const history *history;
    const rank_set *siblings;
} unvisited_filter;

static bool not_evaluated_nor_sibling(void *ctx, uint64_t rank)
{
    const unvisited_filter *f = ctx;
    return !history_lookup(f->history, rank, NULL) && !rank_set_contains(f->siblings, rank);
}

/* Breeds one child: selection, crossover, mutation, repair. False when no
 * unvisited configuration is left. */
static bool breed(evolution_state *s, uint64_t *rank)
{
    space_unrank(s->space, tournament_winner(s)->rank, s->child);
    if (pcg32_double(&s->rng) < s->crossover) {
        space_unrank(s->space, tournament_winner(s)->rank, s->other);
        for (size_t k = 0; k < s->n_params; k++)
            if (pcg32_bounded(&s->rng, 2)) s->child[k] = s->other[k];
    }
    for (size_t k = 0; k < s->n_params; k++)
        if (pcg32_double(&s->rng) < s->mutation)
            mutate_parameter(s->space, s->child, k, s->adjacent_mutation, &s->rng);
    unvisited_filter filter = {s->history, &s->children_ranks};
    int found = repair_to_nearest(s->space, s->child, REPAIR_NO_FIXED_PARAMETER,
                                  not_evaluated_nor_sibling, &filter, &s->rng,
                                  REPAIR_DEFAULT_STATES, rank);
    if (found < 0) s->degraded = true;
    if (found > 0) return true;
    return random_unvisited(s->space, s->history, &s->children_ranks, &s->rng, rank);
}

/* The generation is complete: the `elites` fastest parents and the
 * children become the parents. */
static void next_generation(evolution_state *s, size_t elites)
{
    bool progress = false;
    for (size_t j = 0; j < s->children_told; j++)
        progress |= best_result_note(&s->best, s->children[j].rank, s->children[j].objective);
    s->stale_generations = progress ? 0 : s->stale_generations + 1;
    /* A population that has stopped improving has converged on one basin:
     * the next generation is random configurations beside the elites, so a
     * deceptive basin cannot hold the search. */
    s->reseeding = s->stagnation && s->stale_generations >= s->stagnation;
    if (s->reseeding) s->stale_generations = 0;
    qsort(s->population, s->population_count, sizeof *s->population, compare_individuals);
    if (elites > s->population_count) elites = s->population_count;
    size_t count = elites;
    for (size_t j = 0; j < s->children_told && count < s->population_size; j++)
        s->population[count++] = s->children[j];
    s->population_count = count;
    s->children_count = 0;
    s->children_told = 0;
    rank_set_clear(&s->children_ranks);
}

static strategy_answer propose(evolution_state *s, uint64_t rank, uint64_t *out)
{
    if (rank_set_insert(&s->children_ranks, rank) < 0) s->degraded = true;
    s->children[s->children_count++] = (individual){rank, INFINITY};
    s->awaiting_tell = true;
    *out = rank;
    return STRATEGY_PROPOSE;
}

static strategy_answer evolution_ask(void *state, uint64_t *rank)
{
    evolution_state *s = state;
    s->awaiting_tell = false;
    if (s->degraded) {
        /* Keep proposing, without the bookkeeping that ran out of memory. */
        return random_unvisited(s->space, s->history, NULL, &s->rng, rank) ? STRATEGY_PROPOSE
                                                                            : STRATEGY_DONE;
    }
    if (!s->initialised) {
        /* The first generation: random configurations, bred into `children`
         * like any other generation and promoted whole. */
        if (s->children_count < s->population_size &&
            random_unvisited(s->space, s->history, &s->children_ranks, &s->rng, rank))
            return propose(s, *rank, rank);
        if (s->children_told == 0) return STRATEGY_DONE;
        s->initialised = true;
        next_generation(s, 0);
    }
    if (s->children_count + s->elitism >= s->population_size) next_generation(s, s->elitism);
    bool bred = s->reseeding
                    ? random_unvisited(s->space, s->history, &s->children_ranks, &s->rng, rank)
                    : breed(s, rank);
    if (!bred) return STRATEGY_DONE;
    return propose(s, *rank, rank);
}

static void evolution_tell(void *state, uint64_t rank, double objective)
{
    evolution_state *s = state;
    if (!s->awaiting_tell || s->children_count == 0) return;
    s->awaiting_tell = false;
    individual *child = &s->children[s->children_count - 1];
    if (child->rank != rank) return;
    child->objective = objective_or_failure(objective);
    s->children_told = s->children_count;
}

static void evolution_destroy(void *state)
{
    evolution_state *s = state;
    if (!s) return;
    free(s->population);
    free(s->children);
    rank_set_free(&s->children_ranks);
    free(s->child);
    free(s->other);
    free(s);
}

/* A duplicate of n items of `size` bytes, or NULL when out of memory. */
static void *duplicate(const void *items, size_t n, size_t size)
{
    void *copy = calloc(n ? n : 1, size);
    if (copy && n) memcpy(copy, items, n * size);
    return copy;
}

static void *evolution_copy(const void *state, const history *layer)
{
    const evolution_state *s = state;
    evolution_state *copy = malloc(sizeof *copy);
    if (!copy) return NULL;
    *copy = *s;
    copy->history = layer;
    copy->population = duplicate(s->population, s->population_size, sizeof *s->population);
    copy->children = duplicate(s->children, s->population_size, sizeof *s->children);
    copy->child = calloc(s->n_params + 1, sizeof *copy->child);
    copy->other = calloc(s->n_params + 1, sizeof *copy->other);
    bool copied = rank_set_copy(&copy->children_ranks, &s->children_ranks) == 0;
    if (!copied || !copy->population || !copy->children || !copy->child || !copy->other) {
        evolution_destroy(copy);
        return NULL;
    }
    return copy;
}

static const simulation_ops evolution_simulation = {evolution_copy, evolution_ask, evolution_tell,
                                                    evolution_destroy};

/* The rest of the generation by simulation: its parents are fixed, so its
 * children follow from the generator and the history alone, whatever
 * their results, and are named exactly. The next generation's parents
 * depend on those results, which are known by then except the pending
 * child's and the ones still to come: one run assumes the pending child is
 * slower than any, another that it is faster than any, and both that the
 * rest are slower, so the next generation is named only as far as that
 * holds. */
static size_t evolution_upcoming(void *state, uint64_t *ranks, size_t max)
{
    const evolution_state *s = state;
    static const double outcomes[] = {SIMULATED_SLOW, SIMULATED_FAST};
    const uint64_t *pending =
        s->awaiting_tell && s->children_count > 0 ? &s->children[s->children_count - 1].rank : NULL;
    return simulate_upcoming(s, s->history, &evolution_simulation, pending, outcomes, 2, ranks,
                             max);
}

static size_t auto_population(uint64_t budget)
{
    if (budget == 0) return AUTO_POPULATION_UNKNOWN_BUDGET;
    uint64_t size = budget / AUTO_POPULATION_DIVISOR;
    if (size < AUTO_POPULATION_MIN) return AUTO_POPULATION_MIN;
    if (size > AUTO_POPULATION_MAX) return AUTO_POPULATION_MAX;
    return (size_t)size;
}

static int evolution_create(const strategy_setup *setup, const strategy_options *options,
                            void **state, skytune_error *err)
{
    int64_t population = strategy_option_int(options, "population");
    int64_t tournament = strategy_option_int(options, "tournament");
    int64_t elitism = strategy_option_int(options, "elitism");
    double crossover = strategy_option_double(options, "crossover");
    double mutation = strategy_option_double(options, "mutation");
    double adjacent = strategy_option_double(options, "adjacent_mutation");
    int64_t stagnation = strategy_option_int(options, "stagnation");
    if (population < 0 || population == 1)
        return err_set(err, "option population must be 0 (automatic) or 2 or more");
    if (tournament < 1) return err_set(err, "option tournament must be 1 or more");
    size_t size = population ? (size_t)population : auto_population(setup->budget);
    if (elitism < 0 || (size_t)elitism >= size)
        return err_set(err, "option elitism must be from 0 to the population size less one (%zu)",
                       size - 1);
    if (!(crossover >= 0 && crossover <= 1)) return err_set(err, "option crossover must be in 0..1");
    if (!(mutation >= 0 && mutation <= 1)) return err_set(err, "option mutation must be in 0..1");
    if (!(adjacent >= 0 && adjacent <= 1))
        return err_set(err, "option adjacent_mutation must be in 0..1");
    if (stagnation < 0) return err_set(err, "option stagnation must be 0 or more");

    evolution_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->space = setup->space;
    s->history = setup->history;
    s->n_params = space_param_count(setup->space);
    s->population_size = size;
    s->tournament = (size_t)tournament;
    s->elitism = (size_t)elitism;
    s->crossover = crossover;
    s->mutation = mutation;
    s->adjacent_mutation = adjacent;
    s->stagnation = (size_t)stagnation;
    s->population = calloc(size, sizeof *s->population);
    s->children = calloc(size, sizeof *s->children);
    s->child = calloc(s->n_params + 1, sizeof *s->child);
    s->other = calloc(s->n_params + 1, sizeof *s->other);
    if (!s->population || !s->children || !s->child || !s->other) {
        evolution_destroy(s);
        return err_set(err, "out of memory");
    }
    pcg32_seed(&s->rng, setup->seed, 0x65766f6c7665ULL /* "evolve" */);
    *state = s;
    return 0;
}

const strategy_ops strategy_evolutionary = {
    .name = "evolutionary",
    .summary = "genetic algorithm: tournament selection, uniform crossover, mutation, repair",
    .options = evolution_options,
    .reads_budget = true, /* population=0 sizes the population from it */
    .create = evolution_create,
    .ask = evolution_ask,
    .tell = evolution_tell,
    .destroy = evolution_destroy,
    .upcoming = evolution_upcoming,
};
