/* Normalised ranks: what the search reads of measured times when only their
 * order should count (bayes's copula transform, a warm start's recordings
 * of other devices). */
#ifndef SKYTUNE_RANKS_H
#define SKYTUNE_RANKS_H

#include <stddef.h>

/* position[i] = r / (n + 1) for values[i]'s rank r among the n values (1 for
 * the lowest, ties sharing their mean rank; +infinity, a failure, ranks
 * after every number): in (0, 1), symmetric about 1/2. `sorted` is scratch
 * for n values. */
void normalised_ranks(const double *values, size_t n, double *position, double *sorted);

#endif
