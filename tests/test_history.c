/* The history of evaluations: lookups agree with a plain sorted array after
 * many adds, the first objective of a rank wins, insertion order survives
 * the table's growth, and the best ignores failures. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "strategy.h"

/* A local generator for test data (SplitMix64), so that the test needs
 * nothing beyond history.c and stays deterministic. */
static uint64_t next_test_random(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static history *new_history_or_fail(void)
{
    history *h = history_new();
    cr_assert_not_null(h);
    return h;
}

/* ------------------------------------------------------------- basics */

Test(history, empty_history_has_nothing)
{
    history *h = new_history_or_fail();
    cr_expect_eq(history_count(h), 0);
    double objective = 123.0;
    cr_expect_not(history_lookup(h, 0, &objective));
    cr_expect_not(history_lookup(h, 42, &objective));
    cr_expect_not(history_lookup(h, UINT64_MAX, &objective));
    cr_expect_eq(objective, 123.0, "a failed lookup leaves the output alone");
    uint64_t rank = 7;
    cr_expect_not(history_best(h, &rank, &objective));
    cr_expect_eq(rank, 7);
    history_free(h);
}

Test(history, null_history_reads_as_empty)
{
    cr_expect_eq(history_count(NULL), 0);
    cr_expect_not(history_lookup(NULL, 1, NULL));
    cr_expect_not(history_best(NULL, NULL, NULL));
    history_free(NULL);
}

Test(history, add_then_lookup)
{
    history *h = new_history_or_fail();
    cr_assert_eq(history_add(h, 5, 1250.5), 0);
    cr_expect_eq(history_count(h), 1);
    double objective = 0.0;
    cr_expect(history_lookup(h, 5, &objective));
    cr_expect_eq(objective, 1250.5);
    cr_expect(history_lookup(h, 5, NULL), "the objective may be left out");
    cr_expect_not(history_lookup(h, 4, &objective));
    cr_expect_not(history_lookup(h, 6, &objective));
    history_free(h);
}

Test(history, failures_are_recorded)
{
    history *h = new_history_or_fail();
    cr_assert_eq(history_add(h, 9, INFINITY), 0);
    double objective = 0.0;
    cr_expect(history_lookup(h, 9, &objective));
    cr_expect(isinf(objective) && objective > 0);
    history_free(h);
}

Test(history, duplicates_keep_first_objective)
{
    history *h = new_history_or_fail();
    cr_assert_eq(history_add(h, 3, 100.0), 0);
    cr_assert_eq(history_add(h, 8, INFINITY), 0);
    cr_expect_eq(history_add(h, 3, 50.0), 0);
    cr_expect_eq(history_add(h, 8, 10.0), 0);
    cr_expect_eq(history_add(h, 3, INFINITY), 0);
    cr_expect_eq(history_count(h), 2);

    double objective = 0.0;
    cr_expect(history_lookup(h, 3, &objective));
    cr_expect_eq(objective, 100.0);
    cr_expect(history_lookup(h, 8, &objective));
    cr_expect(isinf(objective));
    cr_expect_eq(history_objective_at(h, 0), 100.0);
    cr_expect(isinf(history_objective_at(h, 1)));

    /* The ignored 10.0 for rank 8 must not have become the best either. */
    uint64_t rank = 0;
    cr_expect(history_best(h, &rank, &objective));
    cr_expect_eq(rank, 3);
    cr_expect_eq(objective, 100.0);
    history_free(h);
}

/* Rank 0 and UINT64_MAX are ordinary ranks to callers, whatever the table
 * uses internally. */
Test(history, extreme_ranks)
{
    history *h = new_history_or_fail();
    cr_assert_eq(history_add(h, UINT64_MAX, 2.0), 0);
    cr_assert_eq(history_add(h, 0, 1.0), 0);
    cr_assert_eq(history_add(h, UINT64_MAX, 99.0), 0);
    cr_expect_eq(history_count(h), 2);

    double objective = 0.0;
    cr_expect(history_lookup(h, UINT64_MAX, &objective));
    cr_expect_eq(objective, 2.0);
    cr_expect(history_lookup(h, 0, &objective));
    cr_expect_eq(objective, 1.0);
    cr_expect_not(history_lookup(h, UINT64_MAX - 1, &objective));

    cr_expect_eq(history_rank_at(h, 0), UINT64_MAX);
    cr_expect_eq(history_rank_at(h, 1), 0);
    cr_expect_eq(history_objective_at(h, 0), 2.0);

    uint64_t rank = 5;
    cr_expect(history_best(h, &rank, &objective));
    cr_expect_eq(rank, 0);
    cr_expect_eq(objective, 1.0);
    history_free(h);
}

Test(history, index_past_end_gives_no_measurement)
{
    history *h = new_history_or_fail();
    cr_assert_eq(history_add(h, 1, 1.0), 0);
    cr_expect(isnan(history_objective_at(h, 1)));
    cr_expect(isnan(history_objective_at(h, SIZE_MAX)));
    history_free(h);
}

/* ------------------------------------------------------- insertion order */

Test(history, insertion_order_preserved_through_growth)
{
    enum { N = 5000 };
    history *h = new_history_or_fail();
    uint64_t state = 11;
    uint64_t ranks[N];
    for (size_t i = 0; i < N; i++) {
        /* Distinct by construction: the low bits carry i. */
        ranks[i] = (next_test_random(&state) << 16) | i;
        cr_assert_eq(history_add(h, ranks[i], (double)i * 0.5), 0);
    }
    cr_assert_eq(history_count(h), N);
    for (size_t i = 0; i < N; i++) {
        cr_assert_eq(history_rank_at(h, i), ranks[i], "entry %zu", i);
        cr_assert_eq(history_objective_at(h, i), (double)i * 0.5, "entry %zu", i);
    }
    history_free(h);
}

/* ------------------------------------------------------------------ best */

Test(history, best_ignores_failures_and_nan)
{
    history *h = new_history_or_fail();
    uint64_t rank = 0;
    double objective = 0.0;

    cr_assert_eq(history_add(h, 10, INFINITY), 0);
    cr_expect_not(history_best(h, &rank, &objective), "only failures: no best");
    cr_assert_eq(history_add(h, 11, NAN), 0);
    cr_expect_not(history_best(h, &rank, &objective), "NaN is no measurement");

    cr_assert_eq(history_add(h, 12, 500.0), 0);
    cr_expect(history_best(h, &rank, &objective));
    cr_expect_eq(rank, 12);
    cr_expect_eq(objective, 500.0);

    cr_assert_eq(history_add(h, 13, INFINITY), 0);
    cr_assert_eq(history_add(h, 14, -INFINITY), 0);
    cr_assert_eq(history_add(h, 15, 700.0), 0);
    cr_expect(history_best(h, &rank, &objective));
    cr_expect_eq(rank, 12);

    cr_assert_eq(history_add(h, 16, 250.0), 0);
    cr_expect(history_best(h, &rank, &objective));
    cr_expect_eq(rank, 16);
    cr_expect_eq(objective, 250.0);

    /* A tie keeps the earlier configuration. */
    cr_assert_eq(history_add(h, 17, 250.0), 0);
    cr_expect(history_best(h, &rank, NULL));
    cr_expect_eq(rank, 16);
    history_free(h);
}

Test(history, best_matches_scan_over_many_adds)
{
    enum { N = 20000 };
    history *h = new_history_or_fail();
    uint64_t state = 5;
    for (size_t i = 0; i < N; i++) {
        uint64_t r = next_test_random(&state);
        /* About one in eight a failure. */
        double objective = (r & 7u) == 0 ? INFINITY : (double)(r >> 40);
        cr_assert_eq(history_add(h, r, objective), 0);

        size_t best_index = SIZE_MAX;
        if (i % 997 == 0 || i == N - 1) {
            for (size_t k = 0; k < history_count(h); k++) {
                double o = history_objective_at(h, k);
                if (isfinite(o) && (best_index == SIZE_MAX || o < history_objective_at(h, best_index)))
                    best_index = k;
            }
            uint64_t rank = 0;
            double best = 0.0;
            bool has_best = history_best(h, &rank, &best);
            cr_assert_eq(has_best, best_index != SIZE_MAX, "after %zu adds", i + 1);
            if (has_best) {
                cr_assert_eq(rank, history_rank_at(h, best_index));
                cr_assert_eq(best, history_objective_at(h, best_index));
            }
        }
    }
    history_free(h);
}

/* ------------------------------------------------- against a sorted array */

typedef struct reference_entry {
    uint64_t rank;
    size_t first_index; /* position of the first add of this rank */
    double objective;   /* objective of that first add */
} reference_entry;

static int compare_reference(const void *a, const void *b)
{
    const reference_entry *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->first_index < y->first_index ? -1 : x->first_index > y->first_index;
}

static int compare_rank_key(const void *key, const void *element)
{
    uint64_t rank = *(const uint64_t *)key;
    const reference_entry *e = element;
    return rank < e->rank ? -1 : rank > e->rank;
}

/* Add `n` ranks from `make_rank` (repeats allowed), then check every lookup,
 * hit or miss, against a sorted, deduplicated copy that keeps each rank's
 * first objective, and check the insertion order. */
static void check_against_sorted_array(size_t n, uint64_t (*make_rank)(uint64_t *state, size_t i),
                                       uint64_t seed)
{
    history *h = new_history_or_fail();
    reference_entry *all = malloc(n * sizeof *all);
    cr_assert_not_null(all);

    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t rank = make_rank(&state, i);
        double objective = (double)(next_test_random(&state) >> 11) * 0x1.0p-53 * 1e6;
        if (i % 13 == 0) objective = INFINITY;
        all[i] = (reference_entry){.rank = rank, .first_index = i, .objective = objective};
        cr_assert_eq(history_add(h, rank, objective), 0, "add %zu", i);
    }

    qsort(all, n, sizeof *all, compare_reference);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (distinct == 0 || all[distinct - 1].rank != all[i].rank) all[distinct++] = all[i];
    cr_assert_eq(history_count(h), distinct);

    /* Every distinct rank is found with its first objective and sits at the
     * position of its first add among the distinct ranks. */
    size_t *position_of_first = malloc(n * sizeof *position_of_first);
    cr_assert_not_null(position_of_first);
    for (size_t i = 0; i < n; i++) position_of_first[i] = SIZE_MAX;
    for (size_t k = 0; k < distinct; k++) position_of_first[all[k].first_index] = 0;
    size_t position = 0;
    for (size_t i = 0; i < n; i++)
        if (position_of_first[i] != SIZE_MAX) position_of_first[i] = position++;

    for (size_t k = 0; k < distinct; k++) {
        double objective = -1.0;
        cr_assert(history_lookup(h, all[k].rank, &objective), "rank %llu missing",
                  (unsigned long long)all[k].rank);
        cr_assert_eq(objective, all[k].objective, "rank %llu", (unsigned long long)all[k].rank);
        size_t at = position_of_first[all[k].first_index];
        cr_assert_eq(history_rank_at(h, at), all[k].rank, "position %zu", at);
        cr_assert_eq(history_objective_at(h, at), all[k].objective, "position %zu", at);
    }

    /* Ranks drawn afresh: found exactly when the sorted array has them. */
    uint64_t probe_state = seed ^ UINT64_C(0x5bd1e995);
    for (size_t i = 0; i < n; i++) {
        uint64_t rank = make_rank(&probe_state, i + n);
        const reference_entry *e = bsearch(&rank, all, distinct, sizeof *all, compare_rank_key);
        double objective = -1.0;
        bool found = history_lookup(h, rank, &objective);
        cr_assert_eq(found, e != NULL, "rank %llu", (unsigned long long)rank);
        if (e) cr_assert_eq(objective, e->objective);
    }

    free(position_of_first);
    free(all);
    history_free(h);
}

/* Anywhere in 64 bits: almost never repeats, lookups of fresh ones miss. */
static uint64_t wide_rank(uint64_t *state, size_t i)
{
    (void)i;
    return next_test_random(state);
}

/* From a range as small as the count: many repeats, and about two thirds of
 * fresh lookups hit. */
static uint64_t narrow_rank(uint64_t *state, size_t i)
{
    (void)i;
    return next_test_random(state) % 100000u;
}

/* Multiples of 2^32: identical low bits, the pattern a weak hash would pile
 * into one chain. */
static uint64_t low_bits_equal_rank(uint64_t *state, size_t i)
{
    (void)i;
    return (next_test_random(state) % 200000u) << 32;
}

/* Dense ranks in order, as an exhaustive strategy produces them; the probes
 * (i >= n) run past the end and miss. */
static uint64_t sequential_rank(uint64_t *state, size_t i)
{
    (void)state;
    return i;
}

Test(history, matches_sorted_array_wide_random_ranks)
{
    check_against_sorted_array(100000, wide_rank, 1);
}

Test(history, matches_sorted_array_with_repeats)
{
    check_against_sorted_array(100000, narrow_rank, 2);
}

Test(history, matches_sorted_array_equal_low_bits)
{
    check_against_sorted_array(100000, low_bits_equal_rank, 3);
}

Test(history, matches_sorted_array_sequential_ranks)
{
    check_against_sorted_array(100000, sequential_rank, 4);
}

/* ---------------------------------------------------------------- layers */

Test(history, a_layer_reads_through_to_its_base_and_leaves_it_alone)
{
    history *base = new_history_or_fail();
    cr_assert_eq(history_add(base, 10, 300.0), 0);
    cr_assert_eq(history_add(base, 20, 200.0), 0);
    history *layer = history_new_layer(base);
    cr_assert_not_null(layer);
    cr_expect_eq(history_count(layer), 2);

    /* A rank the base holds keeps the base's objective and is not added. */
    cr_assert_eq(history_add(layer, 20, 1.0), 0);
    cr_assert_eq(history_add(layer, 30, 250.0), 0);
    cr_assert_eq(history_add(layer, UINT64_MAX, 400.0), 0);
    cr_expect_eq(history_count(layer), 4);
    double objective = 0.0;
    cr_expect(history_lookup(layer, 10, &objective));
    cr_expect_eq(objective, 300.0);
    cr_expect(history_lookup(layer, 20, &objective));
    cr_expect_eq(objective, 200.0);
    cr_expect(history_lookup(layer, 30, &objective));
    cr_expect_eq(objective, 250.0);
    cr_expect(history_lookup(layer, UINT64_MAX, &objective));
    cr_expect_eq(objective, 400.0);
    cr_expect_not(history_lookup(layer, 40, NULL));

    /* The base's entries first, then the layer's. */
    static const uint64_t order[] = {10, 20, 30, UINT64_MAX};
    static const double objectives[] = {300.0, 200.0, 250.0, 400.0};
    for (size_t k = 0; k < 4; k++) {
        cr_expect_eq(history_rank_at(layer, k), order[k], "entry %zu", k);
        cr_expect_eq(history_objective_at(layer, k), objectives[k], "entry %zu", k);
    }
    cr_expect(isnan(history_objective_at(layer, 4)));

    /* The base knows nothing of what the layer holds. */
    cr_expect_eq(history_count(base), 2);
    cr_expect_not(history_lookup(base, 30, NULL));
    cr_expect_not(history_lookup(base, UINT64_MAX, NULL));
    history_free(layer);
    cr_expect_eq(history_count(base), 2);
    history_free(base);
}

Test(history, a_layers_best_is_the_earliest_lowest_of_both)
{
    history *base = new_history_or_fail();
    history *layer = history_new_layer(base);
    cr_assert_not_null(layer);
    uint64_t rank;
    double objective;
    cr_expect_not(history_best(layer, &rank, &objective));
    cr_assert_eq(history_add(layer, 5, INFINITY), 0);
    cr_expect_not(history_best(layer, &rank, &objective), "a failure is no best");
    cr_assert_eq(history_add(layer, 6, 70.0), 0);
    cr_expect(history_best(layer, &rank, &objective));
    cr_expect_eq(rank, 6, "the layer's own best when the base has none");
    history_free(layer);

    cr_assert_eq(history_add(base, 1, 50.0), 0);
    layer = history_new_layer(base);
    cr_assert_not_null(layer);
    cr_assert_eq(history_add(layer, 2, 50.0), 0);
    cr_expect(history_best(layer, &rank, &objective));
    cr_expect_eq(rank, 1, "a tie keeps the base's, which came first");
    cr_assert_eq(history_add(layer, 3, 40.0), 0);
    cr_expect(history_best(layer, &rank, &objective));
    cr_expect_eq(rank, 3);
    cr_expect_eq(objective, 40.0);
    cr_expect(history_best(base, &rank, &objective));
    cr_expect_eq(rank, 1, "the base's best is its own");
    history_free(layer);
    history_free(base);
}
