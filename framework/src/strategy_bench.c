#include "strategy_bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "strategy.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double expected_random_best(const double *objectives, size_t n, uint64_t budget)
{
    if (n == 0 || budget == 0) return INFINITY;
    if (budget > n) budget = n;
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted) return NAN;
    memcpy(sorted, objectives, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    /* P(the i-th smallest is the best of the sample) = C(n-i, B-1) / C(n, B)
     * for i = 1..n-B+1, computed by its ratio to the previous term. */
    double expected = 0.0, p = (double)budget / (double)n;
    for (size_t i = 1; i + budget <= n + 1; i++) {
        if (p <= 0) break;
        if (isinf(sorted[i - 1])) {
            expected = INFINITY;
            break;
        }
        expected += p * sorted[i - 1];
        p *= (double)(n - i - budget + 1) / (double)(n - i);
    }
    free(sorted);
    return expected;
}

/* Expected random best under a seconds budget has no closed form; it is
 * simulated with the random strategy over the same seeds. */
typedef struct run_outcome {
    double best_ns;
    uint64_t evaluated;
} run_outcome;

static int run_once(const bench_dataset *d, const char *strategy_name, double budget,
                    bench_budget_unit unit, uint64_t seed, const bench_settings *settings,
                    run_outcome *out, skytune_error *err)
{
    history *h = history_new();
    if (!h) return err_set(err, "out of memory");
    campaign_limits limits = {0};
    if (unit == BENCH_EVALUATIONS)
        limits.max_evaluations = (uint64_t)budget;
    else
        limits.device_time_s = budget;
    strategy_setup setup = {.space = d->space, .history = h, .seed = seed,
                            .budget = limits.max_evaluations};
    strategy *st;
    if (strategy_create(strategy_name, &setup, settings ? settings->items : NULL,
                        settings ? settings->count : 0, &st, err) != 0) {
        history_free(h);
        return -1;
    }
    campaign_config cfg = {
        .space = d->space,
        .strategy = st,
        .history = h,
        .eval = replay_evaluator_as_evaluator(d->evaluator),
        .limits = limits,
    };
    campaign_result r;
    int rc = campaign_run(&cfg, &r, err);
    out->best_ns = r.have_best ? r.best_ns : INFINITY;
    out->evaluated = r.evaluated;
    strategy_free(st);
    history_free(h);
    return rc;
}

/* What a cell is judged against: the optimum, the slowest successful time
 * (which stands in for "found nothing that ran", so that one unlucky run
 * does not make the mean infinite) and random search's expectation. */
typedef struct cell_reference {
    double optimum, worst, expected_random;
} cell_reference;

static int fill_cell(const bench_dataset *d, const char *strategy_name, double budget,
                     bench_budget_unit unit, unsigned runs, uint64_t seed_base,
                     const bench_settings *settings, const cell_reference *ref, bench_cell *cell,
                     skytune_error *err)
{
    double optimum = ref->optimum, expected_random = ref->expected_random;
    double sum = 0, sum_sq = 0, min_fraction = INFINITY, found = 0, evaluations = 0, sum_best = 0;
    for (unsigned r = 0; r < runs; r++) {
        run_outcome o;
        if (run_once(d, strategy_name, budget, unit, seed_base + r, settings, &o, err) != 0)
            return -1;
        double fraction = isinf(o.best_ns) ? 0.0 : optimum / o.best_ns;
        sum += fraction;
        sum_sq += fraction * fraction;
        if (fraction < min_fraction) min_fraction = fraction;
        if (o.best_ns <= optimum) found++;
        evaluations += (double)o.evaluated;
        sum_best += isinf(o.best_ns) ? ref->worst : o.best_ns;
    }
    double mean = sum / runs;
    double mean_best = sum_best / runs;
    *cell = (bench_cell){
        .dataset = d->name,
        .strategy = strategy_name,
        .budget = budget,
        .runs = runs,
        .mean_fraction = mean,
        .sd_fraction = runs > 1 ? sqrt(fmax(0.0, (sum_sq - runs * mean * mean) / (runs - 1))) : 0,
        .min_fraction = min_fraction,
        .found_optimum = found / runs,
        .mean_evaluations = evaluations / runs,
        .expected_random = expected_random,
        .score = expected_random > optimum
                     ? (expected_random - mean_best) / (expected_random - optimum)
                     : (mean_best <= optimum ? 1.0 : 0.0),
        .optimum_ns = optimum,
    };
    return 0;
}

int strategy_bench_dataset(const bench_dataset *d, const char *const *strategies,
                           size_t n_strategies, const double *budgets, size_t n_budgets,
                           bench_budget_unit unit, unsigned runs, uint64_t seed_base,
                           const bench_settings *settings, bench_cell **cells, size_t *n_cells,
                           skytune_error *err)
{
    double optimum;
    if (!replay_optimum(d->evaluator, &optimum))
        return err_set(err, "dataset %s: no configuration of the space ran successfully", d->name);
    uint64_t count = space_count(d->space);
    double *objectives = malloc((count ? count : 1) * sizeof *objectives);
    if (!objectives) return err_set(err, "out of memory");
    double worst = optimum;
    for (uint64_t k = 0; k < count; k++) {
        objectives[k] = replay_objective(d->evaluator, k);
        if (!isinf(objectives[k]) && objectives[k] > worst) worst = objectives[k];
    }
    /* Failures count as the slowest successful time, as for the strategies. */
    for (uint64_t k = 0; k < count; k++)
        if (isinf(objectives[k])) objectives[k] = worst;

    int rc = 0;
    for (size_t b = 0; b < n_budgets && rc == 0; b++) {
        double expected;
        if (unit == BENCH_EVALUATIONS) {
            expected = expected_random_best(objectives, count, (uint64_t)budgets[b]);
        } else {
            double sum = 0;
            for (unsigned r = 0; r < runs && rc == 0; r++) {
                run_outcome o;
                rc = run_once(d, "random", budgets[b], unit, seed_base + 1000003u + r, NULL, &o,
                              err);
                sum += isinf(o.best_ns) ? worst : o.best_ns;
            }
            expected = sum / runs;
        }
        for (size_t s = 0; s < n_strategies && rc == 0; s++) {
            bench_cell *grown = realloc(*cells, (*n_cells + 1) * sizeof *grown);
            if (!grown) {
                rc = err_set(err, "out of memory");
                break;
            }
            *cells = grown;
            cell_reference ref = {optimum, worst, expected};
            rc = fill_cell(d, strategies[s], budgets[b], unit, runs, seed_base, settings, &ref,
                           &grown[*n_cells], err);
            if (rc == 0) (*n_cells)++;
        }
    }
    free(objectives);
    return rc;
}
