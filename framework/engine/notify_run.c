#include "notify_run.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

/* What is known of one instance; strings owned. */
typedef struct instance_state {
    char *label;               /* NULL: the lone instance of a run */
    notify_instance info;
    notify_counts counts;
    bool have_best;
    double best_ns, best_gflops;
    char *best_config;
    char *stop;                /* once finished */
    bool finished;
} instance_state;

struct notify_run {
    notify_sender *notifier;
    char *campaign, *database;
    char host[256];
    size_t instances_planned;
    double started_at;
    bool campaign_started;
    size_t n_failed;           /* instances whose tuning_run failed */
    instance_state *items;
    size_t n_items, cap;
};

int notify_run_new(notify_sender *n, const char *campaign, const char *database,
                          size_t instances, notify_run **out, skytune_error *err)
{
    *out = NULL;
    notify_run *rn = calloc(1, sizeof *rn);
    if (!rn) return err_set(err, "out of memory");
    rn->notifier = n;
    rn->campaign = strdup(campaign ? campaign : "");
    rn->database = strdup(database ? database : "");
    if (!rn->campaign || !rn->database) {
        notify_run_free(rn);
        return err_set(err, "out of memory");
    }
    if (gethostname(rn->host, sizeof rn->host - 1) != 0) snprintf(rn->host, sizeof rn->host, "?");
    rn->instances_planned = instances;
    rn->started_at = clock_wall_s();
    *out = rn;
    return 0;
}

static void free_instance_strings(instance_state *s)
{
    free(s->label);
    free((char *)s->info.plugin);
    free((char *)s->info.plugin_version);
    free((char *)s->info.problem);
    free((char *)s->info.device);
    free((char *)s->info.platform);
    free((char *)s->info.strategy);
    free(s->best_config);
    free(s->stop);
}

void notify_run_free(notify_run *rn)
{
    if (!rn) return;
    for (size_t k = 0; k < rn->n_items; k++) free_instance_strings(&rn->items[k]);
    free(rn->items);
    free(rn->campaign);
    free(rn->database);
    free(rn);
}

static bool same_label(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The running instance with this label. Labels name instances only while
 * they run: a sweep may run the same problem instance again (on another
 * device, or another part of its space) once the first has finished. */
static instance_state *find_running(notify_run *rn, const char *label)
{
    for (size_t k = rn->n_items; k-- > 0;)
        if (!rn->items[k].finished && same_label(rn->items[k].label, label)) return &rn->items[k];
    return NULL;
}

/* The instance an outcome is about: its database campaign, else its label. */
static instance_state *find_ending(notify_run *rn, const char *label,
                                   const tuning_outcome *out)
{
    for (size_t k = rn->n_items; out && k-- > 0;)
        if (!rn->items[k].finished && rn->items[k].info.campaign_id == out->campaign_id)
            return &rn->items[k];
    return find_running(rn, label);
}

/* NULL stays NULL; a copy that fails reads as "not known". */
static char *copy_text(const char *text)
{
    return text ? strdup(text) : NULL;
}

/* An instance's description, set again if it starts again. */
static void replace_text(const char **field, const char *text)
{
    free((char *)*field);
    *field = copy_text(text);
}

static instance_state *add_instance(notify_run *rn, const char *label)
{
    if (rn->n_items == rn->cap) {
        size_t cap = rn->cap ? 2 * rn->cap : 4;
        instance_state *grown = realloc(rn->items, cap * sizeof *grown);
        if (!grown) return NULL;
        rn->items = grown;
        rn->cap = cap;
    }
    instance_state *s = &rn->items[rn->n_items];
    *s = (instance_state){.label = copy_text(label)};
    if (label && !s->label) return NULL;
    s->info.index = ++rn->n_items;
    return s;
}

/* The fields every event of the campaign shares. */
static notify_event campaign_event_base(const notify_run *rn, notify_kind kind)
{
    return (notify_event){
        .kind = kind,
        .campaign = rn->campaign,
        .database = rn->database,
        .host = rn->host,
        .instances = rn->instances_planned > rn->n_items ? rn->instances_planned : rn->n_items,
        .campaign_started_at = rn->started_at,
    };
}

static notify_best instance_best(const instance_state *s)
{
    return (notify_best){.known = s->have_best,
                         .config = s->best_config,
                         .median_ns = s->best_ns,
                         .gflops = s->best_gflops};
}

/* A campaign's own events speak of its instance when it has only one. */
static const notify_instance *lone_instance(const notify_run *rn)
{
    return rn->instances_planned == 1 && rn->n_items == 1 ? &rn->items[0].info : NULL;
}

void notify_run_started(notify_run *rn, const tuning_started *s)
{
    instance_state *in = find_running(rn, s->label);
    if (!in && !(in = add_instance(rn, s->label))) return;
    in->info.campaign_id = s->campaign_id;
    replace_text(&in->info.plugin, s->plugin);
    replace_text(&in->info.plugin_version, s->plugin_version);
    replace_text(&in->info.problem, s->problem_text);
    replace_text(&in->info.device, s->device);
    replace_text(&in->info.platform, s->platform);
    replace_text(&in->info.strategy, s->strategy);
    in->info.space_size = s->space_count;
    in->info.started_at = clock_wall_s();
    if (rn->campaign_started) return;
    rn->campaign_started = true;
    notify_event ev = campaign_event_base(rn, NOTIFY_CAMPAIGN_STARTED);
    ev.instance = lone_instance(rn);
    notify_sender_post(rn->notifier, &ev);
}

void notify_run_event(notify_run *rn, const tuning_loop_event *cev)
{
    instance_state *in = find_running(rn, cev->label);
    if (!in) return; /* events come only after the instance started */
    in->counts.evaluated = cev->evaluated;
    if (cev->cached)
        in->counts.reused++;
    else
        in->counts.measured++;
    if ((unsigned)cev->m->status < MEAS_STATUS_COUNT) in->counts.by_status[cev->m->status]++;
    if (!cev->have_best || (in->have_best && !(cev->best_ns < in->best_ns))) return;
    char *config = strdup(cev->best_text);
    if (!config) return;
    free(in->best_config);
    in->best_config = config;
    in->have_best = true;
    in->best_ns = cev->best_ns;
    in->best_gflops = cev->best_gflops;
    notify_event ev = campaign_event_base(rn, NOTIFY_NEW_BEST);
    ev.instance = &in->info;
    ev.counts = in->counts;
    ev.best = instance_best(in);
    notify_sender_post(rn->notifier, &ev);
}

void notify_run_instance_done(notify_run *rn, const char *label,
                                     const tuning_outcome *out, const char *error)
{
    instance_state *in = find_ending(rn, label, error ? NULL : out);
    if (error) rn->n_failed++;
    if (!in) return; /* it never started: campaign_failed says why */
    in->finished = true;
    if (!error) {
        /* The outcome is the authority: the events may not have seen all. */
        const tuning_loop_result *r = &out->result;
        in->counts.evaluated = r->evaluated;
        in->counts.measured = r->measured;
        in->counts.reused = r->reused;
        memcpy(in->counts.by_status, r->by_status, sizeof in->counts.by_status);
        free(in->stop);
        in->stop = copy_text(tuning_loop_stop_name(r->stop));
        if (r->have_best) {
            char *config = strdup(out->best_text);
            if (config) {
                free(in->best_config);
                in->best_config = config;
                in->have_best = true;
                in->best_ns = r->best_ns;
                in->best_gflops = r->best_gflops;
            }
        }
    }
    notify_event ev = campaign_event_base(rn, NOTIFY_INSTANCE_FINISHED);
    ev.instance = &in->info;
    ev.counts = in->counts;
    ev.best = instance_best(in);
    ev.stop = in->stop;
    ev.error = error;
    notify_sender_post(rn->notifier, &ev);
}

/* Why the campaign ended when the caller does not say. */
static const char *campaign_stop_text(const notify_run *rn)
{
    const char *interrupted = tuning_loop_stop_name(TUNING_LOOP_INTERRUPTED);
    for (size_t k = 0; k < rn->n_items; k++)
        if (rn->items[k].stop && strcmp(rn->items[k].stop, interrupted) == 0) return interrupted;
    if (rn->n_items == 1 && rn->items[0].stop) return rn->items[0].stop;
    return "done";
}

void notify_run_finish(notify_run *rn, const char *stop, const char *error)
{
    bool failed = error || rn->n_failed;
    notify_event ev =
        campaign_event_base(rn, failed ? NOTIFY_CAMPAIGN_FAILED : NOTIFY_CAMPAIGN_FINISHED);
    ev.instance = lone_instance(rn);
    const instance_state *best = NULL;
    for (size_t k = 0; k < rn->n_items; k++) {
        const instance_state *in = &rn->items[k];
        ev.counts.evaluated += in->counts.evaluated;
        ev.counts.measured += in->counts.measured;
        ev.counts.reused += in->counts.reused;
        for (int s = 0; s < MEAS_STATUS_COUNT; s++)
            ev.counts.by_status[s] += in->counts.by_status[s];
        if (in->have_best && (!best || in->best_ns < best->best_ns)) best = in;
    }
    if (best) ev.best = instance_best(best);
    char failures[900];
    if (failed && !error) {
        snprintf(failures, sizeof failures, "%zu of %zu instances failed", rn->n_failed,
                 ev.instances);
        error = failures;
    }
    ev.stop = failed ? NULL : stop ? stop : campaign_stop_text(rn);
    ev.error = error;
    notify_sender_post(rn->notifier, &ev);
}
