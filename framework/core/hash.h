/* FNV-1a, 64 bits: the one non-cryptographic hash of identities (build
 * identities, cache keys, space texts). It detects change, not tampering. */
#ifndef SKYTUNE_HASH_H
#define SKYTUNE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV1A_OFFSET UINT64_C(0xcbf29ce484222325)

/* h continued over data; start from HASH_FNV1A_OFFSET. */
uint64_t hash_fnv1a(uint64_t h, const void *data, size_t len);

#endif
