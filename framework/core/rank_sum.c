#include "rank_sum.h"

#include <math.h>
#include <stdlib.h>

typedef struct ranked {
    double value;
    int from_a;
} ranked;

static int compare_ranked(const void *x, const void *y)
{
    double a = ((const ranked *)x)->value, b = ((const ranked *)y)->value;
    return (a > b) - (a < b);
}

/* Twice the mid-rank of every pooled run (integers even with ties), in
 * sorted order; the tie term sum(t^3 - t) for the normal approximation. */
static void doubled_ranks(const ranked *r, size_t n, long *rank2, double *ties)
{
    *ties = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && r[j + 1].value == r[i].value) j++;
        /* Ranks i+1 .. j+1 share their mean, (i + j + 2) / 2. */
        for (size_t k = i; k <= j; k++) rank2[k] = (long)(i + j + 2);
        double t = (double)(j - i + 1);
        *ties += t * t * t - t;
        i = j + 1;
    }
}

/* Exact: the number of ways each doubled rank sum arises when na of the n
 * pooled runs are chosen, by counting subsets item by item; the p-value
 * of the sum observed, both tails. */
static double exact_p(const long *rank2, size_t n, size_t na, long observed)
{
    long max_sum = 0;
    for (size_t k = 0; k < n; k++) max_sum += rank2[k];
    size_t width = (size_t)max_sum + 1;
    double *ways = calloc((na + 1) * width, sizeof *ways);
    if (!ways) return NAN;
    ways[0] = 1.0;
    for (size_t item = 0; item < n; item++)
        for (size_t j = (item + 1 < na ? item + 1 : na); j >= 1; j--)
            for (long s = max_sum; s >= rank2[item]; s--)
                ways[j * width + (size_t)s] += ways[(j - 1) * width + (size_t)(s - rank2[item])];
    double total = 0.0, below = 0.0, above = 0.0;
    for (long s = 0; s <= max_sum; s++) {
        double w = ways[na * width + (size_t)s];
        total += w;
        if (s <= observed) below += w;
        if (s >= observed) above += w;
    }
    free(ways);
    double p = 2.0 * fmin(below, above) / total;
    return p > 1.0 ? 1.0 : p;
}

/* Normal approximation with the tie correction and a continuity
 * correction of half a rank (one in doubled ranks). */
static double normal_p(size_t na, size_t nb, long observed2, double ties)
{
    double n = (double)(na + nb);
    double mean2 = (double)na * (n + 1.0);
    double var = (double)na * (double)nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if (!(var > 0.0)) return 1.0;
    double d = fabs((double)observed2 - mean2) - 1.0;
    if (d < 0.0) d = 0.0;
    double z = d / 2.0 / sqrt(var);
    double p = erfc(z / sqrt(2.0));
    return p > 1.0 ? 1.0 : p;
}

double rank_sum_p(const double *a, size_t na, const double *b, size_t nb)
{
    if (na == 0 || nb == 0) return 1.0;
    size_t n = na + nb;
    ranked *r = malloc(n * sizeof *r);
    long *rank2 = malloc(n * sizeof *rank2);
    if (!r || !rank2) {
        free(r);
        free(rank2);
        return NAN;
    }
    for (size_t k = 0; k < na; k++) r[k] = (ranked){a[k], 1};
    for (size_t k = 0; k < nb; k++) r[na + k] = (ranked){b[k], 0};
    qsort(r, n, sizeof *r, compare_ranked);
    double ties;
    doubled_ranks(r, n, rank2, &ties);
    long observed = 0;
    for (size_t k = 0; k < n; k++)
        if (r[k].from_a) observed += rank2[k];
    double p = n <= RANK_SUM_EXACT_LIMIT ? exact_p(rank2, n, na, observed)
                                         : normal_p(na, nb, observed, ties);
    free(r);
    free(rank2);
    return p;
}
