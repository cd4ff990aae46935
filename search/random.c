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
};
