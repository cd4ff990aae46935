/* A map from ranks to indices; see rank_map.h. */
#include "rank_map.h"
#include "rank_hash.h"

#include <stdlib.h>

/* Where key is, or the empty slot where it would go. */
static size_t find(const rank_map *m, uint64_t key)
{
    size_t k = rank_hash_slot(key, m->capacity);
    while (m->keys[k] != 0 && m->keys[k] != key) k = (k + 1) & (m->capacity - 1);
    return k;
}

int rank_map_init(rank_map *m, size_t max)
{
    *m = (rank_map){0};
    size_t capacity = 16;
    while (capacity < 2 * max) capacity *= 2;
    m->keys = calloc(capacity, sizeof *m->keys);
    m->values = malloc(capacity * sizeof *m->values);
    if (!m->keys || !m->values) {
        rank_map_free(m);
        return -1;
    }
    m->capacity = capacity;
    m->max = max;
    return 0;
}

void rank_map_free(rank_map *m)
{
    free(m->keys);
    free(m->values);
    *m = (rank_map){0};
}

bool rank_map_get(const rank_map *m, uint64_t rank, uint32_t *value)
{
    if (m->capacity == 0) return false;
    size_t k = find(m, rank + 1);
    if (m->keys[k] == 0) return false;
    *value = m->values[k];
    return true;
}

int rank_map_put(rank_map *m, uint64_t rank, uint32_t value)
{
    if (m->capacity == 0) return -1;
    size_t k = find(m, rank + 1);
    if (m->keys[k] == 0) {
        if (m->count == m->max) return -1;
        m->keys[k] = rank + 1;
        m->count++;
    }
    m->values[k] = value;
    return 0;
}

void rank_map_remove(rank_map *m, uint64_t rank)
{
    if (m->capacity == 0) return;
    size_t mask = m->capacity - 1, hole = find(m, rank + 1);
    if (m->keys[hole] == 0) return;
    m->count--;
    /* Backward shift: an entry after the hole moves into it unless its
     * home lies cyclically in (hole, its slot], where a lookup would stop
     * at the hole before reaching it. */
    for (size_t k = (hole + 1) & mask; m->keys[k] != 0; k = (k + 1) & mask) {
        size_t home = rank_hash_slot(m->keys[k], m->capacity);
        bool stays = hole <= k ? (hole < home && home <= k) : (hole < home || home <= k);
        if (stays) continue;
        m->keys[hole] = m->keys[k];
        m->values[hole] = m->values[k];
        hole = k;
    }
    m->keys[hole] = 0;
}
