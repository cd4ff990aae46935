/* Reading campaigns back by what they ran: a campaign file's instances are
 * problems of a plugin, and `campaign status` and the cross-measurement
 * step find their campaigns by plugin name and canonical problem text; the
 * commands that write one campaign find it when it is the only one. */
#ifndef SKYTUNE_STORE_CAMPAIGNS_H
#define SKYTUNE_STORE_CAMPAIGNS_H

#include <stdint.h>

#include "store.h"

typedef struct store_campaign_row {
    int64_t id;
    const char *plugin, *plugin_version, *device, *problem, *strategy, *settings, *status;
    uint64_t seed;
    const char *started_at, *ended_at;   /* ended_at NULL while running */
    int64_t evaluated, ok, failed;
    const char *best_config;             /* NULL when none passed */
    double best_ns, best_gflops;         /* 0 when unknown */
} store_campaign_row;

/* Every campaign of the plugin (NULL: of every plugin) and problem (NULL:
 * every problem), in id order; strings are valid during the visit only.
 * visit returns 0 to go on. */
int store_campaigns_find(store *st, const char *plugin, const char *problem_text,
                         int (*visit)(void *ctx, const store_campaign_row *row), void *ctx,
                         skytune_error *err);

/* A campaign's k fastest configurations with status ok, fastest first. */
int store_campaign_top(store *st, int64_t campaign_id, unsigned k,
                       int (*visit)(void *ctx, const char *config_text, double median_ns),
                       void *ctx, skytune_error *err);

/* The database's campaign when it holds only one: *count is how many it
 * holds, counted up to 2 (2: several), and *id that one's id when it is 1. */
int store_campaign_only(store *st, int64_t *id, int *count, skytune_error *err);

#endif
