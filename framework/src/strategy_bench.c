#include "strategy_bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
 * simulated with the random strategy over the same seeds, offset by this. */
#define RANDOM_REFERENCE_SEED_OFFSET 1000003u

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

/* ------------------------------------------------------ parallel runs */

/* One seeded run. The dataset's space and evaluator are only read, and each
 * run has its own strategy and history, so runs can go on in any order on
 * any thread. */
typedef struct bench_job {
    const char *strategy;
    double budget;
    uint64_t seed;
    const bench_settings *settings;
    run_outcome outcome;
} bench_job;

typedef struct job_queue {
    const bench_dataset *dataset;
    bench_budget_unit unit;
    bench_job *jobs;
    size_t n_jobs;
    pthread_mutex_t lock;
    size_t next;            /* the next job to hand out */
    size_t failed;          /* the first job that failed, n_jobs if none */
    skytune_error err;      /* its error */
} job_queue;

static void *work(void *arg)
{
    job_queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t k = q->next;
        /* Jobs are handed out in order, so every job before a failure has
         * been handed out and the error kept is the earliest job's. */
        bool stop = k >= q->n_jobs || q->failed < q->n_jobs;
        if (!stop) q->next++;
        pthread_mutex_unlock(&q->lock);
        if (stop) return NULL;
        bench_job *j = &q->jobs[k];
        skytune_error err = {0};
        if (run_once(q->dataset, j->strategy, j->budget, q->unit, j->seed, j->settings,
                     &j->outcome, &err) != 0) {
            pthread_mutex_lock(&q->lock);
            if (k < q->failed) {
                q->failed = k;
                q->err = err;
            }
            pthread_mutex_unlock(&q->lock);
        }
    }
}

static unsigned online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* Runs every job; the calling thread works too. A thread that cannot be
 * started only leaves the work to fewer. */
static int run_jobs(const bench_dataset *d, bench_budget_unit unit, bench_job *jobs, size_t n_jobs,
                    unsigned threads, skytune_error *err)
{
    job_queue q = {.dataset = d, .unit = unit, .jobs = jobs, .n_jobs = n_jobs, .failed = n_jobs};
    if (pthread_mutex_init(&q.lock, NULL) != 0) return err_set(err, "cannot create a mutex");
    if (threads == 0) threads = online_cpus();
    if (threads > n_jobs) threads = n_jobs ? (unsigned)n_jobs : 1;
    pthread_t *helpers = threads > 1 ? malloc((threads - 1) * sizeof *helpers) : NULL;
    unsigned started = 0;
    for (unsigned t = 0; helpers && t + 1 < threads; t++) {
        if (pthread_create(&helpers[started], NULL, work, &q) != 0) break;
        started++;
    }
    work(&q);
    for (unsigned t = 0; t < started; t++) pthread_join(helpers[t], NULL);
    free(helpers);
    pthread_mutex_destroy(&q.lock);
    if (q.failed < n_jobs) {
        *err = q.err;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------- cells */

/* What a cell is judged against: the optimum, the slowest successful time
 * (which stands in for "found nothing that ran", so that one unlucky run
 * does not make the mean infinite) and random search's expectation. */
typedef struct cell_reference {
    double optimum, worst, expected_random;
} cell_reference;

static bench_cell judge_cell(const bench_dataset *d, const bench_job *runs, unsigned n_runs,
                             const cell_reference *ref)
{
    double optimum = ref->optimum, expected_random = ref->expected_random;
    double sum = 0, sum_sq = 0, min_fraction = INFINITY, found = 0, evaluations = 0, sum_best = 0;
    for (unsigned r = 0; r < n_runs; r++) {
        const run_outcome *o = &runs[r].outcome;
        double fraction = isinf(o->best_ns) ? 0.0 : optimum / o->best_ns;
        sum += fraction;
        sum_sq += fraction * fraction;
        if (fraction < min_fraction) min_fraction = fraction;
        if (o->best_ns <= optimum) found++;
        evaluations += (double)o->evaluated;
        sum_best += isinf(o->best_ns) ? ref->worst : o->best_ns;
    }
    double mean = sum / n_runs;
    double mean_best = sum_best / n_runs;
    return (bench_cell){
        .dataset = d->name,
        .strategy = runs[0].strategy,
        .budget = runs[0].budget,
        .runs = n_runs,
        .mean_fraction = mean,
        .sd_fraction =
            n_runs > 1 ? sqrt(fmax(0.0, (sum_sq - n_runs * mean * mean) / (n_runs - 1))) : 0,
        .min_fraction = min_fraction,
        .found_optimum = found / n_runs,
        .mean_evaluations = evaluations / n_runs,
        .expected_random = expected_random,
        .score = expected_random > optimum
                     ? (expected_random - mean_best) / (expected_random - optimum)
                     : (mean_best <= optimum ? 1.0 : 0.0),
        .optimum_ns = optimum,
    };
}

/* The jobs of a plan: for a seconds budget first random search's reference
 * runs (budget-major), then budget × strategy × run. */
static bench_job *plan_jobs(const bench_plan *p, size_t *n_jobs)
{
    size_t per_budget = (p->unit == BENCH_SECONDS ? 1 : 0) + p->n_strategies;
    if (p->runs && per_budget > SIZE_MAX / p->runs / (p->n_budgets ? p->n_budgets : 1))
        return NULL;
    *n_jobs = p->n_budgets * per_budget * p->runs;
    bench_job *jobs = malloc((*n_jobs ? *n_jobs : 1) * sizeof *jobs);
    if (!jobs) return NULL;
    size_t k = 0;
    for (size_t b = 0; b < p->n_budgets && p->unit == BENCH_SECONDS; b++)
        for (unsigned r = 0; r < p->runs; r++)
            jobs[k++] = (bench_job){"random", p->budgets[b],
                                    p->seed_base + RANDOM_REFERENCE_SEED_OFFSET + r, NULL, {0, 0}};
    for (size_t b = 0; b < p->n_budgets; b++)
        for (size_t s = 0; s < p->n_strategies; s++)
            for (unsigned r = 0; r < p->runs; r++)
                jobs[k++] = (bench_job){p->strategies[s], p->budgets[b], p->seed_base + r,
                                        p->settings, {0, 0}};
    return jobs;
}

int strategy_bench_dataset(const bench_dataset *d, const bench_plan *plan, bench_cell **cells,
                           size_t *n_cells, skytune_error *err)
{
    double optimum;
    if (!replay_optimum(d->evaluator, &optimum))
        return err_set(err, "dataset %s: no configuration of the space ran successfully", d->name);
    if (plan->runs == 0) return err_set(err, "at least one run per cell is needed");
    uint64_t count = space_count(d->space);
    double *objectives = malloc((count ? count : 1) * sizeof *objectives);
    size_t n_jobs = 0;
    bench_job *jobs = plan_jobs(plan, &n_jobs);
    bench_cell *grown = realloc(*cells, (*n_cells + plan->n_budgets * plan->n_strategies + 1) *
                                            sizeof *grown);
    if (grown) *cells = grown;
    if (!objectives || !jobs || !grown) {
        free(objectives);
        free(jobs);
        return err_set(err, "out of memory");
    }
    double worst = optimum;
    for (uint64_t k = 0; k < count; k++) {
        objectives[k] = replay_objective(d->evaluator, k);
        if (!isinf(objectives[k]) && objectives[k] > worst) worst = objectives[k];
    }
    /* Failures count as the slowest successful time, as for the strategies. */
    for (uint64_t k = 0; k < count; k++)
        if (isinf(objectives[k])) objectives[k] = worst;

    int rc = run_jobs(d, plan->unit, jobs, n_jobs, plan->threads, err);
    const bench_job *next = jobs;
    const bench_job *reference = jobs;
    if (plan->unit == BENCH_SECONDS) next += plan->n_budgets * plan->runs;
    for (size_t b = 0; b < plan->n_budgets && rc == 0; b++) {
        double expected = 0;
        if (plan->unit == BENCH_EVALUATIONS) {
            expected = expected_random_best(objectives, count, (uint64_t)plan->budgets[b]);
        } else {
            for (unsigned r = 0; r < plan->runs; r++, reference++)
                expected += isinf(reference->outcome.best_ns) ? worst : reference->outcome.best_ns;
            expected /= plan->runs;
        }
        cell_reference ref = {optimum, worst, expected};
        for (size_t s = 0; s < plan->n_strategies; s++, next += plan->runs)
            (*cells)[(*n_cells)++] = judge_cell(d, next, plan->runs, &ref);
    }
    free(jobs);
    free(objectives);
    return rc;
}
