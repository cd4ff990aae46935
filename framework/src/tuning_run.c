#include "tuning_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cl_device.h"
#include "measurer.h"
#include "plugin_space.h"
#include "problem.h"
#include "store.h"

/* The measurer as the campaign's evaluator. */
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
    if (used < len) {
        used += (size_t)snprintf(buf + used, len - used, ";strategy:");
        if (used < len) used += strategy_settings_text(st, buf + used, len - used);
    }
    return used < len ? 0 : -1;
}

int tuning_run(const tuning_request *rq, void (*on_start)(void *ctx, const tuning_started *s),
               void *start_ctx, tuning_outcome *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    loaded_plugin plugin = {0};
    problem prob = {0};
    cl_device_entry *devices = NULL;
    size_t n_devices = 0, device_index = 0;
    space *sp = NULL;
    history *hist = NULL;
    strategy *strat = NULL;
    store *st = NULL;
    measurer *ms = NULL;
    device_evaluator de = {0};
    int64_t campaign_id = 0;
    bool campaign_open = false;
    int rc = -1;

    /* Validation: nothing here touches the database. */
    if (plugin_load(rq->plugin, &rq->search, &plugin, err) != 0) goto done;
    if (problem_resolve(plugin.desc, rq->preset, rq->sets, rq->n_sets, &prob, err) != 0) goto done;
    if (cl_devices_list(&devices, &n_devices, err) != 0) goto done;
    if (cl_device_select(devices, n_devices, rq->device, &device_index, err) != 0) goto done;
    const cl_device_entry *dev = &devices[device_index];
    plugin_space_request space_rq = {
        .plugin = plugin.desc,
        .problem = &prob.values,
        .device = &dev->info,
        .restricts = rq->restricts,
        .n_restricts = rq->n_restricts,
        .only = rq->only,
        .n_only = rq->n_only,
    };
    if (plugin_space_build(&space_rq, &sp, err) != 0) goto done;
    if (space_count(sp) == 0) {
        err_set(err,
                "no valid configuration: the constraints of plugin %s (with this problem, device "
                "and any --restrict/--only) exclude every combination; see `skytune plugins show "
                "%s`",
                plugin.desc->name, plugin.desc->name);
        goto done;
    }
    hist = history_new();
    if (!hist) {
        err_set(err, "out of memory");
        goto done;
    }
    const char *strategy_name = rq->strategy ? rq->strategy : strategy_default_name();
    strategy_setup setup = {
        .space = sp, .history = hist, .seed = rq->seed, .budget = rq->limits.max_evaluations};
    if (strategy_create(strategy_name, &setup, rq->strategy_opts, rq->n_strategy_opts, &strat,
                        err) != 0)
        goto done;
    char settings[8192];
    if (campaign_settings(rq, strat, settings, sizeof settings) != 0) {
        err_set(err, "the run's settings (--restrict, --only, --strategy-opt) are too long");
        goto done;
    }
    measurer_options mopts = {.runs = rq->runs, .seed = rq->seed};
    if (measurer_open(plugin.desc, dev, &prob.values, &mopts, &ms, err) != 0) goto done;

    /* Now the store. */
    if (store_open(rq->db_path, true, &st, err) != 0) goto done;
    int64_t device_id, plugin_id, problem_id;
    const char *names[512];
    size_t n_names = space_param_count(sp) < 512 ? space_param_count(sp) : 512;
    for (size_t k = 0; k < n_names; k++) names[k] = space_param(sp, k)->name;
    if (store_device_id(st, &dev->info, &device_id, err) != 0 ||
        store_plugin_id(st, plugin.desc->name, plugin.desc->version, plugin.source_hash, names,
                        n_names, &plugin_id, err) != 0 ||
        store_problem_id(st, plugin_id, prob.text, &problem_id, err) != 0)
        goto done;
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
        .replayed = false,
    };
    bool resumed = false;
    if (store_campaign_open(st, &cspec, &campaign_id, &resumed, err) != 0) goto done;
    campaign_open = true;
    out->campaign_id = campaign_id;

    if (on_start) {
        tuning_started started = {
            .plugin = plugin.desc->name,
            .plugin_version = plugin.desc->version,
            .problem_text = prob.text,
            .device = dev->info.name,
            .platform = dev->info.platform,
            .strategy = strategy_name,
            .space_count = space_count(sp),
            .campaign_id = campaign_id,
            .resumed = resumed,
        };
        on_start(start_ctx, &started);
    }

    de.space = sp;
    de.measurer = ms;
    de.values = calloc(space_param_count(sp) + 1, sizeof *de.values);
    if (!de.values) {
        err_set(err, "out of memory");
        goto done;
    }
    campaign_config cc = {
        .space = sp,
        .strategy = strat,
        .history = hist,
        .eval = {.ctx = &de, .evaluate = evaluate_on_device},
        .store = st,
        .campaign_id = campaign_id,
        .limits = rq->limits,
        .stop_requested = rq->stop_requested,
        .on_event = rq->on_event,
        .event_ctx = rq->event_ctx,
    };
    if (campaign_run(&cc, &out->result, err) != 0) goto done;
    if (out->result.have_best) {
        uint16_t *idx = calloc(space_param_count(sp) + 1, sizeof *idx);
        if (idx) {
            space_unrank(sp, out->result.best_rank, idx);
            space_config_text(sp, idx, out->best_text, sizeof out->best_text);
            free(idx);
        }
    }
    rc = 0;

done:
    if (campaign_open) {
        const char *status = rc != 0 ? "failed"
                             : out->result.stop == CAMPAIGN_INTERRUPTED ? "interrupted"
                                                                        : "done";
        skytune_error close_err;
        store_campaign_close(st, campaign_id, status, rc != 0 ? &close_err : err);
    }
    free(de.values);
    measurer_close(ms);
    store_close(st);
    strategy_free(strat);
    history_free(hist);
    space_free(sp);
    free(devices);
    problem_free(&prob);
    plugin_unload(&plugin);
    return rc;
}
