#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorting a copy is fine: timed runs number in the tens. Small counts use a
 * stack buffer so the measurement path does not allocate. */
static double median_of_sorted(const double *s, size_t n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* The value at fraction q of the sorted values, between neighbours. */
static double quantile_of_sorted(const double *s, size_t n, double q)
{
    double at = q * (double)(n - 1);
    size_t below = (size_t)floor(at);
    if (below >= n - 1) below = n - 1;
    double above = below + 1 < n ? s[below + 1] : s[below];
    return s[below] + (at - (double)below) * (above - s[below]);
}

/* `of_sorted` applied to a sorted copy of x (n >= 1); NAN when out of
 * memory. */
static double of_sorted_copy(const double *x, size_t n, double q,
                             double (*of_sorted)(const double *, size_t, double))
{
    double local[64];
    double *copy = n <= 64 ? local : malloc(n * sizeof *copy);
    if (!copy) return NAN;
    memcpy(copy, x, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, compare_doubles);
    double v = of_sorted(copy, n, q);
    if (copy != local) free(copy);
    return v;
}

static double median_of_sorted_q(const double *s, size_t n, double q)
{
    (void)q;
    return median_of_sorted(s, n);
}

double stats_median(const double *x, size_t n)
{
    return n == 0 ? NAN : of_sorted_copy(x, n, 0.5, median_of_sorted_q);
}

double stats_quantile(const double *x, size_t n, double q)
{
    return n == 0 ? NAN : of_sorted_copy(x, n, q, quantile_of_sorted);
}

int stats_summarise(const double *x, size_t n, stats_summary *out)
{
    if (n == 0) return -1;
    double sum = 0.0, lo = x[0], hi = x[0];
    for (size_t k = 0; k < n; k++) {
        sum += x[k];
        if (x[k] < lo) lo = x[k];
        if (x[k] > hi) hi = x[k];
    }
    double mean = sum / (double)n;
    /* Two-pass variance: numerically stable for the nearly equal values that
     * repeated timings are. */
    double ss = 0.0;
    for (size_t k = 0; k < n; k++) ss += (x[k] - mean) * (x[k] - mean);
    out->mean = mean;
    out->min = lo;
    out->max = hi;
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    out->median = stats_median(x, n);
    return isnan(out->median) ? -1 : 0;
}
