/* PCG32 against the reference implementation's published output, plus the
 * properties the rest of skytune relies on: bounded draws stay in range and
 * are uniform, floating-point draws stay in [0, 1), and a (seed, stream) pair
 * always yields the same sequence.
 *
 * Every statistical check uses a fixed seed, so its outcome is decided once
 * and can never flake; the thresholds are generous so that they catch a
 * broken generator (bias, a stuck bit, a wrong range), not bad luck. */
#include <criterion/criterion.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pcg32.h"

/* ------------------------------------------------ reference pcg32-demo */

/* What pcg-c-basic's pcg32-demo prints for its first two rounds when seeded
 * with pcg32_srandom_r(&rng, 42u, 54u). Each round draws six raw outputs,
 * tosses 65 coins (boundedrand(2), 1 printed as H), rolls 33 dice
 * (boundedrand(6) + 1) and shuffles a deck of 52 cards (Fisher-Yates with
 * boundedrand(i) for i = 52 down to 2). */
typedef struct demo_round {
    uint32_t raw[6];
    const char *coins;
    const char *rolls;
    const char *cards;
} demo_round;

static const demo_round demo_rounds[] = {
    {
        {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u, 0x83d2f293u, 0xbfa4784bu, 0xcbed606eu},
        "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT",
        "3 4 1 1 2 2 3 2 4 3 2 4 3 3 5 2 3 1 3 1 5 1 4 1 5 6 4 6 6 2 6 3 3",
        "Qd Ks 6d 3s 3d 4c 3h Td Kc 5c Jh Kd Jd As 4s 4h Ad Th Ac Jc 7s Qs "
        "2s 7h Kh 2d 6c Ah 4d Qh 9h 6s 5s 2c 9c Ts 8d 9s 3c 8c Js 5d 2h 6h "
        "7d 8s 9d 5h 8h Qc 7c Tc",
    },
    {
        {0x74ab93adu, 0x1c1da000u, 0x494ff896u, 0x34462f2fu, 0xd308a3e5u, 0x0fa83babu},
        "HHHHHHHHHHTHHHTHTHTHTHTTTTHHTTTHHTHHTHTTHHTTTHHHHHHTHTTHTHTTTTTTT",
        "5 1 1 3 3 2 4 5 3 2 2 6 4 3 2 4 2 4 3 2 3 6 3 2 3 4 2 4 1 1 5 4 4",
        "7d 2s 7h Td 8s 3c 3d Js 2d Tc 4h Qs 5c 9c Th 2c Jc Qd 9d Qc 7s 3s "
        "5s 6h 4d Jh 4c Ac 4s 5h 5d Kc 8h 8d Jd 9s Ad 6s 6c Kd 2h 3h Kh Ts "
        "Qh 9h 6d As 7c Ks Ah 8c",
    },
};

enum { DEMO_COINS = 65, DEMO_ROLLS = 33, DEMO_CARDS = 52, DEMO_SUITS = 4 };

Test(pcg32_reference, first_outputs_match_pcg32_demo)
{
    pcg32 rng;
    pcg32_seed(&rng, 42u, 54u);
    for (size_t i = 0; i < 6; i++) {
        uint32_t got = pcg32_next(&rng);
        cr_expect_eq(got, demo_rounds[0].raw[i], "output %zu: got 0x%08x, want 0x%08x", i, got,
                     demo_rounds[0].raw[i]);
    }
}

/* The coins, dice and cards exercise pcg32_bounded with bounds 2, 6 and
 * 52..2, rejection included, and fix the number of draws each takes: any
 * difference desynchronises everything after it, including round 2. */
Test(pcg32_reference, two_full_demo_rounds_match)
{
    pcg32 rng;
    pcg32_seed(&rng, 42u, 54u);

    for (size_t round = 0; round < sizeof demo_rounds / sizeof demo_rounds[0]; round++) {
        const demo_round *want = &demo_rounds[round];

        for (size_t i = 0; i < 6; i++) {
            uint32_t got = pcg32_next(&rng);
            cr_expect_eq(got, want->raw[i], "round %zu output %zu: got 0x%08x, want 0x%08x",
                         round + 1, i, got, want->raw[i]);
        }

        char coins[DEMO_COINS + 1];
        for (size_t i = 0; i < DEMO_COINS; i++) coins[i] = pcg32_bounded(&rng, 2) ? 'H' : 'T';
        coins[DEMO_COINS] = '\0';
        cr_expect_str_eq(coins, want->coins, "round %zu coins", round + 1);

        char rolls[DEMO_ROLLS * 2];
        size_t len = 0;
        for (size_t i = 0; i < DEMO_ROLLS; i++) {
            if (i > 0) rolls[len++] = ' ';
            rolls[len++] = (char)('1' + pcg32_bounded(&rng, 6));
        }
        rolls[len] = '\0';
        cr_expect_str_eq(rolls, want->rolls, "round %zu rolls", round + 1);

        int deck[DEMO_CARDS];
        for (int i = 0; i < DEMO_CARDS; i++) deck[i] = i;
        for (uint32_t i = DEMO_CARDS; i > 1; i--) {
            uint32_t chosen = pcg32_bounded(&rng, i);
            int card = deck[chosen];
            deck[chosen] = deck[i - 1];
            deck[i - 1] = card;
        }
        static const char numbers[] = "A23456789TJQK";
        static const char suits[] = "hcds";
        char cards[DEMO_CARDS * 3];
        len = 0;
        for (size_t i = 0; i < DEMO_CARDS; i++) {
            if (i > 0) cards[len++] = ' ';
            cards[len++] = numbers[deck[i] / DEMO_SUITS];
            cards[len++] = suits[deck[i] % DEMO_SUITS];
        }
        cards[len] = '\0';
        cr_expect_str_eq(cards, want->cards, "round %zu cards", round + 1);
    }
}

/* ------------------------------------------------------------ seeding */

Test(pcg32_seeding, same_seed_same_sequence)
{
    pcg32 a, b;
    pcg32_seed(&a, 0x853c49e6748fea9bu, 0xda3e39cb94b95bdbu);
    pcg32_seed(&b, 0x853c49e6748fea9bu, 0xda3e39cb94b95bdbu);
    for (int i = 0; i < 10000; i++) cr_assert_eq(pcg32_next(&a), pcg32_next(&b), "draw %d", i);
    cr_expect_eq(a.state, b.state);
    cr_expect_eq(a.inc, b.inc);
}

/* Two different generators agree on a given 32-bit output with probability
 * 2^-32, so among 1000 draws more than a handful of equal positions would
 * mean the streams are not independent. */
static size_t equal_positions(pcg32 *a, pcg32 *b, size_t draws)
{
    size_t equal = 0;
    for (size_t i = 0; i < draws; i++) equal += pcg32_next(a) == pcg32_next(b);
    return equal;
}

Test(pcg32_seeding, different_streams_differ)
{
    pcg32 a, b;
    pcg32_seed(&a, 42u, 54u);
    pcg32_seed(&b, 42u, 55u);
    cr_expect_neq(a.inc, b.inc);
    cr_expect_leq(equal_positions(&a, &b, 1000), 2);
}

Test(pcg32_seeding, different_states_differ)
{
    pcg32 a, b;
    pcg32_seed(&a, 42u, 54u);
    pcg32_seed(&b, 43u, 54u);
    cr_expect_leq(equal_positions(&a, &b, 1000), 2);
}

Test(pcg32_seeding, increment_is_always_odd)
{
    static const uint64_t streams[] = {0, 1, 54, UINT64_MAX, UINT64_C(1) << 63};
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
        pcg32 rng;
        pcg32_seed(&rng, 7u, streams[i]);
        cr_expect_eq(rng.inc & 1u, 1u, "stream %zu", i);
    }
}

/* ---------------------------------------------------- crafted states */

/* The extremes of the output, reached by placing the generator on states
 * chosen for it. An old state with bits 41..58 set and bits 27..40 and 59..63
 * clear permutes to 0xffffffff (no rotation, and the xorshift leaves bits
 * 27..58 all ones); bits 0..26 do not reach the output. The increment is
 * chosen so that the step lands on such a state again, making the next
 * output 0xffffffff too. The states 0 and 1 both give output 0. */
#define PCG32_TEST_MULTIPLIER UINT64_C(6364136223846793005)

static pcg32 generator_giving_all_ones(void)
{
    const uint64_t all_ones_state = ((UINT64_C(1) << 59) - 1u) & ~((UINT64_C(1) << 41) - 1u);
    pcg32 rng = {.state = all_ones_state,
                 .inc = (all_ones_state | 1u) - all_ones_state * PCG32_TEST_MULTIPLIER};
    return rng;
}

static pcg32 generator_giving_zeros(void)
{
    pcg32 rng = {.state = 0, .inc = 1};
    return rng;
}

/* ------------------------------------------------------------ bounded */

/* Pearson's chi-square statistic of observed bucket counts against a uniform
 * expectation. */
static double chi_square_uniform(const uint64_t *counts, size_t buckets, uint64_t total)
{
    double expected = (double)total / (double)buckets;
    double statistic = 0.0;
    for (size_t i = 0; i < buckets; i++) {
        double diff = (double)counts[i] - expected;
        statistic += diff * diff / expected;
    }
    return statistic;
}

/* Upper limits for a chi-square statistic, beyond the 99.9999th percentile
 * of its distribution (about 45 for 9 degrees of freedom, 57 for 15, 108 for
 * 47) yet far below what a biased generator produces. */
#define CHI2_LIMIT_9_DOF 60.0
#define CHI2_LIMIT_15_DOF 70.0
#define CHI2_LIMIT_47_DOF 120.0

Test(pcg32_bounded, zero_bound_yields_zero_without_drawing)
{
    pcg32 rng;
    pcg32_seed(&rng, 1u, 2u);
    pcg32 before = rng;
    cr_expect_eq(pcg32_bounded(&rng, 0), 0u);
    cr_expect_eq(pcg32_bounded64(&rng, 0), 0u);
    cr_expect_eq(rng.state, before.state);
}

Test(pcg32_bounded, bound_one_yields_zero)
{
    pcg32 rng;
    pcg32_seed(&rng, 1u, 2u);
    for (int i = 0; i < 100; i++) cr_assert_eq(pcg32_bounded(&rng, 1), 0u);
}

Test(pcg32_bounded, small_bound_in_range_and_uniform)
{
    enum { BOUND = 10, DRAWS = 200000 };
    pcg32 rng;
    pcg32_seed(&rng, 2024u, 7u);
    uint64_t counts[BOUND] = {0};
    for (int i = 0; i < DRAWS; i++) {
        uint32_t v = pcg32_bounded(&rng, BOUND);
        cr_assert_lt(v, BOUND);
        counts[v]++;
    }
    double chi2 = chi_square_uniform(counts, BOUND, DRAWS);
    cr_expect_lt(chi2, CHI2_LIMIT_9_DOF, "chi-square %g over %d buckets", chi2, BOUND);
}

/* Every single value of a small range, not just coarse buckets, comes up
 * about equally often. */
Test(pcg32_bounded, every_value_of_small_range_equally_likely)
{
    enum { BOUND = 48, DRAWS = 480000 };
    pcg32 rng;
    pcg32_seed(&rng, 99u, 3u);
    uint64_t counts[BOUND] = {0};
    for (int i = 0; i < DRAWS; i++) {
        uint32_t v = pcg32_bounded(&rng, BOUND);
        cr_assert_lt(v, BOUND);
        counts[v]++;
    }
    double chi2 = chi_square_uniform(counts, BOUND, DRAWS);
    cr_expect_lt(chi2, CHI2_LIMIT_47_DOF, "chi-square %g", chi2);
}

/* 2^31 + 1 is the worst case for the rejection loop: almost half of all
 * outputs fall below the threshold. Values must still be in range and
 * spread evenly over the whole range. */
Test(pcg32_bounded, worst_case_bound_in_range_and_uniform)
{
    enum { BUCKETS = 16, DRAWS = 160000 };
    const uint32_t bound = (UINT32_C(1) << 31) + 1u;
    pcg32 rng;
    pcg32_seed(&rng, 5u, 11u);
    uint64_t counts[BUCKETS] = {0};
    for (int i = 0; i < DRAWS; i++) {
        uint32_t v = pcg32_bounded(&rng, bound);
        cr_assert_lt(v, bound);
        counts[(uint64_t)v * BUCKETS / bound]++;
    }
    double chi2 = chi_square_uniform(counts, BUCKETS, DRAWS);
    cr_expect_lt(chi2, CHI2_LIMIT_15_DOF, "chi-square %g", chi2);
}

/* 3 * 2^30 leaves 2^30 outputs over after the last whole multiple of the
 * bound: plain `r % bound` would make the lowest third of the range twice as
 * likely as the rest, which 16 buckets show at once. */
Test(pcg32_bounded, bound_with_large_remainder_uniform)
{
    enum { BUCKETS = 16, DRAWS = 160000 };
    const uint32_t bound = UINT32_C(3) << 30;
    pcg32 rng;
    pcg32_seed(&rng, 6u, 13u);
    uint64_t counts[BUCKETS] = {0};
    for (int i = 0; i < DRAWS; i++) {
        uint32_t v = pcg32_bounded(&rng, bound);
        cr_assert_lt(v, bound);
        counts[(uint64_t)v * BUCKETS / bound]++;
    }
    double chi2 = chi_square_uniform(counts, BUCKETS, DRAWS);
    cr_expect_lt(chi2, CHI2_LIMIT_15_DOF, "chi-square %g", chi2);
}

/* The reference rule exactly: outputs below 2^32 mod bound are skipped, the
 * first one at or above it is reduced modulo bound. A generator placed on
 * state 0 yields two zeros first, both below the threshold 4 of bound 6. */
Test(pcg32_bounded, rejects_outputs_below_threshold)
{
    pcg32 rng = generator_giving_zeros();
    pcg32 plain = generator_giving_zeros();
    cr_assert_eq(pcg32_next(&plain), 0u);
    cr_assert_eq(pcg32_next(&plain), 0u);
    uint32_t third = pcg32_next(&plain);
    cr_assert_geq(third, 4u, "the third output must pass the threshold for this check");
    cr_expect_eq(pcg32_bounded(&rng, 6), third % 6u);
    cr_expect_eq(rng.state, plain.state, "exactly three draws");
}

/* An output equal to the threshold is kept. The state with only bit 29 set
 * permutes to output 4 (no rotation; the xorshift leaves bit 29 alone), the
 * threshold of bound 6. */
Test(pcg32_bounded, accepts_output_equal_to_threshold)
{
    pcg32 rng = {.state = UINT64_C(1) << 29, .inc = 1};
    pcg32 plain = rng;
    cr_assert_eq(pcg32_next(&plain), 4u);
    cr_expect_eq(pcg32_bounded(&rng, 6), 4u);
    cr_expect_eq(rng.state, plain.state, "exactly one draw");
}

Test(pcg32_bounded, largest_bound_in_range)
{
    pcg32 rng;
    pcg32_seed(&rng, 5u, 12u);
    for (int i = 0; i < 10000; i++) cr_assert_lt(pcg32_bounded(&rng, UINT32_MAX), UINT32_MAX);
}

/* ---------------------------------------------------------- bounded64 */

/* Bucket of v among `buckets` equal slices of [0, bound), without the 64-bit
 * overflow that v * buckets would risk. */
static size_t bucket64(uint64_t v, uint64_t bound, size_t buckets)
{
    uint64_t width = bound / buckets + (bound % buckets != 0);
    return (size_t)(v / width);
}

static void check_bounded64_uniform(uint64_t bound, uint64_t initstate)
{
    enum { BUCKETS = 16, DRAWS = 160000 };
    pcg32 rng;
    pcg32_seed(&rng, initstate, 21u);
    uint64_t counts[BUCKETS] = {0};
    uint64_t above_32_bits = 0;
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = pcg32_bounded64(&rng, bound);
        cr_assert_lt(v, bound, "bound %llu", (unsigned long long)bound);
        above_32_bits += v > UINT32_MAX;
        counts[bucket64(v, bound, BUCKETS)]++;
    }
    /* With bound above 2^32 most values need more than 32 bits; a generator
     * that only ever filled the low half would fail here. */
    cr_expect_gt(above_32_bits, DRAWS / 2, "bound %llu", (unsigned long long)bound);
    double chi2 = chi_square_uniform(counts, BUCKETS, DRAWS);
    cr_expect_lt(chi2, CHI2_LIMIT_15_DOF, "bound %llu: chi-square %g", (unsigned long long)bound,
                 chi2);
}

Test(pcg32_bounded64, bounds_above_32_bits_in_range_and_uniform)
{
    /* Divisible by 16 so that every bucket is the same width. */
    check_bounded64_uniform((UINT64_C(3) << 32) + 16u, 1u);
    check_bounded64_uniform(UINT64_C(1) << 40, 2u);
    check_bounded64_uniform(UINT64_C(0xfffffffffffffff0), 3u);
    /* 3 * 2^62 leaves 2^62 values over after the last whole multiple; without
     * rejection the lowest third would be twice as likely. */
    check_bounded64_uniform(UINT64_C(3) << 62, 4u);
}

/* As for pcg32_bounded: a pair of zero outputs makes the 64-bit value 0,
 * below the threshold 2^64 mod (3 * 2^62) = 2^62, so it is skipped and the
 * next pair, high half first, is used. */
Test(pcg32_bounded64, rejects_values_below_threshold)
{
    const uint64_t bound = UINT64_C(3) << 62;
    pcg32 rng = generator_giving_zeros();
    pcg32 plain = generator_giving_zeros();
    cr_assert_eq(pcg32_next(&plain), 0u);
    cr_assert_eq(pcg32_next(&plain), 0u);
    uint64_t high = pcg32_next(&plain);
    uint64_t low = pcg32_next(&plain);
    uint64_t value = (high << 32) | low;
    cr_assert_geq(value, UINT64_C(1) << 62, "the second pair must pass the threshold");
    cr_expect_eq(pcg32_bounded64(&rng, bound), value % bound);
    cr_expect_eq(rng.state, plain.state, "exactly four draws");
}

/* 2^63 + 1 rejects almost half of all 64-bit values; the top bucket holds a
 * single value, so the check is only on range and on the lower buckets'
 * balance. */
Test(pcg32_bounded64, worst_case_bound_in_range)
{
    const uint64_t bound = (UINT64_C(1) << 63) + 1u;
    pcg32 rng;
    pcg32_seed(&rng, 8u, 8u);
    uint64_t upper_half = 0;
    enum { DRAWS = 100000 };
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = pcg32_bounded64(&rng, bound);
        cr_assert_lt(v, bound);
        upper_half += v >= (UINT64_C(1) << 62);
    }
    /* Expect about half; a binomial(100000, 0.5) stays within 2000 of its
     * mean except with probability below 10^-35. */
    cr_expect(upper_half > DRAWS / 2 - 2000 && upper_half < DRAWS / 2 + 2000, "upper half %llu",
              (unsigned long long)upper_half);
}

Test(pcg32_bounded64, largest_bound_in_range)
{
    pcg32 rng;
    pcg32_seed(&rng, 4u, 4u);
    for (int i = 0; i < 10000; i++) cr_assert_lt(pcg32_bounded64(&rng, UINT64_MAX), UINT64_MAX);
}

/* A bound that fits in 32 bits takes the one-draw path, identical to
 * pcg32_bounded. */
Test(pcg32_bounded64, small_bound_matches_bounded)
{
    pcg32 a, b;
    pcg32_seed(&a, 42u, 54u);
    pcg32_seed(&b, 42u, 54u);
    static const uint32_t bounds[] = {1, 2, 6, 52, 1000, 0x80000001u, UINT32_MAX};
    for (int i = 0; i < 1000; i++) {
        uint32_t bound = bounds[i % (int)(sizeof bounds / sizeof bounds[0])];
        cr_assert_eq(pcg32_bounded64(&a, bound), (uint64_t)pcg32_bounded(&b, bound));
    }
    cr_expect_eq(a.state, b.state);
}

/* ------------------------------------------------------ floating point */

Test(pcg32_double, in_unit_interval_with_53_bits)
{
    enum { DRAWS = 100000 };
    pcg32 rng;
    pcg32_seed(&rng, 77u, 1u);
    double sum = 0.0;
    int odd_multiples = 0;
    for (int i = 0; i < DRAWS; i++) {
        double d = pcg32_double(&rng);
        cr_assert(d >= 0.0 && d < 1.0, "draw %d: %.17g", i, d);
        /* Every value is an exact multiple of 2^-53, and about half of them
         * an odd multiple: the lowest of the 53 bits is random too. */
        double scaled = d * 0x1.0p53;
        uint64_t integer = (uint64_t)scaled;
        cr_assert_eq((double)integer, scaled, "draw %d: %.17g not a multiple of 2^-53", i, d);
        odd_multiples += (int)(integer & 1u);
        sum += d;
    }
    double mean = sum / DRAWS;
    /* Standard error of the mean is about 0.0009. */
    cr_expect(mean > 0.49 && mean < 0.51, "mean %g", mean);
    cr_expect(odd_multiples > DRAWS / 2 - 2000 && odd_multiples < DRAWS / 2 + 2000,
              "odd multiples %d", odd_multiples);
}

Test(pcg32_double, uses_two_draws)
{
    pcg32 a, b;
    pcg32_seed(&a, 3u, 3u);
    pcg32_seed(&b, 3u, 3u);
    (void)pcg32_double(&a);
    (void)pcg32_next(&b);
    (void)pcg32_next(&b);
    cr_expect_eq(a.state, b.state);
}

Test(pcg32_float, in_unit_interval_with_24_bits)
{
    enum { DRAWS = 100000 };
    pcg32 rng;
    pcg32_seed(&rng, 78u, 1u);
    double sum = 0.0;
    int odd_multiples = 0;
    for (int i = 0; i < DRAWS; i++) {
        float f = pcg32_float(&rng);
        cr_assert(f >= 0.0f && f < 1.0f, "draw %d: %.9g", i, (double)f);
        float scaled = f * 0x1.0p24f;
        uint32_t integer = (uint32_t)scaled;
        cr_assert_eq((float)integer, scaled, "draw %d: %.9g not a multiple of 2^-24", i,
                     (double)f);
        odd_multiples += (int)(integer & 1u);
        sum += f;
    }
    double mean = sum / DRAWS;
    cr_expect(mean > 0.49 && mean < 0.51, "mean %g", mean);
    cr_expect(odd_multiples > DRAWS / 2 - 2000 && odd_multiples < DRAWS / 2 + 2000,
              "odd multiples %d", odd_multiples);
}

Test(pcg32_extremes, crafted_states_give_extreme_outputs)
{
    pcg32 rng = generator_giving_all_ones();
    cr_expect_eq(rng.inc & 1u, 1u);
    cr_expect_eq(pcg32_next(&rng), UINT32_MAX);
    cr_expect_eq(pcg32_next(&rng), UINT32_MAX);
    rng = generator_giving_zeros();
    cr_expect_eq(pcg32_next(&rng), 0u);
    cr_expect_eq(pcg32_next(&rng), 0u);
}

Test(pcg32_extremes, largest_outputs_stay_below_one)
{
    pcg32 rng = generator_giving_all_ones();
    cr_expect_eq(pcg32_float(&rng), 1.0f - 0x1.0p-24f);
    rng = generator_giving_all_ones();
    cr_expect_eq(pcg32_double(&rng), 1.0 - 0x1.0p-53);
}

Test(pcg32_extremes, smallest_outputs_are_zero)
{
    pcg32 rng = generator_giving_zeros();
    cr_expect_eq(pcg32_float(&rng), 0.0f);
    rng = generator_giving_zeros();
    cr_expect_eq(pcg32_double(&rng), 0.0);
}

/* ------------------------------------------------------------ advance */

/* Jumping ahead lands on the state that stepping gets to, for lengths with
 * every bit pattern near the small end, a few large ones, on several
 * streams; and the outputs after it are the stepped generator's. */
Test(pcg32_advance, lands_where_stepping_does)
{
    static const uint64_t streams[] = {0, 54, UINT64_MAX};
    static const uint64_t lengths[] = {0, 1, 2, 3, 7, 8, 255, 256, 1000, 65537, 1234567};
    for (size_t s = 0; s < sizeof streams / sizeof streams[0]; s++) {
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            pcg32 stepped, jumped;
            pcg32_seed(&stepped, 42u, streams[s]);
            jumped = stepped;
            for (uint64_t i = 0; i < lengths[l]; i++) (void)pcg32_next(&stepped);
            pcg32_advance(&jumped, lengths[l]);
            cr_assert_eq(jumped.state, stepped.state, "stream %zu, %llu steps", s,
                         (unsigned long long)lengths[l]);
            for (int i = 0; i < 16; i++)
                cr_assert_eq(pcg32_next(&jumped), pcg32_next(&stepped));
        }
    }
}

/* A jump of 2^64 steps is the identity: the LCG's period is 2^64. Two
 * jumps of 2^63 make one, and the halves compose as single jumps do. */
Test(pcg32_advance, full_period_returns_to_the_start)
{
    pcg32 rng, start;
    pcg32_seed(&rng, 7u, 11u);
    start = rng;
    pcg32_advance(&rng, UINT64_C(1) << 63);
    cr_expect_neq(rng.state, start.state);
    pcg32_advance(&rng, UINT64_C(1) << 63);
    cr_expect_eq(rng.state, start.state);
}
