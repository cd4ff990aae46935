/* Normalised ranks. See ranks.h. */
#include "ranks.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* How many of the sorted values are below x (inclusive: not above it). */
static size_t count_below(const double *sorted, size_t n, double x, bool inclusive)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < x || (inclusive && sorted[mid] == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void normalised_ranks(const double *values, size_t n, double *position, double *sorted)
{
    memcpy(sorted, values, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    for (size_t i = 0; i < n; i++) {
        size_t below = count_below(sorted, n, values[i], false);
        size_t upto = count_below(sorted, n, values[i], true);
        double rank = ((double)below + (double)upto + 1.0) / 2.0;
        position[i] = rank / ((double)n + 1.0);
    }
}
