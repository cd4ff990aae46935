/* PCG32 (XSH RR 64/32), after M. E. O'Neill, "PCG: A Family of Simple Fast
 * Space-Efficient Statistically Good Algorithms for Random Number
 * Generation" (2014).
 *
 * The state advances by a 64-bit linear congruential step; each output is a
 * permutation of the state before the step: an xorshift that folds the
 * well-mixed high bits down ("XSH"), then a 32-bit rotation by an amount
 * taken from the top five bits ("RR"). The LCG's low bits have short periods;
 * the permutation hides them, which is what lifts the generator's statistical
 * quality far above that of a bare LCG.
 *
 * The seeding, stepping and bounded draws match the reference pcg-c-basic
 * (pcg32_srandom_r, pcg32_random_r, pcg32_boundedrand_r) exactly, so a
 * sequence can be checked against the reference demo's published output. */
#include "pcg32.h"

/* The LCG multiplier of the reference implementation (Knuth's MMIX
 * multiplier), shared by every stream. */
#define PCG32_MULTIPLIER UINT64_C(6364136223846793005)

/* Rotate right; the (-rot & 31) form keeps the left shift below 32 bits when
 * rot is 0, where a shift by 32 would be undefined. */
static inline uint32_t rotate_right32(uint32_t value, uint32_t rot)
{
    return (value >> rot) | (value << ((0u - rot) & 31u));
}

void pcg32_seed(pcg32 *rng, uint64_t initstate, uint64_t initseq)
{
    /* The increment selects the stream; an LCG modulo 2^64 has full period
     * only with an odd increment, hence the shift and the low bit. Stepping
     * before and after adding initstate mixes initstate into the state so
     * that nearby seeds do not start on nearby states. */
    rng->state = 0;
    rng->inc = (initseq << 1) | 1u;
    (void)pcg32_next(rng);
    rng->state += initstate;
    (void)pcg32_next(rng);
}

uint32_t pcg32_next(pcg32 *rng)
{
    uint64_t old = rng->state;
    rng->state = old * PCG32_MULTIPLIER + rng->inc;
    /* Output from the old state so that the multiply above and the
     * permutation below do not depend on each other and can overlap. */
    uint32_t xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    uint32_t rot = (uint32_t)(old >> 59);
    return rotate_right32(xorshifted, rot);
}

void pcg32_advance(pcg32 *rng, uint64_t delta)
{
    /* The state after n steps of s -> a s + c is A s + C, with A = a^n and
     * C = c (a^(n-1) + ... + a + 1). Both are built by squaring: for each
     * bit of delta from the lowest, the step of 2^k outputs (cur_mult,
     * cur_plus) is folded into the total when the bit is set, then doubled
     * into the step of 2^(k+1). All of it modulo 2^64, as the LCG itself. */
    uint64_t acc_mult = 1, acc_plus = 0;
    uint64_t cur_mult = PCG32_MULTIPLIER, cur_plus = rng->inc;
    while (delta > 0) {
        if (delta & 1u) {
            acc_mult *= cur_mult;
            acc_plus = acc_plus * cur_mult + cur_plus;
        }
        cur_plus = (cur_mult + 1u) * cur_plus;
        cur_mult *= cur_mult;
        delta >>= 1;
    }
    rng->state = acc_mult * rng->state + acc_plus;
}

uint32_t pcg32_bounded(pcg32 *rng, uint32_t bound)
{
    /* An empty range has no valid value; answer 0 without drawing rather
     * than dividing by zero below. */
    if (bound == 0) return 0;

    /* `r % bound` alone would favour small results whenever bound does not
     * divide 2^32. Rejecting the 2^32 mod bound lowest outputs leaves a range
     * that is an exact multiple of bound. (2^32 - bound) mod bound equals
     * 2^32 mod bound and fits in 32-bit arithmetic, which is what unsigned
     * negation computes. At least half of all outputs are accepted for any
     * bound, so the loop ends quickly. */
    uint32_t threshold = (0u - bound) % bound;
    for (;;) {
        uint32_t r = pcg32_next(rng);
        if (r >= threshold) return r % bound;
    }
}

uint64_t pcg32_bounded64(pcg32 *rng, uint64_t bound)
{
    if (bound == 0) return 0;
    /* A bound that fits in 32 bits needs only one draw per attempt, and then
     * gives exactly what pcg32_bounded gives. */
    if (bound <= UINT32_MAX) return pcg32_bounded(rng, (uint32_t)bound);

    /* Two consecutive outputs, the first as the high half, make a uniform
     * 64-bit value; the same rejection as in pcg32_bounded, at 64 bits,
     * removes the modulo bias. */
    uint64_t threshold = (UINT64_C(0) - bound) % bound;
    for (;;) {
        uint64_t high = pcg32_next(rng);
        uint64_t low = pcg32_next(rng);
        uint64_t r = (high << 32) | low;
        if (r >= threshold) return r % bound;
    }
}

double pcg32_double(pcg32 *rng)
{
    /* A double's significand holds 53 bits, so one 32-bit output cannot fill
     * it. Take the top 53 of two outputs and scale by 2^-53: every result is
     * a multiple of 2^-53 in [0, 1 - 2^-53], each equally likely, and the
     * conversion and scaling are exact (no rounding can reach 1.0). */
    uint64_t high = pcg32_next(rng);
    uint64_t low = pcg32_next(rng);
    uint64_t bits53 = ((high << 32) | low) >> 11;
    return (double)bits53 * 0x1.0p-53;
}

float pcg32_float(pcg32 *rng)
{
    /* A float's significand holds 24 bits: keep the top 24 of one output so
     * that the conversion is exact and the result never rounds up to 1.0f. */
    uint32_t bits24 = pcg32_next(rng) >> 8;
    return (float)bits24 * 0x1.0p-24f;
}
