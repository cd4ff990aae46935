/* `skytune run` as a library call: load the plugin, resolve the problem,
 * choose the device, build the space, open the store and the campaign,
 * measure, close. Every input is validated before the database is opened,
 * so bad input never leaves a trace in it. */
#ifndef SKYTUNE_TUNING_RUN_H
#define SKYTUNE_TUNING_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "campaign.h"
#include "plugin_loader.h"

typedef struct tuning_request {
    const char *plugin;                  /* name or path; NULL with replay */
    const char *replay;                  /* recorded dataset standing in for the device */
    const char *space_file;              /* T1 file: the space (replay) or a narrowing (device) */
    plugin_search search;
    const char *preset;                  /* may be NULL */
    const char *const *sets;             /* problem "k=v" */
    size_t n_sets;
    const char *const *restricts;
    size_t n_restricts;
    const char *const *only;
    size_t n_only;
    const char *strategy;                /* NULL: the default */
    const char *const *strategy_opts;
    size_t n_strategy_opts;
    campaign_limits limits;
    unsigned runs;
    uint64_t seed;
    const char *device;                  /* selector, may be NULL */
    const char *db_path;
    const char *command;                 /* recorded with the campaign */
    volatile sig_atomic_t *stop_requested;
    void (*on_event)(void *ctx, const campaign_event *ev);
    void *event_ctx;
} tuning_request;

/* Facts known once everything is validated, before measuring starts. */
typedef struct tuning_started {
    const char *plugin, *plugin_version, *problem_text, *device, *platform, *strategy;
    uint64_t space_count;
    int64_t campaign_id;
    bool resumed;
} tuning_started;

typedef struct tuning_outcome {
    campaign_result result;
    int64_t campaign_id;
    char best_text[4096];
} tuning_outcome;

/* With rq->replay set, the dataset stands in for the device: the space is
 * the T1 file's (rq->space_file) or the dataset's own parameter lists,
 * --restrict/--only narrow it, and measurements are recorded as replayed,
 * under a device and plugin named after the dataset. */
int tuning_run(const tuning_request *rq, void (*on_start)(void *ctx, const tuning_started *s),
               void *start_ctx, tuning_outcome *out, skytune_error *err);

#endif
