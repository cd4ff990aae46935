/* Confirmations of campaigns' best configurations (db/schema.sql,
 * confirmations): where a campaign was measured (to confirm it later), and
 * the record of a confirmation, its entries and its visits in one
 * transaction. The configurations to confirm are store_campaign_top's
 * (store_campaigns.h). */
#ifndef SKYTUNE_STORE_CONFIRMATIONS_H
#define SKYTUNE_STORE_CONFIRMATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* Where a campaign was measured, to measure it again: its plugin's name,
 * its device's name, its problem's parameters ("name=value", in order) and
 * whether it was replayed. Free with store_campaign_origin_free. */
typedef struct store_campaign_origin {
    char *plugin, *device, *problem_text;
    char **problem_sets;
    size_t n_problem_sets;
    bool replayed;
} store_campaign_origin;

/* -1 with err naming the ids there are when the campaign is not there. */
int store_campaign_origin_of(store *st, int64_t campaign_id, store_campaign_origin *out,
                             skytune_error *err);
void store_campaign_origin_free(store_campaign_origin *o);

/* The number of confirmations the campaign has. */
int store_confirmation_count(store *st, int64_t campaign_id, int64_t *count, skytune_error *err);

/* A confirmed configuration. */
typedef struct store_confirmed {
    const char *config_text;     /* a configuration of the campaign */
    size_t campaign_place;       /* 1: the campaign's best */
    double campaign_median_ns;
    size_t confirmed_place;      /* 1: the winner; 0: a visit failed */
    double confirmed_median_ns;  /* NaN: none */
    bool has_interval;
    double ci_low_ns, ci_high_ns, ci_coverage;
    size_t ok_visits;
} store_confirmed;

typedef struct store_confirmation_visit {
    size_t round, slot;          /* from 1 */
    size_t entry;                /* index into the entries */
    const char *status;          /* measurement_status_name */
    double median_ns;            /* NaN: the visit failed */
    size_t n_samples;
} store_confirmation_visit;

typedef struct store_confirmation {
    int64_t campaign_id;
    unsigned rounds, runs;
    const store_confirmed *entries;   /* entries[0] is the campaign's best */
    size_t n_entries;
    const store_confirmation_visit *visits;
    size_t n_visits;
    size_t winner;                    /* index into entries; n_entries: none */
} store_confirmation;

/* One transaction: the confirmation, its entries, its visits; *id names
 * it. */
int store_record_confirmation(store *st, const store_confirmation *c, int64_t *id,
                              skytune_error *err);

#endif
