/* The rank-sum test (framework/core/rank_sum.h): exact p-values for small
 * counts, ties by mid-ranks, the normal approximation beyond. */
#include <criterion/criterion.h>
#include <math.h>

#include "rank_sum.h"

/* Three runs against three, entirely apart: 2 of the C(6,3) = 20 splits
 * are as extreme, so p = 0.1 — never below 0.05: three raced runs cannot
 * be told apart at 95 %. */
Test(rank_sum, three_runs_each_never_reach_95_percent)
{
    const double a[] = {1.0, 2.0, 3.0}, b[] = {4.0, 5.0, 6.0};
    cr_expect(fabs(rank_sum_p(a, 3, b, 3) - 0.1) < 1e-12, "p %g", rank_sum_p(a, 3, b, 3));
    cr_expect(fabs(rank_sum_p(b, 3, a, 3) - 0.1) < 1e-12, "symmetric");
}

/* Ten against ten, apart: 2 / C(20,10). */
Test(rank_sum, ten_runs_apart_are_told_apart)
{
    double a[10], b[10];
    for (int k = 0; k < 10; k++) {
        a[k] = 1000.0 + k;
        b[k] = 1100.0 + k;
    }
    double p = rank_sum_p(a, 10, b, 10);
    cr_expect(fabs(p - 2.0 / 184756.0) < 1e-15, "p %g", p);
}

/* Interleaved runs of two equally fast configurations: p near 1. */
Test(rank_sum, interleaved_runs_are_indistinguishable)
{
    const double a[] = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19};
    const double b[] = {2, 4, 6, 8, 10, 12, 14, 16, 18, 20};
    double p = rank_sum_p(a, 10, b, 10);
    cr_expect(p > 0.6 && p <= 1.0, "p %g", p);
}

/* All runs equal (a coarse timer): ties everywhere, nothing to tell. */
Test(rank_sum, identical_runs_give_one)
{
    const double a[] = {5, 5, 5, 5}, b[] = {5, 5, 5};
    cr_expect_eq(rank_sum_p(a, 4, b, 3), 1.0);
    cr_expect_eq(rank_sum_p(a, 0, b, 3), 1.0, "no runs: nothing to tell");
}

/* Past the exact limit, the normal approximation: apart is tiny, a shift
 * of one run in forty is not significant. */
Test(rank_sum, many_runs_use_the_normal_approximation)
{
    double a[40], b[40], c[40];
    for (int k = 0; k < 40; k++) {
        a[k] = k;
        b[k] = 100 + k;
        c[k] = k + 0.5;
    }
    cr_expect_lt(rank_sum_p(a, 40, b, 40), 1e-10);
    double p = rank_sum_p(a, 40, c, 40);
    cr_expect(p > 0.5, "p %g", p);
}

/* A few ties between the two: the exact test over mid-ranks. {1,2,2} vs
 * {2,3,4}: the three 2s share rank 3, so the doubled ranks are 2,6,6 |
 * 6,10,12 and a's sum is 14; 3 of the 20 splits sum to 14 or less (the 2
 * with two of the three 6s), so p = 2 * 3/20 = 0.3. */
Test(rank_sum, ties_take_their_mid_ranks)
{
    const double a[] = {1, 2, 2}, b[] = {2, 3, 4};
    double p = rank_sum_p(a, 3, b, 3);
    cr_expect(fabs(p - 0.3) < 1e-12, "p %g", p);
}
