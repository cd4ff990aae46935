#include "strategy_bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tuning_loop.h"
#include "usable_cpus.h"
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

static tuning_loop_limits limits_for(double budget, bench_budget_unit unit)
{
    tuning_loop_limits limits = {0};
    if (unit == BENCH_EVALUATIONS)
        limits.max_evaluations = (uint64_t)budget;
    else
        limits.device_time_s = budget;
    return limits;
}

/* The budgets one run answers for, in the plan's order, and where each
 * one's outcome goes; the run itself goes on to the largest. */
typedef struct budget_watch {
    const double *budgets;
    size_t n;
    bench_budget_unit unit;
    run_outcome *const *outcomes;
    bool *settled;
} budget_watch;

/* After each evaluation: a budget that is now spent would have stopped its
 * campaign here, so what the run has found so far is that budget's outcome. */
static void settle_spent_budgets(void *ctx, const tuning_loop_event *ev)
{
    budget_watch *w = ctx;
    for (size_t k = 0; k < w->n; k++) {
        if (w->settled[k]) continue;
        tuning_loop_limits limits = limits_for(w->budgets[k], w->unit);
        tuning_loop_stop why;
        if (!tuning_loop_budget_spent(&limits, ev->evaluated, ev->device_s, &why)) continue;
        *w->outcomes[k] = (run_outcome){ev->have_best ? ev->best_ns : INFINITY, ev->evaluated};
        w->settled[k] = true;
    }
}

static int run_once(const bench_dataset *d, const char *strategy_name, uint64_t seed,
                    const bench_settings *settings, budget_watch *watch, skytune_error *err)
{
    double largest = watch->budgets[0];
    for (size_t k = 1; k < watch->n; k++)
        if (watch->budgets[k] > largest) largest = watch->budgets[k];
    tuning_loop_limits limits = limits_for(largest, watch->unit);
    history *h = history_new();
    if (!h) return err_set(err, "out of memory");
    strategy_setup setup = {.space = d->space, .history = h, .seed = seed,
                            .budget = limits.max_evaluations, .prior = d->prior};
    strategy *st;
    if (strategy_create(strategy_name, &setup, settings ? settings->items : NULL,
                        settings ? settings->count : 0, &st, err) != 0) {
        history_free(h);
        return -1;
    }
    tuning_loop_config cfg = {
        .space = d->space,
        .strategy = st,
        .history = h,
        .eval = replay_evaluator_as_evaluator(d->evaluator),
        .limits = limits,
        .on_event = watch->n > 1 ? settle_spent_budgets : NULL,
        .event_ctx = watch,
    };
    tuning_loop_result r;
    int rc = tuning_loop_run(&cfg, &r, err);
    /* Budgets the run did not spend: the strategy ran out first, or this is
     * the largest. */
    for (size_t k = 0; k < watch->n; k++)
        if (!watch->settled[k])
            *watch->outcomes[k] = (run_outcome){r.have_best ? r.best_ns : INFINITY, r.evaluated};
    strategy_free(st);
    history_free(h);
    return rc;
}

/* ------------------------------------------------------ parallel runs */

/* What is run: a strategy with its seeds, one row of the outcome table. */
typedef struct bench_row {
    const char *strategy;
    uint64_t seed_base;
    const bench_settings *settings;
    bool one_run_per_budget;  /* its proposals depend on the budget */
} bench_row;

/* One seeded run of a row, answering for budgets [first_budget,
 * first_budget + n_budgets). The dataset's space and evaluator are only
 * read, each run has its own strategy and history, and writes only its own
 * outcomes, so runs can go on in any order on any thread. */
typedef struct bench_job {
    size_t row;
    unsigned run;
    size_t first_budget, n_budgets;
} bench_job;

/* Outcomes are kept budget-major, then row, then run. */
typedef struct outcome_table {
    run_outcome *items;
    size_t n_rows;
    unsigned runs;
} outcome_table;

static run_outcome *outcome_at(const outcome_table *t, size_t budget, size_t row, unsigned run)
{
    return &t->items[(budget * t->n_rows + row) * t->runs + run];
}

typedef struct job_queue {
    const bench_dataset *dataset;
    const bench_plan *plan;
    const bench_row *rows;
    outcome_table *outcomes;
    bench_job *jobs;
    size_t n_jobs;
    pthread_mutex_t lock;
    size_t next;            /* the next job to hand out */
    size_t failed;          /* the first job that failed, n_jobs if none */
    skytune_error err;      /* its error */
} job_queue;

static int run_job(const job_queue *q, const bench_job *j, skytune_error *err)
{
    const bench_row *row = &q->rows[j->row];
    run_outcome *outcomes[MAX_BENCH_BUDGETS];
    bool settled[MAX_BENCH_BUDGETS] = {false};
    for (size_t k = 0; k < j->n_budgets; k++)
        outcomes[k] = outcome_at(q->outcomes, j->first_budget + k, j->row, j->run);
    budget_watch watch = {q->plan->budgets + j->first_budget, j->n_budgets, q->plan->unit,
                          outcomes, settled};
    return run_once(q->dataset, row->strategy, row->seed_base + j->run, row->settings, &watch,
                    err);
}

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
        skytune_error err = {0};
        if (run_job(q, &q->jobs[k], &err) != 0) {
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
    return usable_cpus();
}

/* Runs every job; the calling thread works too. A thread that cannot be
 * started only leaves the work to fewer. */
static int run_jobs(job_queue *q, unsigned threads, skytune_error *err)
{
    q->failed = q->n_jobs;
    if (pthread_mutex_init(&q->lock, NULL) != 0) return err_set(err, "cannot create a mutex");
    if (threads == 0) threads = online_cpus();
    if (threads > q->n_jobs) threads = q->n_jobs ? (unsigned)q->n_jobs : 1;
    pthread_t *helpers = threads > 1 ? malloc((threads - 1) * sizeof *helpers) : NULL;
    unsigned started = 0;
    for (unsigned t = 0; helpers && t + 1 < threads; t++) {
        if (pthread_create(&helpers[started], NULL, work, q) != 0) break;
        started++;
    }
    work(q);
    for (unsigned t = 0; t < started; t++) pthread_join(helpers[t], NULL);
    free(helpers);
    pthread_mutex_destroy(&q->lock);
    if (q->failed < q->n_jobs) {
        *err = q->err;
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

static bench_cell judge_cell(const bench_dataset *d, const char *strategy_name, double budget,
                             const run_outcome *runs, unsigned n_runs, const cell_reference *ref)
{
    double optimum = ref->optimum, expected_random = ref->expected_random;
    double sum = 0, sum_sq = 0, min_fraction = INFINITY, found = 0, evaluations = 0, sum_best = 0;
    for (unsigned r = 0; r < n_runs; r++) {
        const run_outcome *o = &runs[r];
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
        .strategy = strategy_name,
        .budget = budget,
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

/* The rows of a plan: for a seconds budget first random search's reference
 * runs, then the strategies. A row whose strategy reads its budget is run
 * once per budget; any other is run once, at the largest budget, and the
 * smaller ones are read off that run: the same result for the same seed,
 * at less than half the cost for the usual budgets. Under a seconds budget
 * no strategy is told a budget, so every row is run once. */
static size_t plan_rows(const bench_plan *p, bench_row *rows)
{
    size_t n = 0;
    if (p->unit == BENCH_SECONDS)
        rows[n++] = (bench_row){"random", p->seed_base + RANDOM_REFERENCE_SEED_OFFSET, NULL, false};
    for (size_t s = 0; s < p->n_strategies; s++)
        rows[n++] = (bench_row){p->strategies[s], p->seed_base, p->settings,
                                p->unit == BENCH_EVALUATIONS &&
                                    strategy_reads_budget(p->strategies[s])};
    return n;
}

static bench_job *plan_jobs(const bench_plan *p, const bench_row *rows, size_t n_rows,
                            size_t *n_jobs)
{
    size_t most = n_rows * p->n_budgets;
    if (p->runs && most > SIZE_MAX / sizeof(bench_job) / p->runs) return NULL;
    size_t at_most = most * p->runs;
    bench_job *jobs = malloc((at_most ? at_most : 1) * sizeof *jobs);
    if (!jobs) return NULL;
    size_t k = 0;
    for (size_t row = 0; row < n_rows; row++) {
        size_t per_run = rows[row].one_run_per_budget ? p->n_budgets : 1;
        for (size_t b = 0; b < per_run; b++)
            for (unsigned r = 0; r < p->runs; r++)
                jobs[k++] = (bench_job){row, r, b, rows[row].one_run_per_budget ? 1 : p->n_budgets};
    }
    *n_jobs = k;
    return jobs;
}

int strategy_bench_dataset(const bench_dataset *d, const bench_plan *plan, bench_cell **cells,
                           size_t *n_cells, skytune_error *err)
{
    double optimum;
    if (!replay_optimum(d->evaluator, &optimum))
        return err_set(err, "dataset %s: no configuration of the space ran successfully", d->name);
    if (plan->runs == 0) return err_set(err, "at least one run per cell is needed");
    if (plan->n_budgets == 0 || plan->n_budgets > MAX_BENCH_BUDGETS)
        return err_set(err, "between 1 and %d budgets are needed, not %zu", MAX_BENCH_BUDGETS,
                       plan->n_budgets);
    bench_row *rows = malloc((plan->n_strategies + 1) * sizeof *rows);
    size_t n_rows = rows ? plan_rows(plan, rows) : 0;
    uint64_t count = space_count(d->space);
    double *objectives = malloc((count ? count : 1) * sizeof *objectives);
    size_t n_jobs = 0;
    bench_job *jobs = rows ? plan_jobs(plan, rows, n_rows, &n_jobs) : NULL;
    outcome_table outcomes = {calloc(plan->n_budgets * n_rows * plan->runs + 1, sizeof(run_outcome)),
                              n_rows, plan->runs};
    bench_cell *grown = realloc(*cells, (*n_cells + plan->n_budgets * plan->n_strategies + 1) *
                                            sizeof *grown);
    if (grown) *cells = grown;
    if (!rows || !objectives || !jobs || !outcomes.items || !grown) {
        free(rows);
        free(objectives);
        free(jobs);
        free(outcomes.items);
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

    job_queue q = {.dataset = d, .plan = plan, .rows = rows, .outcomes = &outcomes,
                   .jobs = jobs, .n_jobs = n_jobs};
    int rc = run_jobs(&q, plan->threads, err);
    size_t first_strategy = plan->unit == BENCH_SECONDS ? 1 : 0;
    for (size_t b = 0; b < plan->n_budgets && rc == 0; b++) {
        double expected = 0;
        if (plan->unit == BENCH_EVALUATIONS) {
            expected = expected_random_best(objectives, count, (uint64_t)plan->budgets[b]);
        } else {
            for (unsigned r = 0; r < plan->runs; r++) {
                double best = outcome_at(&outcomes, b, 0, r)->best_ns;
                expected += isinf(best) ? worst : best;
            }
            expected /= plan->runs;
        }
        cell_reference ref = {optimum, worst, expected};
        for (size_t row = first_strategy; row < n_rows; row++)
            (*cells)[(*n_cells)++] = judge_cell(d, rows[row].strategy, plan->budgets[b],
                                                outcome_at(&outcomes, b, row, 0), plan->runs, &ref);
    }
    free(rows);
    free(jobs);
    free(outcomes.items);
    free(objectives);
    return rc;
}
