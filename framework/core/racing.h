/* Racing: a configuration whose first timed runs show it clearly slower
 * than the best so far stops timing early, and keeps the samples it has.
 *
 * The engine keeps the RACE_BEST best ok configurations of the campaign (a
 * race_field) and derives the race limit from them; the measurer stops a
 * configuration after at least RACE_MIN_RUNS timed runs once the fastest
 * of them is above the limit, or sooner once every run is RACE_FAR_FACTOR
 * times the limit or more. The limit lies above the RACE_BEST-th best
 * median, so a configuration that is stopped had RACE_BEST better ones
 * already: the best RACE_BEST of a campaign are always timed in full. */
#ifndef SKYTUNE_RACING_H
#define SKYTUNE_RACING_H

#include <stdbool.h>
#include <stddef.h>

/* The best this many configurations are never stopped early; until as many
 * ok configurations are known, there is no limit. */
#define RACE_BEST 5
/* Timed runs before a configuration may be stopped at the race limit. */
#define RACE_MIN_RUNS 3
/* Before that, a configuration stops once every run it has made is this
 * many times the limit or more: with --runs 3 (the dedispersion sweep's,
 * and a quick campaign's) the rule above never acts, and a kernel twice
 * as slow as the best few gains nothing from more runs. */
#define RACE_FAR_FACTOR 2.0
/* The least margin above the RACE_BEST-th best median. */
#define RACE_MIN_MARGIN 0.10
/* The margin is this many times the noise of the best. */
#define RACE_NOISE_FACTOR 3.0
/* The relative spread of a configuration known by its median alone (a
 * result reused from the store), or by fewer than RACE_MIN_RUNS samples. */
#define RACE_UNKNOWN_SPREAD 0.10

/* The best RACE_BEST ok configurations so far, fastest first: each one's
 * median and relative spread. */
typedef struct race_field {
    size_t count;
    double median_ns[RACE_BEST];
    double spread[RACE_BEST];
} race_field;

void race_field_init(race_field *f);

/* A configuration's relative spread: the interquartile range of its
 * samples over their median; RACE_UNKNOWN_SPREAD with fewer than
 * RACE_MIN_RUNS samples. */
double race_spread(const double *samples_ns, size_t n);

/* An ok configuration of the campaign, with its samples (n 0: its median
 * alone is known). A median that is not a positive number is ignored. */
void race_field_add(race_field *f, double median_ns, const double *samples_ns, size_t n);

/* The margin above the RACE_BEST-th best median: RACE_NOISE_FACTOR times
 * the median spread of the best, at least RACE_MIN_MARGIN. */
double race_margin(const race_field *f);

/* The race limit in nanoseconds: the RACE_BEST-th best median times one
 * plus the margin; 0 (no limit) while fewer than RACE_BEST are known. */
double race_limit(const race_field *f);

/* Whether a configuration timed n runs so far (samples_ns) stops: a limit
 * (limit_ns > 0) and the fastest of its runs above it, after at least
 * RACE_MIN_RUNS runs; after fewer, above RACE_FAR_FACTOR times it. */
bool race_stops(const double *samples_ns, size_t n, double limit_ns);

#endif
