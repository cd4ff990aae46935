/* Judging strategies on recorded spaces (strategy_bench): the exact
 * expectation of random search against hand-computed values, the figures of
 * a cell on a small dataset whose answers are known, failures counted as
 * the slowest successful time, and strategy options passed through. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay_evaluator.h"
#include "replay_fixtures.h"
#include "space.h"
#include "cli_harness.h"
#include "strategy.h"
#include "strategy_bench.h"

TestSuite(strategy_bench, .init = replay_make_tmp_dir, .fini = replay_remove_tmp_dir);

static void assert_near(double actual, double expected, const char *what)
{
    cr_assert(fabs(actual - expected) <= 1e-9 * fmax(1.0, fabs(expected)), "%s: %.12g, expected %.12g",
              what, actual, expected);
}

Test(strategy_bench, expected_random_best_by_hand)
{
    const double times[] = {4, 1, 3, 2};
    /* One draw: the mean. */
    assert_near(expected_random_best(times, 4, 1), 2.5, "budget 1");
    /* Two draws without replacement: the six pairs' minima are
     * 1,1,1,2,2,3, so 10/6. */
    assert_near(expected_random_best(times, 4, 2), 10.0 / 6.0, "budget 2");
    /* Three draws: minima of the four triples 1,1,1,2 -> 5/4. */
    assert_near(expected_random_best(times, 4, 3), 5.0 / 4.0, "budget 3");
    assert_near(expected_random_best(times, 4, 4), 1.0, "budget = every configuration");
    assert_near(expected_random_best(times, 4, 9), 1.0, "budget beyond the space");
    cr_assert(isinf(expected_random_best(times, 0, 2)), "an empty space has no best");
}

/* Three configurations of one parameter: 1 ms, 2 ms and one that failed. */
static const char three_configurations[] =
    "{\"device_name\": \"Test\", \"tune_params_keys\": [\"wg\"],\n"
    "\"tune_params\": {\"wg\": [16, 32, 64]},\n"
    "\"objective\": \"time\",\n"
    "\"cache\": {\n"
    "\"16\": {\"wg\": 16, \"time\": 2.0, \"compile_time\": 100, \"benchmark_time\": 10},\n"
    "\"32\": {\"wg\": 32, \"time\": 1.0, \"compile_time\": 100, \"benchmark_time\": 10},\n"
    "\"64\": {\"wg\": 64, \"time\": \"RuntimeFailedConfig\"}\n"
    "}}\n";

typedef struct small_bench {
    replay_dataset *data;
    space *space;
    replay_evaluator *evaluator;
    bench_dataset dataset;
} small_bench;

static void bench_open(small_bench *b, const char *name, const char *cache_text)
{
    char file[64];
    snprintf(file, sizeof file, "%s.cache.json", name);
    const char *path = replay_tmp_path(file);
    replay_write_text(path, cache_text);
    b->data = load_dataset(path);
    skytune_error err = {0};
    cr_assert_eq(replay_dataset_space(b->data, &b->space, &err), 0, "%s", err.message);
    cr_assert_eq(replay_evaluator_new(b->data, b->space, &b->evaluator, &err), 0, "%s",
                 err.message);
    b->dataset = (bench_dataset){name, b->space, b->evaluator, NULL};
}

static void small_bench_open(small_bench *b)
{
    bench_open(b, "three", three_configurations);
}

/* An 8 x 8 space with a basin off the corners, a ripple that makes local
 * optima, a failing corner and recorded times that differ by configuration,
 * so that strategies and budgets of either kind take different paths. */
static char *grid_cache_text(void)
{
    size_t cap = 64 * 160 + 256, used = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    used += (size_t)snprintf(text + used, cap - used,
                             "{\"device_name\": \"Test\", \"tune_params_keys\": [\"a\", \"b\"],\n"
                             "\"tune_params\": {\"a\": [1, 2, 3, 4, 5, 6, 7, 8], "
                             "\"b\": [1, 2, 3, 4, 5, 6, 7, 8]},\n"
                             "\"objective\": \"time\", \"cache\": {\n");
    for (int a = 1; a <= 8; a++)
        for (int b = 1; b <= 8; b++) {
            const char *sep = a == 8 && b == 8 ? "" : ",";
            if (a == 8 && b < 3)
                used += (size_t)snprintf(text + used, cap - used,
                                         "\"%d,%d\": {\"a\": %d, \"b\": %d, "
                                         "\"time\": \"CompilationFailedConfig\"}%s\n",
                                         a, b, a, b, sep);
            else
                used += (size_t)snprintf(
                    text + used, cap - used,
                    "\"%d,%d\": {\"a\": %d, \"b\": %d, \"time\": %.3f, "
                    "\"compile_time\": %d, \"benchmark_time\": 10}%s\n",
                    a, b, a, b,
                    1.0 + 0.3 * (a - 5) * (a - 5) + 0.2 * (b - 3) * (b - 3) +
                        0.4 * ((a * 7 + b * 3) % 5),
                    100 + 40 * a, sep);
        }
    snprintf(text + used, cap - used, "}}\n");
    return text;
}

static void small_bench_close(small_bench *b)
{
    replay_evaluator_free(b->evaluator);
    space_free(b->space);
    replay_free(b->data);
}

static bench_plan plan_of(const char *const *strategies, size_t n_strategies,
                          const double *budgets, size_t n_budgets, unsigned runs,
                          const bench_settings *settings)
{
    return (bench_plan){.strategies = strategies, .n_strategies = n_strategies,
                        .budgets = budgets, .n_budgets = n_budgets,
                        .unit = BENCH_EVALUATIONS, .runs = runs, .seed_base = 1,
                        .settings = settings, .threads = 2};
}

static bench_cell *run_plan(small_bench *b, const bench_plan *plan, size_t *n_cells)
{
    bench_cell *cells = NULL;
    *n_cells = 0;
    skytune_error err = {0};
    cr_assert_eq(strategy_bench_dataset(&b->dataset, plan, &cells, n_cells, &err), 0, "%s",
                 err.message);
    return cells;
}

static bench_cell *run_cells(small_bench *b, const char *const *strategies, size_t n_strategies,
                             const double *budgets, size_t n_budgets, unsigned runs,
                             const bench_settings *settings, size_t *n_cells)
{
    bench_plan plan = plan_of(strategies, n_strategies, budgets, n_budgets, runs, settings);
    return run_plan(b, &plan, n_cells);
}

Test(strategy_bench, exhaustive_with_the_whole_space_always_finds_the_optimum)
{
    small_bench b;
    small_bench_open(&b);
    const char *strategies[] = {"exhaustive"};
    const double budgets[] = {3};
    size_t n;
    bench_cell *cells = run_cells(&b, strategies, 1, budgets, 1, 7, NULL, &n);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(cells[0].strategy, "exhaustive");
    cr_assert_eq(cells[0].runs, 7);
    assert_near(cells[0].optimum_ns, 1e6, "optimum");
    assert_near(cells[0].mean_fraction, 1.0, "fraction");
    assert_near(cells[0].min_fraction, 1.0, "worst run");
    assert_near(cells[0].found_optimum, 1.0, "share that found it");
    assert_near(cells[0].mean_evaluations, 3.0, "evaluations, the failure included");
    /* With every configuration drawn random search finds the optimum too,
     * so the score's denominator vanishes and finding it counts as 1. */
    assert_near(cells[0].expected_random, 1e6, "random with the whole space");
    assert_near(cells[0].score, 1.0, "score");
    free(cells);
    small_bench_close(&b);
}

Test(strategy_bench, a_failure_counts_as_the_slowest_successful_time)
{
    small_bench b;
    small_bench_open(&b);
    const char *strategies[] = {"random"};
    const double budgets[] = {1};
    size_t n;
    bench_cell *cells = run_cells(&b, strategies, 1, budgets, 1, 300, NULL, &n);
    cr_assert_eq(n, 1);
    /* One draw among 1 ms, 2 ms and a failure (counted as 2 ms). */
    assert_near(cells[0].expected_random, (1e6 + 2e6 + 2e6) / 3.0, "E[random best]");
    cr_assert(isfinite(cells[0].score), "a run that found nothing must not make the score infinite");
    /* Fractions are 1, 0.5 or 0 (nothing ran): about a third each. */
    cr_assert(cells[0].mean_fraction > 0.35 && cells[0].mean_fraction < 0.65, "fraction %g",
              cells[0].mean_fraction);
    cr_assert_eq(cells[0].min_fraction, 0.0, "some run drew only the failure");
    cr_assert(fabs(cells[0].score) < 0.25, "random is no better than random: score %g",
              cells[0].score);
    free(cells);
    small_bench_close(&b);
}

Test(strategy_bench, one_cell_per_strategy_and_budget_with_the_same_seeds)
{
    small_bench b;
    small_bench_open(&b);
    const char *strategies[] = {"random", "random"};
    const double budgets[] = {1, 2};
    size_t n;
    bench_cell *cells = run_cells(&b, strategies, 2, budgets, 2, 20, NULL, &n);
    cr_assert_eq(n, 4);
    cr_assert_eq(cells[0].budget, 1);
    cr_assert_eq(cells[2].budget, 2);
    /* The same strategy with the same seeds gives the same figures. */
    cr_assert_eq(cells[0].mean_fraction, cells[1].mean_fraction);
    cr_assert_eq(cells[2].mean_fraction, cells[3].mean_fraction);
    cr_assert(cells[2].mean_fraction >= cells[0].mean_fraction, "a larger budget finds no worse");
    free(cells);
    small_bench_close(&b);
}

Test(strategy_bench, strategy_options_reach_the_strategy)
{
    small_bench b;
    small_bench_open(&b);
    const char *strategies[] = {"hill-climbing"};
    const double budgets[] = {3};
    const char *good[] = {"improvement=best", "initial_samples=1"};
    bench_settings settings = {good, 2};
    size_t n;
    bench_cell *cells = run_cells(&b, strategies, 1, budgets, 1, 5, &settings, &n);
    cr_assert_eq(n, 1);
    assert_near(cells[0].mean_fraction, 1.0, "three evaluations cover the space");
    free(cells);

    const char *bad[] = {"improvement=some"};
    settings = (bench_settings){bad, 1};
    cells = NULL;
    n = 0;
    skytune_error err = {0};
    bench_plan plan = plan_of(strategies, 1, budgets, 1, 5, &settings);
    cr_assert_neq(strategy_bench_dataset(&b.dataset, &plan, &cells, &n, &err), 0);
    cr_assert(strstr(err.message, "improvement") && strstr(err.message, "first, best"), "%s",
              err.message);
    cr_assert_eq(n, 0, "no cell for a strategy that could not start");
    free(cells);
    small_bench_close(&b);
}

Test(strategy_bench, the_figures_do_not_depend_on_the_number_of_threads)
{
    small_bench b;
    small_bench_open(&b);
    const char *strategies[] = {"random", "hill-climbing", "evolutionary", "bayes"};
    const double budgets[] = {1, 2};
    bench_plan plan = plan_of(strategies, 4, budgets, 2, 40, NULL);
    size_t n_alone, n_shared;
    plan.threads = 1;
    bench_cell *alone = run_plan(&b, &plan, &n_alone);
    plan.threads = 5;
    bench_cell *shared = run_plan(&b, &plan, &n_shared);
    cr_assert_eq(n_alone, 8);
    cr_assert_eq(n_shared, n_alone);
    for (size_t k = 0; k < n_alone; k++) {
        cr_assert_str_eq(shared[k].strategy, alone[k].strategy);
        cr_assert_eq(shared[k].budget, alone[k].budget);
        cr_assert_eq(shared[k].mean_fraction, alone[k].mean_fraction, "cell %zu", k);
        cr_assert_eq(shared[k].sd_fraction, alone[k].sd_fraction, "cell %zu", k);
        cr_assert_eq(shared[k].min_fraction, alone[k].min_fraction, "cell %zu", k);
        cr_assert_eq(shared[k].mean_evaluations, alone[k].mean_evaluations, "cell %zu", k);
        cr_assert_eq(shared[k].score, alone[k].score, "cell %zu", k);
    }
    /* Budget 1 draws one of the three: the runs differ, so the comparison
     * above compared something. */
    cr_assert(alone[0].sd_fraction > 0, "random with one evaluation varies between seeds");
    free(alone);
    free(shared);
    small_bench_close(&b);
}

Test(strategy_bench, a_budget_in_recorded_seconds)
{
    small_bench b;
    small_bench_open(&b);
    /* The two configurations that ran each recorded 100 ms of compiling and
     * 10 ms of benchmarking; the failure recorded nothing. */
    const char *strategies[] = {"random"};
    const double budgets[] = {0.05, 1000};
    bench_plan plan = plan_of(strategies, 1, budgets, 2, 200, NULL);
    plan.unit = BENCH_SECONDS;
    size_t n;
    bench_cell *cells = run_plan(&b, &plan, &n);
    cr_assert_eq(n, 2);
    /* 0.05 s is spent by the first configuration that runs: one or two
     * evaluations (4/3 expected), and 1 ms or 2 ms with even odds. */
    cr_assert(cells[0].mean_evaluations > 1.1 && cells[0].mean_evaluations < 1.6, "evaluations %g",
              cells[0].mean_evaluations);
    cr_assert(cells[0].mean_fraction > 0.6 && cells[0].mean_fraction < 0.9, "fraction %g",
              cells[0].mean_fraction);
    cr_assert(cells[0].expected_random > 1.3e6 && cells[0].expected_random < 1.7e6,
              "random search's reference %g", cells[0].expected_random);
    /* 1000 s covers the space. */
    assert_near(cells[1].mean_evaluations, 3.0, "the whole space");
    assert_near(cells[1].mean_fraction, 1.0, "found");
    assert_near(cells[1].expected_random, 1e6, "random with the whole space");
    free(cells);
    small_bench_close(&b);
}

static void assert_same_cell(const bench_cell *a, const bench_cell *b, const char *what)
{
    cr_assert_str_eq(a->strategy, b->strategy, "%s", what);
    cr_assert_eq(a->budget, b->budget, "%s", what);
    cr_assert_eq(a->mean_fraction, b->mean_fraction, "%s: fraction", what);
    cr_assert_eq(a->sd_fraction, b->sd_fraction, "%s: spread", what);
    cr_assert_eq(a->min_fraction, b->min_fraction, "%s: worst run", what);
    cr_assert_eq(a->found_optimum, b->found_optimum, "%s: found", what);
    cr_assert_eq(a->mean_evaluations, b->mean_evaluations, "%s: evaluations", what);
    cr_assert_eq(a->expected_random, b->expected_random, "%s: random's reference", what);
    cr_assert_eq(a->score, b->score, "%s: score", what);
}

/* Strategies that do not read their budget are run once per seed, at the
 * largest budget, and the smaller budgets are read off that run; those that
 * do are run once per budget. Either way every cell must be what a plan of
 * that budget alone gives. evolutionary sizes its population from the
 * budget (8 at 5 and 30 evaluations, 20 at 400), so reading its smaller
 * budgets off the longest run would change them. */
Test(strategy_bench, each_budget_is_judged_as_if_it_were_run_alone)
{
    char *text = grid_cache_text();
    small_bench b;
    bench_open(&b, "grid", text);
    free(text);
    size_t n_strategies;
    const strategy_ops *const *all = strategy_registry(&n_strategies);
    const bench_budget_unit units[] = {BENCH_EVALUATIONS, BENCH_SECONDS};
    const double budgets[2][3] = {{5, 30, 400}, {0.5, 3, 1e4}};
    for (size_t u = 0; u < 2; u++)
        for (size_t s = 0; s < n_strategies; s++) {
            const char *strategies[] = {all[s]->name};
            bench_plan plan = plan_of(strategies, 1, budgets[u], 3, 15, NULL);
            plan.unit = units[u];
            size_t n_together;
            bench_cell *together = run_plan(&b, &plan, &n_together);
            cr_assert_eq(n_together, 3);
            for (size_t k = 0; k < 3; k++) {
                bench_plan single = plan_of(strategies, 1, &budgets[u][k], 1, 15, NULL);
                single.unit = units[u];
                size_t n_alone;
                bench_cell *alone = run_plan(&b, &single, &n_alone);
                cr_assert_eq(n_alone, 1);
                char what[96];
                snprintf(what, sizeof what, "%s at %g %s", all[s]->name, budgets[u][k],
                         u ? "seconds" : "evaluations");
                assert_same_cell(&together[k], &alone[0], what);
                free(alone);
            }
            /* The budgets were told apart: the smallest cannot cover the
             * 64 configurations that the largest does. */
            cr_assert(together[0].mean_evaluations < together[2].mean_evaluations, "%s",
                      all[s]->name);
            free(together);
        }
    cr_assert(strategy_reads_budget("evolutionary") && strategy_reads_budget("prune"));
    cr_assert(!strategy_reads_budget("bayes") && !strategy_reads_budget("hill-climbing"));
    cr_assert(strategy_reads_budget("no-such-strategy"), "an unknown name is taken to read it");
    small_bench_close(&b);
}

/* ------------------------------------------------------------------- CLI */

Test(strategy_bench, cli_writes_the_csv_and_refuses_a_bad_option)
{
    const char *data = replay_tmp_path("three.cache.json");
    replay_write_text(data, three_configurations);
    char csv[512];
    snprintf(csv, sizeof csv, "%s", replay_tmp_path("cells.csv"));
    cli_result r = cli_run(CLI_ARGS("bench-strategies", "--replay", data, "--strategy",
                                    "default,exhaustive", "--budget", "1,3", "--runs", "4",
                                    "--strategy-opt", "initial_samples=1", "--csv", csv));
    /* exhaustive has no option initial_samples: refused, naming both. */
    cr_assert_neq(r.status, 0, "%s", r.out);
    cr_assert(strstr(r.err, "initial_samples") && strstr(r.err, "exhaustive"), "%s", r.err);
    cli_result_free(&r);

    r = cli_run(CLI_ARGS("bench-strategies", "--replay", data, "--strategy", "default,exhaustive",
                         "--budget", "1,3", "--runs", "4", "--csv", csv));
    cr_assert_eq(r.status, 0, "%s", r.err);
    size_t len;
    char *text = (char *)replay_read_bytes(csv, &len);
    text[len] = '\0';
    cr_assert(strncmp(text, "dataset,strategy,default,budget,runs,mean_fraction,", 51) == 0, "%s",
              text);
    cr_assert(strstr(text, ",score\n"), "%s", text);
    /* Two strategies × two budgets, one dataset, no mean rows. */
    size_t lines = 0;
    for (const char *p = text; *p; p++) lines += *p == '\n';
    cr_assert_eq(lines, 5, "%s", text);
    cr_assert(strstr(text, "three,bayes,1,3,4,1.000000,"), "%s", text);
    cr_assert(strstr(text, "three,exhaustive,0,3,4,1.000000,"), "%s", text);
    free(text);
    cli_result_free(&r);

    r = cli_run(CLI_ARGS("bench-strategies", "--replay", data, "--jobs", "0"));
    cr_assert_neq(r.status, 0, "%s", r.out);
    cr_assert(strstr(r.err, "--jobs") && strstr(r.err, "1 to 4096"), "%s", r.err);
    cli_result_free(&r);

    /* Half an evaluation would have been no limit at all; in seconds it is
     * a budget. */
    r = cli_run(CLI_ARGS("bench-strategies", "--replay", data, "--budget", "2,0.5", "--csv", csv));
    cr_assert_neq(r.status, 0, "%s", r.out);
    cr_assert(strstr(r.err, "'0.5'") && strstr(r.err, "whole number") &&
                  strstr(r.err, "--budget-unit seconds"),
              "%s", r.err);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("bench-strategies", "--replay", data, "--budget", ","));
    cr_assert_neq(r.status, 0, "%s", r.out);
    cr_assert(strstr(r.err, "--budget") && strstr(r.err, "no budget"), "%s", r.err);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("bench-strategies", "--replay", data, "--budget", "0.5", "--budget-unit",
                         "seconds", "--runs", "2"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
}
