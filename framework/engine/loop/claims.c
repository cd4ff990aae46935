#include "claims.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

/* How often a run waiting for another's measurement looks again. */
#define CLAIM_POLL_S 0.02

/* How often a run waiting on another's claim says so again. */
#define CLAIM_WAIT_NOTICE_S 60.0

double claims_stale_after_s(void)
{
    const char *env = getenv("SKYTUNE_CLAIM_STALE_S");
    if (env && *env) {
        char *end;
        double v = strtod(env, &end);
        if (*end == '\0' && isfinite(v) && v > 0) return v;
    }
    return CLAIM_STALE_DEFAULT_S;
}

static void deadline_in(struct timespec *ts, double seconds)
{
    clock_gettime(CLOCK_REALTIME, ts);
    double whole = floor(seconds);
    ts->tv_sec += (time_t)whole;
    ts->tv_nsec += (long)((seconds - whole) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Every heartbeat_s, this process's claims renewed. A failure (the
 * database busy past its timeout) is tried again at the next beat: a
 * missed beat or two are within the bound. */
static void *heartbeat_main(void *arg)
{
    claimant *c = arg;
    pthread_mutex_lock(&c->lock);
    while (!c->quit) {
        struct timespec until;
        deadline_in(&until, c->heartbeat_s);
        while (!c->quit && pthread_cond_timedwait(&c->wake, &c->lock, &until) != ETIMEDOUT) {
        }
        if (c->quit) break;
        skytune_error ignored;
        if (store_renew_claims(c->store, c->pid, c->host, clock_wall_s(), &ignored) == 0)
            c->beats++;
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

int claimant_init(claimant *c, store *st, volatile sig_atomic_t *stop_requested,
                  void (*on_notice)(void *ctx, const char *text), void *notice_ctx,
                  skytune_error *err)
{
    memset(c, 0, sizeof *c);
    c->store = st;
    c->pid = (int64_t)getpid();
    gethostname(c->host, sizeof c->host - 1);
    c->stale_after_s = claims_stale_after_s();
    c->heartbeat_s = c->stale_after_s / 3;
    c->stop_requested = stop_requested;
    c->on_notice = on_notice;
    c->notice_ctx = notice_ctx;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    int rc = pthread_create(&c->thread, NULL, heartbeat_main, c);
    if (rc != 0) {
        pthread_cond_destroy(&c->wake);
        pthread_mutex_destroy(&c->lock);
        c->store = NULL;
        return err_set(err, "cannot start the heartbeat of this run's claims: %s", strerror(rc));
    }
    c->beating = true;
    return 0;
}

/* A claim's process on this host is alive while kill(pid, 0) finds it; on
 * another host nothing can be told, and the claim's heartbeat decides. */
static bool alive_on(const char *my_host, int64_t pid, const char *host)
{
    if (strcmp(host, my_host) != 0) return true;
    if (pid <= 0) return false;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static bool holder_alive(void *ctx, int64_t pid, const char *host)
{
    const claimant *c = ctx;
    return alive_on(c->host, pid, host);
}

int claims_live_holder(store *st, int64_t campaign_id, int64_t my_pid, const char *my_host,
                       store_claim_holder *holder, skytune_error *err)
{
    if (store_latest_claim(st, campaign_id, my_pid, my_host, holder, err) != 0) return -1;
    /* As store_claim judges a claim: a dead run's is no company. */
    if (holder->found && (holder->last_seen_s >= claims_stale_after_s() ||
                          !alive_on(my_host, holder->pid, holder->host)))
        holder->found = false;
    return 0;
}

static void notice(const claimant *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void notice(const claimant *c, const char *fmt, ...)
{
    if (!c->on_notice) return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    c->on_notice(c->notice_ctx, text);
}

static void tell_takeover(const claimant *c, const char *config_text, const store_claim_result *r)
{
    if (r->taken_over == STORE_HOLDER_GONE)
        notice(c,
               "configuration %s was claimed by process %lld on %s (this host), which is "
               "gone; measuring it here",
               config_text, (long long)r->holder_pid, r->holder_host);
    else if (r->taken_over == STORE_HOLDER_SILENT)
        notice(c,
               "configuration %s was claimed by process %lld on host %s, last seen %.0f s ago "
               "(a live run renews its claims every %.3g s); taking it over",
               config_text, (long long)r->holder_pid, r->holder_host, r->last_seen_s,
               c->heartbeat_s);
}

int claim_configuration(claimant *c, int64_t campaign_id, const char *config_text,
                        uint64_t config_hash, claim_outcome *outcome, store_known *known,
                        skytune_error *err)
{
    double waiting_since = -1, told_at = -1;
    int64_t waited_pid = 0;    /* whose claim this run waits on */
    char waited_host[256] = "";
    c->last_wait_s = 0;
    for (;;) {
        if (waiting_since >= 0) c->last_wait_s = clock_monotonic_s() - waiting_since;
        store_claim_result r;
        pthread_mutex_lock(&c->lock);
        int rc = store_claim(c->store, campaign_id, config_text, config_hash, c->pid, c->host,
                             c->stale_after_s, holder_alive, c, &r, err);
        pthread_mutex_unlock(&c->lock);
        if (rc != 0) return -1;
        if (r.kind == STORE_CLAIM_OURS) {
            tell_takeover(c, config_text, &r);
            *outcome = CLAIM_MEASURE;
            return 0;
        }
        if (r.kind == STORE_CLAIM_MEASURED) {
            if (waiting_since >= 0)
                notice(c, "configuration %s: measured by process %lld on host %s; reusing it",
                       config_text, (long long)waited_pid, waited_host);
            *known = r.known;
            known->config_text = NULL;
            *outcome = CLAIM_REUSE;
            return 0;
        }
        if (c->stop_requested && *c->stop_requested) {
            *outcome = CLAIM_STOPPED;
            return 0;
        }
        double now = clock_monotonic_s();
        if (waiting_since < 0) waiting_since = now;
        waited_pid = r.holder_pid;
        snprintf(waited_host, sizeof waited_host, "%s", r.holder_host);
        if (told_at < 0 || now - told_at >= CLAIM_WAIT_NOTICE_S) {
            bool first = told_at < 0;
            told_at = now;
            if (first)
                notice(c,
                       "configuration %s is being measured by process %lld on host %s "
                       "(last seen %.0f s ago); waiting for its measurement (its claim is "
                       "taken over after %.3g s without a heartbeat)",
                       config_text, (long long)r.holder_pid, r.holder_host, r.last_seen_s,
                       c->stale_after_s);
            else
                notice(c,
                       "still waiting for process %lld on host %s to measure configuration "
                       "%s (%.0f s so far; last seen %.0f s ago)",
                       (long long)r.holder_pid, r.holder_host, config_text,
                       now - waiting_since, r.last_seen_s);
        }
        struct timespec pause = {0, (long)(CLAIM_POLL_S * 1e9)};
        nanosleep(&pause, NULL);
    }
}

void claims_release(claimant *c)
{
    skytune_error ignored;
    if (!c->store) return;
    pthread_mutex_lock(&c->lock);
    store_release_claims(c->store, c->pid, c->host, &ignored);
    pthread_mutex_unlock(&c->lock);
}

void claimant_close(claimant *c)
{
    if (!c->beating) return;
    pthread_mutex_lock(&c->lock);
    c->quit = true;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
    c->beating = false;
    claims_release(c);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->lock);
}
