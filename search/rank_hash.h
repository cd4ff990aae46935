/* Where a rank goes in an open-addressing table of a power-of-two
 * capacity: ranks of neighbouring configurations differ in a few low bits,
 * so they are mixed (MurmurHash3's 64-bit finaliser) before being masked.
 * Shared by the rank set (neighbourhood.c) and the rank map (rank_map.c). */
#ifndef SKYTUNE_RANK_HASH_H
#define SKYTUNE_RANK_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline size_t rank_hash_slot(uint64_t key, size_t capacity)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return (size_t)key & (capacity - 1);
}

#endif
