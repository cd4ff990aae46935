/* Notifications from tuning runs: what tuning_run reports (an instance has
 * started, a configuration was evaluated, the outcome) turned into the
 * notifier's events, for a campaign of one instance (`skytune run`), one
 * per device (--devices) or a sweep of many (one tuning_run each).
 *
 *   first instance started        campaign_started
 *   the instance's best improved  new_best (the notifier rate-limits it)
 *   an instance that started ends instance_finished (with error if it failed)
 *   the end                       campaign_finished, or campaign_failed
 *
 * The calls are not thread-safe: the caller makes them one at a time
 * (tuning_run_devices already serialises its callbacks). */
#ifndef SKYTUNE_NOTIFY_RUN_H
#define SKYTUNE_NOTIFY_RUN_H

#include <stddef.h>

#include "notify_sender.h"
#include "tuning_run.h"

typedef struct notify_run notify_run;

/* campaign: what the campaign is (its command or file); database: the
 * result database's path; instances: how many the campaign has, 0 when not
 * known beforehand (--devices all). The notifier stays the caller's. */
int notify_run_new(notify_sender *n, const char *campaign, const char *database,
                          size_t instances, notify_run **out, skytune_error *err);
void notify_run_free(notify_run *rn);

/* For tuning_request.on_start: an instance has started. While it runs it
 * is known by s->label (NULL for a lone run), which its events carry. */
void notify_run_started(notify_run *rn, const tuning_started *s);

/* For tuning_request.on_event. */
void notify_run_event(notify_run *rn, const tuning_loop_event *ev);

/* After an instance's tuning_run: its outcome, or error (then out is not
 * read). The instance is found by the outcome's campaign, else by label
 * (as in tuning_request.label); one that is not found (it never started)
 * is only counted as failed. */
void notify_run_instance_done(notify_run *rn, const char *label,
                                     const tuning_outcome *out, const char *error);

/* The end of the campaign: campaign_failed when error is given or an
 * instance failed, campaign_finished otherwise. stop: why it ended; NULL:
 * the only instance's reason, "interrupted" if any was, else "done". */
void notify_run_finish(notify_run *rn, const char *stop, const char *error);

#endif
