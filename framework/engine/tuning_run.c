#include "tuning_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binary_cache.h"
#include "claims.h"
#include "cl_device.h"
#include "clock.h"
#include "derived_values.h"
#include "measurer.h"
#include "plugin_problem.h"
#include "plugin_space.h"
#include "replay_evaluator.h"
#include "replay_load.h"
#include "replay_recorded.h"
#include "warm_start.h"
#include "space_rejections.h"
#include "store_spaces.h"
#include "value.h"
#include "store.h"
#include "store_confirmations.h"
#include "store_invocations.h"
#include "t1.h"
#include "usable_cpus.h"

/* Everything that shapes the sequence of configurations tried, so that the
 * same command finds its campaign again. Stopping rules (budget, time
 * limit, target) are left out: raising the budget continues the campaign. */
static int campaign_settings(const tuning_request *rq, const strategy *st,
                             const warm_start *ws, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "runs=%u", rq->runs);
    if (rq->warm_up_runs && used < len)
        used += (size_t)snprintf(buf + used, len - used, ";warm_up=%u", rq->warm_up_runs);
    /* Transfers change what a run's time is: another campaign. */
    if (rq->transfers && used < len)
        used += (size_t)snprintf(buf + used, len - used, ";transfers");
    for (size_t k = 0; k < rq->n_restricts && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, ";restrict=%s", rq->restricts[k]);
    for (size_t k = 0; k < rq->n_only && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, ";only=%s", rq->only[k]);
    if (rq->space_parts > 1 && used < len)
        used += (size_t)snprintf(buf + used, len - used, ";part=%u/%u", rq->space_part,
                                 rq->space_parts);
    if (rq->configs && used < len) {
        /* The list itself may be long: its hash tells lists apart. */
        uint64_t h = 1469598103934665603ull;
        for (size_t k = 0; k < rq->n_configs; k++)
            h = h * 1099511628211ull ^ space_text_hash(rq->configs[k]);
        used += (size_t)snprintf(buf + used, len - used, ";configs=%zu:%016llx", rq->n_configs,
                                 (unsigned long long)h);
    }
    if (ws->recordings && used < len)
        /* What the recordings tell the strategy, not their paths: the same
         * recordings copied elsewhere are the same campaign. */
        used += (size_t)snprintf(buf + used, len - used, ";warm_start=%zu:%016llx",
                                 ws->recordings, (unsigned long long)warm_start_hash(ws));
    if (used < len) {
        used += (size_t)snprintf(buf + used, len - used, ";strategy:");
        if (used < len) used += strategy_settings_text(st, buf + used, len - used);
    }
    return used < len ? 0 : -1;
}

/* Where a campaign is recorded and how its configurations are evaluated:
 * what a device run and a replayed run have in common. */
typedef struct recorded_campaign {
    const skytune_device_info *device;
    /* The plugin and problem of a device run, whose derived values are
     * recorded with each measurement; NULL in a replay. */
    const skytune_plugin *plugin;
    const skytune_values *problem;
    const char *plugin_name, *plugin_version, *source_hash;
    const char *problem_text;
    const space *space;
    evaluator eval;
    bool replayed;
    bool isolated;
    unsigned compile_jobs;
    unsigned measure_ahead;
    unsigned usable_cpus;                 /* the CPUs this process may use (usable_cpus.h) */
    const char *cache_dir;
    const char *verification;
    /* Measurements are claimed before they are made, so that runs sharing
     * the database never make one twice (loop/claims.h). false: no claims
     * (a replay measures nothing). */
    bool claims;
    trace *trace;                         /* --trace, or NULL */
} recorded_campaign;

/* The ranks of the given configurations that lie in the space, in the
 * order given; those outside it (a value this problem does not allow) are
 * left out, and there may be none. */
static int selected_ranks(const space *sp, const char *const *configs, size_t n,
                          uint64_t **ranks, size_t *n_ranks, skytune_error *err)
{
    uint16_t *idx = calloc(space_param_count(sp) + 1, sizeof *idx);
    *ranks = calloc(n + 1, sizeof **ranks);
    *n_ranks = 0;
    if (!idx || !*ranks) {
        free(idx);
        return err_set(err, "out of memory");
    }
    for (size_t k = 0; k < n; k++) {
        skytune_error ignored;
        uint64_t rank;
        if (space_parse_config(sp, configs[k], idx, &ignored) != 0 ||
            space_rank(sp, idx, &rank) != 0)
            continue;
        bool seen = false;
        for (size_t j = 0; j < *n_ranks && !seen; j++) seen = (*ranks)[j] == rank;
        if (!seen) (*ranks)[(*n_ranks)++] = rank;
    }
    free(idx);
    return 0;
}

/* How an invocation ended, from its key in the database, as the summary
 * line says it ("budget reached"). */
static const char *ended_text(const char *key)
{
    for (int s = TUNING_LOOP_EXHAUSTED; s <= TUNING_LOOP_GAIN_BELOW; s++)
        if (strcmp(key, tuning_loop_stop_key((tuning_loop_stop)s)) == 0)
            return tuning_loop_stop_name((tuning_loop_stop)s);
    return key;
}

/* What run_recorded holds from the strategy's creation to the run's end. */
typedef struct recorded_run {
    const tuning_request *rq;
    const recorded_campaign *rc;
    tuning_outcome *out;
    uint64_t *ranks;           /* the --configs list's, those in the space */
    size_t n_ranks;
    history *hist;
    const char *strategy_name;
    strategy *strat;
    warm_start warm;           /* --warm-start's (empty: none) */
    char settings[8192];       /* campaign_settings */
    derived_values derived;
    bool deriving;
    store *st;
    /* Claims take a connection of their own: the writer thread holds the
     * campaign's. NULL: no claims. */
    store *claim_store;
    claimant claims;
    char host[256];
    int64_t campaign_id, invocation_id;
    bool campaign_open, invocation_open;
    bool resumed;
    store_invocation_before before;
    store_claim_holder sharing;  /* another run measuring the campaign now */
} recorded_run;

/* How many configurations the strategy can propose: a --configs list's,
 * a part's of the space, or the space's. */
static int select_configurations(recorded_run *r, skytune_error *err)
{
    const tuning_request *rq = r->rq;
    const space *sp = r->rc->space;
    if (rq->configs &&
        selected_ranks(sp, rq->configs, rq->n_configs, &r->ranks, &r->n_ranks, err) != 0)
        return -1;
    r->out->space_count = rq->configs           ? r->n_ranks
                          : rq->space_parts > 1 ? (space_count(sp) + rq->space_parts - 1 -
                                                   rq->space_part) /
                                                      rq->space_parts
                                                : space_count(sp);
    if (rq->configs && r->n_ranks == 0 && !rq->check_only)
        /* A check says so through space_count 0; a run has nothing to do. */
        return err_set(err,
                       "none of the %zu configurations given is valid for this problem and device",
                       rq->n_configs);
    return 0;
}

static void name_outcome(recorded_run *r)
{
    tuning_outcome *out = r->out;
    snprintf(out->problem_text, sizeof out->problem_text, "%s", r->rc->problem_text);
    snprintf(out->device, sizeof out->device, "%s", r->rc->device->name);
    snprintf(out->plugin, sizeof out->plugin, "%s", r->rc->plugin_name);
}

/* The strategy over a fresh history, and the settings that find its
 * campaign again. */
static int create_strategy(recorded_run *r, skytune_error *err)
{
    const tuning_request *rq = r->rq;
    r->hist = history_new();
    if (!r->hist) return err_set(err, "out of memory");
    r->strategy_name = rq->strategy ? rq->strategy : strategy_default_name();
    strategy_setup setup = {.space = r->rc->space,
                            .history = r->hist,
                            .seed = rq->seed,
                            .budget = rq->limits.max_evaluations,
                            .part = rq->space_part,
                            .parts = rq->space_parts,
                            .ranks = r->ranks,
                            .n_ranks = r->n_ranks};
    if (rq->n_warm_start) {
        if (warm_start_load(rq->warm_start, rq->n_warm_start, r->rc->space, rq->max_json_bytes,
                            &r->warm, err) != 0)
            return -1;
        setup.prior = &r->warm.prior;
    }
    if (strategy_create(r->strategy_name, &setup, rq->strategy_opts, rq->n_strategy_opts,
                        &r->strat, err) != 0)
        return -1;
    if (campaign_settings(rq, r->strat, &r->warm, r->settings, sizeof r->settings) != 0)
        return err_set(err, "the run's settings (--restrict, --only, --strategy-opt) are too long");
    return 0;
}

/* Before the database: a plugin whose derived values look up an undeclared
 * name is refused without a trace. */
static int open_derived_values(recorded_run *r, skytune_error *err)
{
    const recorded_campaign *rc = r->rc;
    if (!rc->plugin || !derived_values_declared(rc->plugin)) return 0;
    if (derived_values_open(&r->derived, rc->plugin, rc->problem, rc->space, err) != 0) return -1;
    r->deriving = true;
    return 0;
}

/* The store's ids of the campaign's device, plugin (with the names of its
 * parameters and derived values) and problem, into *cspec. */
static int find_ids(recorded_run *r, store_campaign_spec *cspec, skytune_error *err)
{
    const recorded_campaign *rc = r->rc;
    size_t n_names = space_param_count(rc->space), n_problem_names = 0;
    const skytune_problem_param *problem_params = rc->plugin ? rc->plugin->problem_params : NULL;
    for (const skytune_problem_param *pp = problem_params; pp && pp->name; pp++)
        n_problem_names++;
    const char **names = calloc(n_names + 1, sizeof *names);
    const char **problem_names = calloc(n_problem_names + 1, sizeof *problem_names);
    if (!names || !problem_names) {
        free(names);
        free(problem_names);
        return err_set(err, "out of memory");
    }
    for (size_t k = 0; k < n_names; k++) names[k] = space_param(rc->space, k)->name;
    for (size_t k = 0; k < n_problem_names; k++) problem_names[k] = problem_params[k].name;
    const char *derived_names[MEAS_MAX_DERIVED];
    store_param_names params = {
        .tuning = names,
        .n_tuning = n_names,
        .problem = problem_names,
        .n_problem = n_problem_names,
        .derived = derived_names,
        .n_derived = rc->plugin ? derived_values_names(rc->plugin, derived_names) : 0,
    };
    int failed = store_device_id(r->st, rc->device, &cspec->device_id, err) != 0 ||
                 store_plugin_id(r->st, rc->plugin_name, rc->plugin_version, rc->source_hash,
                                 &params, &cspec->plugin_id, err) != 0 ||
                 store_problem_id(r->st, cspec->plugin_id, rc->problem_text,
                                  &cspec->problem_id, err) != 0;
    free(names);
    free(problem_names);
    return failed ? -1 : 0;
}

double tuning_request_busy_timeout_s(const tuning_request *rq)
{
    return rq->busy_timeout_s > 0 ? rq->busy_timeout_s : STORE_BUSY_TIMEOUT_S;
}

/* The database, and in it the campaign: found again, or new. */
static int open_campaign(recorded_run *r, skytune_error *err)
{
    const tuning_request *rq = r->rq;
    if (store_open(rq->db_path, true, tuning_request_busy_timeout_s(rq), &r->st, err) != 0)
        return -1;
    store_campaign_spec cspec = {
        .strategy = r->strategy_name,
        .settings = r->settings,
        .seed = rq->seed,
        .command = rq->command ? rq->command : "",
        .host = r->host,
        .replayed = r->rc->replayed,
    };
    if (find_ids(r, &cspec, err) != 0) return -1;
    gethostname(r->host, sizeof r->host - 1);
    if (store_campaign_open(r->st, &cspec, &r->campaign_id, &r->resumed, err) != 0) return -1;
    r->campaign_open = true;
    return 0;
}

/* This invocation of the campaign in the database, with its stopping rules,
 * and the claims when other runs may share it. */
static int begin_invocation(recorded_run *r, skytune_error *err)
{
    const tuning_request *rq = r->rq;
    char target[64] = "";
    if (rq->limits.target_ns > 0)
        snprintf(target, sizeof target, "%.6g ns", rq->limits.target_ns);
    else if (rq->limits.target_gflops > 0)
        snprintf(target, sizeof target, "%.6g GFLOP/s", rq->limits.target_gflops);
    store_invocation_spec ispec = {
        .campaign_id = r->campaign_id,
        .command = rq->command,
        .host = r->host,
        .budget = rq->limits.max_evaluations,
        .time_limit_s = rq->limits.time_limit_s,
        .target = target[0] ? target : NULL,
        .gain_below = rq->limits.gain_below,
    };
    if (store_invocation_begin(r->st, &ispec, &r->invocation_id, &r->before, err) != 0)
        return -1;
    r->invocation_open = true;
    /* The report reads what the constraints removed from the database. */
    if (store_record_space(r->st, r->campaign_id, r->rc->space, err) != 0) return -1;
    /* A run that joins one measuring the campaign says so, rather than
     * taking that run's open invocation for a killed one's. */
    if (claims_live_holder(r->st, r->campaign_id, (int64_t)getpid(), r->host, &r->sharing,
                           err) != 0)
        return -1;
    store_set_retry_failed(r->st, rq->retry_failed);
    if (r->rc->claims) {
        if (store_open(rq->db_path, false, tuning_request_busy_timeout_s(rq), &r->claim_store,
                       err) != 0)
            return -1;
        store_set_retry_failed(r->claim_store, rq->retry_failed);
        if (claimant_init(&r->claims, r->claim_store, rq->stop_requested, rq->on_notice,
                          rq->notice_ctx, err) != 0)
            return -1;
    }
    r->out->campaign_id = r->campaign_id;
    return 0;
}

static void announce_start(const recorded_run *r,
                           void (*on_start)(void *ctx, const tuning_started *s), void *start_ctx)
{
    const tuning_request *rq = r->rq;
    const recorded_campaign *rc = r->rc;
    if (!on_start) return;
    tuning_started started = {
        .plugin = rc->plugin_name,
        .plugin_version = rc->plugin_version,
        .problem_text = rc->problem_text,
        .device = rc->device->name,
        .platform = rc->device->platform,
        .strategy = r->strategy_name,
        .label = rq->label,
        .db_path = rq->db_path,
        .space_count = r->out->space_count,
        .campaign_id = r->campaign_id,
        .resumed = r->resumed,
        .isolated = rc->isolated,
        .compile_jobs = rc->compile_jobs,
        .measure_ahead = rc->measure_ahead,
        .usable_cpus = rc->usable_cpus,
        .cache_dir = rc->cache_dir,
        .verification = rc->verification,
        .evaluated_before = (uint64_t)r->before.evaluations,
        .had_previous = r->before.had_previous,
        .previous_budget = r->before.previous_budget,
        .previous_ended = ended_text(r->before.previous_ended),
        .shared_pid = r->sharing.found ? r->sharing.pid : 0,
        .shared_host = r->sharing.found ? r->sharing.host : NULL,
        .budget = rq->limits.max_evaluations,
    };
    on_start(start_ctx, &started);
}

/* The campaign loop, and the best configuration it found as text. */
static int run_campaign(recorded_run *r, skytune_error *err)
{
    const tuning_request *rq = r->rq;
    const recorded_campaign *rc = r->rc;
    tuning_outcome *out = r->out;
    tuning_loop_config cc = {
        .space = rc->space,
        .selection_count = out->space_count,
        .strategy = r->strat,
        .history = r->hist,
        .eval = rc->eval,
        .store = r->st,
        .campaign_id = r->campaign_id,
        .limits = rq->limits,
        .stop_requested = rq->stop_requested,
        .retry_failed = rq->retry_failed,
        .race = !rq->no_race,
        .claims = r->claim_store ? &r->claims : NULL,
        .on_event = rq->on_event,
        .event_ctx = rq->event_ctx,
        .derive = r->deriving ? derived_values_compute : NULL,
        .derive_ctx = &r->derived,
        .on_activity = rq->on_activity,
        .activity_ctx = rq->activity_ctx,
        .label = rq->label,
        .trace = rc->trace,
    };
    double since = clock_monotonic_s();
    int looped = tuning_loop_run(&cc, &out->result, err);
    trace_span(rc->trace, "campaign", "engine", since, clock_monotonic_s(), NULL);
    if (looped != 0) return -1;
    if (out->result.have_best) {
        uint16_t *idx = calloc(space_param_count(rc->space) + 1, sizeof *idx);
        if (idx) {
            space_unrank(rc->space, out->result.best_rank, idx);
            space_config_text(rc->space, idx, out->best_text, sizeof out->best_text);
            free(idx);
        }
    }
    return 0;
}

/* Unless its rounds were asked for, a confirmation is held to a tenth of
 * the campaign's time: on a short campaign of slow kernels (30 s of a
 * matmul whose kernels take 80 ms on a CPU) five rounds of five visits
 * would take as long as the campaign. A visit costs its warm-up, its
 * verification and its timed runs, each about the best's time, and its
 * set-up; one round at least, whatever it costs. */
#define CONFIRM_TIME_SHARE 0.10
#define CONFIRM_VISIT_SETUP_S 0.05

static unsigned confirmation_rounds(const tuning_request *rq, const tuning_loop_result *res)
{
    if (rq->confirm_rounds_asked || !res->have_best || !(res->wall_s > 0.0))
        return rq->confirm_rounds;
    double visit_s = (double)(rq->runs + rq->warm_up_runs + 1) * res->best_ns * 1e-9 +
                     CONFIRM_VISIT_SETUP_S;
    double fit = floor(CONFIRM_TIME_SHARE * res->wall_s / ((double)rq->confirm_top * visit_s));
    if (fit < 1.0) return 1;
    return fit < (double)rq->confirm_rounds ? (unsigned)fit : rq->confirm_rounds;
}

/* The campaign's winner confirmed (confirmation.h), unless none was asked
 * for, the times are recorded ones, the run was stopped, or the campaign
 * was confirmed before and this run measured nothing new. */
static int confirm_at_end(recorded_run *r, skytune_error *err)
{
    const tuning_request *rq = r->rq;
    confirmation_outcome *c = &r->out->confirmation;
    if (rq->confirm_top < 2 || rq->confirm_rounds < 1) return 0;
    if (r->rc->replayed) {
        snprintf(c->skipped, sizeof c->skipped,
                 "replayed times are recorded ones: nothing to confirm");
        return 0;
    }
    if (r->out->result.stop == TUNING_LOOP_INTERRUPTED ||
        (rq->stop_requested && *rq->stop_requested)) {
        snprintf(c->skipped, sizeof c->skipped, "interrupted");
        return 0;
    }
    int64_t before = 0;
    if (store_confirmation_count(r->st, r->campaign_id, &before, err) != 0) return -1;
    if (before > 0 && r->out->result.measured == 0) {
        snprintf(c->skipped, sizeof c->skipped,
                 "confirmed before, and nothing new was measured since");
        return 0;
    }
    confirmation_request cr = {
        .space = r->rc->space,
        .eval = r->rc->eval,
        .store = r->st,
        .campaign_id = r->campaign_id,
        .top = rq->confirm_top,
        .rounds = confirmation_rounds(rq, &r->out->result),
        .runs = rq->runs,
        .stop_requested = rq->stop_requested,
    };
    double since = clock_monotonic_s();
    int rc = confirm_campaign_best(&cr, c, err);
    trace_span(r->rc->trace, "confirm the winner", "engine", since, clock_monotonic_s(), NULL);
    /* Stopped while confirming: the run ends as interrupted, and running it
     * again confirms (nothing was recorded). */
    if (rc == 0 && !c->confirmed && rq->stop_requested && *rq->stop_requested)
        r->out->result.stop = TUNING_LOOP_INTERRUPTED;
    return rc;
}

/* The invocation and the campaign closed as the run ended (status), and
 * everything let go. The run's own error, if any, is the one to report:
 * closing reports into err only after a run that succeeded. */
static int end_run(recorded_run *r, int status, skytune_error *err)
{
    const tuning_loop_result *res = &r->out->result;
    if (r->invocation_open) {
        skytune_error end_err;
        if (store_invocation_end(r->st, r->invocation_id,
                                 status != 0 ? "failed" : tuning_loop_stop_key(res->stop),
                                 status != 0 ? &end_err : err) != 0 &&
            status == 0)
            status = -1;
    }
    if (r->campaign_open) {
        const char *state = status != 0                         ? "failed"
                            : res->stop == TUNING_LOOP_INTERRUPTED ? "interrupted"
                                                                : "done";
        skytune_error close_err;
        store_campaign_close(r->st, r->campaign_id, state, status != 0 ? &close_err : err);
    }
    if (r->claim_store) claimant_close(&r->claims);
    store_close(r->claim_store);
    store_close(r->st);
    strategy_free(r->strat);
    warm_start_free(&r->warm);
    history_free(r->hist);
    if (r->deriving) derived_values_close(&r->derived);
    free(r->ranks);
    return status;
}

static int run_recorded(const tuning_request *rq, const recorded_campaign *rc,
                        void (*on_start)(void *ctx, const tuning_started *s), void *start_ctx,
                        tuning_outcome *out, skytune_error *err)
{
    recorded_run r = {.rq = rq, .rc = rc, .out = out};
    int status = -1;
    if (select_configurations(&r, err) != 0) goto done;
    name_outcome(&r);
    if (create_strategy(&r, err) != 0 || open_derived_values(&r, err) != 0) goto done;
    if (rq->check_only) {
        status = 0;
        goto done;
    }
    /* Everything is validated: only now is the database opened. */
    double since = clock_monotonic_s();
    if (open_campaign(&r, err) != 0 || begin_invocation(&r, err) != 0) goto done;
    trace_span(rc->trace, "open the database", "engine", since, clock_monotonic_s(), NULL);
    announce_start(&r, on_start, start_ctx);
    status = run_campaign(&r, err);
    if (status == 0) status = confirm_at_end(&r, err);
done:
    return end_run(&r, status, err);
}

/* An empty space, with what ruled its combinations out. The message has
 * room for a few lines: the constraints that rule out most come first. */
static int no_valid_configuration(const char *what, const char *hint, const space *sp,
                                  skytune_error *err)
{
    char why[640];
    size_t len = space_rejections_text(sp, "  ", 4, why, sizeof why);
    if (len >= sizeof why) len = sizeof why - 1;
    if (len > 0 && why[len - 1] == '\n') why[len - 1] = '\0';
    return err_set(err,
                   "no valid configuration: the constraints of %s, with this problem, device and "
                   "any --restrict/--only, rule out every combination of the tuning parameters' "
                   "values:\n%s%s",
                   what, why, hint);
}

/* Building a space honours the run's stop request and shows the caller's
 * progress display. */
static int watch_space_build(void *ctx, const space_progress *p)
{
    const tuning_request *rq = ctx;
    if (rq->on_space_progress) rq->on_space_progress(rq->space_progress_ctx, p);
    return rq->stop_requested && *rq->stop_requested;
}

static space_control space_control_of(const tuning_request *rq)
{
    return (space_control){
        .work_limit = rq->space_work_limit, .on_progress = watch_space_build, .ctx = (void *)rq};
}

/* The run's --restrict and --only, and those a T1 file adds when it narrows
 * a device run's space: its conditions become restrictions, and each
 * parameter it lists keeps only the values it lists. */
typedef struct narrowing {
    const char **restricts;      /* the T1 file's conditions, then the run's --restrict */
    size_t n_restricts;
    char **t1_only;              /* the T1 file's "name=v1,v2,..." (owned) */
    size_t n_t1_only;
    const char **only;           /* t1_only, then the run's --only */
    size_t n_only;
    space *t1;                   /* the T1 definition the condition texts point into */
} narrowing;

static void narrowing_free(narrowing *n)
{
    for (size_t k = 0; k < n->n_t1_only; k++) free(n->t1_only[k]);
    free(n->t1_only);
    free(n->only);
    free(n->restricts);
    space_free(n->t1);
    memset(n, 0, sizeof *n);
}

/* "name=v1,v2,..." of a T1 parameter's values, malloc'd. */
static char *only_text(const param_def *p)
{
    size_t len = strlen(p->name) + 2;
    for (size_t v = 0; v < p->count; v++) {
        char text[256];
        value_format(&p->values[v], text, sizeof text);
        len += strlen(text) + 1;
    }
    char *only = malloc(len);
    if (!only) return NULL;
    size_t used = (size_t)snprintf(only, len, "%s=", p->name);
    for (size_t v = 0; v < p->count && used < len; v++) {
        char text[256];
        value_format(&p->values[v], text, sizeof text);
        used += (size_t)snprintf(only + used, len - used, "%s%s", v ? "," : "", text);
    }
    return only;
}

static int narrowing_of(const tuning_request *rq, narrowing *n, skytune_error *err)
{
    memset(n, 0, sizeof *n);
    size_t t1_params = 0, t1_conditions = 0;
    if (rq->space_file) {
        if (t1_load_definition(rq->space_file, rq->max_json_bytes, &n->t1, err) != 0) return -1;
        t1_params = space_param_count(n->t1);
        t1_conditions = space_constraint_count(n->t1);
    }
    n->t1_only = calloc(t1_params + 1, sizeof *n->t1_only);
    n->only = calloc(t1_params + rq->n_only + 1, sizeof *n->only);
    n->restricts = calloc(t1_conditions + rq->n_restricts + 1, sizeof *n->restricts);
    if (!n->t1_only || !n->only || !n->restricts) {
        narrowing_free(n);
        return err_set(err, "out of memory");
    }
    for (; n->n_t1_only < t1_params; n->n_t1_only++) {
        if (!(n->t1_only[n->n_t1_only] = only_text(space_param(n->t1, n->n_t1_only)))) {
            narrowing_free(n);
            return err_set(err, "out of memory");
        }
        n->only[n->n_only++] = n->t1_only[n->n_t1_only];
    }
    for (size_t k = 0; k < rq->n_only; k++) n->only[n->n_only++] = rq->only[k];
    for (size_t k = 0; k < t1_conditions; k++)
        n->restricts[n->n_restricts++] = space_constraint_text(n->t1, k);
    for (size_t k = 0; k < rq->n_restricts; k++) n->restricts[n->n_restricts++] = rq->restricts[k];
    return 0;
}

/* Whether loading a program binary costs the measuring worker a build of
 * its own: NVIDIA's binaries are PTX, which every process compiles to
 * machine code again unless the driver's own cache holds it, and the user
 * has turned that cache off (CUDA_CACHE_DISABLE=1). Measured on an H200
 * (docs/benchmarks.md, "Close to the device's limit"): 0.44 ms a load with
 * the driver's cache, ~70 ms without. */
static bool loading_recompiles(const skytune_device_info *dev)
{
    const char *off = getenv("CUDA_CACHE_DISABLE");
    return strstr(dev->platform, "NVIDIA") && off && strcmp(off, "1") == 0;
}

/* Spare measuring workers when none were asked for, on a GPU: four where
 * loading a program recompiles it (loading_recompiles), so that it is done
 * ahead while the device times; two elsewhere, so that the next
 * configuration waits at the gate while this one is compared
 * (measure_ahead_go_early; a spare waiting there costs no CPU, and spares
 * are given only what the compile workers built). No more than half the
 * CPUs this process may use after the measuring worker's. None on a CPU
 * device, where a worker loading a program would share the cores with the
 * kernels being timed. The figures behind them: docs/benchmarks.md, "Close
 * to the device's limit". */
static unsigned default_measure_ahead(const skytune_device_info *dev, uint64_t space_count,
                                      unsigned cpus)
{
    unsigned ahead = !dev->is_gpu ? 0 : loading_recompiles(dev) ? 4 : 2;
    if (ahead > (cpus - 1) / 2) ahead = (cpus - 1) / 2;
    return space_count < 2 ? 0 : space_count - 1 < ahead ? (unsigned)(space_count - 1) : ahead;
}

/* Compile workers when none were asked for, from the CPUs this process may
 * use (usable_cpus.h): on a GPU every one but the engine's and the
 * measuring worker's, less the spares' where loading a program recompiles
 * it (elsewhere a spare only waits at the gate), and one when that leaves
 * none but there are two CPUs; on a CPU device every one, since compiling
 * pauses while kernels run and the measuring worker only waits while its
 * next build is not done (dedispersion on 16 cores with PoCL: 30.8 s with
 * 15, 33.3 s with 8, 85.0 s with none; Kernel Tuner's examples on the
 * 2-core VM: vector_add 12.8 s with 2 against 16.0 s with 1, the stencil
 * 22.3 against 25.7 s, matmul 28.8 against 31.0 s). With one CPU there is
 * no compile worker (the measuring worker builds). Never more than there
 * are configurations. */
static unsigned default_compile_jobs(const skytune_device_info *dev, uint64_t space_count,
                                     unsigned ahead, unsigned cpus)
{
    long n = (long)cpus;
    long jobs = dev->is_gpu ? n - 2 - (loading_recompiles(dev) ? (long)ahead : 0) : n >= 2 ? n : 0;
    if (jobs < 1) jobs = n >= 2 + (long)ahead ? 1 : 0;
    if (jobs > 32) jobs = 32;
    if ((uint64_t)jobs > space_count) jobs = (long)space_count;
    return (unsigned)jobs;
}

/* The measurer in this process, unsupervised: for debugging a plugin. */
typedef struct device_evaluator {
    const space *space;
    measurer *measurer;
    skytune_named_value *values;
    /* What became of the builds' cache entries; the first that could not
     * be stored is told once, as the supervisor tells its workers'. */
    cache_entries entries;
    const char *cache_dir;
    void (*on_notice)(void *ctx, const char *text);
    void *notice_ctx;
    double race_limit_ns;        /* the campaign's race limit (racing.h); 0: none */
} device_evaluator;

static void race_on_device(void *ctx, double limit_ns)
{
    device_evaluator *de = ctx;
    de->race_limit_ns = limit_ns;
}

static int evaluate_on_device(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err)
{
    device_evaluator *de = ctx;
    space_config_values(de->space, idx, de->values);
    skytune_values config = {.count = space_param_count(de->space), .items = de->values};
    int rc = measurer_measure_raced(de->measurer, &config, de->race_limit_ns, m, err);
    const char *reason;
    cache_entry_outcome entry = measurer_cache_entry(de->measurer, &reason);
    if (cache_entries_count(&de->entries, entry, reason) && de->on_notice) {
        char text[1024];
        cache_entries_unwritable_notice(de->cache_dir, de->entries.first_reason, text,
                                        sizeof text);
        de->on_notice(de->notice_ctx, text);
    }
    return rc;
}

/* What a run on a device holds open while it runs. */
typedef struct device_run {
    loaded_plugin plugin;
    problem prob;
    cl_device_entry *devices;
    size_t n_devices;
    const cl_device_entry *dev;  /* the one selected */
    narrowing narrowed;
    space *sp;
    binary_cache *cache;         /* NULL: --no-cache */
    uint64_t cache_limit;
    supervisor *sup;             /* isolated runs */
    measurer *ms;                /* runs in this process */
    device_evaluator de;
    trace *trace;                /* --trace, or NULL */
    /* The plugin's version as the store records it: "2.0+transfers" for a
     * run with --transfers (campaign_on_device says why). */
    char recorded_version[96];
} device_run;

/* The plugin, its problem and the device. */
static int open_device_run(const tuning_request *rq, device_run *d, skytune_error *err)
{
    size_t device_index = 0;
    if (plugin_load(rq->plugin, &rq->search, &d->plugin, err) != 0 ||
        problem_resolve(d->plugin.desc, rq->preset, rq->sets, rq->n_sets, &d->prob, err) != 0 ||
        cl_devices_list(&d->devices, &d->n_devices, err) != 0 ||
        cl_device_select(d->devices, d->n_devices, rq->device, &device_index, err) != 0)
        return -1;
    d->dev = &d->devices[device_index];
    if (rq->space_file && strcmp(rq->space_file, REPLAY_RECORDED_SPACE) == 0)
        return err_set(err, "--space recorded: only a --replay dataset has recorded "
                            "configurations; for a run on a device --space takes a T1 file");
    return 0;
}

/* The plugin's space for this problem and device, narrowed; refused when
 * nothing is left of it. */
static int build_device_space(const tuning_request *rq, device_run *d, skytune_error *err)
{
    if (narrowing_of(rq, &d->narrowed, err) != 0) return -1;
    space_control control = space_control_of(rq);
    plugin_space_request space_rq = {
        .plugin = d->plugin.desc,
        .problem = &d->prob.values,
        .device = &d->dev->info,
        .restricts = d->narrowed.restricts,
        .n_restricts = d->narrowed.n_restricts,
        .only = d->narrowed.only,
        .n_only = d->narrowed.n_only,
        .control = &control,
    };
    if (plugin_space_build(&space_rq, &d->sp, err) != 0) {
        if (rq->space_file) err_prefix(err, "with --space %s", rq->space_file);
        return -1;
    }
    if (space_count(d->sp) == 0) {
        const char *name = d->plugin.desc->name;
        char what[160], hint[200];
        snprintf(what, sizeof what, "plugin %s", name);
        snprintf(hint, sizeof hint,
                 "\n(`skytune plugins show %s` with the same --preset and --set shows this too)",
                 name);
        return no_valid_configuration(what, hint, d->sp, err);
    }
    return 0;
}

/* The campaign's key in the store: what a check needs. The store keeps one
 * measurement per plugin build, device, problem and configuration, and
 * reuses it in every campaign that meets the configuration; a run with
 * --transfers times the kernels and the host-device copies together, which
 * is another measurement of the same configuration. So such a run records
 * the plugin as a build of its own, its version marked "+transfers", and
 * its measurements never stand in for the kernels' alone (or the other way
 * round). */
static recorded_campaign campaign_on_device(const tuning_request *rq, device_run *d)
{
    snprintf(d->recorded_version, sizeof d->recorded_version, "%s%s", d->plugin.desc->version,
             rq->transfers ? "+transfers" : "");
    return (recorded_campaign){
        .device = &d->dev->info,
        .plugin = d->plugin.desc,
        .problem = &d->prob.values,
        .plugin_name = d->plugin.desc->name,
        .plugin_version = d->recorded_version,
        .source_hash = d->plugin.source_hash,
        .problem_text = d->prob.text,
        .space = d->sp,
    };
}

/* Measuring by worker processes under a supervisor, with compile workers
 * and spare measuring workers. */
static int open_supervisor(const tuning_request *rq, device_run *d, recorded_campaign *spec,
                           skytune_error *err)
{
    const cl_device_entry *dev = d->dev;
    uint64_t count = space_count(d->sp);
    unsigned cpus = usable_cpus();
    unsigned ahead = rq->measure_ahead >= 0 ? (unsigned)rq->measure_ahead
                                            : default_measure_ahead(&dev->info, count, cpus);
    unsigned jobs = !d->cache               ? 0
                    : rq->compile_jobs >= 0 ? (unsigned)rq->compile_jobs
                                            : default_compile_jobs(&dev->info, count, ahead, cpus);
    /* A failed health check is tried again after a pause that doubles: a
     * GPU's driver or clocks may recover from what a kernel did. On a CPU
     * device the crashed worker's process took whatever it broke with it,
     * and waiting heals nothing in the host's noise, which is what such a
     * check mostly measures there (docs/campaigns.md): the re-checks
     * follow at once. Before, a campaign of microsecond kernels on PoCL
     * paused up to 14 s after a crash. */
    supervisor_health health = rq->health;
    if (!dev->info.is_gpu) health.wait_s = 0;
    supervisor_options so = {
        .worker_exe = rq->worker_exe,
        .setup = {
            .plugin_path = d->plugin.path,
            .platform_index = dev->platform_index,
            .device_index = dev->device_index,
            .device_name = dev->info.name,
            .problem = &d->prob.values,
            .runs = rq->runs,
            .warm_up_runs = rq->warm_up_runs,
            .transfers = rq->transfers,
            .compare = rq->compare,
            .seed = rq->seed,
            .cache_dir = spec->cache_dir,
            .cache_max_bytes = d->cache_limit,
            .wait_for_go = true,
            .trace_path = d->trace ? rq->trace_path : NULL,
        },
        .limits = rq->watchdog,
        .health = health,
        .compile_jobs = jobs,
        .measure_ahead = ahead,
        .pause_compile_for_device = !dev->info.is_gpu,
        .stop_requested = rq->stop_requested,
        .on_notice = rq->on_notice,
        .notice_ctx = rq->notice_ctx,
        .trace = d->trace,
    };
    if (supervisor_open(&so, d->sp, &d->sup, err) != 0) return -1;
    spec->eval = supervisor_evaluator(d->sup);
    spec->compile_jobs = jobs;
    spec->measure_ahead = ahead;
    spec->usable_cpus = cpus;
    return 0;
}

static int open_measurer(const tuning_request *rq, device_run *d, recorded_campaign *spec,
                         skytune_error *err)
{
    measurer_options mopts = {
        .runs = rq->runs, .warm_up_runs = rq->warm_up_runs, .seed = rq->seed, .cache = d->cache,
        .trace = d->trace, .transfers = rq->transfers, .compare = rq->compare,
        .reference_name = d->plugin.compared_with};
    if (measurer_open(d->plugin.desc, d->dev, &d->prob.values, &mopts, &d->ms, err) != 0)
        return -1;
    d->de.space = d->sp;
    d->de.measurer = d->ms;
    d->de.cache_dir = spec->cache_dir;
    d->de.on_notice = rq->on_notice;
    d->de.notice_ctx = rq->notice_ctx;
    d->de.values = calloc(space_param_count(d->sp) + 1, sizeof *d->de.values);
    if (!d->de.values) return err_set(err, "out of memory");
    spec->eval = (evaluator){.ctx = &d->de, .evaluate = evaluate_on_device, .race = race_on_device};
    return 0;
}

/* A step of the run's set-up, from `since` to now, on the engine's track;
 * returns now. */
static double trace_step(trace *t, const char *name, double since)
{
    double now = clock_monotonic_s();
    trace_span(t, name, "engine", since, now, NULL);
    return now;
}

static void close_device_run(device_run *d)
{
    double since = clock_monotonic_s();
    supervisor_close(d->sup);
    trace_step(d->trace, "close the workers", since);
    narrowing_free(&d->narrowed);
    free(d->de.values);
    measurer_close(d->ms);
    binary_cache_close(d->cache);
    space_free(d->sp);
    free(d->devices);
    problem_free(&d->prob);
    plugin_unload(&d->plugin);
    /* The closing of the above is in the trace; then the array ends. */
    trace_close(d->trace, true);
}

/* The trace of a run with --trace: a file that cannot be created fails the
 * run before anything is measured, since the user asked for it. */
static int open_trace(const tuning_request *rq, device_run *d, skytune_error *err)
{
    if (!rq->trace_path) return 0;
    if (trace_create(rq->trace_path, "engine", &d->trace, err) != 0) {
        err_prefix(err, "--trace");
        return -1;
    }
    return 0;
}

/* The binary cache, unless --no-cache or it cannot be trusted. */
static int open_cache(const tuning_request *rq, device_run *d, skytune_error *err)
{
    d->cache_limit = rq->cache_max_bytes ? rq->cache_max_bytes : BINARY_CACHE_DEFAULT_MAX_BYTES;
    if (!rq->no_cache && binary_cache_open(rq->cache_dir, d->cache_limit, &d->cache, err) != 0)
        return -1;
    if (d->cache && binary_cache_distrust(d->cache)) {
        if (rq->on_notice) {
            char text[400];
            snprintf(text, sizeof text, "%s: the binary cache is not used, every configuration "
                                        "is compiled from source",
                     binary_cache_distrust(d->cache));
            rq->on_notice(rq->notice_ctx, text);
        }
        binary_cache_close(d->cache);
        d->cache = NULL;
    }
    return 0;
}

static int run_on_device(const tuning_request *rq,
                         void (*on_start)(void *ctx, const tuning_started *s), void *start_ctx,
                         tuning_outcome *out, skytune_error *err)
{
    device_run d = {0};
    int rc = -1;
    if (open_trace(rq, &d, err) != 0) goto done;
    double since = clock_monotonic_s();
    if (open_device_run(rq, &d, err) != 0) goto done;
    since = trace_step(d.trace, "load the plugin and list the devices", since);
    if (build_device_space(rq, &d, err) != 0) goto done;
    since = trace_step(d.trace, "build the space", since);
    recorded_campaign spec = campaign_on_device(rq, &d);
    spec.trace = d.trace;
    if (rq->check_only) {
        /* Nothing is measured: no cache, no workers, no measurer. */
        rc = run_recorded(rq, &spec, NULL, NULL, out, err);
        goto done;
    }
    if (open_cache(rq, &d, err) != 0) goto done;
    spec.isolated = rq->worker_exe != NULL;
    spec.cache_dir = d.cache ? binary_cache_dir(d.cache) : NULL;
    spec.verification = d.plugin.checked_against;
    spec.claims = true;
    since = clock_monotonic_s();
    int opened = rq->worker_exe ? open_supervisor(rq, &d, &spec, err)
                                : open_measurer(rq, &d, &spec, err);
    if (opened != 0) goto done;
    trace_step(d.trace, rq->worker_exe ? "start the workers" : "set up the measurer", since);
    rc = run_recorded(rq, &spec, on_start, start_ctx, out, err);
    if (d.sup) supervisor_get_stats(d.sup, &out->supervision);
    out->measuring_entries = d.sup ? out->supervision.measuring_entries : d.de.entries;
done:
    close_device_run(&d);
    return rc;
}

static int run_replayed(const tuning_request *rq,
                        void (*on_start)(void *ctx, const tuning_started *s), void *start_ctx,
                        tuning_outcome *out, skytune_error *err)
{
    replay_dataset *data = NULL;
    space *base = NULL, *sp = NULL;
    replay_evaluator *re = NULL;
    int rc = -1;
    if (rq->plugin || rq->preset || rq->n_sets || rq->device) {
        err_set(err, "--replay takes the place of --plugin, --preset, --set and --device: the "
                     "dataset is the kernel, problem and device");
        goto done;
    }
    if (replay_load(rq->replay, rq->max_json_bytes, &data, err) != 0) goto done;
    /* The space is narrowed before it is enumerated, so that --only and
     * --restrict cut the work of enumerating it. */
    if ((!rq->space_file ? replay_dataset_space(data, &base, err)
         : strcmp(rq->space_file, REPLAY_RECORDED_SPACE) == 0
             ? replay_recorded_definition(data, &base, err)
             : t1_load_definition(rq->space_file, rq->max_json_bytes, &base, err)) != 0)
        goto done;
    space_control control = space_control_of(rq);
    if (space_narrow(base, rq->restricts, rq->n_restricts, rq->only, rq->n_only, &control, &sp,
                     err) != 0)
        goto done;
    if (space_count(sp) == 0) {
        no_valid_configuration("the replayed space", "", sp, err);
        goto done;
    }
    if (replay_evaluator_new(data, sp, &re, err) != 0) goto done;
    /* The dataset is recorded as a device of platform "replay" and a plugin
     * named after the kernel space, so replayed and measured campaigns never
     * share measurements. */
    skytune_device_info device = {0};
    snprintf(device.platform, sizeof device.platform, "replay");
    snprintf(device.name, sizeof device.name, "%s", data->name);
    snprintf(device.vendor, sizeof device.vendor, "recorded");
    snprintf(device.driver_version, sizeof device.driver_version, "%s",
             data->format == REPLAY_KERNEL_TUNER ? "kernel_tuner_cache"
             : data->format == REPLAY_T4         ? "t4"
                                                 : "skytune");
    char hash[17];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)space_text_hash(rq->replay));
    recorded_campaign rc_spec = {
        .device = &device,
        .plugin_name = "replay",
        .plugin_version = "1",
        .source_hash = hash,
        .problem_text = data->name,
        .space = sp,
        .eval = replay_evaluator_as_evaluator(re),
        .replayed = true,
    };
    rc = run_recorded(rq, &rc_spec, on_start, start_ctx, out, err);
done:
    replay_evaluator_free(re);
    space_free(sp);
    space_free(base);
    replay_free(data);
    return rc;
}

int tuning_run(const tuning_request *rq, void (*on_start)(void *ctx, const tuning_started *s),
               void *start_ctx, tuning_outcome *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    if (rq->replay) return run_replayed(rq, on_start, start_ctx, out, err);
    if (!rq->plugin) return err_set(err, "a run needs --plugin NAME or --replay FILE");
    return run_on_device(rq, on_start, start_ctx, out, err);
}

int tuning_confirm(const tuning_request *rq, int64_t campaign_id, confirmation_outcome *out,
                   skytune_error *err)
{
    memset(out, 0, sizeof *out);
    if (!rq->plugin) return err_set(err, "a confirmation needs the campaign's plugin");
    device_run d = {0};
    store *st = NULL;
    int rc = -1;
    if (open_device_run(rq, &d, err) != 0 || build_device_space(rq, &d, err) != 0 ||
        open_cache(rq, &d, err) != 0)
        goto done;
    recorded_campaign spec = campaign_on_device(rq, &d);
    spec.cache_dir = d.cache ? binary_cache_dir(d.cache) : NULL;
    if ((rq->worker_exe ? open_supervisor(rq, &d, &spec, err) : open_measurer(rq, &d, &spec, err)) !=
            0 ||
        store_open(rq->db_path, false, tuning_request_busy_timeout_s(rq), &st, err) != 0)
        goto done;
    confirmation_request cr = {
        .space = d.sp,
        .eval = spec.eval,
        .store = st,
        .campaign_id = campaign_id,
        .top = rq->confirm_top,
        .rounds = rq->confirm_rounds,
        .runs = rq->runs,
        .stop_requested = rq->stop_requested,
    };
    rc = confirm_campaign_best(&cr, out, err);
done:
    store_close(st);
    close_device_run(&d);
    return rc;
}
