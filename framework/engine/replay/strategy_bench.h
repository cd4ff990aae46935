/* Judging strategies on recorded search spaces: every strategy × budget ×
 * dataset, many seeded runs each, against the dataset's known optimum and
 * against what random search would expect to find with the same budget. */
#ifndef SKYTUNE_STRATEGY_BENCH_H
#define SKYTUNE_STRATEGY_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "replay_evaluator.h"
#include "space.h"
#include "strategy.h"

typedef enum bench_budget_unit {
    BENCH_EVALUATIONS = 0,   /* distinct configurations evaluated */
    BENCH_SECONDS = 1        /* recorded compile + benchmark seconds */
} bench_budget_unit;

typedef struct bench_cell {
    const char *dataset;
    const char *strategy;
    double budget;
    unsigned runs;
    double mean_fraction;    /* mean of t_optimum / t_best_found (0 when nothing ran) */
    double sd_fraction;
    double min_fraction;
    double found_optimum;    /* share of runs that found the optimum */
    double mean_evaluations; /* evaluations spent (< budget when a strategy ran out) */
    double expected_random;  /* E[t_random_best] for this budget, ns */
    double score;            /* (E_random − mean t_best) / (E_random − t_optimum) */
    double optimum_ns;
} bench_cell;

/* One dataset over one space. The evaluator is built once and shared. */
typedef struct bench_dataset {
    const char *name;
    const space *space;
    replay_evaluator *evaluator;
    /* Other devices' recordings of the space, given to every run as a
     * warm start (NULL: none). */
    const strategy_prior *prior;
} bench_dataset;

/* Strategy options ("key=value") given to every strategy judged; NULL for
 * the defaults. */
typedef struct bench_settings {
    const char *const *items;
    size_t count;
} bench_settings;

/* The most budgets a plan may hold. */
#define MAX_BENCH_BUDGETS 64

/* What to run on each dataset: every strategy × budget, `runs` seeded runs
 * each (seeds seed_base + run, the same for every strategy). */
typedef struct bench_plan {
    const char *const *strategies;
    size_t n_strategies;
    const double *budgets;
    size_t n_budgets;
    bench_budget_unit unit;
    unsigned runs;
    uint64_t seed_base;
    const bench_settings *settings;  /* NULL: the strategies' defaults */
    unsigned threads;                /* runs in parallel; 0 = one per online CPU */
} bench_plan;

/* Runs a plan on one dataset; cells are appended to *cells (realloc'd), in
 * budget-major, then strategy order. Runs are independent and go to
 * `threads` worker threads; the cells do not depend on how many. A run in
 * which nothing ran counts as the slowest successful time of the dataset,
 * both in the strategies' mean and in random search's expectation. */
int strategy_bench_dataset(const bench_dataset *d, const bench_plan *plan, bench_cell **cells,
                           size_t *n_cells, skytune_error *err);

/* E[min] of `budget` configurations drawn uniformly without replacement from
 * objectives[0..n) (INFINITY for failures), computed exactly. */
double expected_random_best(const double *objectives, size_t n, uint64_t budget);

#endif
