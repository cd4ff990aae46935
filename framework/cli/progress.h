/* Progress of a running campaign: a redrawn bar on a terminal, one plain
 * line per configuration elsewhere (logs, CI, pipes). */
#ifndef SKYTUNE_PROGRESS_H
#define SKYTUNE_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "campaign.h"

typedef struct progress {
    FILE *out;
    bool terminal;
    bool quiet;
    bool drawn;         /* a bar is on screen and must be cleared before other output */
    double last_draw_s;
    double space_started_s;  /* when building the search space was first reported; 0: not yet */
} progress;

void progress_init(progress *p, FILE *out, bool quiet);
/* campaign_config.on_event */
void progress_event(void *ctx, const campaign_event *ev);
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

#endif
