/* `skytune run` as a library call: load the plugin, resolve the problem,
 * choose the device, build the space, open the store and the campaign,
 * measure, close. Every input is validated before the database is opened,
 * so bad input never leaves a trace in it. */
#ifndef SKYTUNE_TUNING_RUN_H
#define SKYTUNE_TUNING_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "confirmation.h"
#include "measurer.h"
#include "tuning_loop.h"
#include "plugin_loader.h"
#include "supervisor.h"

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
    /* Recordings of the space on other devices that seed the strategy
     * (warm_start.h); part of the campaign's settings. */
    const char *const *warm_start;
    size_t n_warm_start;
    tuning_loop_limits limits;
    /* A selection for the exhaustive strategy (strategy_setup): part
     * space_part of space_parts (0 or 1: the whole space), and/or only the
     * configurations of these canonical texts, in this order (those outside
     * this problem's space are left out). Each is part of the campaign's
     * settings, so a part or a list is a campaign of its own. */
    unsigned space_part, space_parts;
    const char *const *configs;
    size_t n_configs;
    /* Validate everything a run would (plugin, problem, device, space,
     * strategy) and stop before the database is opened or any worker
     * starts: outcome's space_count and problem_text tell what was found. */
    bool check_only;
    unsigned runs;
    unsigned warm_up_runs;               /* untimed runs after the verification run */
    bool transfers;                      /* the plugin's host-device copies timed as parts */
    measurer_compare compare;            /* where outputs are compared (measurer.h) */
    uint64_t seed;
    const char *device;                  /* selector, may be NULL */
    const char *label;                   /* names the campaign in events (several at once) */
    const char *db_path;
    double busy_timeout_s;               /* wait for a lock on it; 0: STORE_BUSY_TIMEOUT_S */
    const char *command;                 /* recorded with the campaign */
    /* Isolation: the skytune executable that runs `worker measure` and
     * `worker compile`; NULL measures in this process, unsupervised. */
    const char *worker_exe;
    supervisor_limits watchdog;          /* supervisor_limits_default() unless asked */
    supervisor_health health;            /* supervisor_health_default() unless asked */
    int compile_jobs;                    /* compile workers; < 0: chosen by the device */
    int measure_ahead;                   /* spare measuring workers; < 0: chosen by the device */
    bool no_cache;                       /* no on-disk binary cache */
    const char *cache_dir;               /* NULL: the default */
    uint64_t cache_max_bytes;            /* 0: the cache's default */
    bool retry_failed;                   /* measure failed configurations again */
    bool no_race;                        /* --no-race: every configuration timed in full */
    /* At the end of a campaign on a device, its confirm_top best timed
     * again for confirm_rounds interleaved rounds (confirmation.h); 0: no
     * confirmation (the CLI's default is CONFIRM_DEFAULT_TOP). */
    unsigned confirm_top, confirm_rounds;
    /* The rounds were asked for (--confirm-rounds): taken as they are.
     * Otherwise they are held to a tenth of the campaign's time. */
    bool confirm_rounds_asked;
    /* `--trace FILE`: the run's pipeline as Chrome trace events (core/trace.h);
     * NULL: none. */
    const char *trace_path;
    void (*on_notice)(void *ctx, const char *text); /* faults, health (may be NULL) */
    void *notice_ctx;
    volatile sig_atomic_t *stop_requested; /* also stops building the space */
    uint64_t space_work_limit;           /* combinations checked building the space; 0: default */
    /* Building the space, every SPACE_PROGRESS_INTERVAL combinations checked
     * (may be NULL; not called with --devices). */
    void (*on_space_progress)(void *ctx, const space_progress *p);
    void *space_progress_ctx;
    uint64_t max_json_bytes;             /* --replay and --space files; 0: the default */
    void (*on_event)(void *ctx, const tuning_loop_event *ev);
    void *event_ctx;
    /* The configuration in flight, while a supervised worker measures it
     * (tuning_loop_activity; may be NULL). */
    void (*on_activity)(void *ctx, const tuning_loop_activity *a);
    void *activity_ctx;
} tuning_request;

/* Facts known once everything is validated, before measuring starts. */
typedef struct tuning_started {
    const char *plugin, *plugin_version, *problem_text, *device, *platform, *strategy;
    const char *label;                   /* tuning_request.label (NULL for a single run) */
    const char *db_path;                 /* tuning_request.db_path, as given */
    bool isolated;                       /* measured in a supervised worker */
    unsigned compile_jobs;               /* compile workers building ahead */
    unsigned measure_ahead;              /* spare measuring workers */
    unsigned usable_cpus;                /* the CPUs this process may use; 0: not counted */
    const char *cache_dir;               /* NULL: no binary cache */
    const char *verification;            /* a T1 plugin's: what outputs are checked against */
    uint64_t space_count;
    int64_t campaign_id;
    bool resumed;
    /* Where a resumed campaign stands: its evaluations so far, and what its
     * previous invocation asked for (invocations in the database). */
    uint64_t evaluated_before;
    bool had_previous;
    uint64_t previous_budget;            /* 0: none */
    const char *previous_ended;          /* "budget", "interrupted", ...; "" when it did not end */
    /* Another run measuring the campaign now (a live claim in it): its
     * process and host; shared_host NULL when none. */
    int64_t shared_pid;
    const char *shared_host;
    uint64_t budget;                     /* this invocation's --budget; 0: none */
} tuning_started;

typedef struct tuning_outcome {
    uint64_t space_count;                /* valid configurations (of the selection) */
    char problem_text[4096];             /* canonical */
    char device[256];                    /* the device's name */
    char plugin[128];                    /* the plugin's name */
    tuning_loop_result result;
    supervisor_stats supervision;        /* zero without isolation */
    /* What became of the cache entries of the programs built to measure:
     * by the measuring workers, or by this process without isolation. The
     * compile workers' are supervision.ahead_entries. */
    cache_entries measuring_entries;
    int64_t campaign_id;
    char best_text[4096];
    /* The confirmation at the end (confirmation.confirmed), or why there
     * was none (confirmation.skipped; "" when none was asked for). */
    confirmation_outcome confirmation;
} tuning_outcome;

/* How long the request's connections wait for a lock on its database:
 * busy_timeout_s, or the store's default when that is 0. */
double tuning_request_busy_timeout_s(const tuning_request *rq);

/* With rq->replay set, the dataset stands in for the device: the space is
 * the T1 file's (rq->space_file) or the dataset's own parameter lists,
 * --restrict/--only narrow it, and measurements are recorded as replayed,
 * under a device and plugin named after the dataset. */
int tuning_run(const tuning_request *rq, void (*on_start)(void *ctx, const tuning_started *s),
               void *start_ctx, tuning_outcome *out, skytune_error *err);

/* `skytune confirm`: the best configurations of a campaign already in
 * rq->db_path timed again (confirmation.h) with rq's plugin, problem,
 * device, runs and supervision, rq->confirm_top of them for
 * rq->confirm_rounds rounds. The caller reads plugin, problem and device
 * from the campaign (store_campaign_origin_of). */
int tuning_confirm(const tuning_request *rq, int64_t campaign_id, confirmation_outcome *out,
                   skytune_error *err);

#endif
