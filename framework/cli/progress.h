/* Progress of a running campaign: a redrawn bar on a terminal, one plain
 * line per configuration elsewhere (logs, CI, pipes).
 *
 * The bar shows done/total, the counts by status, rate, ETA and the best so
 * far, and the configuration in flight with its stage and time (redrawn at
 * least every second while it runs); the first few failures of each status
 * get a line above it with their reason. A log gets, per configuration, its
 * status, time and, for a failure, the first line of its reason; and, for a
 * configuration that takes long, "still measuring CONFIG: stage S, N s"
 * after 10 s and every 30 s after that. Both get, once the run has measured
 * its pace (run_pace.h), an estimate of what is left at that pace; the
 * bar's rate and ETA are that pace too. */
#ifndef SKYTUNE_PROGRESS_H
#define SKYTUNE_PROGRESS_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "run_pace.h"
#include "tuning_loop.h"

/* Campaigns one progress follows at once (--devices), each by its label. */
#define PROGRESS_MAX_CAMPAIGNS 16

/* What the progress knows of one campaign. */
typedef struct progress_campaign {
    bool used;
    const char *label;                          /* NULL for a single campaign */
    uint64_t by_status[MEAS_STATUS_COUNT];      /* evaluations so far */
    uint64_t lines_by_status[MEAS_STATUS_COUNT]; /* failures given a line on a terminal */
    uint64_t evaluated, planned;
    bool have_best;
    double best_ns;
    bool have_gain;                             /* as tuning_loop_event */
    double expected_gain;
    uint64_t gain_more;
    unsigned gain_marks_said;                   /* a log's gain lines so far (progress.c) */
    double elapsed_s;                           /* the campaign's, at the last report */
    run_pace pace;                              /* of the configurations this run measured */
    bool estimated;                             /* the estimate has been printed */
    /* The configuration in flight, since the last event; in_flight false
     * once it is done. */
    bool in_flight;
    char config[512];
    measure_stage stage;
    double config_s;
    bool checking_health;
    unsigned still_said;                        /* "still measuring" lines for it */
} progress_campaign;

typedef struct progress {
    FILE *out;
    bool terminal;
    bool quiet;
    bool drawn;         /* a bar is on screen and must be cleared before other output */
    double last_draw_s;
    double space_started_s;  /* when building the search space was first reported; 0: not yet */
    volatile sig_atomic_t *stop_requested; /* set by Ctrl-C; may be NULL */
    progress_campaign campaigns[PROGRESS_MAX_CAMPAIGNS];
} progress;

void progress_init(progress *p, FILE *out, bool quiet);
/* A campaign (label as in its events, may be NULL) starts: its counts and
 * estimate start afresh. ahead: the workers that build configurations
 * ahead of the device (compile workers and spare measuring workers), whose
 * first round the pace waits for. */
void progress_begin(progress *p, const char *label, unsigned ahead);
/* tuning_loop_config.on_event */
void progress_event(void *ctx, const tuning_loop_event *ev);
/* tuning_request.on_activity: the configuration in flight. */
void progress_activity(void *ctx, const tuning_loop_activity *a);
/* A line about the campaign (a fault, the device's health) on standard
 * error, even when quiet: tuning_request.on_notice. */
void progress_notice(void *ctx, const char *text);
/* Building the search space: on a terminal, once it has taken a second, a
 * line redrawn with the combinations checked so far (a space whose
 * constraints prune too little can take long, and Ctrl-C stops it):
 * tuning_request.on_space_progress. */
void progress_space(void *ctx, const space_progress *sp);
/* Clear the bar before printing anything else. */
void progress_finish(progress *p);

/* "812 µs", "1.23 ms", "2.5 s" */
void format_duration_ns(double ns, char *buf, size_t len);
/* "45 s", "12 min", "3.4 h", "2.1 d": a wait at a glance. */
void format_wait_s(double s, char *buf, size_t len);

#endif
