#include "racing.h"

#include <math.h>
#include <string.h>

#include "stats.h"

void race_field_init(race_field *f)
{
    memset(f, 0, sizeof *f);
}

double race_spread(const double *samples_ns, size_t n)
{
    if (n < RACE_MIN_RUNS) return RACE_UNKNOWN_SPREAD;
    double median = stats_median(samples_ns, n);
    if (!(median > 0)) return RACE_UNKNOWN_SPREAD;
    /* The interquartile range rather than the standard deviation: one run
     * disturbed by the machine must not widen the margin for the whole
     * campaign. */
    return (stats_quantile(samples_ns, n, 0.75) - stats_quantile(samples_ns, n, 0.25)) / median;
}

void race_field_add(race_field *f, double median_ns, const double *samples_ns, size_t n)
{
    if (!(median_ns > 0) || !isfinite(median_ns)) return;
    size_t at = f->count;
    while (at > 0 && f->median_ns[at - 1] > median_ns) at--;
    if (at >= RACE_BEST) return;
    size_t last = f->count < RACE_BEST ? f->count : RACE_BEST - 1;
    for (size_t k = last; k > at; k--) {
        f->median_ns[k] = f->median_ns[k - 1];
        f->spread[k] = f->spread[k - 1];
    }
    f->median_ns[at] = median_ns;
    f->spread[at] = n ? race_spread(samples_ns, n) : RACE_UNKNOWN_SPREAD;
    if (f->count < RACE_BEST) f->count++;
}

double race_margin(const race_field *f)
{
    if (f->count == 0) return RACE_MIN_MARGIN;
    double noise = stats_median(f->spread, f->count);
    double margin = RACE_NOISE_FACTOR * noise;
    return margin > RACE_MIN_MARGIN ? margin : RACE_MIN_MARGIN;
}

double race_limit(const race_field *f)
{
    if (f->count < RACE_BEST) return 0.0;
    return f->median_ns[RACE_BEST - 1] * (1.0 + race_margin(f));
}

bool race_stops(const double *samples_ns, size_t n, double limit_ns)
{
    if (n == 0 || !(limit_ns > 0)) return false;
    /* Before RACE_MIN_RUNS runs only a configuration far beyond the limit
     * stops: a run RACE_FAR_FACTOR times the limit is no contender's noise. */
    double bound = n < RACE_MIN_RUNS ? RACE_FAR_FACTOR * limit_ns : limit_ns;
    for (size_t k = 0; k < n; k++)
        if (samples_ns[k] <= bound) return false;
    return true;
}
