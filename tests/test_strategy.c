/* Every strategy, on random small constrained spaces: proposes only valid,
 * distinct configurations; respects the budget; same seed, same sequence. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "rank_map.h"
#include "space_fixtures.h"
#include "strategy.h"

/* A deterministic landscape: a smooth bowl with a unique minimum. */
static double landscape(const space *s, uint64_t rank)
{
    uint16_t idx[16];
    space_unrank(s, rank, idx);
    double t = 1.0;
    for (size_t k = 0; k < space_param_count(s); k++) {
        double d = (double)idx[k] - 2.0;
        t += d * d * (double)(k + 1);
    }
    return t * 1000.0;
}

/* Runs a strategy to at most `budget` proposals, recording them. */
static size_t drive(const char *name, const space *s, uint64_t seed, size_t budget, uint64_t *out)
{
    history *h = history_new();
    strategy_setup setup = {.space = s, .history = h, .seed = seed, .budget = budget};
    strategy *st;
    skytune_error err = {0};
    cr_assert_eq(strategy_create(name, &setup, NULL, 0, &st, &err), 0, "%s", err.message);
    size_t n = 0;
    uint64_t rank;
    while (n < budget && strategy_ask(st, &rank) == STRATEGY_PROPOSE) {
        cr_assert_lt(rank, space_count(s), "%s proposed rank %llu outside the space", name,
                     (unsigned long long)rank);
        cr_assert(!history_lookup(h, rank, NULL), "%s proposed %llu twice", name,
                  (unsigned long long)rank);
        double t = landscape(s, rank);
        history_add(h, rank, t);
        strategy_tell(st, rank, t);
        out[n++] = rank;
    }
    strategy_free(st);
    history_free(h);
    return n;
}

static space *random_space(pcg32 *rng)
{
    static const char *const pool[] = {
        "p0 + p1 <= 5", "p0 != p2", "p1 * p2 % 2 == 0", "p3 >= p0 or p1 == 0", "p2 <= 3",
        "not (p0 == 1 and p3 == 2)",
    };
    const char *chosen[3];
    size_t n = 1 + pcg32_bounded(rng, 3);
    for (size_t k = 0; k < n; k++) chosen[k] = pool[pcg32_bounded(rng, 6)];
    return fixture_space(4, 5, chosen, n);
}

Test(strategy, every_strategy_proposes_valid_distinct_configurations_within_budget)
{
    size_t n_strategies;
    const strategy_ops *const *all = strategy_registry(&n_strategies);
    pcg32 rng;
    pcg32_seed(&rng, 11, 3);
    uint64_t proposed[1000];
    for (int round = 0; round < 30; round++) {
        space *s = random_space(&rng);
        uint64_t count = space_count(s);
        for (size_t k = 0; k < n_strategies; k++) {
            size_t budget = 1 + pcg32_bounded(&rng, 40);
            size_t n = drive(all[k]->name, s, 5, budget, proposed);
            cr_assert_leq(n, budget);
            /* Strategies that can cover the space do so up to the budget. */
            if (strcmp(all[k]->name, "exhaustive") == 0 || strcmp(all[k]->name, "random") == 0)
                cr_assert_eq(n, budget < count ? budget : count, "%s: %zu of %zu", all[k]->name,
                             n, budget);
            for (size_t j = 0; j < n; j++) {
                uint16_t idx[4];
                space_unrank(s, proposed[j], idx);
                cr_assert(space_is_valid(s, idx));
            }
        }
        space_free(s);
    }
}

Test(strategy, same_seed_same_sequence_other_seed_other_sequence)
{
    space *s = fixture_space(4, 5, NULL, 0);
    size_t n_strategies;
    const strategy_ops *const *all = strategy_registry(&n_strategies);
    uint64_t a[50], b[50], c[50];
    for (size_t k = 0; k < n_strategies; k++) {
        size_t na = drive(all[k]->name, s, 42, 50, a);
        size_t nb = drive(all[k]->name, s, 42, 50, b);
        cr_assert_eq(na, nb);
        cr_assert_arr_eq(a, b, na * sizeof a[0], "%s is not deterministic", all[k]->name);
        if (strcmp(all[k]->name, "exhaustive") != 0) {
            size_t nc = drive(all[k]->name, s, 43, 50, c);
            cr_assert(nc != na || memcmp(a, c, na * sizeof a[0]) != 0,
                      "%s ignores the seed", all[k]->name);
        }
    }
    space_free(s);
}

Test(strategy, exhaustive_visits_every_configuration_in_rank_order)
{
    const char *const constraints[] = {"p0 <= p1", "p2 != 1"};
    space *s = fixture_space(3, 4, constraints, 2);
    uint64_t seen[64];
    size_t n = drive("exhaustive", s, 1, 64, seen);
    cr_assert_eq(n, space_count(s));
    for (size_t k = 0; k < n; k++) cr_assert_eq(seen[k], k);
    space_free(s);
}

Test(strategy, random_covers_a_space_exactly_once_without_replacement)
{
    space *s = fixture_space(3, 6, NULL, 0);
    uint64_t seen[216];
    size_t n = drive("random", s, 9, 1000, seen);
    cr_assert_eq(n, 216);
    bool hit[216] = {false};
    for (size_t k = 0; k < n; k++) {
        cr_assert(!hit[seen[k]]);
        hit[seen[k]] = true;
    }
    space_free(s);
}

Test(strategy, unknown_strategy_and_option_are_refused_with_the_valid_ones)
{
    space *s = fixture_space(2, 3, NULL, 0);
    history *h = history_new();
    strategy_setup setup = {.space = s, .history = h, .seed = 1};
    strategy *st;
    skytune_error err = {0};
    cr_assert_neq(strategy_create("simplex", &setup, NULL, 0, &st, &err), 0);
    cr_assert(strstr(err.message, "simplex") && strstr(err.message, "random") &&
                  strstr(err.message, "exhaustive"),
              "%s", err.message);
    const char *bad[] = {"temperature=3"};
    cr_assert_neq(strategy_create("random", &setup, bad, 1, &st, &err), 0);
    cr_assert(strstr(err.message, "temperature=3"), "%s", err.message);
    history_free(h);
    space_free(s);
}

Test(strategy, default_strategy_exists)
{
    cr_assert_not_null(strategy_find(strategy_default_name()));
}

/* bayes's map of candidates: entries removed in any order leave every
 * other one found (a removal shifts the entries after it back rather than
 * leaving a gap that would end a lookup early), and it holds no more than
 * it was made for. */
Test(strategy, rank_map_keeps_what_removals_leave)
{
    rank_map m;
    cr_assert_eq(rank_map_init(&m, 600), 0);
    for (uint64_t r = 0; r < 600; r++) cr_assert_eq(rank_map_put(&m, r * 7919, (uint32_t)r), 0);
    cr_assert_eq(rank_map_put(&m, 1, 0), -1, "a 601st entry is refused");
    cr_assert_eq(rank_map_put(&m, 7919, 42), 0, "an entry there may change its value");
    for (uint64_t r = 0; r < 600; r += 3) rank_map_remove(&m, r * 7919);
    rank_map_remove(&m, 5); /* absent: nothing happens */
    for (uint64_t r = 0; r < 600; r++) {
        uint32_t v;
        bool present = rank_map_get(&m, r * 7919, &v);
        cr_assert_eq(present, r % 3 != 0, "rank %llu", (unsigned long long)(r * 7919));
        if (present) cr_assert_eq(v, r == 1 ? 42u : (uint32_t)r);
    }
    cr_assert_eq(m.count, 400);
    rank_map_free(&m);
}
