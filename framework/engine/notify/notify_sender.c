#include "notify_sender.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"

void notify_sender_options_default(notify_sender_options *o)
{
    *o = (notify_sender_options){
        .format = NOTIFY_FORMAT_JSON,
        .best_interval_s = 60,
        .close_wait_s = 5,
        .queue_limit = 1000,
    };
    http_policy_default(&o->http);
    /* A notification is worth less than an upload: give up sooner. */
    o->http.connect_timeout_s = 5;
    o->http.timeout_s = 10;
    o->http.backoff_max_s = 8;
}

typedef struct queued {
    struct queued *next;
    json_t *doc;
} queued;

/* The new_best of one instance that waits for its interval to pass. */
typedef struct best_slot {
    size_t instance;           /* notify_instance.index; 0 for a campaign without one */
    json_t *waiting;           /* NULL: none waits */
    double last_sent_s;        /* monotonic; < 0: none sent yet */
} best_slot;

struct notify_sender {
    char *url;
    char origin[300];
    char *ca_file;
    notify_sender_options opt;

    pthread_mutex_t lock;
    pthread_cond_t wake;       /* to the sending thread: something to do */
    pthread_cond_t idle;       /* to notify_sender_close: the queue moved */
    queued *head, *tail;
    size_t queued_count;
    best_slot *slots;
    size_t n_slots, slots_cap;
    bool sending;              /* a document is in flight */
    bool closing;
    notify_sender_totals totals;
    pthread_t thread;
    atomic_bool abandon;       /* close stopped waiting: give up everything */

    /* The sending thread's own. */
    bool in_outage;
    uint64_t lost_in_outage;
};

static struct timespec monotonic_at(double s)
{
    struct timespec ts = {.tv_sec = (time_t)s};
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    return ts;
}

static void log_line(notify_sender *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_line(notify_sender *n, const char *fmt, ...)
{
    if (!n->opt.on_log) return;
    char text[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    n->opt.on_log(n->opt.log_ctx, text);
}

/* ------------------------------------------------------------ the queue (under lock) */

static void enqueue(notify_sender *n, json_t *doc)
{
    queued *q = malloc(sizeof *q);
    if (!q) {
        json_decref(doc);
        n->totals.dropped++;
        return;
    }
    if (n->queued_count >= n->opt.queue_limit && n->head) {
        /* A receiver down for a long campaign must not cost its memory. */
        queued *oldest = n->head;
        n->head = oldest->next;
        if (!n->head) n->tail = NULL;
        json_decref(oldest->doc);
        free(oldest);
        n->queued_count--;
        n->totals.dropped++;
    }
    *q = (queued){.doc = doc};
    if (n->tail)
        n->tail->next = q;
    else
        n->head = q;
    n->tail = q;
    n->queued_count++;
    pthread_cond_signal(&n->wake);
}

static json_t *dequeue(notify_sender *n)
{
    queued *q = n->head;
    if (!q) return NULL;
    n->head = q->next;
    if (!n->head) n->tail = NULL;
    n->queued_count--;
    json_t *doc = q->doc;
    free(q);
    return doc;
}

static best_slot *slot_for(notify_sender *n, size_t instance)
{
    for (size_t k = 0; k < n->n_slots; k++)
        if (n->slots[k].instance == instance) return &n->slots[k];
    if (n->n_slots == n->slots_cap) {
        size_t cap = n->slots_cap ? 2 * n->slots_cap : 8;
        best_slot *grown = realloc(n->slots, cap * sizeof *grown);
        if (!grown) return NULL;
        n->slots = grown;
        n->slots_cap = cap;
    }
    best_slot *s = &n->slots[n->n_slots++];
    *s = (best_slot){.instance = instance, .last_sent_s = -1};
    return s;
}

static void send_waiting_best(notify_sender *n, best_slot *s, double now)
{
    if (!s->waiting) return;
    enqueue(n, s->waiting);
    s->waiting = NULL;
    s->last_sent_s = now;
}

/* Queue every waiting new_best whose interval has passed (all of them when
 * `all`); the time the next one falls due in *next_due (0: none waits). */
static void send_due_bests(notify_sender *n, bool all, double *next_due)
{
    double now = clock_monotonic_s();
    *next_due = 0;
    for (size_t k = 0; k < n->n_slots; k++) {
        best_slot *s = &n->slots[k];
        if (!s->waiting) continue;
        double due = s->last_sent_s + n->opt.best_interval_s;
        if (all || now >= due)
            send_waiting_best(n, s, now);
        else if (*next_due == 0 || due < *next_due)
            *next_due = due;
    }
}

static void post_new_best(notify_sender *n, size_t instance, json_t *doc)
{
    best_slot *s = slot_for(n, instance);
    if (!s) {
        json_decref(doc);
        n->totals.dropped++;
        return;
    }
    double now = clock_monotonic_s();
    if (s->waiting) {
        /* The latest best wins. */
        json_decref(s->waiting);
        s->waiting = NULL;
        n->totals.superseded++;
    }
    if (s->last_sent_s < 0 || now - s->last_sent_s >= n->opt.best_interval_s) {
        enqueue(n, doc);
        s->last_sent_s = now;
    } else {
        s->waiting = doc;
        pthread_cond_signal(&n->wake); /* it may sleep until another slot's time */
    }
}

void notify_sender_post(notify_sender *n, const notify_event *ev)
{
    if (!n) return;
    json_t *doc = notify_event_json(ev);
    pthread_mutex_lock(&n->lock);
    n->totals.posted++;
    if (!doc) {
        n->totals.dropped++;
    } else if (n->closing) {
        json_decref(doc);
        n->totals.dropped++;
    } else if (ev->kind == NOTIFY_NEW_BEST) {
        post_new_best(n, ev->instance ? ev->instance->index : 0, doc);
    } else {
        /* An instance's final best goes out before its end, every
         * instance's before the campaign's. */
        double now = clock_monotonic_s(), ignored;
        if (ev->kind == NOTIFY_INSTANCE_FINISHED) {
            best_slot *s = slot_for(n, ev->instance ? ev->instance->index : 0);
            if (s) send_waiting_best(n, s, now);
        } else if (ev->kind == NOTIFY_CAMPAIGN_FINISHED || ev->kind == NOTIFY_CAMPAIGN_FAILED) {
            send_due_bests(n, true, &ignored);
        }
        enqueue(n, doc);
    }
    pthread_mutex_unlock(&n->lock);
}

/* ------------------------------------------------------------ the sending thread */

static bool should_abandon(void *ctx)
{
    notify_sender *n = ctx;
    return atomic_load(&n->abandon);
}

static void note_failed_attempt(void *ctx, unsigned attempt, const char *why, double wait_s)
{
    notify_sender *n = ctx;
    if (n->in_outage) return;
    n->in_outage = true;
    log_line(n, "notify: cannot deliver to %s: %s; retrying with backoff (not said again until it "
                "answers)",
             n->origin, why);
}

/* Deliver one document; returns how it went. Outside the lock. */
static http_outcome deliver(notify_sender *n, json_t *doc)
{
    char *body = notify_format_body(doc, n->opt.format);
    if (!body) return HTTP_GAVE_UP;
    http_request rq = {
        .method = "POST",
        .url = n->url,
        .content_type = "application/json",
        .body = body,
        .body_len = strlen(body),
    };
    http_hooks hooks = {.on_retry = note_failed_attempt, .abandon = should_abandon, .ctx = n};
    http_result result;
    skytune_error err;
    int rc = http_send(&n->opt.http, &rq, &hooks, &result, &err);
    free(body);
    if (rc == 0) {
        if (n->in_outage && n->lost_in_outage) {
            log_line(n, "notify: %s answers again (%llu event%s could not be delivered "
                        "meanwhile)",
                     n->origin, (unsigned long long)n->lost_in_outage,
                     n->lost_in_outage == 1 ? "" : "s");
        } else if (n->in_outage) {
            log_line(n, "notify: %s answers again", n->origin);
        }
        n->in_outage = false;
        n->lost_in_outage = 0;
        return HTTP_DELIVERED;
    }
    if (result.outcome == HTTP_ABANDONED) return HTTP_ABANDONED;
    /* A refusal on the first attempt is not retried, so it was not yet
     * reported. */
    if (!n->in_outage) {
        n->in_outage = true;
        log_line(n, "notify: %s (not said again until it answers)", err.message);
    }
    n->lost_in_outage++;
    return result.outcome;
}

static void *send_loop(void *arg)
{
    notify_sender *n = arg;
    pthread_mutex_lock(&n->lock);
    for (;;) {
        double next_due;
        send_due_bests(n, false, &next_due);
        if (atomic_load(&n->abandon)) break;
        json_t *doc = dequeue(n);
        if (doc) {
            n->sending = true;
            pthread_mutex_unlock(&n->lock);
            http_outcome how = deliver(n, doc);
            json_decref(doc);
            pthread_mutex_lock(&n->lock);
            n->sending = false;
            if (how == HTTP_DELIVERED)
                n->totals.delivered++;
            else if (how == HTTP_ABANDONED)
                n->totals.abandoned++;
            else
                n->totals.failed++;
            pthread_cond_broadcast(&n->idle);
            continue;
        }
        if (n->closing) break;
        if (next_due > 0) {
            struct timespec until = monotonic_at(next_due);
            pthread_cond_timedwait(&n->wake, &n->lock, &until);
        } else {
            pthread_cond_wait(&n->wake, &n->lock);
        }
    }
    pthread_cond_broadcast(&n->idle);
    pthread_mutex_unlock(&n->lock);
    return NULL;
}

/* ------------------------------------------------------------ open and close */

static void notify_sender_free(notify_sender *n)
{
    while (n->head) json_decref(dequeue(n));
    for (size_t k = 0; k < n->n_slots; k++) json_decref(n->slots[k].waiting);
    free(n->slots);
    free(n->url);
    free(n->ca_file);
    free(n);
}

static int init_sync(notify_sender *n)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0) return -1;
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0 && (rc = pthread_cond_init(&n->wake, &attr)) == 0 &&
        (rc = pthread_cond_init(&n->idle, &attr)) != 0)
        pthread_cond_destroy(&n->wake);
    pthread_condattr_destroy(&attr);
    if (rc != 0) return -1;
    if (pthread_mutex_init(&n->lock, NULL) != 0) {
        pthread_cond_destroy(&n->wake);
        pthread_cond_destroy(&n->idle);
        return -1;
    }
    return 0;
}

static void destroy_sync(notify_sender *n)
{
    pthread_mutex_destroy(&n->lock);
    pthread_cond_destroy(&n->wake);
    pthread_cond_destroy(&n->idle);
}

int notify_sender_open(const char *url, const notify_sender_options *o, notify_sender **out, skytune_error *err)
{
    *out = NULL;
    if (http_url_check(url, err) != 0) return -1;
    if (!(o->best_interval_s >= 0) || !(o->close_wait_s >= 0) || o->queue_limit == 0)
        return err_set(err, "notification options out of range: the new-best interval and the "
                            "wait at close must be >= 0, the queue at least 1");
    notify_sender *n = calloc(1, sizeof *n);
    if (!n) return err_set(err, "out of memory");
    n->opt = *o;
    n->url = strdup(url);
    n->ca_file = o->http.ca_file ? strdup(o->http.ca_file) : NULL;
    if (!n->url || (o->http.ca_file && !n->ca_file)) {
        notify_sender_free(n);
        return err_set(err, "out of memory");
    }
    n->opt.http.ca_file = n->ca_file;
    http_url_origin(url, n->origin, sizeof n->origin);
    atomic_init(&n->abandon, false);
    if (init_sync(n) != 0) {
        notify_sender_free(n);
        return err_set(err, "cannot set up the notification thread's locks");
    }
    if (http_client_start(err) != 0) {
        destroy_sync(n);
        notify_sender_free(n);
        return -1;
    }
    /* Signals are the caller's business: the sending thread takes none. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&n->thread, NULL, send_loop, n);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        http_client_stop();
        destroy_sync(n);
        notify_sender_free(n);
        return err_set(err, "cannot start the notification thread: %s", strerror(rc));
    }
    *out = n;
    return 0;
}

void notify_sender_close(notify_sender *n, notify_sender_totals *totals)
{
    if (!n) return;
    pthread_mutex_lock(&n->lock);
    double ignored;
    send_due_bests(n, true, &ignored);
    n->closing = true;
    pthread_cond_signal(&n->wake);
    struct timespec until = monotonic_at(clock_monotonic_s() + n->opt.close_wait_s);
    int wait_rc = 0;
    while ((n->head || n->sending) && wait_rc != ETIMEDOUT)
        wait_rc = pthread_cond_timedwait(&n->idle, &n->lock, &until);
    size_t left = n->queued_count + (n->sending ? 1 : 0);
    if (left) atomic_store(&n->abandon, true);
    pthread_mutex_unlock(&n->lock);
    pthread_join(n->thread, NULL);
    /* What the thread did not take is abandoned too. */
    n->totals.abandoned += n->queued_count;
    if (left)
        log_line(n, "notify: gave up on %zu event%s still waiting for %s after %.0f s", left,
                 left == 1 ? "" : "s", n->origin, n->opt.close_wait_s);
    if (n->totals.dropped)
        log_line(n, "notify: %llu event%s dropped (queue full or out of memory)",
                 (unsigned long long)n->totals.dropped, n->totals.dropped == 1 ? "" : "s");
    if (totals) *totals = n->totals;
    http_client_stop();
    destroy_sync(n);
    notify_sender_free(n);
}
