/* A map from configuration ranks to small indices, of a capacity fixed at
 * creation, with removal: bayes's acquisition search asks of every
 * configuration it steps to whether it is a candidate already, and where,
 * while the candidates in its slots come and go. */
#ifndef SKYTUNE_RANK_MAP_H
#define SKYTUNE_RANK_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Open addressing with linear probing, at most half full; a removal shifts
 * the entries after it back, so that no tombstones slow later lookups.
 * Zero-initialised is unusable: call rank_map_init. */
typedef struct rank_map {
    uint64_t *keys;       /* rank + 1; 0 marks an empty slot */
    uint32_t *values;
    size_t capacity;      /* a power of two */
    size_t count, max;
} rank_map;

/* Room for `max` entries; -1 when out of memory. */
int rank_map_init(rank_map *m, size_t max);
void rank_map_free(rank_map *m);

bool rank_map_get(const rank_map *m, uint64_t rank, uint32_t *value);
/* Sets rank's value, adding it if absent; -1 when the map holds `max`
 * entries already and rank is not one of them. */
int rank_map_put(rank_map *m, uint64_t rank, uint32_t value);
/* Removes rank if present. */
void rank_map_remove(rank_map *m, uint64_t rank);

#endif
