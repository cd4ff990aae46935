/* How well each strategy names what it will propose next (strategy_upcoming),
 * and what naming costs next to a step, on recorded search spaces.
 *
 * Every strategy of the registry runs `runs` seeded campaigns of `budget`
 * evaluations on each dataset, driven as the campaign loop drives it, and
 * names 16 configurations after every ask, as a compile pool would ask it
 * to. For each proposal after the first it counts whether the previous
 * list named it first, among its first 4, or at all; and of each list, how
 * many of its configurations were proposed within the next 16 proposals
 * (the share of a compile pool's work ahead that a campaign would use).
 * Times are per evaluation: ask and tell together, and one upcoming call.
 *
 * usage: bench_upcoming SPACE.t1.json RUNS BUDGET DATASET... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "replay_evaluator.h"
#include "replay_load.h"
#include "strategy.h"
#include "t1.h"

#define NAMED 16


typedef struct tally {
    size_t chances, first, first4, any;
    size_t named, used;          /* named ranks, and those proposed within NAMED proposals */
    size_t steps;
    double step_s, upcoming_s;
} tally;

/* One campaign: proposals and what was named after each, then the tally. */
static int run_one(const char *name, const space *sp, const replay_evaluator *re, uint64_t seed,
                   size_t budget, tally *t)
{
    history *h = history_new();
    uint64_t *proposed = calloc(budget + 1, sizeof *proposed);
    uint64_t(*named)[NAMED] = calloc(budget + 1, sizeof *named);
    size_t *n_named = calloc(budget + 1, sizeof *n_named);
    if (!h || !proposed || !named || !n_named) {
        fprintf(stderr, "out of memory\n");
        return -1;
    }
    strategy_setup setup = {.space = sp, .history = h, .seed = seed, .budget = budget};
    strategy *st;
    skytune_error err = {0};
    if (strategy_create(name, &setup, NULL, 0, &st, &err) != 0) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    size_t n = 0;
    uint64_t rank;
    while (n < budget) {
        double t0 = clock_monotonic_s();
        if (strategy_ask(st, &rank) != STRATEGY_PROPOSE) break;
        double t1 = clock_monotonic_s();
        double seen;
        if (history_lookup(h, rank, &seen)) {
            strategy_tell(st, rank, seen);
            continue;
        }
        n_named[n] = strategy_upcoming(st, named[n], NAMED);
        double t2 = clock_monotonic_s();
        double objective = replay_objective(re, rank);
        history_add(h, rank, objective);
        double t3 = clock_monotonic_s();
        strategy_tell(st, rank, objective);
        double t4 = clock_monotonic_s();
        proposed[n++] = rank;
        t->steps++;
        t->step_s += (t1 - t0) + (t4 - t3);
        t->upcoming_s += t2 - t1;
    }
    for (size_t k = 0; k + 1 < n; k++) {
        t->chances++;
        for (size_t j = 0; j < n_named[k]; j++)
            if (named[k][j] == proposed[k + 1]) {
                t->first += j == 0;
                t->first4 += j < 4;
                t->any++;
                break;
            }
        /* Only lists with a full horizon after them count for the share used. */
        if (k + NAMED >= n) continue;
        t->named += n_named[k];
        for (size_t j = 0; j < n_named[k]; j++)
            for (size_t i = k + 1; i <= k + NAMED; i++)
                if (proposed[i] == named[k][j]) {
                    t->used++;
                    break;
                }
    }
    strategy_free(st);
    history_free(h);
    free(proposed);
    free(named);
    free(n_named);
    return 0;
}

static double percent(size_t part, size_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s SPACE.t1.json RUNS BUDGET DATASET...\n", argv[0]);
        return 2;
    }
    size_t runs = (size_t)strtoul(argv[2], NULL, 10);
    size_t budget = (size_t)strtoul(argv[3], NULL, 10);
    size_t n_datasets = (size_t)argc - 4;
    skytune_error err = {0};
    space *sp;
    if (t1_load_space(argv[1], 0, NULL, &sp, &err) != 0) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    replay_dataset **datasets = calloc(n_datasets, sizeof *datasets);
    replay_evaluator **evaluators = calloc(n_datasets, sizeof *evaluators);
    if (!datasets || !evaluators) return 1;
    for (size_t d = 0; d < n_datasets; d++)
        if (replay_load(argv[4 + d], 0, &datasets[d], &err) != 0 ||
            replay_evaluator_new(datasets[d], sp, &evaluators[d], &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
    printf("%zu datasets, %llu configurations, %zu runs of %zu evaluations each; %d named after "
           "every ask\n",
           n_datasets, (unsigned long long)space_count(sp), runs, budget, NAMED);
    printf("%-14s %8s %8s %8s %10s %12s %14s\n", "strategy", "first", "first 4", "any",
           "used", "ask+tell us", "upcoming us");
    size_t n_strategies;
    const strategy_ops *const *all = strategy_registry(&n_strategies);
    for (size_t k = 0; k < n_strategies; k++) {
        tally t = {0};
        for (size_t d = 0; d < n_datasets; d++)
            for (uint64_t seed = 1; seed <= runs; seed++)
                if (run_one(all[k]->name, sp, evaluators[d], seed, budget, &t) != 0) return 1;
        printf("%-14s %7.1f%% %7.1f%% %7.1f%% %9.1f%% %12.1f %14.1f\n", all[k]->name,
               percent(t.first, t.chances), percent(t.first4, t.chances),
               percent(t.any, t.chances), percent(t.used, t.named),
               t.steps ? 1e6 * t.step_s / (double)t.steps : 0.0,
               t.steps ? 1e6 * t.upcoming_s / (double)t.steps : 0.0);
    }
    for (size_t d = 0; d < n_datasets; d++) {
        replay_evaluator_free(evaluators[d]);
        replay_free(datasets[d]);
    }
    free(evaluators);
    free(datasets);
    space_free(sp);
    return 0;
}
