/* The racing rule (core/racing.h): the limit, its margin, and who stops. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "racing.h"
#include "stats.h"

/* Ten samples around `median` spread by `rel` of it (quartiles at
 * median * (1 -+ rel / 2)). */
static void samples_around(double median, double rel, double *x)
{
    const double offsets[10] = {-0.5, -0.5, -0.5, -0.5, 0, 0, 0.5, 0.5, 0.5, 0.5};
    for (int k = 0; k < 10; k++) x[k] = median * (1 + rel * offsets[k]);
}

Test(racing, no_limit_while_fewer_than_the_best_are_known)
{
    race_field f;
    race_field_init(&f);
    double x[10];
    for (int k = 0; k < RACE_BEST - 1; k++) {
        samples_around(100.0 * (k + 1), 0.01, x);
        race_field_add(&f, 100.0 * (k + 1), x, 10);
        cr_assert_eq(race_limit(&f), 0.0, "%d known: no limit", k + 1);
    }
    samples_around(1000, 0.01, x);
    race_field_add(&f, 1000, x, 10);
    cr_assert_gt(race_limit(&f), 0.0);
    /* No limit: nothing stops, however slow. */
    const double slow[] = {1e9, 1e9, 1e9, 1e9};
    cr_assert_not(race_stops(slow, 4, 0.0));
}

Test(racing, the_limit_is_the_kth_best_with_the_least_margin_for_quiet_timings)
{
    race_field f;
    race_field_init(&f);
    double x[10];
    /* Added out of order, with slower ones after the best five. */
    const double medians[] = {700, 300, 900, 100, 500, 200, 400, 800};
    for (int k = 0; k < 8; k++) {
        samples_around(medians[k], 0.01, x);
        race_field_add(&f, medians[k], x, 10);
    }
    cr_assert_eq(f.count, (size_t)RACE_BEST);
    cr_assert_float_eq(f.median_ns[0], 100, 1e-9);
    cr_assert_float_eq(f.median_ns[RACE_BEST - 1], 500, 1e-9);
    cr_assert_float_eq(race_margin(&f), RACE_MIN_MARGIN, 1e-12);
    cr_assert_float_eq(race_limit(&f), 500 * (1 + RACE_MIN_MARGIN), 1e-9);
}

Test(racing, the_margin_grows_with_the_noise_of_the_best)
{
    double x[10];
    samples_around(1000, 0.2, x);
    cr_assert_float_eq(race_spread(x, 10), 0.2, 1e-9, "IQR / median");
    race_field f;
    race_field_init(&f);
    for (int k = 0; k < RACE_BEST; k++) {
        samples_around(1000 + k, 0.2, x);
        race_field_add(&f, 1000 + k, x, 10);
    }
    cr_assert_float_eq(race_margin(&f), RACE_NOISE_FACTOR * 0.2, 1e-6);
    cr_assert_float_eq(race_limit(&f), 1004 * (1 + RACE_NOISE_FACTOR * 0.2), 1e-3);
    /* One noisy configuration among quiet ones: the median of their
     * spreads, not the noisiest, sets the margin. */
    race_field_init(&f);
    for (int k = 0; k < RACE_BEST; k++) {
        samples_around(1000 + k, k == 0 ? 1.0 : 0.01, x);
        race_field_add(&f, 1000 + k, x, 10);
    }
    cr_assert_float_eq(race_margin(&f), RACE_MIN_MARGIN, 1e-12);
}

Test(racing, a_median_alone_counts_as_the_unknown_spread)
{
    race_field f;
    race_field_init(&f);
    for (int k = 0; k < RACE_BEST; k++) race_field_add(&f, 100 + k, NULL, 0);
    cr_assert_float_eq(f.spread[0], RACE_UNKNOWN_SPREAD, 1e-12);
    cr_assert_float_eq(race_limit(&f), 104 * (1 + RACE_NOISE_FACTOR * RACE_UNKNOWN_SPREAD),
                       1e-9);
    const double two[] = {1, 100};
    cr_assert_float_eq(race_spread(two, 2), RACE_UNKNOWN_SPREAD, 1e-12);
    /* Not a time: ignored. */
    race_field_add(&f, NAN, NULL, 0);
    race_field_add(&f, 0, NULL, 0);
    cr_assert_float_eq(f.median_ns[0], 100, 1e-12);
}

Test(racing, stops_only_after_the_least_runs_and_only_when_every_run_is_above)
{
    /* Above the limit, but within RACE_FAR_FACTOR of it. */
    const double slow[] = {180, 190, 185, 170};
    cr_assert_not(race_stops(slow, 1, 100), "too few runs");
    cr_assert_not(race_stops(slow, RACE_MIN_RUNS - 1, 100), "too few runs");
    cr_assert(race_stops(slow, RACE_MIN_RUNS, 100));
    const double one_fast[] = {200, 99, 205, 190};
    cr_assert_not(race_stops(one_fast, 4, 100), "its fastest run is within the limit");
    cr_assert_not(race_stops(slow, 4, 250));
    cr_assert_not(race_stops(slow, 0, 100), "no run: nothing to judge");
}

/* A configuration RACE_FAR_FACTOR times the limit or more stops before
 * RACE_MIN_RUNS runs, from its first; one run nearer the limit among them
 * keeps it going, and without a limit nothing stops. */
Test(racing, a_configuration_far_beyond_the_limit_stops_after_its_first_run)
{
    const double far[] = {RACE_FAR_FACTOR * 100 + 1, 400, 500};
    cr_assert(race_stops(far, 1, 100));
    cr_assert(race_stops(far, 2, 100));
    const double at_the_bound[] = {RACE_FAR_FACTOR * 100};
    cr_assert_not(race_stops(at_the_bound, 1, 100), "exactly the far bound is not beyond it");
    const double then_near[] = {400, 150, 400};
    cr_assert_not(race_stops(then_near, 2, 100), "its second run is within the far bound");
    cr_assert(race_stops(then_near, 3, 100), "after RACE_MIN_RUNS the limit itself applies");
    cr_assert_not(race_stops(far, 1, 0), "no limit yet");
}

/* Whatever order the configurations come in, and whatever the noise, a
 * configuration that is stopped had RACE_BEST better ones already: the
 * best RACE_BEST by median are all timed in full. */
Test(racing, the_best_are_never_stopped)
{
    for (unsigned seed = 1; seed <= 50; seed++) {
        srand(seed);
        enum { N = 60, RUNS = 10 };
        double samples[N][RUNS];
        double medians[N];
        bool raced[N];
        for (int c = 0; c < N; c++) {
            double base = 1000.0 * (1 + rand() % 50) / 10.0;
            double noise = (rand() % 40) / 100.0;
            for (int r = 0; r < RUNS; r++)
                samples[c][r] = base * (1 + noise * ((double)rand() / RAND_MAX - 0.5));
        }
        race_field f;
        race_field_init(&f);
        for (int c = 0; c < N; c++) {
            double limit = race_limit(&f);
            size_t n = 0;
            raced[c] = false;
            while (n < RUNS) {
                n++;
                if (n < RUNS && race_stops(samples[c], n, limit)) {
                    raced[c] = true;
                    break;
                }
            }
            medians[c] = stats_median(samples[c], n);
            race_field_add(&f, medians[c], samples[c], n);
        }
        /* The full-run medians of the best RACE_BEST: none of them raced. */
        double full[N];
        for (int c = 0; c < N; c++) full[c] = stats_median(samples[c], RUNS);
        for (int c = 0; c < N; c++) {
            if (!raced[c]) continue;
            int better = 0;
            for (int o = 0; o < N; o++)
                if (!raced[o] && full[o] < medians[c]) better++;
            cr_assert_geq(better, RACE_BEST, "seed %u: configuration %d raced with %d better",
                          seed, c, better);
            /* Nor is it among the best RACE_BEST by the medians recorded. */
            int faster = 0;
            for (int o = 0; o < N; o++)
                if (medians[o] < medians[c]) faster++;
            cr_assert_geq(faster, RACE_BEST, "seed %u: configuration %d raced in the best",
                          seed, c);
        }
    }
}
