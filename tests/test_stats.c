/* Statistics of timed runs and the measurement record built on them. */
#include <criterion/criterion.h>
#include <math.h>

#include "measurement.h"
#include "stats.h"

Test(stats, summary_of_known_values)
{
    const double x[] = {4, 1, 3, 2, 10};
    stats_summary s;
    cr_assert_eq(stats_summarise(x, 5, &s), 0);
    cr_assert_float_eq(s.median, 3.0, 1e-12);
    cr_assert_float_eq(s.min, 1.0, 1e-12);
    cr_assert_float_eq(s.max, 10.0, 1e-12);
    cr_assert_float_eq(s.mean, 4.0, 1e-12);
    /* sample variance: (0+9+1+4+36)/4 = 12.5 */
    cr_assert_float_eq(s.stddev, sqrt(12.5), 1e-12);
    cr_assert_eq(x[0], 4, "the input is not reordered");
}

Test(stats, even_count_median_is_the_mean_of_the_middle_two)
{
    const double x[] = {8, 2, 6, 4};
    cr_assert_float_eq(stats_median(x, 4), 5.0, 1e-12);
    const double one[] = {7};
    stats_summary s;
    cr_assert_eq(stats_summarise(one, 1, &s), 0);
    cr_assert_float_eq(s.stddev, 0.0, 1e-12);
    cr_assert_neq(stats_summarise(one, 0, &s), 0);
}

Test(stats, large_counts_take_the_allocating_path)
{
    double x[1001];
    for (int k = 0; k < 1001; k++) x[k] = (double)((k * 7919) % 1001);
    cr_assert_float_eq(stats_median(x, 1001), 500.0, 1e-12);
}

Test(stats, variance_is_stable_for_nearly_equal_timings)
{
    double x[4] = {1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4};
    stats_summary s;
    stats_summarise(x, 4, &s);
    cr_assert_float_eq(s.stddev, sqrt(5.0 / 3.0), 1e-6);
}

Test(measurement, samples_fill_the_statistics_and_objective)
{
    measurement m;
    measurement_init(&m);
    cr_assert_eq(m.first_mismatch, -1);
    const double samples[] = {30, 10, 20};
    cr_assert_eq(measurement_set_samples(&m, samples, 3), 0);
    cr_assert_eq(m.n_samples, 3);
    cr_assert_float_eq(m.median_ns, 20.0, 1e-12);
    cr_assert_float_eq(measurement_objective(&m), 20.0, 1e-12);
    m.status = MEAS_WRONG_RESULT;
    cr_assert(isinf(measurement_objective(&m)), "a failed configuration is never the best");
    measurement_clear(&m);
    cr_assert_null(m.samples_ns);
}

Test(measurement, status_names_round_trip)
{
    for (int s = 0; s < MEAS_STATUS_COUNT; s++)
        cr_assert_eq(measurement_status_parse(measurement_status_name(s)), s);
    cr_assert_eq(measurement_status_parse("exploded"), -1);
    cr_assert_str_eq(measurement_status_name(MEAS_WRONG_RESULT), "wrong_result");
}
