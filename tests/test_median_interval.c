/* The order-statistics interval of the median (framework/core/median_interval.h):
 * known samples give known intervals and coverages, and few samples say so. */
#include <criterion/criterion.h>
#include <math.h>

#include "median_interval.h"

static void expect_interval(const double *x, size_t n, double low, double high, double coverage,
                            size_t rank)
{
    median_interval ci;
    cr_assert_eq(median_interval_of(x, n, MEDIAN_INTERVAL_LEVEL, &ci), 0, "n %zu", n);
    cr_expect_eq(ci.low, low, "n %zu: low %g, expected %g", n, ci.low, low);
    cr_expect_eq(ci.high, high, "n %zu: high %g, expected %g", n, ci.high, high);
    cr_expect(fabs(ci.coverage - coverage) < 1e-12, "n %zu: coverage %.15g, expected %.15g", n,
              ci.coverage, coverage);
    cr_expect_eq(ci.rank, rank, "n %zu", n);
}

/* Ten runs, in any order: the 2nd and 9th smallest, which hold the median
 * unless at most one run falls on one side of it: 1 - 2 (1 + 10) / 1024.
 * The 3rd and 8th would cover only 1 - 2 (1 + 10 + 45) / 1024 = 89 %. */
Test(median_interval, ten_runs_give_the_second_and_ninth)
{
    const double x[] = {7, 3, 10, 1, 5, 9, 2, 8, 6, 4};
    expect_interval(x, 10, 2, 9, 1.0 - 22.0 / 1024.0, 2);
    cr_expect(x[0] == 7 && x[3] == 1, "the samples are not reordered");
}

/* Twenty runs: the 6th and 15th, the textbook pair (95.9 %). */
Test(median_interval, twenty_runs_give_the_sixth_and_fifteenth)
{
    double x[20];
    for (int k = 0; k < 20; k++) x[k] = 100.0 + (double)((k * 7) % 20);
    double tail = (1 + 20 + 190 + 1140 + 4845 + 15504) / 1048576.0;
    expect_interval(x, 20, 105, 114, 1.0 - 2.0 * tail, 6);
}

/* Three runs (raced ones): the whole range, which holds the median with
 * only 75 %; five: 93.75 %; six are the fewest that reach 95 %. */
Test(median_interval, few_runs_give_the_range_and_say_how_little_it_covers)
{
    const double three[] = {3.0, 1.0, 2.0};
    expect_interval(three, 3, 1.0, 3.0, 0.75, 1);
    const double five[] = {5, 1, 4, 2, 3};
    expect_interval(five, 5, 1, 5, 1.0 - 2.0 / 32.0, 1);
    const double six[] = {6, 1, 4, 2, 3, 5};
    expect_interval(six, 6, 1, 6, 1.0 - 2.0 / 64.0, 1);
    const double two[] = {2.0, 1.0};
    expect_interval(two, 2, 1.0, 2.0, 0.5, 1);
}

Test(median_interval, one_run_has_no_interval)
{
    const double one[] = {1.0};
    median_interval ci;
    cr_expect_eq(median_interval_of(one, 1, MEDIAN_INTERVAL_LEVEL, &ci), -1);
    cr_expect_eq(median_interval_of(one, 0, MEDIAN_INTERVAL_LEVEL, &ci), -1);
}

/* Thousands of runs: 2^-n underflows, the logarithms do not; the interval
 * narrows around the middle. */
Test(median_interval, many_runs_narrow_around_the_middle)
{
    enum { N = 5000 };
    static double x[N];
    for (int k = 0; k < N; k++) x[k] = (double)k;
    median_interval ci;
    cr_assert_eq(median_interval_of(x, N, MEDIAN_INTERVAL_LEVEL, &ci), 0);
    cr_expect(ci.coverage >= 0.95 && ci.coverage < 0.96, "coverage %g", ci.coverage);
    /* About 1.96 sqrt(n) / 2 = 69 ranks either side of the middle. */
    cr_expect(ci.low > 2500 - 75 && ci.low < 2500 - 60, "low %g", ci.low);
    cr_expect(ci.high < 2500 + 75 && ci.high > 2500 + 60, "high %g", ci.high);
}
