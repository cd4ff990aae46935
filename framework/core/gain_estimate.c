#include "gain_estimate.h"

#include <math.h>

void gain_estimate_init(gain_estimate *g)
{
    *g = (gain_estimate){0};
}

void gain_estimate_add(gain_estimate *g, double time_ns)
{
    g->evaluated++;
    if (!(time_ns > 0) || !isfinite(time_ns)) return;
    g->passed++;
    /* Insertion into the short sorted list of the fastest. */
    size_t k = g->n_fastest < GAIN_SPACINGS + 1 ? g->n_fastest++ : GAIN_SPACINGS + 1;
    if (k == GAIN_SPACINGS + 1) {
        if (time_ns >= g->fastest[GAIN_SPACINGS]) return;
        k = GAIN_SPACINGS;
    }
    while (k > 0 && g->fastest[k - 1] > time_ns) {
        g->fastest[k] = g->fastest[k - 1];
        k--;
    }
    g->fastest[k] = time_ns;
}

void gain_estimate_set(gain_estimate *g, const double *fastest, size_t n, uint64_t passed,
                       uint64_t evaluated)
{
    gain_estimate_init(g);
    for (size_t k = 0; k < n && k < GAIN_SPACINGS + 1; k++) gain_estimate_add(g, fastest[k]);
    g->passed = passed > g->passed ? passed : g->passed;
    g->evaluated = evaluated > g->evaluated ? evaluated : g->evaluated;
}

bool gain_estimate_expected(const gain_estimate *g, uint64_t remaining, double *gain,
                            uint64_t *more)
{
    if (g->passed < GAIN_MIN_PASSED) return false;
    uint64_t k = g->evaluated < remaining ? g->evaluated : remaining;
    *more = k;
    if (k == 0) {
        *gain = 0;
        return true;
    }
    /* Of k more, those expected to pass: the campaign's share so far. */
    double k_passed = (double)k * (double)g->passed / (double)g->evaluated;
    double chance = k_passed / ((double)g->passed + k_passed);
    size_t m = g->n_fastest - 1;
    double mean_gap = (log(g->fastest[m]) - log(g->fastest[0])) / (double)m;
    *gain = chance * (1.0 - exp(-mean_gap));
    return true;
}
