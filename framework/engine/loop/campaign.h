/* The campaign loop: ask the strategy, evaluate, record, tell — until the
 * budget, the time limit or the target is reached, the strategy is done, or
 * a stop is requested (Ctrl-C), which takes effect after the configuration
 * in flight so the database stays consistent. */
#ifndef SKYTUNE_CAMPAIGN_H
#define SKYTUNE_CAMPAIGN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "claims.h"
#include "evaluator.h"
#include "measurement.h"
#include "space.h"
#include "store.h"
#include "strategy.h"

typedef struct campaign_limits {
    uint64_t max_evaluations;  /* distinct configurations; 0 = no limit */
    double time_limit_s;       /* wall clock; 0 = no limit */
    double target_ns;          /* stop once a time <= this is found; 0 = none */
    double target_gflops;      /* stop once GFLOP/s >= this is found; 0 = none */
    /* Stop once the evaluations' own seconds (build + verify + bench, as
     * measured or, in replay, as recorded) reach this; 0 = no limit. This is
     * how a replayed campaign budgets "a night" of recorded device time. */
    double device_time_s;
} campaign_limits;

typedef enum campaign_stop {
    CAMPAIGN_EXHAUSTED = 0,    /* the strategy had nothing left */
    CAMPAIGN_BUDGET = 1,
    CAMPAIGN_TIME_LIMIT = 2,
    CAMPAIGN_TARGET = 3,
    CAMPAIGN_INTERRUPTED = 4,
    CAMPAIGN_DEVICE_TIME = 5
} campaign_stop;

const char *campaign_stop_name(campaign_stop s);
/* The same as a key for the database: "search_complete", "budget",
 * "time_limit", "target", "interrupted", "device_time". */
const char *campaign_stop_key(campaign_stop s);

/* Whether a campaign under `l` that has evaluated `evaluated` configurations
 * with `device_s` seconds of their own time (build + verify + bench) is out
 * of budget: CAMPAIGN_BUDGET or CAMPAIGN_DEVICE_TIME in *why. The loop asks
 * this before every proposal; a strategy benchmark asks it to read what a
 * smaller budget would have found off one longer run. */
bool campaign_budget_spent(const campaign_limits *l, uint64_t evaluated, double device_s,
                           campaign_stop *why);

/* Reported after every evaluation. */
typedef struct campaign_event {
    uint64_t evaluated;        /* distinct configurations evaluated so far */
    uint64_t planned;          /* the budget, or the space's size when smaller */
    const char *config_text;
    const measurement *m;
    bool cached;               /* reused from the store, not measured now */
    bool have_best;
    double best_ns;
    double best_gflops;        /* 0: not known */
    const char *best_text;
    double elapsed_s;
    double device_s;           /* build + verify + bench seconds so far */
    const char *label;         /* campaign_config.label */
    double wall_s;             /* this configuration's own wall-clock seconds; 0 when cached */
    uint64_t space_count;      /* configurations the strategy can propose */
    const campaign_limits *limits;
    /* The strategy's phase line (strategy_phase_change) when it entered a
     * new phase since the last event, else NULL. */
    const char *strategy_phase;
} campaign_event;

/* The configuration in flight, reported while the evaluator works on it
 * (an evaluator with watch): at each change of stage and about every
 * EVALUATOR_ACTIVITY_INTERVAL_S. */
typedef struct campaign_activity {
    uint64_t evaluated;        /* configurations done before this one */
    uint64_t planned;          /* as campaign_event */
    const char *config_text;
    measure_stage stage;       /* STAGE_NONE: not begun */
    double elapsed_s;          /* on this configuration so far */
    bool checking_health;      /* re-timing the reference first, after a fault */
    double campaign_elapsed_s;
    const char *label;         /* campaign_config.label */
} campaign_activity;

typedef struct campaign_config {
    const space *space;
    /* How many configurations the strategy can propose at most, when it
     * searches a selection of the space (a part, a list); 0: the space's. */
    uint64_t selection_count;
    strategy *strategy;        /* created over `history` below */
    history *history;
    evaluator eval;
    store *store;              /* NULL: nothing is recorded */
    int64_t campaign_id;
    campaign_limits limits;
    volatile sig_atomic_t *stop_requested; /* may be NULL */
    /* Configurations that failed before (any status but ok) are measured
     * again instead of being reused from the store. */
    bool retry_failed;
    /* Other runs may share the store: each configuration is claimed before
     * it is measured (see claims.h). NULL: this run is alone. */
    claimant *claims;
    void (*on_event)(void *ctx, const campaign_event *ev);
    void *event_ctx;
    /* Fills m->derived for a configuration just evaluated, before it is
     * recorded (NULL: nothing to derive). A failure ends the campaign. */
    int (*derive)(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err);
    void *derive_ctx;
    void (*on_activity)(void *ctx, const campaign_activity *a); /* may be NULL */
    void *activity_ctx;
    /* Names this campaign in its events where several run at once (the
     * device); NULL otherwise. */
    const char *label;
} campaign_config;

typedef struct campaign_result {
    uint64_t evaluated;        /* distinct configurations */
    uint64_t measured;         /* evaluated now (not reused) */
    uint64_t reused;           /* taken from the store */
    uint64_t by_status[MEAS_STATUS_COUNT];
    bool have_best;
    uint64_t best_rank;
    double best_ns;
    double best_gflops;
    campaign_stop stop;
    /* Seconds: wall clock, then the phases summed over measured
     * configurations; with replay the phases are the recorded device time
     * and every wall-clock second is the engine's own. */
    double wall_s, build_s, verify_s, bench_s, overhead_s;
    bool replayed;
} campaign_result;

/* History and strategy must be fresh; known measurements from the store are
 * fed back as the strategy proposes them. */
int campaign_run(const campaign_config *cfg, campaign_result *result, skytune_error *err);

#endif
