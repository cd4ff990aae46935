/* Notifications: events posted to a webhook by a thread of their own, so
 * that a campaign never waits for the network. notify_sender_post only turns the
 * event into its JSON document and queues it; the sending thread delivers
 * the queue in order, through http_client (timeouts, retries with backoff,
 * TLS verified).
 *
 * new_best events are rate-limited per instance: at most one is sent per
 * best_interval_s, a newer best replaces one still waiting, and whatever is
 * waiting is sent before that instance's instance_finished and before
 * campaign_finished or campaign_failed, so the final best always arrives.
 *
 * A receiver that cannot be reached is reported once per outage through
 * on_log (the first failed attempt), and once more when it answers again;
 * events that fail every attempt are dropped, never retried forever.
 * notify_sender_close waits a bounded time for what is queued, then abandons
 * it (an attempt in flight too) and says so. Library code prints nothing:
 * on_log is the caller's. */
#ifndef SKYTUNE_NOTIFY_SENDER_H
#define SKYTUNE_NOTIFY_SENDER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "http_client.h"
#include "notify_event.h"
#include "notify_format.h"

typedef struct notify_sender notify_sender;

typedef struct notify_sender_options {
    notify_format format;
    http_policy http;          /* timeouts, attempts, backoff, CA file */
    double best_interval_s;    /* new_best at most once per this, per instance; 0: every one */
    double close_wait_s;       /* notify_sender_close waits at most this for the queue */
    size_t queue_limit;        /* events waiting to be sent; beyond it the oldest is dropped */
    /* A line for the user (an outage began or ended, events were given up);
     * called from the sending thread, and from notify_sender_close. May be NULL. */
    void (*on_log)(void *ctx, const char *text);
    void *log_ctx;
} notify_sender_options;

/* JSON; 5 s to connect, 10 s a transfer, 4 attempts 0.5 s, 1 s, 2 s apart;
 * new_best at most once a minute; close waits 5 s; 1000 events queued. */
void notify_sender_options_default(notify_sender_options *o);

/* Check the URL (http or https) and the options, and start the sending
 * thread. Nothing is sent until the first post. */
int notify_sender_open(const char *url, const notify_sender_options *o, notify_sender **out,
                  skytune_error *err);

/* Queue the event (its strings are copied). Never waits for the network;
 * takes the notifier's lock only to queue. Out of memory drops the event
 * (counted). Safe from any thread. */
void notify_sender_post(notify_sender *n, const notify_event *ev);

typedef struct notify_sender_totals {
    uint64_t posted;           /* events queued by notify_sender_post */
    uint64_t delivered;
    uint64_t failed;           /* every attempt failed, or the receiver refused */
    uint64_t superseded;       /* new_best replaced by a newer one before it was sent */
    uint64_t dropped;          /* the queue was full, or out of memory */
    uint64_t abandoned;        /* still queued or in flight when close stopped waiting */
} notify_sender_totals;

/* Send what is queued (and any waiting new_best), waiting at most
 * close_wait_s; abandon the rest, logging how many. totals may be NULL.
 * NULL n does nothing. */
void notify_sender_close(notify_sender *n, notify_sender_totals *totals);

#endif
