/* Shared helpers of the search strategies; see neighbourhood.h. */
#include "neighbourhood.h"
#include "rank_hash.h"

#include <stdlib.h>
#include <string.h>

/* Index vectors of up to this many parameters live on the stack. */
#define STACK_PARAMS 64

/* Rejection samples random_unvisited draws before it scans. */
#define UNVISITED_SAMPLE_TRIES 64

/* ------------------------------------------------------------ rank sets */

static size_t probe(const uint64_t *slots, size_t capacity, uint64_t key)
{
    size_t k = rank_hash_slot(key, capacity);
    while (slots[k] != 0 && slots[k] != key) k = (k + 1) & (capacity - 1);
    return k;
}

static int rank_set_grow(rank_set *set)
{
    size_t capacity = set->capacity ? 2 * set->capacity : 32;
    uint64_t *slots = calloc(capacity, sizeof *slots);
    if (!slots) return -1;
    for (size_t k = 0; k < set->capacity; k++)
        if (set->slots[k]) slots[probe(slots, capacity, set->slots[k])] = set->slots[k];
    free(set->slots);
    set->slots = slots;
    set->capacity = capacity;
    return 0;
}

int rank_set_insert(rank_set *set, uint64_t rank)
{
    if (rank_set_contains(set, rank)) return 0;
    if (2 * (set->count + 1) > set->capacity && rank_set_grow(set) != 0) return -1;
    set->slots[probe(set->slots, set->capacity, rank + 1)] = rank + 1;
    set->count++;
    return 1;
}

int rank_set_copy(rank_set *copy, const rank_set *set)
{
    *copy = (rank_set){0};
    if (set->capacity == 0) return 0;
    copy->slots = malloc(set->capacity * sizeof *copy->slots);
    if (!copy->slots) return -1;
    memcpy(copy->slots, set->slots, set->capacity * sizeof *copy->slots);
    copy->capacity = set->capacity;
    copy->count = set->count;
    return 0;
}

bool rank_set_contains(const rank_set *set, uint64_t rank)
{
    if (!set || set->count == 0) return false;
    return set->slots[probe(set->slots, set->capacity, rank + 1)] == rank + 1;
}

void rank_set_clear(rank_set *set)
{
    if (set->slots) memset(set->slots, 0, set->capacity * sizeof *set->slots);
    set->count = 0;
}

void rank_set_free(rank_set *set)
{
    free(set->slots);
    *set = (rank_set){0};
}

/* ----------------------------------------------------------- rank lists */

static int rank_list_reserve(rank_list *list, size_t needed)
{
    if (needed <= list->capacity) return 0;
    size_t capacity = list->capacity ? list->capacity : 16;
    while (capacity < needed) capacity *= 2;
    uint64_t *items = realloc(list->items, capacity * sizeof *items);
    if (!items) return -1;
    list->items = items;
    list->capacity = capacity;
    return 0;
}

int rank_list_push(rank_list *list, uint64_t rank)
{
    if (rank_list_reserve(list, list->count + 1) != 0) return -1;
    list->items[list->count++] = rank;
    return 0;
}

int rank_list_copy(rank_list *copy, const rank_list *list)
{
    *copy = (rank_list){0};
    if (list->count == 0) return 0;
    if (rank_list_reserve(copy, list->count) != 0) return -1;
    memcpy(copy->items, list->items, list->count * sizeof *copy->items);
    copy->count = list->count;
    return 0;
}

void rank_list_free(rank_list *list)
{
    free(list->items);
    *list = (rank_list){0};
}

void shuffle_ranks(uint64_t *ranks, size_t count, pcg32 *rng)
{
    for (size_t i = count; i > 1; i--) {
        size_t j = (size_t)pcg32_bounded64(rng, i);
        uint64_t t = ranks[i - 1];
        ranks[i - 1] = ranks[j];
        ranks[j] = t;
    }
}

/* ------------------------------------------------------- neighbourhoods */

int parse_neighbourhood(const char *option, const char *text, neighbourhood_kind *kind,
                        skytune_error *err)
{
    if (strcmp(text, "adjacent-first") == 0)
        *kind = NEIGHBOURHOOD_ADJACENT_FIRST;
    else if (strcmp(text, "adjacent") == 0)
        *kind = NEIGHBOURHOOD_ADJACENT;
    else if (strcmp(text, "hamming") == 0)
        *kind = NEIGHBOURHOOD_HAMMING;
    else
        return err_set(err, "option %s='%s': valid values are " NEIGHBOURHOOD_CHOICES, option,
                       text);
    return 0;
}

/* Moves the adjacent neighbours of idx to the front of out (keeping their
 * order otherwise); returns how many there are. */
static size_t adjacent_to_front(const space *s, const uint16_t *idx, uint16_t *other,
                                rank_list *out)
{
    size_t n = space_param_count(s);
    size_t front = 0;
    for (size_t j = 0; j < out->count; j++) {
        space_unrank(s, out->items[j], other);
        bool adjacent = false;
        for (size_t k = 0; k < n; k++)
            if (other[k] != idx[k]) adjacent = other[k] + 1 == idx[k] || idx[k] + 1 == other[k];
        if (adjacent) {
            uint64_t t = out->items[front];
            out->items[front++] = out->items[j];
            out->items[j] = t;
        }
    }
    return front;
}

int shuffled_neighbours(const space *s, uint64_t rank, neighbourhood_kind kind, pcg32 *rng,
                        rank_list *out)
{
    size_t n = space_param_count(s);
    uint16_t stack[2 * STACK_PARAMS];
    uint16_t *idx = n <= STACK_PARAMS ? stack : malloc(2 * n * sizeof *idx);
    if (!idx) return -1;
    uint16_t *other = idx + n;
    space_unrank(s, rank, idx);
    space_neighbourhood moves = kind == NEIGHBOURHOOD_ADJACENT ? SPACE_ADJACENT : SPACE_HAMMING;
    int rc = 0;
    out->count = 0;
    size_t total = space_neighbours(s, idx, moves, out->items, out->capacity);
    if (total > out->capacity) {
        if (rank_list_reserve(out, total) != 0)
            rc = -1;
        else
            total = space_neighbours(s, idx, moves, out->items, out->capacity);
    }
    if (rc == 0) {
        out->count = total;
        size_t front = kind == NEIGHBOURHOOD_ADJACENT_FIRST ? adjacent_to_front(s, idx, other, out)
                                                            : 0;
        shuffle_ranks(out->items, front, rng);
        shuffle_ranks(out->items + front, out->count - front, rng);
    }
    if (idx != stack) free(idx);
    return rc;
}

static bool taken(const history *h, const rank_set *also_taken, uint64_t rank)
{
    return history_lookup(h, rank, NULL) || rank_set_contains(also_taken, rank);
}

bool random_unvisited(const space *s, const history *h, const rank_set *also_taken, pcg32 *rng,
                      uint64_t *rank)
{
    uint64_t count = space_count(s);
    if (count == 0) return false;
    for (int attempt = 0; attempt < UNVISITED_SAMPLE_TRIES; attempt++) {
        uint64_t r = space_sample(s, rng);
        if (!taken(h, also_taken, r)) {
            *rank = r;
            return true;
        }
    }
    /* Nearly everything is taken: a scan is cheaper than more rejections
     * and tells for certain when nothing is left. */
    uint64_t start = pcg32_bounded64(rng, count);
    for (uint64_t step = 0; step < count; step++) {
        uint64_t r = (start + step) % count;
        if (!taken(h, also_taken, r)) {
            *rank = r;
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------ index vectors */

void mutate_parameter(const space *s, uint16_t *idx, size_t k, double adjacent_probability,
                      pcg32 *rng)
{
    uint32_t values = (uint32_t)space_param(s, k)->count;
    if (values < 2) return;
    uint32_t current = idx[k];
    if (pcg32_double(rng) < adjacent_probability) {
        if (current == 0)
            idx[k] = 1;
        else if (current + 1 >= values)
            idx[k] = (uint16_t)(values - 2);
        else
            idx[k] = (uint16_t)(pcg32_bounded(rng, 2) ? current + 1 : current - 1);
    } else {
        uint32_t other = pcg32_bounded(rng, values - 1);
        idx[k] = (uint16_t)(other >= current ? other + 1 : other);
    }
}

void perturb_configuration(const space *s, uint16_t *idx, size_t strength, pcg32 *rng)
{
    size_t n = space_param_count(s);
    size_t eligible = 0;
    for (size_t k = 0; k < n; k++)
        if (space_param(s, k)->count > 1) eligible++;
    /* Selection sampling (Knuth's algorithm S): each eligible parameter is
     * chosen with probability still-needed / still-eligible, which picks a
     * uniform subset of `strength` without any scratch memory. */
    size_t needed = strength < eligible ? strength : eligible;
    for (size_t k = 0; k < n && needed > 0; k++) {
        if (space_param(s, k)->count < 2) continue;
        if (pcg32_bounded64(rng, eligible) < needed) {
            mutate_parameter(s, idx, k, 0.0, rng);
            needed--;
        }
        eligible--;
    }
}

/* --------------------------------------------------------------- repair */

bool rank_not_in_history(void *ctx, uint64_t rank)
{
    return !history_lookup(ctx, rank, NULL);
}

int kicked_configuration(const space *s, const history *h, uint64_t from, size_t strength,
                         pcg32 *rng, uint64_t *rank)
{
    size_t n = space_param_count(s);
    uint16_t stack[STACK_PARAMS];
    uint16_t *idx = n <= STACK_PARAMS ? stack : malloc(n * sizeof *idx);
    if (!idx) return -1;
    space_unrank(s, from, idx);
    perturb_configuration(s, idx, strength, rng);
    int found = repair_to_nearest(s, idx, REPAIR_NO_FIXED_PARAMETER, rank_not_in_history,
                                  (void *)h, rng, REPAIR_DEFAULT_STATES, rank);
    if (idx != stack) free(idx);
    return found;
}

/* A key identifying an index vector among those one repair explores: the
 * mixed-radix number of the vector when the Cartesian product fits in 63
 * bits, a 63-bit FNV-1a hash otherwise (a collision would only make the
 * search skip one vector). */
static uint64_t vector_key(const space *s, const uint16_t *idx, bool exact)
{
    size_t n = space_param_count(s);
    uint64_t key = exact ? 0 : 0xcbf29ce484222325ULL;
    for (size_t k = 0; k < n; k++) {
        if (exact)
            key = key * space_param(s, k)->count + idx[k];
        else
            key = (key ^ idx[k]) * 0x100000001b3ULL;
    }
    return key & (UINT64_MAX >> 1);
}

/* Parameter `fixed` (REPAIR_NO_FIXED_PARAMETER: none) and those marked in
 * `mask` (NULL: none) keep their values. */
static int repair(const space *s, const uint16_t *idx, size_t fixed, const bool *mask,
                  rank_filter accept, void *ctx, pcg32 *rng, size_t max_states, uint64_t *rank)
{
    size_t n = space_param_count(s);
    if (space_count(s) == 0 || max_states == 0) return 0;
    bool exact = space_cartesian_count(s) < (UINT64_MAX >> 1);
    uint16_t *queue = malloc(max_states * n * sizeof *queue);
    size_t *order = malloc(n * sizeof *order);
    rank_set seen = {0};
    int found = -1;
    if (!queue || !order) goto done;
    /* One random parameter order and direction per repair breaks ties
     * between equally near configurations without favouring parameter 0. */
    for (size_t k = 0; k < n; k++) order[k] = k;
    for (size_t i = n; i > 1; i--) {
        size_t j = pcg32_bounded(rng, (uint32_t)i);
        size_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    int first_step = pcg32_bounded(rng, 2) ? 1 : -1;

    memcpy(queue, idx, n * sizeof *queue);
    if (rank_set_insert(&seen, vector_key(s, idx, exact)) < 0) goto done;
    size_t head = 0, tail = 1;
    found = 0;
    while (head < tail) {
        uint16_t *state = queue + head * n;
        head++;
        uint64_t r;
        if (space_is_valid(s, state) && space_rank(s, state, &r) == 0 &&
            (!accept || accept(ctx, r))) {
            *rank = r;
            found = 1;
            break;
        }
        for (size_t o = 0; o < n && tail < max_states; o++) {
            size_t k = order[o];
            if (k == fixed || (mask && mask[k])) continue;
            uint32_t values = (uint32_t)space_param(s, k)->count;
            for (int d = 0; d < 2 && tail < max_states; d++) {
                int step = d == 0 ? first_step : -first_step;
                int moved = (int)state[k] + step;
                if (moved < 0 || moved >= (int)values) continue;
                uint16_t *next = queue + tail * n;
                memcpy(next, state, n * sizeof *next);
                next[k] = (uint16_t)moved;
                int added = rank_set_insert(&seen, vector_key(s, next, exact));
                if (added < 0) {
                    found = -1;
                    goto done;
                }
                if (added) tail++;
            }
        }
    }
done:
    rank_set_free(&seen);
    free(queue);
    free(order);
    return found;
}

int repair_to_nearest(const space *s, const uint16_t *idx, size_t fixed, rank_filter accept,
                      void *ctx, pcg32 *rng, size_t max_states, uint64_t *rank)
{
    return repair(s, idx, fixed, NULL, accept, ctx, rng, max_states, rank);
}

int repair_to_nearest_keeping(const space *s, const uint16_t *idx, const bool *fixed,
                              rank_filter accept, void *ctx, pcg32 *rng, size_t max_states,
                              uint64_t *rank)
{
    return repair(s, idx, REPAIR_NO_FIXED_PARAMETER, fixed, accept, ctx, rng, max_states, rank);
}

/* -------------------------------------------------------------- restarts */

int restart_policy_from_options(const strategy_options *options, restart_policy *policy,
                                skytune_error *err)
{
    const char *mode = strategy_option_string(options, "restart");
    int64_t strength = strategy_option_int(options, "perturbation");
    int64_t patience = strategy_option_int(options, "patience");
    if (strcmp(mode, "perturb") != 0 && strcmp(mode, "random") != 0)
        return err_set(err, "option restart='%s': valid values are " RESTART_CHOICES, mode);
    if (strength < 1) return err_set(err, "option perturbation must be 1 or more");
    if (patience < 0) return err_set(err, "option patience must be 0 or more");
    *policy = (restart_policy){.kicks = strcmp(mode, "perturb") == 0,
                               .strength = (size_t)strength,
                               .patience = (size_t)patience,
                               .best_at_last_restart = INFINITY};
    return 0;
}

int restart_point(restart_policy *policy, const space *s, const history *h,
                  const best_result *best, pcg32 *rng, uint64_t *rank)
{
    if (best->have && best->objective < policy->best_at_last_restart)
        policy->kicks_without_progress = 0;
    else
        policy->kicks_without_progress++;
    policy->best_at_last_restart = best->have ? best->objective : INFINITY;
    if (policy->kicks && best->have && policy->kicks_without_progress <= policy->patience) {
        int found = kicked_configuration(s, h, best->rank, policy->strength, rng, rank);
        if (found != 0) return found;
    }
    policy->kicks_without_progress = 0;
    return random_unvisited(s, h, NULL, rng, rank) ? 1 : 0;
}

/* ----------------------------------------------------------- local walks */

int local_walk_init(local_walk *w, const strategy_setup *setup, const strategy_options *options,
                    uint64_t stream, skytune_error *err)
{
    int64_t samples = strategy_option_int(options, "initial_samples");
    if (samples < 0) return err_set(err, "option initial_samples must be 0 or more");
    *w = (local_walk){.space = setup->space, .history = setup->history,
                      .initial_samples = (size_t)samples};
    if (restart_policy_from_options(options, &w->restarts, err) != 0) return -1;
    if (parse_neighbourhood("neighbourhood", strategy_option_string(options, "neighbourhood"),
                            &w->kind, err) != 0)
        return -1;
    size_t known = history_count(setup->history);
    w->samples_proposed = known < w->initial_samples ? known : w->initial_samples;
    w->best.have = history_best(setup->history, &w->best.rank, &w->best.objective);
    pcg32_seed(&w->rng, setup->seed, stream);
    return 0;
}

void local_walk_free(local_walk *w)
{
    rank_list_free(&w->neighbours);
}

int local_walk_copy(local_walk *copy, const local_walk *w, const history *layer)
{
    *copy = *w;
    copy->history = layer;
    return rank_list_copy(&copy->neighbours, &w->neighbours);
}

void local_walk_move(local_walk *w, uint64_t rank, double objective)
{
    w->walking = true;
    w->current = rank;
    w->current_objective = objective;
    w->next_neighbour = 0;
    w->candidate.have = false;
    if (shuffled_neighbours(w->space, rank, w->kind, &w->rng, &w->neighbours) != 0)
        w->degraded = true;
}

strategy_answer local_walk_propose(local_walk *w, walk_proposal kind, uint64_t rank,
                                   uint64_t *out)
{
    w->pending = kind;
    w->pending_rank = rank;
    *out = rank;
    return STRATEGY_PROPOSE;
}

strategy_answer local_walk_propose_random(local_walk *w, walk_proposal kind, uint64_t *out)
{
    uint64_t rank;
    if (!random_unvisited(w->space, w->history, NULL, &w->rng, &rank)) return STRATEGY_DONE;
    return local_walk_propose(w, kind, rank, out);
}

bool local_walk_begin(local_walk *w, uint64_t *out, strategy_answer *answer)
{
    if (!w->degraded && !w->walking) {
        if (w->samples_proposed < w->initial_samples) {
            w->samples_proposed++;
            *answer = local_walk_propose_random(w, WALK_SAMPLE, out);
            return true;
        }
        if (!w->best.have) {
            *answer = local_walk_propose_random(w, WALK_START, out);
            return true;
        }
        local_walk_move(w, w->best.rank, w->best.objective);
    }
    if (!w->degraded) return false;
    *answer = local_walk_propose_random(w, WALK_SAMPLE, out);
    return true;
}

strategy_answer local_walk_restart(local_walk *w, uint64_t *out)
{
    w->walking = false;
    uint64_t rank;
    int found = restart_point(&w->restarts, w->space, w->history, &w->best, &w->rng, &rank);
    if (found < 0) {
        w->degraded = true;
        return local_walk_propose_random(w, WALK_SAMPLE, out);
    }
    return found ? local_walk_propose(w, WALK_START, rank, out) : STRATEGY_DONE;
}

walk_proposal local_walk_told(local_walk *w, uint64_t rank, double objective)
{
    walk_proposal kind = rank == w->pending_rank ? w->pending : WALK_NONE;
    w->pending = WALK_NONE;
    if (kind != WALK_NEIGHBOUR) best_result_note(&w->best, rank, objective);
    if (kind == WALK_START) local_walk_move(w, rank, objective);
    return kind;
}

/* ------------------------------------------------------------ simulation */

/* Proposals the history already holds that one simulated run lets pass
 * (each is told its known result for free, as the campaign does) before
 * it stops: a strategy that keeps proposing known ones makes no progress. */
#define SIMULATION_KNOWN_PROPOSALS 256

/* One copy of the strategy and the layer it reads. */
typedef struct simulated_run {
    history *layer;
    void *copy;
    bool over;                 /* done proposing, or out of memory */
} simulated_run;

/* A run's next proposal not in the history: false when there is none. */
static bool simulated_step(simulated_run *run, const simulation_ops *ops, uint64_t *rank)
{
    size_t known_proposals = 0;
    while (!run->over) {
        double known;
        if (ops->ask(run->copy, rank) != STRATEGY_PROPOSE) break;
        if (history_lookup(run->layer, *rank, &known)) {
            ops->tell(run->copy, *rank, known);
            if (++known_proposals >= SIMULATION_KNOWN_PROPOSALS) break;
            continue;
        }
        if (history_add(run->layer, *rank, SIMULATED_SLOW) != 0) break;
        ops->tell(run->copy, *rank, SIMULATED_SLOW);
        return true;
    }
    run->over = true;
    return false;
}

/* The runs take their steps in turn, so that each is simulated only as far
 * as the list needs it. */
size_t simulate_upcoming(const void *state, const history *evaluated, const simulation_ops *ops,
                         const uint64_t *pending, const double *outcomes, size_t n_outcomes,
                         uint64_t *ranks, size_t max)
{
    double known;
    if (pending && history_lookup(evaluated, *pending, &known)) {
        /* The campaign tells a known configuration its recorded result. */
        outcomes = &known;
        n_outcomes = 1;
    }
    if (!pending || n_outcomes == 0) {
        pending = NULL;
        n_outcomes = 1;
    }
    simulated_run *runs = calloc(n_outcomes, sizeof *runs);
    if (!runs) return 0;
    for (size_t r = 0; r < n_outcomes; r++) {
        simulated_run *run = &runs[r];
        run->layer = history_new_layer(evaluated);
        run->copy = run->layer ? ops->copy(state, run->layer) : NULL;
        run->over = !run->copy ||
                    (pending && history_add(run->layer, *pending, outcomes[r]) != 0);
        if (!run->over && pending) ops->tell(run->copy, *pending, outcomes[r]);
    }
    rank_set named = {0};
    size_t n = 0, running = n_outcomes;
    while (n < max && running > 0) {
        running = 0;
        for (size_t r = 0; r < n_outcomes && n < max; r++) {
            uint64_t rank;
            if (!simulated_step(&runs[r], ops, &rank)) continue;
            running++;
            int added = rank_set_insert(&named, rank);
            if (added < 0) {
                running = 0;
                break;
            }
            if (added) ranks[n++] = rank;
        }
    }
    for (size_t r = 0; r < n_outcomes; r++) {
        if (runs[r].copy) ops->destroy(runs[r].copy);
        history_free(runs[r].layer);
    }
    free(runs);
    rank_set_free(&named);
    return n;
}
