#include "tuning_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binary_cache.h"
#include "cl_device.h"
#include "derived_values.h"
#include "measurer.h"
#include "plugin_problem.h"
#include "plugin_space.h"
#include "replay_evaluator.h"
#include "replay_load.h"
#include "replay_recorded.h"
#include "space_rejections.h"
#include "value.h"
#include "store.h"
#include "store_invocations.h"
#include "t1.h"

/* Everything that shapes the sequence of configurations tried, so that the
 * same command finds its campaign again. Stopping rules (budget, time
 * limit, target) are left out: raising the budget continues the campaign. */
static int campaign_settings(const tuning_request *rq, const strategy *st, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "runs=%u", rq->runs);
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
    const char *cache_dir;
    const char *verification;
    /* Measurements are claimed before they are made, so that runs sharing
     * the database never make one twice; a claim older than this is a
     * dead run's. 0: no claims (a replay measures nothing). */
    double claim_stale_after_s;
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
    for (int s = CAMPAIGN_EXHAUSTED; s <= CAMPAIGN_DEVICE_TIME; s++)
        if (strcmp(key, campaign_stop_key((campaign_stop)s)) == 0)
            return campaign_stop_name((campaign_stop)s);
    return key;
}

static int run_recorded(const tuning_request *rq, const recorded_campaign *rc,
                        void (*on_start)(void *ctx, const tuning_started *s), void *start_ctx,
                        tuning_outcome *out, skytune_error *err)
{
    history *hist = history_new();
    strategy *strat = NULL;
    derived_values derived = {0};
    bool deriving = false;
    store *st = NULL, *claim_store = NULL;
    claimant claims;
    int64_t campaign_id = 0, invocation_id = 0;
    bool campaign_open = false, invocation_open = false;
    int status = -1;
    uint64_t *ranks = NULL;
    size_t n_ranks = 0;
    if (!hist) {
        err_set(err, "out of memory");
        goto done;
    }
    const char *strategy_name = rq->strategy ? rq->strategy : strategy_default_name();
    if (rq->configs && selected_ranks(rc->space, rq->configs, rq->n_configs, &ranks, &n_ranks,
                                      err) != 0)
        goto done;
    strategy_setup setup = {
        .space = rc->space, .history = hist, .seed = rq->seed, .budget = rq->limits.max_evaluations,
        .part = rq->space_part, .parts = rq->space_parts, .ranks = ranks, .n_ranks = n_ranks};
    out->space_count = rq->configs ? n_ranks
                       : rq->space_parts > 1
                           ? (space_count(rc->space) + rq->space_parts - 1 - rq->space_part) /
                                 rq->space_parts
                           : space_count(rc->space);
    if (rq->configs && n_ranks == 0 && !rq->check_only) {
        /* A check says so through space_count 0; a run has nothing to do. */
        err_set(err, "none of the %zu configurations given is valid for this problem and device",
                rq->n_configs);
        goto done;
    }
    snprintf(out->problem_text, sizeof out->problem_text, "%s", rc->problem_text);
    snprintf(out->device, sizeof out->device, "%s", rc->device->name);
    snprintf(out->plugin, sizeof out->plugin, "%s", rc->plugin_name);
    if (strategy_create(strategy_name, &setup, rq->strategy_opts, rq->n_strategy_opts, &strat,
                        err) != 0)
        goto done;
    char settings[8192];
    if (campaign_settings(rq, strat, settings, sizeof settings) != 0) {
        err_set(err, "the run's settings (--restrict, --only, --strategy-opt) are too long");
        goto done;
    }
    /* Before the database: a plugin whose derived values look up an
     * undeclared name is refused without a trace. */
    if (rc->plugin && derived_values_declared(rc->plugin)) {
        if (derived_values_open(&derived, rc->plugin, rc->problem, rc->space, err) != 0) goto done;
        deriving = true;
    }
    if (rq->check_only) {
        status = 0;
        goto done;
    }

    /* Everything is validated: only now is the database opened. */
    if (store_open(rq->db_path, true, &st, err) != 0) goto done;
    int64_t device_id, plugin_id, problem_id;
    size_t n_names = space_param_count(rc->space), n_problem_names = 0;
    const skytune_problem_param *problem_params = rc->plugin ? rc->plugin->problem_params : NULL;
    for (const skytune_problem_param *pp = problem_params; pp && pp->name; pp++)
        n_problem_names++;
    const char **names = calloc(n_names + 1, sizeof *names);
    const char **problem_names = calloc(n_problem_names + 1, sizeof *problem_names);
    if (!names || !problem_names) {
        free(names);
        free(problem_names);
        err_set(err, "out of memory");
        goto done;
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
    int ids = store_device_id(st, rc->device, &device_id, err) != 0 ||
              store_plugin_id(st, rc->plugin_name, rc->plugin_version, rc->source_hash, &params,
                              &plugin_id, err) != 0 ||
              store_problem_id(st, plugin_id, rc->problem_text, &problem_id, err) != 0;
    free(names);
    free(problem_names);
    if (ids) goto done;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    store_campaign_spec cspec = {
        .plugin_id = plugin_id,
        .device_id = device_id,
        .problem_id = problem_id,
        .strategy = strategy_name,
        .settings = settings,
        .seed = rq->seed,
        .command = rq->command ? rq->command : "",
        .host = host,
        .replayed = rc->replayed,
    };
    bool resumed = false;
    if (store_campaign_open(st, &cspec, &campaign_id, &resumed, err) != 0) goto done;
    campaign_open = true;
    char target[64] = "";
    if (rq->limits.target_ns > 0)
        snprintf(target, sizeof target, "%.6g ns", rq->limits.target_ns);
    else if (rq->limits.target_gflops > 0)
        snprintf(target, sizeof target, "%.6g GFLOP/s", rq->limits.target_gflops);
    store_invocation_spec ispec = {
        .campaign_id = campaign_id,
        .command = rq->command,
        .host = host,
        .budget = rq->limits.max_evaluations,
        .time_limit_s = rq->limits.time_limit_s,
        .target = target[0] ? target : NULL,
    };
    store_invocation_before before;
    if (store_invocation_begin(st, &ispec, &invocation_id, &before, err) != 0) goto done;
    invocation_open = true;
    store_set_retry_failed(st, rq->retry_failed);
    if (rc->claim_stale_after_s > 0) {
        /* Claims take a connection of their own: the writer thread holds
         * the campaign's. */
        if (store_open(rq->db_path, false, &claim_store, err) != 0) goto done;
        store_set_retry_failed(claim_store, rq->retry_failed);
        claimant_init(&claims, claim_store, rc->claim_stale_after_s, rq->stop_requested);
    }
    out->campaign_id = campaign_id;

    if (on_start) {
        tuning_started started = {
            .plugin = rc->plugin_name,
            .plugin_version = rc->plugin_version,
            .problem_text = rc->problem_text,
            .device = rc->device->name,
            .platform = rc->device->platform,
            .strategy = strategy_name,
            .label = rq->label,
            .space_count = out->space_count,
            .campaign_id = campaign_id,
            .resumed = resumed,
            .isolated = rc->isolated,
            .compile_jobs = rc->compile_jobs,
            .measure_ahead = rc->measure_ahead,
            .cache_dir = rc->cache_dir,
            .verification = rc->verification,
            .evaluated_before = (uint64_t)before.evaluations,
            .had_previous = before.had_previous,
            .previous_budget = before.previous_budget,
            .previous_ended = ended_text(before.previous_ended),
            .budget = rq->limits.max_evaluations,
        };
        on_start(start_ctx, &started);
    }
    campaign_config cc = {
        .space = rc->space,
        .selection_count = out->space_count,
        .strategy = strat,
        .history = hist,
        .eval = rc->eval,
        .store = st,
        .campaign_id = campaign_id,
        .limits = rq->limits,
        .stop_requested = rq->stop_requested,
        .retry_failed = rq->retry_failed,
        .claims = claim_store ? &claims : NULL,
        .on_event = rq->on_event,
        .event_ctx = rq->event_ctx,
        .derive = deriving ? derived_values_compute : NULL,
        .derive_ctx = &derived,
        .on_activity = rq->on_activity,
        .activity_ctx = rq->activity_ctx,
        .label = rq->label,
    };
    if (campaign_run(&cc, &out->result, err) != 0) goto done;
    if (out->result.have_best) {
        uint16_t *idx = calloc(space_param_count(rc->space) + 1, sizeof *idx);
        if (idx) {
            space_unrank(rc->space, out->result.best_rank, idx);
            space_config_text(rc->space, idx, out->best_text, sizeof out->best_text);
            free(idx);
        }
    }
    status = 0;
done:
    if (invocation_open) {
        /* The run's own error, if any, is the one to report. */
        skytune_error end_err;
        if (store_invocation_end(st, invocation_id,
                                 status != 0 ? "failed" : campaign_stop_key(out->result.stop),
                                 status != 0 ? &end_err : err) != 0 &&
            status == 0)
            status = -1;
    }
    if (campaign_open) {
        const char *state = status != 0 ? "failed"
                            : out->result.stop == CAMPAIGN_INTERRUPTED ? "interrupted"
                                                                       : "done";
        skytune_error close_err;
        store_campaign_close(st, campaign_id, state, status != 0 ? &close_err : err);
    }
    store_close(claim_store);
    store_close(st);
    strategy_free(strat);
    history_free(hist);
    if (deriving) derived_values_close(&derived);
    free(ranks);
    return status;
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

/* Spare measuring workers when none were asked for: on a GPU four, so that
 * loading a program (NVIDIA's PTX is compiled again by every process) is
 * done ahead while the device times; on a CPU device none, since a worker
 * building there would share the cores with the kernels being timed. */
static unsigned default_measure_ahead(const skytune_device_info *dev, uint64_t space_count)
{
    unsigned ahead = dev->is_gpu ? 4 : 0;
    return space_count < 2 ? 0 : space_count - 1 < ahead ? (unsigned)(space_count - 1) : ahead;
}

/* Compile workers when none were asked for: on a GPU every core but the
 * engine's, the measuring worker's and the spares', since the device
 * measures meanwhile; on a CPU device compiling pauses while kernels run,
 * so half the cores. Never more than there are configurations. */
static unsigned default_compile_jobs(const skytune_device_info *dev, uint64_t space_count,
                                     unsigned ahead)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    long jobs = dev->is_gpu ? cores - 2 - (long)ahead : cores / 2;
    if (jobs < 1) jobs = 1;
    if (jobs > 32) jobs = 32;
    if ((uint64_t)jobs > space_count) jobs = (long)space_count;
    return (unsigned)jobs;
}

/* The measurer in this process, unsupervised: for debugging a plugin. */
typedef struct device_evaluator {
    const space *space;
    measurer *measurer;
    skytune_named_value *values;
} device_evaluator;

static int evaluate_on_device(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err)
{
    device_evaluator *de = ctx;
    space_config_values(de->space, idx, de->values);
    skytune_values config = {.count = space_param_count(de->space), .items = de->values};
    return measurer_measure(de->measurer, &config, m, err);
}

static int run_on_device(const tuning_request *rq,
                         void (*on_start)(void *ctx, const tuning_started *s), void *start_ctx,
                         tuning_outcome *out, skytune_error *err)
{
    loaded_plugin plugin = {0};
    problem prob = {0};
    cl_device_entry *devices = NULL;
    size_t n_devices = 0, device_index = 0;
    space *sp = NULL;
    binary_cache *cache = NULL;
    measurer *ms = NULL;
    supervisor *sup = NULL;
    device_evaluator de = {0};
    narrowing narrowed = {0};
    int rc = -1;

    if (plugin_load(rq->plugin, &rq->search, &plugin, err) != 0) goto done;
    if (problem_resolve(plugin.desc, rq->preset, rq->sets, rq->n_sets, &prob, err) != 0) goto done;
    if (cl_devices_list(&devices, &n_devices, err) != 0) goto done;
    if (cl_device_select(devices, n_devices, rq->device, &device_index, err) != 0) goto done;
    const cl_device_entry *dev = &devices[device_index];
    if (rq->space_file && strcmp(rq->space_file, REPLAY_RECORDED_SPACE) == 0) {
        err_set(err, "--space recorded: only a --replay dataset has recorded configurations; "
                     "for a run on a device --space takes a T1 file");
        goto done;
    }
    if (narrowing_of(rq, &narrowed, err) != 0) goto done;
    space_control control = space_control_of(rq);
    plugin_space_request space_rq = {
        .plugin = plugin.desc,
        .problem = &prob.values,
        .device = &dev->info,
        .restricts = narrowed.restricts,
        .n_restricts = narrowed.n_restricts,
        .only = narrowed.only,
        .n_only = narrowed.n_only,
        .control = &control,
    };
    if (plugin_space_build(&space_rq, &sp, err) != 0) {
        if (rq->space_file) err_prefix(err, "with --space %s", rq->space_file);
        goto done;
    }
    if (space_count(sp) == 0) {
        char what[160], hint[200];
        snprintf(what, sizeof what, "plugin %s", plugin.desc->name);
        snprintf(hint, sizeof hint,
                 "\n(`skytune plugins show %s` with the same --preset and --set shows this too)",
                 plugin.desc->name);
        no_valid_configuration(what, hint, sp, err);
        goto done;
    }
    if (rq->check_only) {
        /* Nothing is measured: no cache, no workers, no measurer. */
        recorded_campaign check = {
            .device = &dev->info,
            .plugin = plugin.desc,
            .problem = &prob.values,
            .plugin_name = plugin.desc->name,
            .plugin_version = plugin.desc->version,
            .source_hash = plugin.source_hash,
            .problem_text = prob.text,
            .space = sp,
        };
        rc = run_recorded(rq, &check, NULL, NULL, out, err);
        goto done;
    }
    uint64_t cache_limit = rq->cache_max_bytes ? rq->cache_max_bytes : BINARY_CACHE_DEFAULT_MAX_BYTES;
    if (!rq->no_cache && binary_cache_open(rq->cache_dir, cache_limit, &cache, err) != 0) goto done;
    if (cache && binary_cache_distrust(cache)) {
        if (rq->on_notice) {
            char text[400];
            snprintf(text, sizeof text, "%s: the binary cache is not used, every configuration "
                                        "is compiled from source",
                     binary_cache_distrust(cache));
            rq->on_notice(rq->notice_ctx, text);
        }
        binary_cache_close(cache);
        cache = NULL;
    }
    recorded_campaign rc_spec = {
        .device = &dev->info,
        .plugin = plugin.desc,
        .problem = &prob.values,
        .plugin_name = plugin.desc->name,
        .plugin_version = plugin.desc->version,
        .source_hash = plugin.source_hash,
        .problem_text = prob.text,
        .space = sp,
        .replayed = false,
        .isolated = rq->worker_exe != NULL,
        .cache_dir = cache ? binary_cache_dir(cache) : NULL,
        .verification = plugin.checked_against,
        .claim_stale_after_s = rq->watchdog.compile_s + rq->watchdog.cap_s + 60,
    };
    if (rq->worker_exe) {
        unsigned ahead = rq->measure_ahead >= 0
                             ? (unsigned)rq->measure_ahead
                             : default_measure_ahead(&dev->info, space_count(sp));
        unsigned jobs = !cache                  ? 0
                        : rq->compile_jobs >= 0 ? (unsigned)rq->compile_jobs
                                                : default_compile_jobs(&dev->info, space_count(sp),
                                                                       ahead);
        supervisor_options so = {
            .worker_exe = rq->worker_exe,
            .setup = {
                .plugin_path = plugin.path,
                .platform_index = dev->platform_index,
                .device_index = dev->device_index,
                .device_name = dev->info.name,
                .problem = &prob.values,
                .runs = rq->runs,
                .seed = rq->seed,
                .cache_dir = rc_spec.cache_dir,
                .cache_max_bytes = cache_limit,
                .wait_for_go = true,
            },
            .limits = rq->watchdog,
            .health = rq->health,
            .compile_jobs = jobs,
            .measure_ahead = ahead,
            .pause_compile_for_device = !dev->info.is_gpu,
            .stop_requested = rq->stop_requested,
            .on_notice = rq->on_notice,
            .notice_ctx = rq->notice_ctx,
        };
        if (supervisor_open(&so, sp, &sup, err) != 0) goto done;
        rc_spec.eval = supervisor_evaluator(sup);
        rc_spec.compile_jobs = jobs;
        rc_spec.measure_ahead = ahead;
    } else {
        measurer_options mopts = {.runs = rq->runs, .seed = rq->seed, .cache = cache};
        if (measurer_open(plugin.desc, dev, &prob.values, &mopts, &ms, err) != 0) goto done;
        de.space = sp;
        de.measurer = ms;
        de.values = calloc(space_param_count(sp) + 1, sizeof *de.values);
        if (!de.values) {
            err_set(err, "out of memory");
            goto done;
        }
        rc_spec.eval = (evaluator){.ctx = &de, .evaluate = evaluate_on_device};
    }
    rc = run_recorded(rq, &rc_spec, on_start, start_ctx, out, err);
    if (sup) supervisor_get_stats(sup, &out->supervision);
done:
    supervisor_close(sup);
    narrowing_free(&narrowed);
    free(de.values);
    measurer_close(ms);
    binary_cache_close(cache);
    space_free(sp);
    free(devices);
    problem_free(&prob);
    plugin_unload(&plugin);
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
