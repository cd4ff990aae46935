/* What more evaluations of a campaign are expected to gain: the fraction by
 * which they would lower its best time, estimated from the times the
 * campaign measured and nothing else (no model of the space, no other
 * campaign), so that it holds for every strategy and every plugin.
 *
 * The estimate reads the campaign as draws from its space in random order
 * (exchangeable draws). Then each of the n times measured so far, and the
 * next one, is equally likely to be the fastest of them all: the next
 * evaluation beats the best with probability 1/(n+1), and k more
 * evaluations beat it with probability k/(n+k). By how much is estimated
 * from the gaps between the fastest times measured: the expected gap below
 * the best is taken as the mean gap, on a log scale, between the
 * GAIN_SPACINGS + 1 fastest (the extreme-value spacing argument: near the
 * minimum of a continuous distribution successive gaps have about the same
 * expected size). With s that mean log gap, the gain of k more is
 *     k/(n+k) * (1 - exp(-s)),
 * where k is as many evaluations as the campaign has made (a campaign of
 * twice the length), at most what is left of the space, and n and k count
 * the evaluations that passed (failures find nothing faster).
 *
 * A strategy that is not random (hill climbing, a model) finds the fast
 * region sooner than random draws would, so the probability above
 * overstates what it has left to find (the gaps do not depend on the
 * order): for such a strategy the estimate leans high, so a campaign
 * stopped by it has stopped late rather than early. */
#ifndef SKYTUNE_GAIN_ESTIMATE_H
#define SKYTUNE_GAIN_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The gaps between the fastest times that the estimate averages. */
#define GAIN_SPACINGS 5
/* Passed evaluations before there is an estimate: with fewer, the fastest
 * times are the few there are, and their gaps say little about the rest. */
#define GAIN_MIN_PASSED 10

typedef struct gain_estimate {
    double fastest[GAIN_SPACINGS + 1]; /* ascending; the first n_fastest hold times */
    size_t n_fastest;
    uint64_t passed;       /* evaluations with a time */
    uint64_t evaluated;    /* every evaluation, failures included */
} gain_estimate;

void gain_estimate_init(gain_estimate *g);
/* One evaluation: its time (ns; > 0) when it passed, or a failure (time_ns
 * <= 0 or not finite). */
void gain_estimate_add(gain_estimate *g, double time_ns);
/* The state after `evaluated` evaluations of which `passed` passed, the
 * fastest n of them (n <= GAIN_SPACINGS + 1, any order) in fastest: what a
 * report reads from the database instead of adding one by one. */
void gain_estimate_set(gain_estimate *g, const double *fastest, size_t n, uint64_t passed,
                       uint64_t evaluated);
/* The expected fraction by which a campaign of twice this length (at most
 * `remaining` more evaluations: what is left of the space; UINT64_MAX when
 * not known) lowers the best time; *more is that number of evaluations.
 * False, and nothing set, while there is no estimate (fewer than
 * GAIN_MIN_PASSED passed). 0 when nothing remains. */
bool gain_estimate_expected(const gain_estimate *g, uint64_t remaining, double *gain,
                            uint64_t *more);

#endif
