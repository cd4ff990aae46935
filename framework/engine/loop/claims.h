/* Cooperating with other runs on one database.
 *
 * Before measuring a configuration, a campaign claims it in the store. If
 * another live run measures it now, the campaign waits for that run's
 * measurement and reuses it; if one is recorded already (by a run that
 * started after this one loaded what the store held), it is reused at
 * once. A claim left by a run that died — its process is gone on this host,
 * or the claim is older than any configuration may take — is taken over. */
#ifndef SKYTUNE_CLAIMS_H
#define SKYTUNE_CLAIMS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

typedef struct claimant {
    store *store;                         /* a connection of its own: the writer has another */
    int64_t pid;
    char host[256];
    double stale_after_s;                 /* a claim this old is a dead run's */
    volatile sig_atomic_t *stop_requested;
} claimant;

/* This process, on this host. */
void claimant_init(claimant *c, store *st, double stale_after_s,
                   volatile sig_atomic_t *stop_requested);

typedef enum claim_outcome {
    CLAIM_MEASURE = 0,    /* ours: measure it */
    CLAIM_REUSE = 1,      /* measured by another run: *known holds it */
    CLAIM_STOPPED = 2     /* a stop was requested while waiting for another run */
} claim_outcome;

/* Claim the configuration (config_text, config_hash) for the campaign,
 * waiting while another live run measures it. *known is filled for
 * CLAIM_REUSE (its config_text is not). */
int claim_configuration(claimant *c, int64_t campaign_id, const char *config_text,
                        uint64_t config_hash, claim_outcome *outcome, store_known *known,
                        skytune_error *err);

/* Give up this process's unfinished claims (on a stop or an error). */
void claims_release(claimant *c);

#endif
