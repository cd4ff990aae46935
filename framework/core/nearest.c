#include "nearest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longer names are no slips of a typed word: their distance is not
 * computed, and reads as too far. */
#define NEAREST_MAX_LEN 256

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

static int same(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

size_t nearest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > NEAREST_MAX_LEN || lb > NEAREST_MAX_LEN) return (size_t)-1;
    /* Three rows of the table: a swap looks two rows back. */
    size_t rows[3][NEAREST_MAX_LEN + 1];
    size_t *before = rows[0], *previous = rows[1], *current = rows[2];
    for (size_t j = 0; j <= lb; j++) previous[j] = j;
    for (size_t i = 1; i <= la; i++) {
        current[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
            current[j] = min3(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) &&
                before[j - 2] + 1 < current[j])
                current[j] = before[j - 2] + 1;
        }
        size_t *spare = before;
        before = previous;
        previous = current;
        current = spare;
    }
    return previous[lb];
}

const char *nearest_name(const char *given, const char *const *names, size_t n)
{
    if (!given) return NULL;
    size_t len = strlen(given);
    size_t limit = len / 3 ? len / 3 : 1;
    const char *best = NULL;
    size_t best_distance = 0;
    for (size_t k = 0; k < n; k++) {
        if (!names[k]) continue;
        size_t d = nearest_distance(given, names[k]);
        if (d > limit || d >= len || d >= strlen(names[k])) continue;
        if (!best || d < best_distance) {
            best = names[k];
            best_distance = d;
        }
    }
    return best;
}

const char *nearest_hint(const char *given, const char *const *names, size_t n,
                         const char *prefix, char *buf, size_t len)
{
    const char *name = nearest_name(given, names, n);
    if (len) buf[0] = '\0';
    if (name && len)
        snprintf(buf, len, " (did you mean '%s%s'?)", prefix ? prefix : "", name);
    return buf;
}
