/* A campaign file as work: its sweep's instances, the units of work they
 * make, and which units a shard runs.
 *
 * An instance is one problem of the sweep: one value of every problem
 * parameter the file sets, in the order of the product of the swept lists
 * (the first swept parameter varies slowest). A unit is an instance on one
 * device entry of the file ("all" is one entry: every device of the node),
 * or, when a campaign is split in more shards than it has instances and
 * devices and its strategy is exhaustive, a part of that instance's space.
 *
 * Shard i of N (0 <= i < N) runs the units u with u % N == i: a pure
 * function of the file and N, so every node of a job array agrees on who
 * runs what without talking, the shards are disjoint, and together they
 * cover every unit. */
#ifndef SKYTUNE_CAMPAIGN_PLAN_H
#define SKYTUNE_CAMPAIGN_PLAN_H

#include <stddef.h>

#include "campaign_file.h"
#include "tuning_run.h"

/* The most instances a sweep may have. */
#define CAMPAIGN_MAX_INSTANCES 100000

typedef struct campaign_instance {
    char **sets;               /* "name=value" for every problem parameter of the file */
    size_t n_sets;
    char *label;               /* the swept values, "dms=2,channels=64" ("" when none) */
} campaign_instance;

typedef struct campaign_unit {
    size_t instance;
    const char *device;        /* the file's selector or "all"; NULL: the default device */
    size_t device_entry;       /* its index in the file's devices (0 when none) */
    unsigned part, parts;      /* parts 1: the whole space */
} campaign_unit;

typedef struct campaign_plan {
    campaign_instance *instances;
    size_t n_instances;
    campaign_unit *units;      /* every unit, in order */
    size_t n_units;
    unsigned shards;           /* N the units were planned for */
    /* The file's lists as a tuning request takes them (texts owned by f). */
    const char **restricts, **only, **strategy_opts;
} campaign_plan;

/* Instances and units of f planned for `shards` shards (1: unsharded). A
 * split of spaces into parts needs the exhaustive strategy: asking for more
 * shards than instance-device pairs with another strategy is refused, saying
 * how many shards the campaign can have. */
int campaign_plan_build(const campaign_file *f, unsigned shards, campaign_plan *out,
                        skytune_error *err);
void campaign_plan_free(campaign_plan *p);

/* Whether shard i (of p->shards) runs unit u. */
int campaign_plan_in_shard(const campaign_plan *p, size_t unit, unsigned shard);

/* "I/N" into shard and shards; 0 <= I < N, N >= 1. */
int campaign_shard_parse(const char *text, unsigned *shard, unsigned *shards, skytune_error *err);

/* The database of shard i of N: "sweep.db" becomes "sweep.shard-2-of-3.db". */
char *campaign_shard_db(const char *db, unsigned shard, unsigned shards);

/* The tuning request of a unit: base (its supervision, worker and
 * callbacks) with the file's plugin, problem, search and device, and the
 * instance's settings. The strings it points to belong to f, p and base. */
void campaign_unit_request(const campaign_file *f, const campaign_plan *p, size_t unit,
                           const tuning_request *base, tuning_request *out);

#endif
