/* random: uniform sampling of valid configurations without replacement.
 *
 * A sparse Fisher–Yates shuffle over ranks: position i of the virtual
 * permutation is swapped with a uniform position j >= i, and only swapped
 * positions are stored. Each draw costs O(1) and the memory grows with the
 * number of draws, not the size of the space, so it works the same on 10^3
 * and 10^12 configurations and never repeats one. */
#include <stdlib.h>

#include "strategy.h"

typedef struct swap_entry {
    uint64_t key;     /* position + 1; 0 marks an empty slot */
    uint64_t value;
} swap_entry;

typedef struct random_state {
    const space *space;
    const history *history;
    pcg32 rng;
    uint64_t drawn;   /* positions of the permutation consumed */
    swap_entry *table;
    size_t capacity;  /* power of two */
    size_t used;
} random_state;

static size_t slot_of(uint64_t key, size_t capacity)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (capacity - 1);
}

static swap_entry *find_slot(swap_entry *table, size_t capacity, uint64_t position)
{
    size_t k = slot_of(position + 1, capacity);
    while (table[k].key != 0 && table[k].key != position + 1) k = (k + 1) & (capacity - 1);
    return &table[k];
}

static int grow(random_state *s)
{
    size_t capacity = s->capacity ? 2 * s->capacity : 64;
    swap_entry *table = calloc(capacity, sizeof *table);
    if (!table) return -1;
    for (size_t k = 0; k < s->capacity; k++)
        if (s->table[k].key) *find_slot(table, capacity, s->table[k].key - 1) = s->table[k];
    free(s->table);
    s->table = table;
    s->capacity = capacity;
    return 0;
}

static uint64_t value_at(const random_state *s, uint64_t position)
{
    if (!s->capacity) return position;
    swap_entry *e = find_slot(s->table, s->capacity, position);
    return e->key ? e->value : position;
}

static int store_at(random_state *s, uint64_t position, uint64_t value)
{
    if (2 * (s->used + 1) > s->capacity && grow(s) != 0) return -1;
    swap_entry *e = find_slot(s->table, s->capacity, position);
    if (!e->key) {
        e->key = position + 1;
        s->used++;
    }
    e->value = value;
    return 0;
}

static int random_create(const strategy_setup *setup, const strategy_options *options,
                         void **state, skytune_error *err)
{
    random_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->space = setup->space;
    s->history = setup->history;
    pcg32_seed(&s->rng, setup->seed, 0x72616e646f6dULL /* "random" */);
    *state = s;
    return 0;
}

static strategy_answer random_ask(void *state, uint64_t *rank)
{
    random_state *s = state;
    uint64_t count = space_count(s->space);
    while (s->drawn < count) {
        uint64_t i = s->drawn;
        uint64_t j = i + pcg32_bounded64(&s->rng, count - i);
        uint64_t chosen = value_at(s, j);
        if (store_at(s, j, value_at(s, i)) != 0) return STRATEGY_DONE;
        s->drawn++;
        if (!history_lookup(s->history, chosen, NULL)) {
            *rank = chosen;
            return STRATEGY_PROPOSE;
        }
    }
    return STRATEGY_DONE;
}

static void random_tell(void *state, uint64_t rank, double objective)
{
}

/* Draws a prediction makes per rank it may name: a resumed campaign's
 * ranks are drawn and passed over without being proposed. */
#define UPCOMING_DRAWS_PER_RANK 8
#define UPCOMING_EXTRA_DRAWS 64

/* The value at `position` with the swaps of a prediction (in `overlay`)
 * over the stored ones. */
static uint64_t overlaid_value(const random_state *s, swap_entry *overlay, size_t capacity,
                               uint64_t position)
{
    swap_entry *e = find_slot(overlay, capacity, position);
    return e->key ? e->value : value_at(s, position);
}

/* Exactly the next proposals: the shuffle's next draws replayed on a copy
 * of the generator, their swaps kept in a table of their own so that the
 * stored permutation is only read. Draws of ranks the history holds are
 * passed over as ask passes them over; up to UPCOMING_DRAWS_PER_RANK draws
 * per rank asked for, so a prediction deep in a resumed campaign may name
 * fewer. */
static size_t random_upcoming(void *state, uint64_t *ranks, size_t max)
{
    const random_state *s = state;
    uint64_t count = space_count(s->space);
    if (s->drawn >= count) return 0;
    size_t limit = SIZE_MAX / 4 / sizeof(swap_entry);
    size_t draws = max < (limit - UPCOMING_EXTRA_DRAWS) / UPCOMING_DRAWS_PER_RANK
                       ? max * UPCOMING_DRAWS_PER_RANK + UPCOMING_EXTRA_DRAWS
                       : limit;
    if (draws > count - s->drawn) draws = (size_t)(count - s->drawn);
    size_t capacity = 64;
    while (capacity < 2 * draws) capacity *= 2;
    swap_entry *overlay = calloc(capacity, sizeof *overlay);
    if (!overlay) return 0;
    pcg32 rng = s->rng;
    size_t n = 0;
    for (uint64_t i = s->drawn; i < s->drawn + draws && n < max; i++) {
        uint64_t j = i + pcg32_bounded64(&rng, count - i);
        uint64_t chosen = overlaid_value(s, overlay, capacity, j);
        uint64_t moved = overlaid_value(s, overlay, capacity, i);
        swap_entry *e = find_slot(overlay, capacity, j);
        *e = (swap_entry){.key = j + 1, .value = moved};
        if (!history_lookup(s->history, chosen, NULL)) ranks[n++] = chosen;
    }
    free(overlay);
    return n;
}

static void random_destroy(void *state)
{
    random_state *s = state;
    free(s->table);
    free(s);
}

const strategy_ops strategy_random = {
    .name = "random",
    .summary = "uniform random sampling without replacement",
    .options = NULL,
    .create = random_create,
    .ask = random_ask,
    .tell = random_tell,
    .destroy = random_destroy,
    .upcoming = random_upcoming,
};
