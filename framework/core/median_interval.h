/* A confidence interval of a configuration's median time, from its timed
 * runs alone.
 *
 * Timings are skewed (a floor and a tail of interruptions), so an interval
 * from the mean and standard deviation would claim a symmetry they do not
 * have, and a bootstrap of ten samples resamples the same few values and
 * gives intervals that cover less than they say. The order-statistics
 * interval needs no assumption about the distribution: among n independent
 * runs, the number that fall below the true median is binomial(n, 1/2), so
 * the k-th smallest and k-th largest runs enclose the median with
 * probability 1 - 2 P(B <= k - 1). It picks the narrowest such pair whose
 * coverage is at least the level asked for.
 *
 * Few samples are said honestly: below 6 runs even the smallest and the
 * largest enclose the median with less than 95 % (3 runs: 75 %, 5 runs:
 * 93.75 %), so the interval is then the whole range and its coverage is
 * what those runs give, never the level asked for. One run has no
 * interval. */
#ifndef SKYTUNE_MEDIAN_INTERVAL_H
#define SKYTUNE_MEDIAN_INTERVAL_H

#include <stddef.h>

/* The level skytune reports intervals at. */
#define MEDIAN_INTERVAL_LEVEL 0.95

typedef struct median_interval {
    double low, high;   /* nanoseconds, or whatever unit the samples have */
    double coverage;    /* the probability the interval holds the median: at least the
                           level asked for, or less when the runs are too few */
    size_t rank;        /* low is the rank-th smallest run, high the rank-th largest (from 1) */
} median_interval;

/* The interval of the median of x (n values, any order; x is not changed)
 * at `level` (0 < level < 1). -1 when n < 2 (no interval) or out of
 * memory. */
int median_interval_of(const double *x, size_t n, double level, median_interval *out);

/* The coverage of the interval between the rank-th smallest and the
 * rank-th largest of n runs (1 <= rank <= n / 2). */
double median_interval_coverage(size_t n, size_t rank);

#endif
