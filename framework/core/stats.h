/* Summary statistics of timed runs. */
#ifndef SKYTUNE_STATS_H
#define SKYTUNE_STATS_H

#include <stddef.h>

typedef struct stats_summary {
    double median, min, max, mean, stddev; /* stddev: sample (n-1); 0 for n < 2 */
} stats_summary;

/* n > 0. Does not modify x. Median of an even count is the mean of the two
 * middle values. */
int stats_summarise(const double *x, size_t n, stats_summary *out);

double stats_median(const double *x, size_t n);

/* The q-quantile (0 <= q <= 1) of x, interpolated linearly between the
 * sorted values (q 0.5 is the median); NaN for n == 0. Does not modify x. */
double stats_quantile(const double *x, size_t n, double q);

#endif
