/* The search strategies (hill-climbing, evolutionary, annealing, prune, bayes) on
 * synthetic landscapes whose optimum is known: they find it within modest
 * budgets, propose only valid configurations never evaluated before, repair
 * constrained children, and prune's reduced space keeps the optimum of a
 * separable landscape. Seeds are fixed, so every assertion is
 * deterministic. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "neighbourhood.h"
#include "space_fixtures.h"
#include "strategy.h"

static const char *const searchers[] = {"hill-climbing", "evolutionary", "annealing", "prune",
                                        "bayes"};
#define N_SEARCHERS (sizeof searchers / sizeof searchers[0])

typedef double (*landscape_fn)(const uint16_t *idx, size_t n);

typedef struct run_result {
    size_t evaluations;     /* proposals made */
    size_t found_at;        /* evaluation (1-based) that hit the optimum; 0 when never */
    double best;
} run_result;

/* Set by the tests that only ask whether the optimum is found at all: the
 * drive stops there, and the budget bounds how long it may take. (Each
 * Criterion test runs in a process of its own.) */
static bool stop_when_found;

/* Drives a strategy like the campaign loop does, for at most `budget`
 * evaluations, asserting every proposal is a valid configuration of the
 * space not evaluated before. `h` may hold earlier results. */
static run_result drive(const char *name, const space *s, history *h, landscape_fn f,
                        uint64_t seed, size_t budget, const char *const *settings,
                        size_t n_settings, double optimum)
{
    strategy_setup setup = {.space = s, .history = h, .seed = seed, .budget = budget};
    strategy *st;
    skytune_error err = {0};
    cr_assert_eq(strategy_create(name, &setup, settings, n_settings, &st, &err), 0, "%s: %s", name,
                 err.message);
    run_result result = {.best = INFINITY};
    uint16_t idx[16];
    uint64_t rank;
    while (result.evaluations < budget && !(stop_when_found && result.found_at) &&
           strategy_ask(st, &rank) == STRATEGY_PROPOSE) {
        cr_assert_lt(rank, space_count(s), "%s proposed rank %llu outside the space", name,
                     (unsigned long long)rank);
        cr_assert(!history_lookup(h, rank, NULL), "%s proposed %llu, already evaluated", name,
                  (unsigned long long)rank);
        space_unrank(s, rank, idx);
        cr_assert(space_is_valid(s, idx), "%s proposed an invalid configuration", name);
        double t = f(idx, space_param_count(s));
        cr_assert_eq(history_add(h, rank, t), 0);
        strategy_tell(st, rank, t);
        result.evaluations++;
        if (t < result.best) result.best = t;
        if (t == optimum && !result.found_at) result.found_at = result.evaluations;
    }
    strategy_free(st);
    return result;
}

static run_result drive_fresh(const char *name, const space *s, landscape_fn f, uint64_t seed,
                              size_t budget, const char *const *settings, size_t n_settings,
                              double optimum)
{
    history *h = history_new();
    cr_assert_not_null(h);
    run_result r = drive(name, s, h, f, seed, budget, settings, n_settings, optimum);
    history_free(h);
    return r;
}

/* The lowest objective of a landscape over the space, by enumeration. */
typedef struct optimum_search {
    landscape_fn f;
    size_t n;
    double best;
} optimum_search;

static int visit_for_optimum(void *ctx, const uint16_t *idx)
{
    optimum_search *o = ctx;
    double t = o->f(idx, o->n);
    if (t < o->best) o->best = t;
    return 0;
}

static double true_optimum(const space *s, landscape_fn f)
{
    optimum_search o = {f, space_param_count(s), INFINITY};
    cr_assert_eq(space_enumerate(s, visit_for_optimum, &o), 0);
    return o.best;
}

/* ------------------------------------------------------------ landscapes */

/* A convex bowl, its minimum at (4, 2, 5, 1, 3) with weights that differ
 * per parameter. */
static const uint16_t bowl_centre[] = {4, 2, 5, 1, 3};

static double bowl(const uint16_t *idx, size_t n)
{
    double t = 1.0;
    for (size_t k = 0; k < n; k++) {
        double d = (double)idx[k] - (double)bowl_centre[k];
        t += d * d * (double)(k % 3 + 1);
    }
    return 1000.0 * t;
}

/* Two basins: a broad one around (1, 1, 1, 1) bottoming at 2000 and a
 * narrow, deeper one around (6, 6, 5, 6) at 1000. A first-improvement climb
 * with Hamming moves from a random configuration ends in the narrow one
 * about 7% of the time; kicks from the broad minimum alone find it for
 * about half the seeds below, so random restarts are what get there. */
static double deceptive(const uint16_t *idx, size_t n)
{
    static const int broad_centre[] = {1, 1, 1, 1};
    static const int narrow_centre[] = {6, 6, 5, 6};
    double broad = 2000.0, narrow = 1000.0;
    for (size_t k = 0; k < n; k++) {
        broad += 60.0 * fabs((double)idx[k] - broad_centre[k]);
        narrow += 450.0 * fabs((double)idx[k] - narrow_centre[k]);
    }
    return broad < narrow ? broad : narrow;
}

/* The bowl with about one configuration in five failing, scattered by a
 * hash of the configuration; the minimum itself runs. */
static double bowl_with_failures(const uint16_t *idx, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    bool at_centre = true;
    for (size_t k = 0; k < n; k++) {
        h = (h ^ idx[k]) * 0x100000001b3ULL;
        at_centre = at_centre && idx[k] == bowl_centre[k];
    }
    h ^= h >> 29;
    if (!at_centre && h % 5 == 0) return INFINITY;
    return bowl(idx, n);
}

/* A separable landscape: a product of one factor per parameter. Each
 * parameter's best value is at `separable_best[k]`, and every other value is
 * at least 30% slower, except the values listed as close (10% slower). */
static const uint16_t separable_best[] = {3, 0, 5, 2, 1};

static double separable_factor(size_t k, uint16_t v)
{
    if (v == separable_best[k]) return 1.0;
    if (k == 0 && v == 4) return 1.1; /* close */
    if (k == 2 && v == 4) return 1.1; /* close */
    return 1.3 + 0.2 * fabs((double)v - separable_best[k]);
}

static double separable(const uint16_t *idx, size_t n)
{
    double t = 1000.0;
    for (size_t k = 0; k < n; k++) t *= separable_factor(k, idx[k]);
    return t;
}

/* ----------------------------------------------------------------- spaces */

static space *constrained_bowl_space(void)
{
    static const char *const constraints[] = {"p0 + p1 <= 9", "p2 != p3 or p2 == 5",
                                              "not (p3 == 0 and p4 == 3)"};
    return fixture_space(5, 7, constraints, 3);
}

/* ------------------------------------------------------------------ tests */

Test(search_strategies, every_searcher_finds_the_bowl_minimum_in_a_quarter_of_the_space)
{
    space *s = constrained_bowl_space();
    double optimum = true_optimum(s, bowl);
    cr_assert_eq(optimum, 1000.0, "the bowl's centre must be valid");
    size_t budget = (size_t)(space_count(s) / 4);
    stop_when_found = true;
    for (size_t k = 0; k < N_SEARCHERS; k++)
        for (uint64_t seed = 1; seed <= 8; seed++) {
            run_result r = drive_fresh(searchers[k], s, bowl, seed, budget, NULL, 0, optimum);
            cr_assert(r.found_at, "%s (seed %llu) missed the bowl's minimum in %zu evaluations",
                      searchers[k], (unsigned long long)seed, budget);
        }
    space_free(s);
}

Test(search_strategies, hill_climbing_finds_the_bowl_minimum_quickly)
{
    /* A bowl has one basin: a climb from anywhere reaches the minimum, so
     * far fewer evaluations than random sampling would need. */
    space *s = constrained_bowl_space();
    double optimum = true_optimum(s, bowl);
    static const char *const neighbourhoods[][1] = {
        {"neighbourhood=adjacent"}, {"neighbourhood=hamming"}, {"neighbourhood=adjacent-first"}};
    for (size_t n = 0; n < 3; n++)
        for (uint64_t seed = 1; seed <= 8; seed++) {
            run_result r =
                drive_fresh("hill-climbing", s, bowl, seed, 200, neighbourhoods[n], 1, optimum);
            cr_assert(r.found_at, "%s (seed %llu): best %g", neighbourhoods[n][0],
                      (unsigned long long)seed, r.best);
        }
    space_free(s);
}

Test(search_strategies, restarts_escape_a_deceptive_local_optimum)
{
    space *s = fixture_space(4, 8, NULL, 0);
    double optimum = true_optimum(s, deceptive);
    cr_assert_eq(optimum, 1000.0);
    size_t budget = (size_t)(space_count(s) / 4);
    for (size_t k = 0; k < N_SEARCHERS; k++) {
        size_t found = 0;
        for (uint64_t seed = 1; seed <= 10; seed++)
            found += drive_fresh(searchers[k], s, deceptive, seed, budget, NULL, 0, optimum)
                         .found_at != 0;
        cr_assert_geq(found, 7, "%s found the deceptive optimum for %zu of 10 seeds",
                      searchers[k], found);
    }
    /* Restarting at random configurations only also gets there. */
    static const char *const random_restarts[] = {"restart=random"};
    size_t found = 0;
    for (uint64_t seed = 1; seed <= 10; seed++)
        found += drive_fresh("hill-climbing", s, deceptive, seed, budget, random_restarts, 1,
                             optimum)
                     .found_at != 0;
    cr_assert_geq(found, 7, "restart=random: %zu of 10", found);
    space_free(s);
}

/* Values 0..15 of p0 where only the powers of two run fast (three times
 * faster than the rest, 8 the best of them), and a smooth bowl in p1 and
 * p2: the optimum is a needle among slow neighbours unless powers of two
 * are seen as alike. */
static double powers_of_two_fast(const uint16_t *idx, size_t n)
{
    (void)n;
    unsigned v = idx[0];
    bool power = v > 0 && (v & (v - 1)) == 0;
    double alignment = power ? 1.0 + 0.05 * fabs(log2((double)v) - 3.0) : 3.0;
    double d1 = (double)idx[1] - 5.0, d2 = (double)idx[2] - 10.0;
    return 1000.0 * alignment * (1.0 + 0.1 * d1 * d1 + 0.1 * d2 * d2);
}

Test(search_strategies, bayes_sees_powers_of_two_as_alike)
{
    space *s = fixture_space(3, 16, NULL, 0);
    double optimum = true_optimum(s, powers_of_two_fast);
    cr_assert_eq(optimum, 1000.0);
    static const char *const with[] = {"pow2=1", "hc_share=0"};
    static const char *const without[] = {"pow2=0", "hc_share=0"};
    size_t found_with = 0, found_without = 0, budget = 25;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        found_with +=
            drive_fresh("bayes", s, powers_of_two_fast, seed, budget, with, 2, optimum).found_at != 0;
        found_without +=
            drive_fresh("bayes", s, powers_of_two_fast, seed, budget, without, 2, optimum)
                .found_at != 0;
    }
    cr_log_info("optimum found for %zu of 20 seeds with the power-of-two column, %zu without",
                found_with, found_without);
    cr_assert_geq(found_with, found_without + 5,
                  "with the power-of-two column %zu of 20, without %zu", found_with, found_without);
    space_free(s);
}

/* A two-way switch and three parameters of 8 values. Switched on, a broad
 * bowl bottoms at 1300; switched off, times fall from 3500 towards a
 * narrow basin around (6, 1, 5), and only within two steps of it do they
 * beat the other half, down to 1000. Expected improvement learns early
 * that the switch is better on and stays there; keeping each half at its
 * share of the results finds the basin. */
static double switch_with_a_hidden_basin(const uint16_t *idx, size_t n)
{
    (void)n;
    double a = idx[1], b = idx[2], c = idx[3];
    if (idx[0] == 1)
        return 1300.0 + 20.0 * ((a - 2) * (a - 2) + (b - 5) * (b - 5) + (c - 3) * (c - 3));
    double d = fabs(a - 6) + fabs(b - 1) + fabs(c - 5);
    return d <= 2 ? 1000.0 + 150.0 * d : 1600.0 + 100.0 * d;
}

Test(search_strategies, bayes_keeps_both_halves_of_a_switch_in_play)
{
    skytune_tuning_param specs[] = {
        {.name = "switch", .kind = SKYTUNE_LIST, .list = "0,1"},
        {.name = "a", .kind = SKYTUNE_RANGE, .from = 0, .to = 7, .step = 1},
        {.name = "b", .kind = SKYTUNE_RANGE, .from = 0, .to = 7, .step = 1},
        {.name = "c", .kind = SKYTUNE_RANGE, .from = 0, .to = 7, .step = 1},
    };
    space *s = fixture_space_of(specs, sizeof specs / sizeof specs[0], NULL, 0);
    double optimum = true_optimum(s, switch_with_a_hidden_basin);
    cr_assert_eq(optimum, 1000.0);
    static const char *const with[] = {"balance=2"};
    static const char *const without[] = {"balance=0"};
    size_t found_with = 0, found_without = 0, budget = 60;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        found_with += drive_fresh("bayes", s, switch_with_a_hidden_basin, seed, budget, with, 1,
                                  optimum)
                          .found_at != 0;
        found_without += drive_fresh("bayes", s, switch_with_a_hidden_basin, seed, budget,
                                     without, 1, optimum)
                             .found_at != 0;
    }
    cr_log_info("optimum found for %zu of 20 seeds with the balance, %zu without", found_with,
                found_without);
    cr_assert_geq(found_with, found_without + 5, "with the balance %zu of 20, without %zu",
                  found_with, found_without);
    space_free(s);
}

/* A bowl over a parameter of 300 values, two of 4 and 3 values and one of a
 * single value: bayes tabulates its kernel by groups of parameters of at
 * most 256 value combinations, so the wide parameter has a group of its
 * own, the narrow ones share one, and the single value is left out. */
static double wide_bowl(const uint16_t *idx, size_t n)
{
    (void)n;
    double d0 = ((double)idx[0] - 211.0) / 30.0, d1 = (double)idx[1] - 2.0,
           d3 = (double)idx[3] - 1.0;
    return 1000.0 * (1.0 + d0 * d0 + 0.5 * d1 * d1 + 0.3 * d3 * d3);
}

Test(search_strategies, bayes_models_a_parameter_wider_than_its_kernel_tables)
{
    skytune_tuning_param specs[] = {
        {.name = "wide", .kind = SKYTUNE_RANGE, .from = 0, .to = 299, .step = 1},
        {.name = "four", .kind = SKYTUNE_LIST, .list = "0,1,2,3"},
        {.name = "one", .kind = SKYTUNE_LIST, .list = "7"},
        {.name = "three", .kind = SKYTUNE_LIST, .list = "0,1,2"},
    };
    space *s = fixture_space_of(specs, sizeof specs / sizeof specs[0], NULL, 0);
    cr_assert_eq(space_count(s), 3600);
    double optimum = true_optimum(s, wide_bowl);
    /* 60 evaluations, 1.7 % of the space; random search finds the single
     * optimum in about one run of sixty. Expected improvement alone, without
     * the steps around the best, finds it only where the model is right. */
    static const char *const model_only[] = {"hc_share=0"};
    size_t found = 0;
    for (uint64_t seed = 1; seed <= 10; seed++)
        found += drive_fresh("bayes", s, wide_bowl, seed, 60, model_only, 1, optimum).found_at != 0;
    cr_assert_geq(found, 9, "bayes found the optimum for %zu of 10 seeds", found);
    space_free(s);
}

/* Where the candidates are a sample of the space, expected improvement
 * would choose among the sample and the best's neighbours (the local
 * slots) only; the acquisition search climbs from the best candidates to
 * configurations outside both, several parameters at a time. With a pool
 * of one configuration (candidates=1) and no steps to the best's
 * neighbours (hc_share=0), every model proposal without the acquisition
 * search is the pool's one configuration or a neighbour of the best, one
 * parameter away from it: at most one proposal per seed two or more
 * parameters away from every result. With it, the climbs from the best
 * propose such configurations more often than that. */
Test(search_strategies, bayes_searches_beyond_a_sampled_pool)
{
    space *s = fixture_space(5, 8, NULL, 0); /* 32,768 configurations */
    static const char *const settings[] = {"candidates=1", "hc_share=0", "initial_samples=5"};
    size_t far_proposals = 0;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        history *h = history_new();
        cr_assert_not_null(h);
        strategy_setup setup = {.space = s, .history = h, .seed = seed, .budget = 40};
        strategy *st;
        skytune_error err = {0};
        cr_assert_eq(strategy_create("bayes", &setup, settings, 3, &st, &err), 0, "%s",
                     err.message);
        uint16_t idx[5], other[5];
        uint64_t rank;
        for (size_t n = 0; n < 40 && strategy_ask(st, &rank) == STRATEGY_PROPOSE; n++) {
            space_unrank(s, rank, idx);
            /* Parameters apart from the nearest configuration evaluated. */
            size_t nearest = SIZE_MAX;
            for (size_t k = 0; k < history_count(h); k++) {
                space_unrank(s, history_rank_at(h, k), other);
                size_t apart = 0;
                for (size_t p = 0; p < 5; p++) apart += idx[p] != other[p];
                if (apart < nearest) nearest = apart;
            }
            if (n >= 5 && nearest >= 2) far_proposals++;
            double t = bowl(idx, 5);
            cr_assert_eq(history_add(h, rank, t), 0);
            strategy_tell(st, rank, t);
        }
        strategy_free(st);
        history_free(h);
    }
    cr_log_info("%zu model proposals two or more parameters from every result", far_proposals);
    cr_assert_gt(far_proposals, 5,
                 "%zu proposals two or more parameters from every result, no more than the "
                 "pool's one configuration a seed gives",
                 far_proposals);
    space_free(s);
}

Test(search_strategies, failures_scattered_in_the_space_do_not_stop_the_search)
{
    space *s = constrained_bowl_space();
    double optimum = true_optimum(s, bowl_with_failures);
    size_t budget = (size_t)(space_count(s) / 4);
    stop_when_found = true;
    for (size_t k = 0; k < N_SEARCHERS; k++)
        for (uint64_t seed = 1; seed <= 5; seed++) {
            run_result r =
                drive_fresh(searchers[k], s, bowl_with_failures, seed, budget, NULL, 0, optimum);
            cr_assert(r.found_at, "%s (seed %llu) missed the minimum among failures: best %g",
                      searchers[k], (unsigned long long)seed, r.best);
        }
    space_free(s);
}

Test(search_strategies, every_searcher_covers_a_constrained_space_to_the_last_configuration)
{
    /* Strategies fall back to unvisited configurations rather than stopping
     * early: with a budget of the whole space they evaluate all of it. */
    static const char *const constraints[] = {"p0 + p1 + p2 <= 6", "p1 != p3"};
    space *s = fixture_space(4, 5, constraints, 2);
    for (size_t k = 0; k < N_SEARCHERS; k++) {
        run_result r = drive_fresh(searchers[k], s, bowl, 3, (size_t)space_count(s) + 10, NULL, 0,
                                   -1.0);
        cr_assert_eq(r.evaluations, space_count(s), "%s evaluated %zu of %llu", searchers[k],
                     r.evaluations, (unsigned long long)space_count(s));
    }
    space_free(s);
}

Test(search_strategies, every_searcher_skips_what_the_history_already_holds)
{
    /* A resumed campaign: half the space is known. Nothing known is
     * proposed again (drive asserts it) and the rest is still searched. */
    space *s = constrained_bowl_space();
    double optimum = true_optimum(s, bowl);
    for (size_t k = 0; k < N_SEARCHERS; k++) {
        history *h = history_new();
        uint16_t idx[5];
        for (uint64_t r = 0; r < space_count(s); r += 2) {
            space_unrank(s, r, idx);
            if (bowl(idx, 5) != optimum) history_add(h, r, bowl(idx, 5));
        }
        run_result found = drive(searchers[k], s, h, bowl, 7, 500, NULL, 0, optimum);
        cr_assert(found.found_at, "%s did not find the minimum after resuming", searchers[k]);
        history_free(h);
    }
    space_free(s);
}

Test(search_strategies, evolutionary_children_are_repaired_on_a_heavily_constrained_space)
{
    /* Under 3% of the Cartesian product is valid: most crossovers and
     * mutations break a constraint and must be repaired, never dropped. */
    static const char *const constraints[] = {"p0 + p1 + p2 + p3 + p4 <= 7", "p0 != p1",
                                              "(p2 + p3) % 2 == 0"};
    space *s = fixture_space(5, 7, constraints, 3);
    cr_assert_lt(space_count(s) * 30, space_cartesian_count(s));
    static const char *const settings[] = {"population=12", "mutation=0.5", "elitism=1"};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        run_result r = drive_fresh("evolutionary", s, bowl, seed, (size_t)space_count(s), settings,
                                   3, -1.0);
        cr_assert_eq(r.evaluations, space_count(s), "seed %llu: %zu of %llu",
                     (unsigned long long)seed, r.evaluations, (unsigned long long)space_count(s));
    }
    space_free(s);
}

/* Brute force: the fewest value steps from idx to a valid configuration,
 * optionally keeping parameter `fixed`. */
typedef struct nearest_search {
    const uint16_t *from;
    size_t n, fixed;
    unsigned best;
} nearest_search;

static int visit_for_nearest(void *ctx, const uint16_t *idx)
{
    nearest_search *ns = ctx;
    if (ns->fixed < ns->n && idx[ns->fixed] != ns->from[ns->fixed]) return 0;
    unsigned d = 0;
    for (size_t k = 0; k < ns->n; k++) d += (unsigned)abs((int)idx[k] - (int)ns->from[k]);
    if (d < ns->best) ns->best = d;
    return 0;
}

static unsigned steps_between(const uint16_t *a, const uint16_t *b, size_t n)
{
    unsigned d = 0;
    for (size_t k = 0; k < n; k++) d += (unsigned)abs((int)a[k] - (int)b[k]);
    return d;
}

Test(search_strategies, repair_moves_to_a_nearest_valid_configuration)
{
    static const char *const constraints[] = {"p0 + p1 + p2 + p3 <= 5", "p0 != p1"};
    space *s = fixture_space(4, 8, constraints, 2);
    pcg32 rng;
    pcg32_seed(&rng, 5, 1);
    uint16_t from[4], repaired[4];
    for (int trial = 0; trial < 200; trial++) {
        for (size_t k = 0; k < 4; k++) from[k] = (uint16_t)pcg32_bounded(&rng, 8);
        size_t fixed = trial % 2 ? (size_t)(trial % 4) : REPAIR_NO_FIXED_PARAMETER;
        if (fixed != REPAIR_NO_FIXED_PARAMETER && from[fixed] > 3) from[fixed] = 3;
        nearest_search ns = {from, 4, fixed, UINT32_MAX};
        space_enumerate(s, visit_for_nearest, &ns);
        uint64_t rank;
        int found = repair_to_nearest(s, from, fixed, NULL, NULL, &rng, REPAIR_DEFAULT_STATES,
                                      &rank);
        cr_assert_eq(found, 1, "trial %d: no repair", trial);
        space_unrank(s, rank, repaired);
        cr_assert(space_is_valid(s, repaired));
        cr_assert_eq(steps_between(from, repaired, 4), ns.best, "trial %d: %u steps, nearest %u",
                     trial, steps_between(from, repaired, 4), ns.best);
        if (fixed != REPAIR_NO_FIXED_PARAMETER) cr_assert_eq(repaired[fixed], from[fixed]);
    }
    space_free(s);
}

Test(search_strategies, prune_keeps_the_optimum_of_a_separable_landscape)
{
    /* threshold=1.05: only each parameter's best value survives, so the
     * reduced space is the optimum alone and is evaluated right after the
     * baseline samples and the sweeps (at most 10 + 5 * 6 evaluations).
     * threshold=1.2 also keeps the two close values: the reduced space has
     * four configurations, the optimum first in best-first order. Both with
     * the baseline moving and with the thesis' fixed baseline. */
    space *s = fixture_space(5, 7, NULL, 0);
    double optimum = true_optimum(s, separable);
    cr_assert_eq(optimum, 1000.0);
    size_t sweeps = 10 + 5 * 6;
    static const char *const settings[][2] = {
        {"threshold=1.05", "baseline_update=best"}, {"threshold=1.05", "baseline_update=none"},
        {"threshold=1.2", "baseline_update=best"},  {"threshold=1.2", "baseline_update=none"}};
    for (size_t c = 0; c < 4; c++)
        for (uint64_t seed = 1; seed <= 5; seed++) {
            run_result r = drive_fresh("prune", s, separable, seed, 500, settings[c], 2, optimum);
            cr_assert(r.found_at && r.found_at <= sweeps + 1, "%s %s (seed %llu): found at %zu",
                      settings[c][0], settings[c][1], (unsigned long long)seed, r.found_at);
        }
    space_free(s);
}

Test(search_strategies, prune_sweeps_around_a_baseline_even_where_constraints_bite)
{
    /* One-at-a-time configurations that break a constraint are replaced by
     * the nearest valid one keeping the swept value; the optimum is still
     * in the reduced space. */
    static const char *const constraints[] = {"p0 + p1 <= 8", "p2 != p4 + 3"};
    space *s = fixture_space(5, 7, constraints, 2);
    double optimum = true_optimum(s, separable);
    cr_assert_eq(optimum, 1000.0);
    static const char *const settings[] = {"threshold=1.2"};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        run_result r = drive_fresh("prune", s, separable, seed, 500, settings, 1, optimum);
        cr_assert(r.found_at && r.found_at <= 10 + 5 * 6 + 4, "seed %llu: found at %zu",
                  (unsigned long long)seed, r.found_at);
    }
    space_free(s);
}

/* A pipeline in miniature: p0 and p1 are two stages' layouts, p2 the
 * scheme (0: common, valid only where the layouts agree; 1: transpose, only
 * where they differ). A common pipeline takes 100; a transposing one is
 * fastest at (5, 3) and slow (200) where the layouts are neighbours. */
static const char *const scheme_constraints[] = {"p2 <= 1", "p2 == 1 or p0 == p1",
                                                 "p2 == 0 or p0 != p1"};

static double schemed(const uint16_t *idx, size_t n)
{
    (void)n;
    int p0 = idx[0], p1 = idx[1];
    if (idx[2] == 0) return 100.0;
    if (abs(p0 - p1) == 1) return 200.0;
    return 40.0 + 10.0 * abs(5 - p0) + 10.0 * abs(3 - p1);
}

Test(search_strategies, prune_judges_a_repaired_value_only_against_its_own_context)
{
    /* Around the common baseline (0, 0, common), the scheme's `transpose`
     * is reachable only by moving a layout, to a neighbour (200): against
     * the baseline's 100 that value would be dropped, and the optimum
     * (5, 3, transpose) with it. Judged against what was measured in its
     * own context (nothing), it is kept, and the reduced space holds the
     * optimum: it is measured before the climb begins. */
    space *s = fixture_space(3, 6, scheme_constraints, 3);
    double optimum = true_optimum(s, schemed);
    cr_assert_eq(optimum, 40.0);
    static const char *const settings[] = {"baseline=first", "baseline_update=none",
                                           "threshold=1.2"};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        history *h = history_new();
        strategy_setup setup = {.space = s, .history = h, .seed = seed, .budget = 500};
        strategy *st;
        skytune_error err = {0};
        cr_assert_eq(strategy_create("prune", &setup, settings, 3, &st, &err), 0, "%s",
                     err.message);
        bool climbing = false, found = false;
        char reduced_line[256] = "";
        uint64_t rank;
        while (!climbing && !found && strategy_ask(st, &rank) == STRATEGY_PROPOSE) {
            const char *phase = strategy_phase_change(st);
            if (phase && strstr(phase, "reduced space of") && !reduced_line[0])
                snprintf(reduced_line, sizeof reduced_line, "%s", phase);
            climbing = phase && strstr(phase, "hill-climbing over the whole space");
            uint16_t idx[3];
            space_unrank(s, rank, idx);
            double t = schemed(idx, 3);
            found = !climbing && t == optimum;
            cr_assert_eq(history_add(h, rank, t), 0);
            strategy_tell(st, rank, t);
        }
        cr_assert(found, "seed %llu: the optimum was not in the reduced space (%s)",
                  (unsigned long long)seed, reduced_line);
        strategy_free(st);
        history_free(h);
    }
    space_free(s);
}

/* p0 and p1 interact: the time is lowest where they agree, and lowest of
 * all at (6, 6); p2 is separable. Swept one at a time around a baseline off
 * the diagonal, each parameter's best value is the other's: only a joint
 * sweep sees (6, 6) without luck. */
static double interacting(const uint16_t *idx, size_t n)
{
    (void)n;
    double gap = (double)idx[0] - (double)idx[1];
    return 1000.0 * (1.0 + 0.5 * gap * gap + 0.02 * (6 - idx[0]) + 0.02 * (6 - idx[1])) *
           (idx[2] == 3 ? 1.0 : 1.3);
}

Test(search_strategies, prune_sweeps_a_group_of_parameters_as_one)
{
    space *s = fixture_space(3, 7, NULL, 0);
    double optimum = true_optimum(s, interacting);
    cr_assert_eq(optimum, 1000.0);
    static const char *const settings[] = {"groups=p0,p1", "baseline_samples=4",
                                           "threshold=1.05"};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        history *h = history_new();
        strategy_setup setup = {.space = s, .history = h, .seed = seed, .budget = 500};
        strategy *st;
        skytune_error err = {0};
        cr_assert_eq(strategy_create("prune", &setup, settings, 3, &st, &err), 0, "%s",
                     err.message);
        /* The baseline samples, then every other tuple of the group with p2
         * at the baseline's value, each once: 48, less those the samples
         * measured already. */
        uint16_t idx[3], samples[4][3];
        double sample_time[4];
        uint64_t rank;
        size_t baseline = 0;
        for (size_t e = 0; e < 4; e++) {
            cr_assert_eq(strategy_ask(st, &rank), STRATEGY_PROPOSE);
            space_unrank(s, rank, samples[e]);
            sample_time[e] = interacting(samples[e], 3);
            if (sample_time[e] < sample_time[baseline]) baseline = e;
            cr_assert_eq(history_add(h, rank, sample_time[e]), 0);
            strategy_tell(st, rank, sample_time[e]);
        }
        const uint16_t *base = samples[baseline];
        bool seen[7][7] = {{false}};
        seen[base[0]][base[1]] = true;
        size_t sweep = 48;
        for (size_t e = 0; e < 4; e++)
            if (samples[e][2] == base[2] && !seen[samples[e][0]][samples[e][1]]) {
                seen[samples[e][0]][samples[e][1]] = true;
                sweep--;
            }
        for (size_t e = 0; e < sweep; e++) {
            cr_assert_eq(strategy_ask(st, &rank), STRATEGY_PROPOSE);
            space_unrank(s, rank, idx);
            cr_assert_eq(idx[2], base[2], "seed %llu: p2 moved during the group's sweep",
                         (unsigned long long)seed);
            cr_assert(!seen[idx[0]][idx[1]], "seed %llu: a tuple swept twice",
                      (unsigned long long)seed);
            seen[idx[0]][idx[1]] = true;
            double t = interacting(idx, 3);
            cr_assert_eq(history_add(h, rank, t), 0);
            strategy_tell(st, rank, t);
        }
        /* Then p2 alone (6 more) and the reduced space: the optimum. */
        bool found = false;
        for (size_t e = 0; e < 6 + 2 && !found; e++) {
            cr_assert_eq(strategy_ask(st, &rank), STRATEGY_PROPOSE);
            space_unrank(s, rank, idx);
            double t = interacting(idx, 3);
            found = t == optimum;
            cr_assert_eq(history_add(h, rank, t), 0);
            strategy_tell(st, rank, t);
        }
        double best = INFINITY;
        for (size_t j = 0; j < history_count(h); j++)
            if (history_objective_at(h, j) < best) best = history_objective_at(h, j);
        cr_assert_eq(best, optimum, "seed %llu: the optimum was not found after the sweeps",
                     (unsigned long long)seed);
        strategy_free(st);
        history_free(h);
    }
    space_free(s);
}

/* prune names each phase as it enters it, and the counts its lines give
 * are the evaluations the phases take: the reduced space's "N valid and not
 * yet measured" are the proposals before the climb. */
Test(search_strategies, prune_names_each_phase_with_the_evaluations_it_takes)
{
    space *s = fixture_space(3, 7, NULL, 0);
    static const char *const settings[] = {"groups=p0,p1", "baseline_samples=4",
                                           "threshold=1.05"};
    history *h = history_new();
    strategy_setup setup = {.space = s, .history = h, .seed = 3, .budget = 300};
    strategy *st;
    skytune_error err = {0};
    cr_assert_eq(strategy_create("prune", &setup, settings, 3, &st, &err), 0, "%s", err.message);
    char lines[4][256] = {{0}};
    size_t at[4] = {0}, n_lines = 0;
    for (size_t e = 1; e <= 300; e++) {
        uint64_t rank;
        if (strategy_ask(st, &rank) == STRATEGY_DONE) break;
        const char *phase = strategy_phase_change(st);
        if (phase) {
            cr_assert_lt(n_lines, 4, "a fifth phase: %s", phase);
            snprintf(lines[n_lines], sizeof lines[n_lines], "%s", phase);
            at[n_lines++] = e;
        }
        cr_assert_null(strategy_phase_change(st), "a phase reported twice");
        uint16_t idx[3];
        space_unrank(s, rank, idx);
        double t = interacting(idx, 3);
        cr_assert_eq(history_add(h, rank, t), 0);
        strategy_tell(st, rank, t);
    }
    cr_assert_eq(n_lines, 4, "%zu phases", n_lines);
    cr_assert_eq(at[0], 1);
    cr_assert(strstr(lines[0], "baseline, the fastest of 4 random"), "%s", lines[0]);
    cr_assert_eq(at[1], 5);
    /* 49 tuples of (p0, p1) and p2's 7 values. */
    cr_assert(strstr(lines[1], "sweeping 2 units") && strstr(lines[1], "(56 values"), "%s",
              lines[1]);
    size_t kept = 0, of = 0, product = 0, unmeasured = 0;
    cr_assert_eq(sscanf(lines[2],
                        "prune: kept %zu of %zu values or tuples; reduced space of %zu "
                        "combinations, %zu valid and not yet measured",
                        &kept, &of, &product, &unmeasured),
                 4, "%s", lines[2]);
    cr_assert_eq(of, 56);
    cr_assert(kept >= 2 && kept < 56 && unmeasured >= 1 && unmeasured <= product, "%s", lines[2]);
    cr_assert_eq(at[3] - at[2], unmeasured, "the reduced space took %zu proposals, its line says %zu",
                 at[3] - at[2], unmeasured);
    cr_assert(strstr(lines[3], "hill-climbing over the whole space"), "%s", lines[3]);
    strategy_free(st);
    /* A strategy of one phase names none. */
    history *h2 = history_new();
    strategy_setup one = {.space = s, .history = h2, .seed = 1};
    cr_assert_eq(strategy_create("exhaustive", &one, NULL, 0, &st, &err), 0, "%s", err.message);
    uint64_t rank;
    cr_assert_eq(strategy_ask(st, &rank), STRATEGY_PROPOSE);
    cr_assert_null(strategy_phase_change(st));
    strategy_free(st);
    history_free(h2);
    history_free(h);
    space_free(s);
}

Test(search_strategies, bad_option_values_are_refused_naming_the_valid_ones)
{
    space *s = fixture_space(3, 4, NULL, 0);
    history *h = history_new();
    strategy_setup setup = {.space = s, .history = h, .seed = 1};
    strategy *st;
    static const struct {
        const char *strategy, *setting, *expected;
    } cases[] = {
        {"hill-climbing", "neighbourhood=diagonal", "adjacent-first, adjacent, hamming"},
        {"hill-climbing", "improvement=some", "first, best"},
        {"hill-climbing", "restart=never", "perturb, random"},
        {"annealing", "temperature=0", "temperature"},
        {"annealing", "cooling=1.5", "cooling"},
        {"evolutionary", "population=1", "population"},
        {"evolutionary", "mutation=2", "mutation"},
        {"prune", "second=simplex", "hill-climbing, best-first, random"},
        {"prune", "threshold=0.5", "threshold"},
        {"prune", "groups=p0,q7", "'q7' is not a tuning parameter; they are: p0, p1, p2"},
        {"prune", "groups=p0,p1;p1", "'p1' is named twice"},
        {"prune", "groups=p0,,p1", "a parameter name is missing"},
        {"bayes", "hc_share=1.5", "hc_share must be in 0..1"},
        {"bayes", "relevance=2", "relevance must be 0 or 1"},
        {"bayes", "pow2=-1", "pow2 must be 0 or 1"},
        {"bayes", "balance=-1", "balance must be 0 or more"},
        {"bayes", "noise=0", "noise must be above 0"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        skytune_error err = {0};
        const char *settings[] = {cases[c].setting};
        cr_assert_neq(strategy_create(cases[c].strategy, &setup, settings, 1, &st, &err), 0,
                      "%s %s accepted", cases[c].strategy, cases[c].setting);
        cr_assert(strstr(err.message, cases[c].expected), "%s", err.message);
    }
    history_free(h);
    space_free(s);
}

Test(search_strategies, searchers_handle_a_space_of_one_configuration_and_an_empty_one)
{
    space *one = fixture_space(3, 1, NULL, 0);
    static const char *const impossible[] = {"p0 > 5"};
    space *none = fixture_space(2, 3, impossible, 1);
    cr_assert_eq(space_count(one), 1);
    cr_assert_eq(space_count(none), 0);
    for (size_t k = 0; k < N_SEARCHERS; k++) {
        cr_assert_eq(drive_fresh(searchers[k], one, bowl, 1, 10, NULL, 0, -1.0).evaluations, 1,
                     "%s", searchers[k]);
        cr_assert_eq(drive_fresh(searchers[k], none, bowl, 1, 10, NULL, 0, -1.0).evaluations, 0,
                     "%s", searchers[k]);
    }
    space_free(one);
    space_free(none);
}
