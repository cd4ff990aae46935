/* The campaign loop with a synthetic evaluator (no device) and a real
 * SQLite store: budgets, statuses, stopping and resuming, reuse of
 * measurements across campaigns. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "racing.h"
#include "tuning_loop.h"
#include "space_fixtures.h"

typedef struct fake_device {
    const space *space;
    size_t calls;
    size_t *calls_per_rank;
} fake_device;

/* Time grows with distance from (2,2,2); every configuration with p0 == 4
 * fails to compile. */
static int fake_evaluate(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err)
{
    fake_device *d = ctx;
    uint64_t rank;
    cr_assert_eq(space_rank(d->space, idx, &rank), 0);
    d->calls++;
    d->calls_per_rank[rank]++;
    if (idx[0] == 4) {
        m->status = MEAS_COMPILE;
        measurement_set_message(m, "synthetic build failure");
        return 0;
    }
    double t = 1000.0;
    for (size_t k = 0; k < 3; k++) t += 100.0 * ((double)idx[k] - 2) * ((double)idx[k] - 2);
    double samples[3] = {t, t + 1, t - 1};
    measurement_set_samples(m, samples, 3);
    m->gflops = 1.0 / t;
    return 0;
}

typedef struct stopper {
    volatile sig_atomic_t flag;
    uint64_t after;
} stopper;

static void stop_after(void *ctx, const tuning_loop_event *ev)
{
    stopper *s = ctx;
    if (ev->evaluated >= s->after) s->flag = 1;
}

static char dir[64];
static char db_path[128];

static void make_dir(void)
{
    strcpy(dir, "/tmp/skytune-campaign-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(db_path, sizeof db_path, "%s/t.db", dir);
}

static void remove_dir(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(campaign, .init = make_dir, .fini = remove_dir);

static int64_t open_campaign(store *st, uint64_t seed)
{
    skytune_device_info dev = {.platform = "test", .name = "fake", .vendor = "none"};
    const char *names[] = {"p0", "p1", "p2"};
    int64_t device_id, plugin_id, problem_id, campaign_id;
    bool resumed;
    skytune_error err = {0};
    cr_assert_eq(store_device_id(st, &dev, &device_id, &err), 0, "%s", err.message);
    cr_assert_eq(store_plugin_id(st, "fake", "1", "abc",
                                 &(store_param_names){.tuning = names, .n_tuning = 3}, &plugin_id,
                                 &err), 0, "%s",
                 err.message);
    cr_assert_eq(store_problem_id(st, plugin_id, "n=1", &problem_id, &err), 0, "%s", err.message);
    store_campaign_spec spec = {plugin_id, device_id, problem_id, "random", "runs=3", seed,
                                "test", "host", false};
    cr_assert_eq(store_campaign_open(st, &spec, &campaign_id, &resumed, &err), 0, "%s",
                 err.message);
    return campaign_id;
}

static tuning_loop_result run_with(const space *s, evaluator eval, store *st,
                                   int64_t campaign_id, const char *strategy_name, uint64_t seed,
                                   tuning_loop_limits limits, stopper *stop)
{
    history *h = history_new();
    strategy_setup setup = {.space = s, .history = h, .seed = seed, .budget = limits.max_evaluations};
    strategy *strat;
    skytune_error err = {0};
    cr_assert_eq(strategy_create(strategy_name, &setup, NULL, 0, &strat, &err), 0);
    tuning_loop_config cfg = {
        .space = s,
        .strategy = strat,
        .history = h,
        .eval = eval,
        .store = st,
        .campaign_id = campaign_id,
        .limits = limits,
        .stop_requested = stop ? &stop->flag : NULL,
        .on_event = stop ? stop_after : NULL,
        .event_ctx = stop,
    };
    tuning_loop_result r;
    cr_assert_eq(tuning_loop_run(&cfg, &r, &err), 0, "%s", err.message);
    strategy_free(strat);
    history_free(h);
    return r;
}

static tuning_loop_result run(const space *s, fake_device *dev, store *st, int64_t campaign_id,
                           const char *strategy_name, uint64_t seed, tuning_loop_limits limits,
                           stopper *stop)
{
    return run_with(s, (evaluator){.ctx = dev, .evaluate = fake_evaluate}, st, campaign_id,
                    strategy_name, seed, limits, stop);
}

static long long sql_int(store *st, const char *sql)
{
    sqlite3_stmt *stmt;
    cr_assert_eq(sqlite3_prepare_v2(store_handle(st), sql, -1, &stmt, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(stmt), SQLITE_ROW);
    long long v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return v;
}

Test(campaign, budget_statuses_and_best_without_a_store)
{
    space *s = fixture_space(3, 5, NULL, 0);
    size_t per_rank[125] = {0};
    fake_device dev = {.space = s, .calls_per_rank = per_rank};
    tuning_loop_result r = run(s, &dev, NULL, 0, "exhaustive", 1, (tuning_loop_limits){0}, NULL);
    cr_assert_eq(r.stop, TUNING_LOOP_EXHAUSTED);
    cr_assert_eq(r.evaluated, 125);
    cr_assert_eq(r.by_status[MEAS_COMPILE], 25);
    cr_assert_eq(r.by_status[MEAS_OK], 100);
    cr_assert(r.have_best);
    cr_assert_float_eq(r.best_ns, 1000.0, 1e-9);
    uint16_t idx[3];
    space_unrank(s, r.best_rank, idx);
    cr_assert(idx[0] == 2 && idx[1] == 2 && idx[2] == 2);

    memset(per_rank, 0, sizeof per_rank);
    dev.calls = 0;
    r = run(s, &dev, NULL, 0, "random", 3, (tuning_loop_limits){.max_evaluations = 17}, NULL);
    cr_assert_eq(r.stop, TUNING_LOOP_BUDGET);
    cr_assert_eq(r.evaluated, 17);
    cr_assert_eq(dev.calls, 17);
    space_free(s);
}

/* The configurations the loop names for building ahead (the compile
 * workers' work), every one of them. */
typedef struct hint_log {
    fake_device *device;
    bool hinted[125];
    size_t hints;
    size_t budget;
    size_t most_past_the_budget; /* the most named at a turn beyond the turns left after it */
} hint_log;

static int evaluate_logging_hints(void *ctx, const uint16_t *idx, measurement *m,
                                  skytune_error *err)
{
    hint_log *log = ctx;
    return fake_evaluate(log->device, idx, m, err);
}

static void log_hints(void *ctx, uint64_t next, const uint64_t *ranks, size_t n)
{
    hint_log *log = ctx;
    (void)next;
    for (size_t k = 0; k < n; k++) log->hinted[ranks[k]] = true;
    log->hints += n;
    /* `next` is evaluated after the device->calls before it. */
    size_t left = log->budget - log->device->calls - 1;
    if (n > left && n - left > log->most_past_the_budget) log->most_past_the_budget = n - left;
}

/* Under a budget, nothing past the last turn is named for building ahead:
 * a build of a configuration the campaign never evaluates is CPU thrown
 * away (a campaign of 8 on PoCL built 13 programs). No strategy is named
 * more configurations at a turn than the turns left after it; those whose
 * next proposals are certain (exhaustive, random) name only what they then
 * evaluate, where bayes's are guesses that its next results may change. */
Test(campaign, nothing_past_the_budget_is_named_for_building_ahead)
{
    space *s = fixture_space(3, 5, NULL, 0);
    const char *strategies[] = {"exhaustive", "random", "bayes"};
    for (size_t k = 0; k < 3; k++) {
        size_t per_rank[125] = {0};
        fake_device dev = {.space = s, .calls_per_rank = per_rank};
        hint_log log = {.device = &dev, .budget = 17};
        evaluator eval = {.ctx = &log, .evaluate = evaluate_logging_hints,
                          .prefetch = log_hints, .prefetch_depth = 8};
        tuning_loop_result r = run_with(s, eval, NULL, 0, strategies[k], 5,
                                        (tuning_loop_limits){.max_evaluations = 17}, NULL);
        cr_assert_eq(r.evaluated, 17, "%s", strategies[k]);
        cr_assert_gt(log.hints, 0, "%s named nothing ahead: the test shows nothing",
                     strategies[k]);
        cr_expect_eq(log.most_past_the_budget, 0,
                     "%s: a turn named %zu more configurations than the turns left after it",
                     strategies[k], log.most_past_the_budget);
        bool certain = strcmp(strategies[k], "bayes") != 0;
        for (size_t rank = 0; certain && rank < 125; rank++)
            cr_expect(!log.hinted[rank] || per_rank[rank] > 0,
                      "%s: configuration %zu was named for building ahead, and the campaign of "
                      "17 never evaluated it",
                      strategies[k], rank);
    }
    space_free(s);
}

Test(campaign, target_stops_the_search)
{
    space *s = fixture_space(3, 5, NULL, 0);
    size_t per_rank[125] = {0};
    fake_device dev = {.space = s, .calls_per_rank = per_rank};
    tuning_loop_result r =
        run(s, &dev, NULL, 0, "exhaustive", 1, (tuning_loop_limits){.target_ns = 1100.0}, NULL);
    cr_assert_eq(r.stop, TUNING_LOOP_TARGET);
    cr_assert_leq(r.best_ns, 1100.0);
    cr_assert_lt(r.evaluated, 125);
    space_free(s);
}

Test(campaign, interrupted_campaign_resumes_and_measures_each_configuration_once)
{
    space *s = fixture_space(3, 5, NULL, 0);
    size_t per_rank[125] = {0};
    fake_device dev = {.space = s, .calls_per_rank = per_rank};
    store *st;
    skytune_error err = {0};
    cr_assert_eq(store_open(db_path, true, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    int64_t id = open_campaign(st, 7);

    stopper stop = {.after = 30};
    tuning_loop_result r = run(s, &dev, st, id, "random", 7, (tuning_loop_limits){0}, &stop);
    cr_assert_eq(r.stop, TUNING_LOOP_INTERRUPTED);
    cr_assert_eq(r.evaluated, 30);

    int64_t again = open_campaign(st, 7);
    cr_assert_eq(again, id, "the same settings find the same campaign");
    r = run(s, &dev, st, id, "random", 7, (tuning_loop_limits){0}, NULL);
    cr_assert_eq(r.stop, TUNING_LOOP_EXHAUSTED);
    cr_assert_eq(r.evaluated, 125);
    cr_assert_eq(r.reused, 30, "the first 30 come back from the store");
    cr_assert_eq(r.measured, 95);
    for (size_t k = 0; k < 125; k++) cr_assert_eq(per_rank[k], 1, "rank %zu measured %zu times", k, per_rank[k]);
    cr_assert_eq(sql_int(st, "SELECT COUNT(*) FROM measurements"), 125);
    cr_assert_eq(sql_int(st, "SELECT COUNT(*) FROM evaluations"), 125);
    cr_assert_eq(sql_int(st, "SELECT COUNT(DISTINCT seq) FROM evaluations"), 125);
    cr_assert_eq(sql_int(st, "SELECT COUNT(*) FROM measurements WHERE status = 'compile'"), 25);
    store_close(st);
    space_free(s);
}

Test(campaign, another_campaign_reuses_stored_measurements)
{
    space *s = fixture_space(3, 5, NULL, 0);
    size_t per_rank[125] = {0};
    fake_device dev = {.space = s, .calls_per_rank = per_rank};
    store *st;
    skytune_error err = {0};
    cr_assert_eq(store_open(db_path, true, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    int64_t first = open_campaign(st, 1);
    run(s, &dev, st, first, "random", 1, (tuning_loop_limits){.max_evaluations = 40}, NULL);
    cr_assert_eq(dev.calls, 40);
    int64_t second = open_campaign(st, 2);
    cr_assert_neq(first, second);
    tuning_loop_result r = run(s, &dev, st, second, "exhaustive", 2, (tuning_loop_limits){0}, NULL);
    cr_assert_eq(r.evaluated, 125);
    cr_assert_eq(r.reused, 40);
    cr_assert_eq(dev.calls, 125, "only the 85 new ones were measured");
    cr_assert_float_eq(r.best_ns, 1000.0, 1e-9);
    cr_assert_eq(sql_int(st, "SELECT COUNT(*) FROM evaluations WHERE cached = 1"), 40);
    store_close(st);
    space_free(s);
}

/* Racing: the loop tells the evaluator the race limit of the ok results so
 * far before each measurement; the synthetic device stops (flags raced) a
 * configuration slower than it. */
typedef struct racing_device {
    fake_device dev;
    double limit_ns;
    size_t told, ok_before, told_with_limit_early;
    double best[125];          /* ok medians so far, in order */
    size_t n_ok;
} racing_device;

static void racing_race(void *ctx, double limit_ns)
{
    racing_device *r = ctx;
    r->limit_ns = limit_ns;
    r->told++;
    if (limit_ns > 0 && r->n_ok < 5) r->told_with_limit_early++;
}

static int racing_evaluate(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err)
{
    racing_device *r = ctx;
    fake_evaluate(&r->dev, idx, m, err);
    if (m->status != MEAS_OK) return 0;
    if (r->limit_ns > 0 && m->min_ns > r->limit_ns) m->raced = true;
    /* The limit is above the 5th best so far. */
    if (r->limit_ns > 0) {
        size_t below = 0;
        for (size_t k = 0; k < r->n_ok; k++)
            if (r->best[k] < r->limit_ns) below++;
        cr_assert_geq(below, 5, "a limit with %zu ok configurations under it", below);
    }
    r->best[r->n_ok++] = m->median_ns;
    return 0;
}

static tuning_loop_result run_racing(const space *s, racing_device *r, bool race)
{
    history *h = history_new();
    strategy_setup setup = {.space = s, .history = h, .seed = 1};
    strategy *strat;
    skytune_error err = {0};
    cr_assert_eq(strategy_create("exhaustive", &setup, NULL, 0, &strat, &err), 0);
    tuning_loop_config cfg = {
        .space = s,
        .strategy = strat,
        .history = h,
        .eval = {.ctx = r, .evaluate = racing_evaluate, .race = racing_race},
        .race = race,
    };
    tuning_loop_result res;
    cr_assert_eq(tuning_loop_run(&cfg, &res, &err), 0, "%s", err.message);
    strategy_free(strat);
    history_free(h);
    return res;
}

Test(campaign, the_evaluator_is_told_the_race_limit_once_five_configurations_passed)
{
    space *s = fixture_space(3, 5, NULL, 0);
    size_t per_rank[125] = {0};
    racing_device r = {.dev = {.space = s, .calls_per_rank = per_rank}};
    tuning_loop_result res = run_racing(s, &r, true);
    cr_assert(res.racing);
    cr_assert_eq(r.told, 125, "told before every measurement");
    cr_assert_eq(r.told_with_limit_early, 0, "a limit before 5 configurations passed");
    cr_assert_gt(res.raced, 0);
    cr_assert_float_eq(res.race_margin, RACE_MIN_MARGIN, 1e-9, "quiet samples: the least margin");
    cr_assert_float_eq(res.best_ns, 1000.0, 1e-9, "the best is found with racing");

    memset(&r, 0, sizeof r);
    memset(per_rank, 0, sizeof per_rank);
    r.dev = (fake_device){.space = s, .calls_per_rank = per_rank};
    res = run_racing(s, &r, false);
    cr_assert_not(res.racing);
    cr_assert_eq(r.told, 0, "--no-race: the evaluator is never told a limit");
    cr_assert_eq(res.raced, 0);
    space_free(s);
}
