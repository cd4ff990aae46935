#include "claims.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How often a run waiting for another's measurement looks again. */
#define CLAIM_POLL_S 0.02

void claimant_init(claimant *c, store *st, double stale_after_s,
                   volatile sig_atomic_t *stop_requested)
{
    memset(c, 0, sizeof *c);
    c->store = st;
    c->pid = (int64_t)getpid();
    gethostname(c->host, sizeof c->host - 1);
    c->stale_after_s = stale_after_s;
    c->stop_requested = stop_requested;
}

/* A claim's process on this host is alive while kill(pid, 0) finds it; on
 * another host nothing can be told, and the claim's age decides. */
static bool holder_alive(void *ctx, int64_t pid, const char *host)
{
    const claimant *c = ctx;
    if (strcmp(host, c->host) != 0) return true;
    if (pid <= 0) return false;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int claim_configuration(claimant *c, int64_t campaign_id, const char *config_text,
                        uint64_t config_hash, claim_outcome *outcome, store_known *known,
                        skytune_error *err)
{
    for (;;) {
        store_claim_result r;
        if (store_claim(c->store, campaign_id, config_text, config_hash, c->pid, c->host,
                        c->stale_after_s, holder_alive, c, &r, err) != 0)
            return -1;
        if (r.kind == STORE_CLAIM_OURS) {
            *outcome = CLAIM_MEASURE;
            return 0;
        }
        if (r.kind == STORE_CLAIM_MEASURED) {
            *known = r.known;
            known->config_text = NULL;
            *outcome = CLAIM_REUSE;
            return 0;
        }
        if (c->stop_requested && *c->stop_requested) {
            *outcome = CLAIM_STOPPED;
            return 0;
        }
        struct timespec pause = {0, (long)(CLAIM_POLL_S * 1e9)};
        nanosleep(&pause, NULL);
    }
}

void claims_release(claimant *c)
{
    skytune_error ignored;
    if (c->store) store_release_claims(c->store, c->pid, c->host, &ignored);
}
