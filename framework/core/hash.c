#include "hash.h"

#define FNV1A_PRIME UINT64_C(0x100000001b3)

uint64_t hash_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < len; k++) h = (h ^ p[k]) * FNV1A_PRIME;
    return h;
}
