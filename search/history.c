/* The history of evaluated configurations: rank -> objective, in insertion
 * order, with constant-time average lookup.
 *
 * Two structures share the work:
 *  - parallel arrays of ranks and objectives in the order they were added,
 *    which is what history_rank_at / history_objective_at walk;
 *  - an open-addressing hash table with linear probing whose slots hold the
 *    rank and its objective together, so a lookup touches a single slot
 *    array (one cache line in the common case) and never the arrays above.
 *
 * Objectives never change once recorded (re-adding keeps the first), so
 * keeping a copy in the table costs no consistency.
 *
 * An empty slot is marked by the rank UINT64_MAX. That rank is still a valid
 * key for callers, so it is stored beside the table instead of inside it.
 *
 * A layer (history_new_layer) is a history whose own entries come after a
 * base history's: every query reads through to the base first. That lets a
 * strategy simulate its next proposals against results it only assumes,
 * without copying a history that may hold hundreds of thousands of entries
 * or touching the campaign's own. */
#include "strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY_SLOT_RANK UINT64_MAX

/* Slot counts start here and double; a power of two makes the probe wrap a
 * mask instead of a division. */
#define INITIAL_SLOTS 16u
#define INITIAL_ENTRIES 8u

typedef struct history_slot {
    uint64_t rank;      /* EMPTY_SLOT_RANK when free */
    double objective;
} history_slot;

struct history {
    /* Insertion order. */
    uint64_t *ranks;
    double *objectives;
    size_t count;
    size_t entry_capacity;

    /* Hash table; slot_count is a power of two, slot_mask = slot_count - 1. */
    history_slot *slots;
    size_t slot_count;
    size_t slot_mask;
    size_t slots_used;

    /* The rank that doubles as the empty marker, when it has been added. */
    bool has_marker_rank;
    double marker_rank_objective;

    /* Index of the lowest finite objective in insertion order; meaningful
     * only when has_best. */
    bool has_best;
    size_t best_index;

    /* A layer's base, whose entries come before this history's own; NULL
     * for an ordinary history. */
    const history *base;
};

/* SplitMix64's finaliser (Stafford's Mix13 variant): every input bit affects
 * every output bit, so ranks that differ only in their high bits, or that
 * form arithmetic progressions (as dense ranks do), still spread over the
 * low bits the mask keeps. */
static inline uint64_t mix_rank(uint64_t rank)
{
    uint64_t z = rank;
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The slot holding rank, or the empty slot where it belongs. The table is
 * never more than half full, so the probe always reaches an empty slot. */
static inline history_slot *find_slot(history_slot *slots, size_t mask, uint64_t rank)
{
    size_t i = (size_t)mix_rank(rank) & mask;
    for (;;) {
        history_slot *slot = &slots[i];
        if (slot->rank == rank || slot->rank == EMPTY_SLOT_RANK) return slot;
        i = (i + 1) & mask;
    }
}

/* Mark every slot empty: with every byte 0xff, every rank reads UINT64_MAX. */
static void clear_slots(history_slot *slots, size_t slot_count)
{
    memset(slots, 0xff, slot_count * sizeof *slots);
}

history *history_new(void)
{
    history *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->ranks = malloc(INITIAL_ENTRIES * sizeof *h->ranks);
    h->objectives = malloc(INITIAL_ENTRIES * sizeof *h->objectives);
    h->slots = malloc(INITIAL_SLOTS * sizeof *h->slots);
    if (!h->ranks || !h->objectives || !h->slots) {
        history_free(h);
        return NULL;
    }
    clear_slots(h->slots, INITIAL_SLOTS);
    h->entry_capacity = INITIAL_ENTRIES;
    h->slot_count = INITIAL_SLOTS;
    h->slot_mask = INITIAL_SLOTS - 1;
    return h;
}

history *history_new_layer(const history *base)
{
    history *h = history_new();
    if (h) h->base = base;
    return h;
}

void history_free(history *h)
{
    if (!h) return;
    free(h->ranks);
    free(h->objectives);
    free(h->slots);
    free(h);
}

/* Room for one more entry in the insertion-order arrays. The two arrays are
 * grown one after the other; if the second fails, the first is merely larger
 * than entry_capacity says, which the next attempt tolerates. */
static int reserve_entry(history *h)
{
    if (h->count < h->entry_capacity) return 0;
    size_t limit = SIZE_MAX / 2 / sizeof(uint64_t);
    if (h->entry_capacity > limit) return -1;
    size_t capacity = h->entry_capacity * 2;

    uint64_t *ranks = realloc(h->ranks, capacity * sizeof *ranks);
    if (!ranks) return -1;
    h->ranks = ranks;
    double *objectives = realloc(h->objectives, capacity * sizeof *objectives);
    if (!objectives) return -1;
    h->objectives = objectives;
    h->entry_capacity = capacity;
    return 0;
}

/* The table is kept at most half full: linear probing slows sharply past
 * that, above all for lookups of ranks not yet evaluated, which strategies
 * ask about as often as known ones. */
static bool slots_would_overfill(const history *h)
{
    return (h->slots_used + 1) * 2 > h->slot_count;
}

/* Double the table and reinsert every rank.
 *
 * The table is grown in place with realloc and refilled from the
 * insertion-order arrays, which hold every rank and objective already, rather
 * than copied from the old table into a fresh one. For large tables the
 * allocator can then extend the existing mapping, so only the new half is
 * first-touched: page faults on fresh memory, not hashing, are what dominate
 * the cost of growth. On failure realloc leaves the old table untouched. */
static int grow_slots(history *h)
{
    if (h->slot_count > SIZE_MAX / 2 / sizeof(history_slot)) return -1;
    size_t slot_count = h->slot_count * 2;
    history_slot *slots = realloc(h->slots, slot_count * sizeof *slots);
    if (!slots) return -1;
    clear_slots(slots, slot_count);

    size_t mask = slot_count - 1;
    for (size_t k = 0; k < h->count; k++) {
        uint64_t rank = h->ranks[k];
        if (rank == EMPTY_SLOT_RANK) continue; /* kept beside the table */
        /* Ranks in the arrays are distinct: probe for the first empty slot
         * without comparing. */
        size_t i = (size_t)mix_rank(rank) & mask;
        while (slots[i].rank != EMPTY_SLOT_RANK) i = (i + 1) & mask;
        slots[i] = (history_slot){.rank = rank, .objective = h->objectives[k]};
    }
    h->slots = slots;
    h->slot_count = slot_count;
    h->slot_mask = mask;
    return 0;
}

/* Append to the insertion order and update the best. Space is reserved. */
static void append_entry(history *h, uint64_t rank, double objective)
{
    size_t index = h->count++;
    h->ranks[index] = rank;
    h->objectives[index] = objective;
    /* isfinite rejects +-infinity (failures) and NaN; strict < keeps the
     * earliest of equal bests, so the answer does not depend on later ties. */
    if (isfinite(objective) && (!h->has_best || objective < h->objectives[h->best_index])) {
        h->has_best = true;
        h->best_index = index;
    }
}

int history_add(history *h, uint64_t rank, double objective)
{
    if (h->base && history_lookup(h->base, rank, NULL)) return 0;
    if (rank == EMPTY_SLOT_RANK) {
        if (h->has_marker_rank) return 0;
        if (reserve_entry(h) != 0) return -1;
        h->has_marker_rank = true;
        h->marker_rank_objective = objective;
        append_entry(h, rank, objective);
        return 0;
    }

    history_slot *slot = find_slot(h->slots, h->slot_mask, rank);
    if (slot->rank == rank) return 0;

    /* Reserve everything before changing anything, so that running out of
     * memory leaves the history exactly as it was. */
    if (reserve_entry(h) != 0) return -1;
    if (slots_would_overfill(h)) {
        if (grow_slots(h) != 0) return -1;
        slot = find_slot(h->slots, h->slot_mask, rank);
    }
    slot->rank = rank;
    slot->objective = objective;
    h->slots_used++;
    append_entry(h, rank, objective);
    return 0;
}

bool history_lookup(const history *h, uint64_t rank, double *objective)
{
    if (!h) return false;
    if (h->base && history_lookup(h->base, rank, objective)) return true;
    double found;
    if (rank == EMPTY_SLOT_RANK) {
        if (!h->has_marker_rank) return false;
        found = h->marker_rank_objective;
    } else {
        const history_slot *slot = find_slot(h->slots, h->slot_mask, rank);
        if (slot->rank != rank) return false;
        found = slot->objective;
    }
    if (objective) *objective = found;
    return true;
}

size_t history_count(const history *h)
{
    return h ? history_count(h->base) + h->count : 0;
}

/* An index past the end is a caller's bug; answer values that cannot be
 * mistaken for a measurement (NaN objective) instead of reading outside the
 * arrays. */
uint64_t history_rank_at(const history *h, size_t k)
{
    size_t below = h ? history_count(h->base) : 0;
    if (k < below) return history_rank_at(h->base, k);
    if (!h || k - below >= h->count) return EMPTY_SLOT_RANK;
    return h->ranks[k - below];
}

double history_objective_at(const history *h, size_t k)
{
    size_t below = h ? history_count(h->base) : 0;
    if (k < below) return history_objective_at(h->base, k);
    if (!h || k - below >= h->count) return NAN;
    return h->objectives[k - below];
}

bool history_best(const history *h, uint64_t *rank, double *objective)
{
    if (!h) return false;
    uint64_t base_rank;
    double base_objective;
    bool base_has = history_best(h->base, &base_rank, &base_objective);
    /* The base's entries come first: on a tie its best stays the earliest. */
    if (h->has_best && (!base_has || h->objectives[h->best_index] < base_objective)) {
        base_rank = h->ranks[h->best_index];
        base_objective = h->objectives[h->best_index];
        base_has = true;
    }
    if (!base_has) return false;
    if (rank) *rank = base_rank;
    if (objective) *objective = base_objective;
    return true;
}
