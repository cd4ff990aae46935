/* Cooperating with other runs on one database.
 *
 * Before measuring a configuration, a campaign claims it in the store. If
 * another live run measures it now, the campaign waits for that run's
 * measurement and reuses it, and says whose claim it waits on; if one is
 * recorded already (by a run that started after this one loaded what the
 * store held), it is reused at once.
 *
 * A live run renews its claims every heartbeat_s seconds (a thread of its
 * own, so a long build or measurement does not stop it). A claim left by a
 * run that died is taken over, with a notice naming its host and process:
 * at once when its process is gone on this host, else once its run renewed
 * nothing for stale_after_s seconds (CLAIM_STALE_DEFAULT_S, or
 * SKYTUNE_CLAIM_STALE_S; the heartbeat is a third of it). */
#ifndef SKYTUNE_CLAIMS_H
#define SKYTUNE_CLAIMS_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

/* A claim renewed by nobody for this long is a dead run's; a live run
 * renews its claims every third of it. */
#define CLAIM_STALE_DEFAULT_S 90.0

typedef struct claimant {
    store *store;                         /* a connection of its own: the writer has another */
    int64_t pid;
    char host[256];
    double stale_after_s;                 /* no heartbeat this long: a dead run's claim */
    double heartbeat_s;                   /* how often this run renews its claims */
    volatile sig_atomic_t *stop_requested;
    void (*on_notice)(void *ctx, const char *text); /* waits and takeovers (may be NULL) */
    void *notice_ctx;
    /* The heartbeat thread; lock guards the store, shared with it. */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool beating, quit;
    long beats;                           /* heartbeats written */
    double last_wait_s;                   /* how long the last claim waited on another run */
} claimant;

/* The bound after which a silent claim is taken over: SKYTUNE_CLAIM_STALE_S
 * when it holds a positive number of seconds, else CLAIM_STALE_DEFAULT_S. */
double claims_stale_after_s(void);

/* This process, on this host; the heartbeat starts. Returns -1 with err set
 * if the heartbeat thread cannot start. */
int claimant_init(claimant *c, store *st, volatile sig_atomic_t *stop_requested,
                  void (*on_notice)(void *ctx, const char *text), void *notice_ctx,
                  skytune_error *err);

typedef enum claim_outcome {
    CLAIM_MEASURE = 0,    /* ours: measure it */
    CLAIM_REUSE = 1,      /* measured by another run: *known holds it */
    CLAIM_STOPPED = 2     /* a stop was requested while waiting for another run */
} claim_outcome;

/* Claim the configuration (config_text, config_hash) for the campaign,
 * waiting while another live run measures it (for c->last_wait_s: no part
 * of this run's own work). *known is filled for CLAIM_REUSE (its
 * config_text is not). */
int claim_configuration(claimant *c, int64_t campaign_id, const char *config_text,
                        uint64_t config_hash, claim_outcome *outcome, store_known *known,
                        skytune_error *err);

/* Another run measuring the campaign now: the latest claim of another
 * process in it (store_latest_claim) that is live as claim_configuration
 * judges one (renewed less than claims_stale_after_s() ago, its process
 * not gone on this host); holder->found is false when there is none. */
int claims_live_holder(store *st, int64_t campaign_id, int64_t my_pid, const char *my_host,
                       store_claim_holder *holder, skytune_error *err);

/* Give up this process's unfinished claims (on a stop or an error). */
void claims_release(claimant *c);

/* The heartbeat stopped and the claims given up; the store stays open. */
void claimant_close(claimant *c);

#endif
