/* The campaign loop: ask the strategy, evaluate, record, tell — until the
 * budget, the time limit or the target is reached, the strategy is done, or
 * a stop is requested (Ctrl-C), which takes effect after the configuration
 * in flight so the database stays consistent. */
#ifndef SKYTUNE_TUNING_LOOP_H
#define SKYTUNE_TUNING_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "claims.h"
#include "evaluator.h"
#include "gain_estimate.h"
#include "measurement.h"
#include "space.h"
#include "store.h"
#include "strategy.h"
#include "trace.h"

typedef struct tuning_loop_limits {
    uint64_t max_evaluations;  /* distinct configurations; 0 = no limit */
    double time_limit_s;       /* wall clock; 0 = no limit */
    double target_ns;          /* stop once a time <= this is found; 0 = none */
    double target_gflops;      /* stop once GFLOP/s >= this is found; 0 = none */
    /* Stop once the evaluations' own seconds (build + verify + bench, as
     * measured or, in replay, as recorded) reach this; 0 = no limit. This is
     * how a replayed campaign budgets "a night" of recorded device time. */
    double device_time_s;
    /* Stop once more evaluations are expected to lower the best time by
     * less than this fraction (gain_estimate.h); 0 = never. */
    double gain_below;
} tuning_loop_limits;

typedef enum tuning_loop_stop {
    TUNING_LOOP_EXHAUSTED = 0,    /* the strategy had nothing left */
    TUNING_LOOP_BUDGET = 1,
    TUNING_LOOP_TIME_LIMIT = 2,
    TUNING_LOOP_TARGET = 3,
    TUNING_LOOP_INTERRUPTED = 4,
    TUNING_LOOP_DEVICE_TIME = 5,
    TUNING_LOOP_GAIN_BELOW = 6    /* more evaluations expected to gain too little */
} tuning_loop_stop;

const char *tuning_loop_stop_name(tuning_loop_stop s);
/* The same as a key for the database: "search_complete", "budget",
 * "time_limit", "target", "interrupted", "device_time", "gain_below". */
const char *tuning_loop_stop_key(tuning_loop_stop s);

/* Whether a campaign under `l` that has evaluated `evaluated` configurations
 * with `device_s` seconds of their own time (build + verify + bench) is out
 * of budget: TUNING_LOOP_BUDGET or TUNING_LOOP_DEVICE_TIME in *why. The loop asks
 * this before every proposal; a strategy benchmark asks it to read what a
 * smaller budget would have found off one longer run. */
bool tuning_loop_budget_spent(const tuning_loop_limits *l, uint64_t evaluated, double device_s,
                           tuning_loop_stop *why);

/* Reported after every evaluation. */
typedef struct tuning_loop_event {
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
    const char *label;         /* tuning_loop_config.label */
    double wall_s;             /* this configuration's own wall-clock seconds; 0 when cached */
    uint64_t space_count;      /* configurations the strategy can propose */
    const tuning_loop_limits *limits;
    /* The strategy's phase line (strategy_phase_change) when it entered a
     * new phase since the last event, else NULL. */
    const char *strategy_phase;
    /* What a campaign of twice this length (gain_more more evaluations, at
     * most the rest of the space) is expected to gain: the fraction by which
     * it would lower the best time (gain_estimate.h); have_gain false while
     * too few evaluations passed to say. */
    bool have_gain;
    double expected_gain;
    uint64_t gain_more;
} tuning_loop_event;

/* The configuration in flight, reported while the evaluator works on it
 * (an evaluator with watch): at each change of stage and about every
 * EVALUATOR_ACTIVITY_INTERVAL_S. */
typedef struct tuning_loop_activity {
    uint64_t evaluated;        /* configurations done before this one */
    uint64_t planned;          /* as tuning_loop_event */
    const char *config_text;
    measure_stage stage;       /* STAGE_NONE: not begun */
    double elapsed_s;          /* on this configuration so far */
    bool checking_health;      /* re-timing the reference first, after a fault */
    double tuning_loop_elapsed_s;
    const char *label;         /* tuning_loop_config.label */
} tuning_loop_activity;

typedef struct tuning_loop_config {
    const space *space;
    /* How many configurations the strategy can propose at most, when it
     * searches a selection of the space (a part, a list); 0: the space's. */
    uint64_t selection_count;
    strategy *strategy;        /* created over `history` below */
    history *history;
    evaluator eval;
    store *store;              /* NULL: nothing is recorded */
    int64_t campaign_id;
    tuning_loop_limits limits;
    volatile sig_atomic_t *stop_requested; /* may be NULL */
    /* Configurations that failed before (any status but ok) are measured
     * again instead of being reused from the store. */
    bool retry_failed;
    /* Racing (racing.h): before each measurement the evaluator is told the
     * race limit that the campaign's ok results so far give, and a
     * configuration clearly slower than the best stops timing early. The
     * evaluator's `race` may be NULL (a recorded dataset): then nothing
     * is raced. */
    bool race;
    /* Other runs may share the store: each configuration is claimed before
     * it is measured (see claims.h). NULL: this run is alone. */
    claimant *claims;
    void (*on_event)(void *ctx, const tuning_loop_event *ev);
    void *event_ctx;
    /* Fills m->derived for a configuration just evaluated, before it is
     * recorded (NULL: nothing to derive). A failure ends the campaign. */
    int (*derive)(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err);
    void *derive_ctx;
    void (*on_activity)(void *ctx, const tuning_loop_activity *a); /* may be NULL */
    void *activity_ctx;
    /* Names this campaign in its events where several run at once (the
     * device); NULL otherwise. */
    const char *label;
    /* `--trace`: each turn's steps as spans on the engine's track, or NULL. */
    trace *trace;
} tuning_loop_config;

typedef struct tuning_loop_result {
    uint64_t evaluated;        /* distinct configurations */
    uint64_t measured;         /* evaluated now (not reused) */
    uint64_t reused;           /* taken from the store */
    uint64_t by_status[MEAS_STATUS_COUNT];
    bool have_best;
    uint64_t best_rank;
    double best_ns;
    double best_gflops;
    tuning_loop_stop stop;
    /* Seconds: wall clock, then the phases summed over measured
     * configurations; with replay the phases are the recorded device time
     * and every wall-clock second is the engine's own. */
    double wall_s, build_s, verify_s, bench_s, overhead_s;
    bool replayed;
    /* Racing: whether it was on, the configurations it stopped early, and
     * the margin above the best that the last limit allowed (a fraction;
     * 0 before there was a limit). */
    bool racing;
    uint64_t raced;
    /* Measured configurations whose outputs passed on the device
     * (measurement.compared_on_device). */
    uint64_t compared_on_device;
    double race_margin;
    /* The last estimate of what more evaluations would gain (as
     * tuning_loop_event); have_gain false when there was none. */
    bool have_gain;
    double expected_gain;
    uint64_t gain_more;
} tuning_loop_result;

/* History and strategy must be fresh; known measurements from the store are
 * fed back as the strategy proposes them. */
int tuning_loop_run(const tuning_loop_config *cfg, tuning_loop_result *result, skytune_error *err);

#endif
