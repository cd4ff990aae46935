/* Confirming a campaign's winner: its best configurations timed again,
 * interleaved, on the paired rounds that decide it.
 *
 * A campaign measures each configuration once, at its own moment: a device
 * whose clock or temperature drifted over the night, or one noisy visit,
 * can crown a configuration that is not the fastest. Here the `top` best
 * (by median) are visited in turn — A B C D E, A B C D E, … for `rounds`
 * rounds — through the campaign's evaluator, so on a device through the
 * supervised measuring worker: each visit is a fresh measurement with its
 * own warm-up and timed runs, and a kernel that crashes or hangs is a
 * failed visit, contained like any measurement. Interleaving pairs the
 * configurations round by round, so a drift affects all of them alike.
 * Each configuration's confirmed figure is the median of its visits'
 * medians; the winner is the fastest of those that passed every visit. */
#ifndef SKYTUNE_CONFIRMATION_H
#define SKYTUNE_CONFIRMATION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "evaluator.h"
#include "space.h"
#include "store.h"

#define CONFIRM_DEFAULT_TOP 5
#define CONFIRM_DEFAULT_ROUNDS 5
/* The most configurations and rounds a confirmation takes. */
#define CONFIRM_MAX_TOP 50
#define CONFIRM_MAX_ROUNDS 1000

typedef struct confirmation_request {
    const space *space;
    evaluator eval;                  /* the campaign's; its race limit is lifted */
    store *store;
    int64_t campaign_id;
    unsigned top, rounds;            /* top >= 2, rounds >= 1 */
    unsigned runs;                   /* timed runs of each visit, as recorded */
    volatile sig_atomic_t *stop_requested;   /* may be NULL */
} confirmation_request;

typedef struct confirmation_outcome {
    bool confirmed;                  /* false: skipped, `skipped` says why */
    char skipped[512];
    int64_t confirmation_id;
    unsigned top, rounds;            /* configurations and rounds confirmed */
    bool has_winner;                 /* some configuration passed every visit */
    bool changed;                    /* the winner is not the campaign's best */
    char campaign_best[4096], winner[4096];
    double campaign_best_ns;         /* the campaign's best, as the campaign measured it */
    double campaign_best_confirmed_ns; /* and as confirmed; NaN when a visit failed */
    double winner_confirmed_ns;
    unsigned failed_visits;
} confirmation_outcome;

/* Confirm the campaign's best: 0 with *out (skipped, with a reason, when
 * fewer than two configurations passed, or a stop was requested), -1 when
 * the evaluator cannot go on or the store fails. */
int confirm_campaign_best(const confirmation_request *rq, confirmation_outcome *out,
                          skytune_error *err);

#endif
