/* Whether two configurations' timed runs can be told apart: the
 * Wilcoxon–Mann–Whitney rank-sum test.
 *
 * It asks whether the runs of one configuration tend to be faster than the
 * other's, using only their order, so a few interrupted runs (the tail of
 * every timing distribution) weigh no more than any other slow run, and it
 * needs no assumption of normality. Overlapping confidence intervals would
 * be a weaker test (two intervals can overlap while the difference is
 * clear). The p-value is exact — every way the pooled runs could have been
 * split, ties given their mid-ranks — while the two counts are small
 * (RANK_SUM_EXACT_LIMIT runs together), and the normal approximation with
 * the tie correction beyond. With 3 runs each the smallest two-sided
 * p-value is 0.1: three raced runs can never be told apart at 95 %, and the
 * test says so instead of guessing. */
#ifndef SKYTUNE_RANK_SUM_H
#define SKYTUNE_RANK_SUM_H

#include <stddef.h>

#define RANK_SUM_EXACT_LIMIT 60

/* The two-sided p-value of the hypothesis that a (na runs) and b (nb runs)
 * come from one distribution; 1 when either has no runs, NaN when out of
 * memory. Neither array is changed. */
double rank_sum_p(const double *a, size_t na, const double *b, size_t nb);

#endif
