/* What one step of bayes costs: its ask and tell per evaluation, timed one
 * step at a time, on a recorded (or made-up, bench/synthetic_cache) space.
 *
 * The space is the dataset's own parameter lists, every combination (the
 * unrecorded ones replay as failures), narrowed by the NAME=V1,V2,...
 * arguments as --only narrows a space. RUNS seeded campaigns of BUDGET
 * evaluations each, driven as the campaign loop drives a strategy: a
 * proposal the history holds is told its result at once and counts
 * towards the step that follows it. Each step is timed by the monotonic
 * clock and by the thread's CPU clock; on a machine shared with other work
 * the wall time includes the time the benchmark waited for a core, its CPU
 * time does not. Creating the strategy (enumerating or drawing its
 * candidates) happens once per campaign and is timed apart.
 *
 * Prints the median per step over every step of every run, the median of
 * the second half of each campaign's steps (the model grows with the
 * results, so a step late in a campaign costs most), the 90th percentile,
 * the slowest step (one that refits the kernel's relevances, at 20, 40, 80
 * and 160 results) and the mean, which spreads those refits over the
 * steps.
 *
 * usage: bench_bayes_step BUDGET RUNS DATASET [NAME=V1,V2,...]... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bayes_pool.h"
#include "clock.h"
#include "replay_evaluator.h"
#include "replay_load.h"
#include "strategy.h"

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double mean(const double *v, size_t n)
{
    double sum = 0;
    for (size_t k = 0; k < n; k++) sum += v[k];
    return n ? sum / (double)n : 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of n values (sorted in place), the nearest rank. */
static double quantile(double *v, size_t n, double q)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, by_value);
    size_t k = (size_t)(q * (double)(n - 1) + 0.5);
    return v[k];
}

typedef struct timings {
    double *wall, *cpu;           /* per step, every run's steps one after the other */
    double *late_wall, *late_cpu; /* the second half of each run's steps */
    size_t n, n_late;
    double *create_wall;          /* per run */
} timings;

/* One campaign of `budget` evaluations; its steps' times appended to t. */
static int run_one(const space *sp, const replay_evaluator *re, uint64_t seed, size_t budget,
                   timings *t, size_t run)
{
    history *h = history_new();
    if (!h) return -1;
    strategy_setup setup = {.space = sp, .history = h, .seed = seed, .budget = budget};
    strategy *st;
    skytune_error err = {0};
    double c0 = clock_monotonic_s();
    if (strategy_create("bayes", &setup, NULL, 0, &st, &err) != 0) {
        fprintf(stderr, "%s\n", err.message);
        history_free(h);
        return -1;
    }
    t->create_wall[run] = clock_monotonic_s() - c0;
    size_t n = 0;
    double wall = 0, cpu = 0;
    while (n < budget) {
        uint64_t rank;
        double w0 = clock_monotonic_s(), p0 = cpu_s();
        strategy_answer answer = strategy_ask(st, &rank);
        double w1 = clock_monotonic_s(), p1 = cpu_s();
        wall += w1 - w0;
        cpu += p1 - p0;
        if (answer != STRATEGY_PROPOSE) break;
        double objective;
        bool seen = history_lookup(h, rank, &objective);
        if (!seen) {
            objective = replay_objective(re, rank);
            if (history_add(h, rank, objective) != 0) {
                strategy_free(st);
                history_free(h);
                return -1;
            }
        }
        w0 = clock_monotonic_s();
        p0 = cpu_s();
        strategy_tell(st, rank, objective);
        wall += clock_monotonic_s() - w0;
        cpu += cpu_s() - p0;
        if (seen) continue;
        t->wall[t->n] = wall;
        t->cpu[t->n++] = cpu;
        if (n >= budget / 2) {
            t->late_wall[t->n_late] = wall;
            t->late_cpu[t->n_late++] = cpu;
        }
        wall = cpu = 0;
        n++;
    }
    strategy_free(st);
    history_free(h);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s BUDGET RUNS DATASET [NAME=V1,V2,...]...\n", argv[0]);
        return 2;
    }
    size_t budget = (size_t)strtoul(argv[1], NULL, 10);
    size_t runs = (size_t)strtoul(argv[2], NULL, 10);
    if (budget == 0 || runs == 0) {
        fprintf(stderr, "bench_bayes_step: BUDGET and RUNS must be whole numbers above 0\n");
        return 2;
    }
    skytune_error err = {0};
    replay_dataset *d;
    space *whole, *sp;
    replay_evaluator *re;
    if (replay_load(argv[3], 0, &d, &err) != 0 || replay_dataset_space(d, &whole, &err) != 0 ||
        space_narrow(whole, NULL, 0, (const char *const *)argv + 4, (size_t)argc - 4, NULL, &sp,
                     &err) != 0 ||
        replay_evaluator_new(d, sp, &re, &err) != 0) {
        fprintf(stderr, "bench_bayes_step: %s\n", err.message);
        return 1;
    }
    timings t = {
        .wall = calloc(runs * budget, sizeof(double)),
        .cpu = calloc(runs * budget, sizeof(double)),
        .late_wall = calloc(runs * budget, sizeof(double)),
        .late_cpu = calloc(runs * budget, sizeof(double)),
        .create_wall = calloc(runs, sizeof(double)),
    };
    if (!t.wall || !t.cpu || !t.late_wall || !t.late_cpu || !t.create_wall) {
        fprintf(stderr, "bench_bayes_step: out of memory\n");
        return 1;
    }
    for (size_t r = 0; r < runs; r++)
        if (run_one(sp, re, r + 1, budget, &t, r) != 0) return 1;

    uint64_t count = space_count(sp);
    bayes_pool pool = bayes_pool_size(count, 0);
    char candidates[96];
    if (pool.whole_space)
        snprintf(candidates, sizeof candidates, "every configuration a candidate");
    else
        snprintf(candidates, sizeof candidates,
                 "a pool of %zu, %zu local slots and %zu for the acquisition search", pool.pool,
                 pool.local, pool.climb);
    printf("  %llu configurations (%s), %zu runs of %zu evaluations\n",
           (unsigned long long)count, candidates, runs, budget);
    printf("    creating the strategy: median %.2f ms\n",
           1e3 * quantile(t.create_wall, runs, 0.5));
    const char *clock_names[2] = {"wall", "CPU "};
    double *all[2] = {t.wall, t.cpu}, *late[2] = {t.late_wall, t.late_cpu};
    for (size_t k = 0; k < 2; k++) {
        double average = mean(all[k], t.n);
        printf("    per step (ask + tell), %s: median %.0f us, evaluations %zu-%zu median %.0f us, "
               "90th percentile %.0f us, slowest %.0f us, mean %.0f us\n",
               clock_names[k], 1e6 * quantile(all[k], t.n, 0.5), budget / 2 + 1, budget,
               1e6 * quantile(late[k], t.n_late, 0.5), 1e6 * quantile(all[k], t.n, 0.9),
               1e6 * quantile(all[k], t.n, 1.0), 1e6 * average);
    }
    free(t.wall);
    free(t.cpu);
    free(t.late_wall);
    free(t.late_cpu);
    free(t.create_wall);
    replay_evaluator_free(re);
    space_free(sp);
    space_free(whole);
    replay_free(d);
    return 0;
}
