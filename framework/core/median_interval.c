#include "median_interval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Below this many runs the binomial terms are C(n, k) 2^-n computed term
 * by term, exactly while C(n, k) fits a double's mantissa (n up to about
 * 50: 3 runs give 0.75, not 0.7500000000000001); beyond it 2^-n would
 * underflow, and logarithms take over. */
#define EXACT_TERMS_LIMIT 1000

/* P(B = k) for B ~ binomial(n, 1/2), through logarithms. */
static double binomial_half_ln(size_t n, size_t k)
{
    double ln = lgamma((double)n + 1.0) - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0) -
                (double)n * log(2.0);
    return exp(ln);
}

double median_interval_coverage(size_t n, size_t rank)
{
    /* The rank-th smallest run lies above the median when fewer than rank
     * runs fall below it; the same for the largest, by symmetry. */
    double tail = 0.0;
    if (n <= EXACT_TERMS_LIMIT) {
        double term = ldexp(1.0, -(int)n);   /* P(B = 0) */
        for (size_t k = 0; k + 1 <= rank && k <= n; k++) {
            tail += term;
            term = term * (double)(n - k) / (double)(k + 1);
        }
    } else {
        for (size_t k = 0; k + 1 <= rank && k <= n; k++) tail += binomial_half_ln(n, k);
    }
    double coverage = 1.0 - 2.0 * tail;
    return coverage < 0.0 ? 0.0 : coverage;
}

int median_interval_of(const double *x, size_t n, double level, median_interval *out)
{
    if (n < 2 || !(level > 0.0 && level < 1.0)) return -1;
    /* The widest pair first; a narrower one (a higher rank) while it still
     * covers the level. */
    size_t rank = 1;
    while (rank + 1 <= n / 2 && median_interval_coverage(n, rank + 1) >= level) rank++;
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted) return -1;
    memcpy(sorted, x, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    out->low = sorted[rank - 1];
    out->high = sorted[n - rank];
    out->coverage = median_interval_coverage(n, rank);
    out->rank = rank;
    free(sorted);
    return 0;
}
