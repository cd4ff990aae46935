/* A stage's random input (plugins/stage/stage_random.h): drawn in parallel
 * parts, it is the one sequence a single generator gives, float for float,
 * whatever the number of parts; nothing past the end is written. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include <pcg32.h>

#include "stage_random.h"

/* The definition, one float at a time. */
static void fill_serially(float *out, size_t n, uint64_t seed)
{
    pcg32 rng;
    pcg32_seed(&rng, seed, 0);
    for (size_t i = 0; i < n; i++) out[i] = 2.0f * pcg32_float(&rng) - 1.0f;
}

static void expect_the_sequence(size_t n, uint64_t seed)
{
    float *parallel = malloc((n + 1) * sizeof *parallel);
    float *serial = malloc((n + 1) * sizeof *serial);
    cr_assert(parallel && serial);
    parallel[n] = 42.0f; /* a guard past the end */
    stage_fill_signed_uniform(parallel, n, seed);
    fill_serially(serial, n, seed);
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) differ += parallel[i] != serial[i];
    cr_expect_eq(differ, 0, "%zu of %zu floats differ from the sequence (seed %llu)", differ, n,
                 (unsigned long long)seed);
    cr_expect_eq(parallel[n], 42.0f, "a float past the end was written");
    for (size_t i = 0; i < n; i++)
        if (parallel[i] < -1.0f || parallel[i] >= 1.0f) {
            cr_expect_fail("float %zu is %g, outside [-1, 1)", i, (double)parallel[i]);
            break;
        }
    free(parallel);
    free(serial);
}

/* Large enough for several parts (one per 2^20 floats, up to the CPUs), and
 * not a multiple of their number, so that the parts' ends are uneven. */
Test(stage_random, parallel_parts_draw_the_one_sequence)
{
    expect_the_sequence(((size_t)3 << 20) + 12345, 7);
    expect_the_sequence(((size_t)5 << 20) + 1, 123456789);
}

Test(stage_random, small_inputs_are_the_sequence_too)
{
    expect_the_sequence(1000, 7);
    expect_the_sequence(1, 0);
    expect_the_sequence(0, 3);
}
