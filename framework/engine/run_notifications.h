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
#ifndef SKYTUNE_RUN_NOTIFICATIONS_H
#define SKYTUNE_RUN_NOTIFICATIONS_H

#include <stddef.h>

#include "notifier.h"
#include "tuning_run.h"

typedef struct run_notifications run_notifications;

/* campaign: what the campaign is (its command or file); database: the
 * result database's path; instances: how many the campaign has, 0 when not
 * known beforehand (--devices all). The notifier stays the caller's. */
int run_notifications_new(notifier *n, const char *campaign, const char *database,
                          size_t instances, run_notifications **out, skytune_error *err);
void run_notifications_free(run_notifications *rn);

/* For tuning_request.on_start: an instance has started. While it runs it
 * is known by s->label (NULL for a lone run), which its events carry. */
void run_notifications_started(run_notifications *rn, const tuning_started *s);

/* For tuning_request.on_event. */
void run_notifications_event(run_notifications *rn, const campaign_event *ev);

/* After an instance's tuning_run: its outcome, or error (then out is not
 * read). The instance is found by the outcome's campaign, else by label
 * (as in tuning_request.label); one that is not found (it never started)
 * is only counted as failed. */
void run_notifications_instance_done(run_notifications *rn, const char *label,
                                     const tuning_outcome *out, const char *error);

/* The end of the campaign: campaign_failed when error is given or an
 * instance failed, campaign_finished otherwise. stop: why it ended; NULL:
 * the only instance's reason, "interrupted" if any was, else "done". */
void run_notifications_finish(run_notifications *rn, const char *stop, const char *error);

#endif
