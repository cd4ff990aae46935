/* A campaign's invocations: each `skytune run` (or campaign-file run) that
 * opened it, with its command, budget, time limit and target, and how far
 * the campaign had got before and after it (db/schema.sql, invocations).
 * A rerun with a larger --budget continues the same campaign; this is how
 * it is told that, and where each budget is kept. */
#ifndef SKYTUNE_STORE_INVOCATIONS_H
#define SKYTUNE_STORE_INVOCATIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

typedef struct store_invocation_spec {
    int64_t campaign_id;
    const char *command;       /* may be NULL */
    const char *host;          /* may be NULL */
    uint64_t budget;           /* 0: none */
    double time_limit_s;       /* 0: none */
    const char *target;        /* NULL: none */
    double gain_below;         /* --stop-when-gain-below, a fraction; 0: none */
} store_invocation_spec;

/* What the campaign held when this invocation began, and what its previous
 * invocation asked for. */
typedef struct store_invocation_before {
    int64_t evaluations;       /* the campaign's evaluations so far */
    bool had_previous;         /* an earlier invocation is recorded */
    uint64_t previous_budget;  /* its --budget; 0: none */
    char previous_ended[32];   /* how it ended (the ended column); "" when it did not */
} store_invocation_before;

/* Records the start of an invocation; *id names it for the end. */
int store_invocation_begin(store *st, const store_invocation_spec *spec, int64_t *id,
                           store_invocation_before *before, skytune_error *err);

/* Records its end: `ended` as the column allows ('budget', 'interrupted',
 * 'failed', ...), with the campaign's evaluations now. */
int store_invocation_end(store *st, int64_t id, const char *ended, skytune_error *err);

#endif
