/* What a campaign tells the outside world as it runs: the notification
 * events, and their JSON document (schema version NOTIFY_SCHEMA_VERSION,
 * described in docs/campaigns.md, "Notifications"). A campaign is what one
 * command runs: a `skytune run` (one problem instance, or one per device
 * with --devices) or a sweep of many instances; an instance is one
 * database campaign (plugin, problem, device). */
#ifndef SKYTUNE_NOTIFY_EVENT_H
#define SKYTUNE_NOTIFY_EVENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "measurement.h"

#define NOTIFY_SCHEMA_VERSION 1

typedef enum notify_kind {
    NOTIFY_CAMPAIGN_STARTED = 0,
    NOTIFY_NEW_BEST,
    NOTIFY_INSTANCE_FINISHED,
    NOTIFY_CAMPAIGN_FINISHED,
    NOTIFY_CAMPAIGN_FAILED,
    NOTIFY_KIND_COUNT
} notify_kind;

/* "campaign_started", "new_best", "instance_finished", "campaign_finished",
 * "campaign_failed". */
const char *notify_kind_name(notify_kind k);

typedef struct notify_counts {
    uint64_t evaluated;        /* distinct configurations */
    uint64_t measured;         /* measured now */
    uint64_t reused;           /* taken from the database */
    uint64_t by_status[MEAS_STATUS_COUNT];
} notify_counts;

typedef struct notify_best {
    bool known;                /* false: nothing passed verification (yet) */
    const char *config;        /* the configuration's text */
    double median_ns;
    double gflops;             /* 0: not known (the plugin counts no FLOPs) */
} notify_best;

/* One problem instance: one campaign in the database. Strings may be NULL
 * where not known. */
typedef struct notify_instance {
    size_t index;              /* 1-based, in the campaign */
    int64_t campaign_id;       /* the database's campaign; 0: not known */
    const char *plugin, *plugin_version, *problem, *device, *platform, *strategy;
    uint64_t space_size;       /* valid configurations */
    double started_at;         /* Unix time; 0: not known */
} notify_instance;

typedef struct notify_event {
    notify_kind kind;
    const char *campaign;      /* what the campaign is: its command or file */
    const char *database;      /* the result database's path */
    const char *host;          /* where it runs */
    size_t instances;          /* problem instances in the campaign */
    double campaign_started_at;/* Unix time */
    double time;               /* Unix time of the event; 0: now */
    /* The instance the event is about; for a campaign's own events, its
     * only instance, or NULL when it has several. */
    const notify_instance *instance;
    notify_counts counts;      /* the instance's, or the whole campaign's */
    notify_best best;
    const char *stop;          /* finished events: why it ended ("budget reached") */
    const char *error;         /* campaign_failed, or a failed instance: what went wrong */
} notify_event;

/* The event as its JSON document (a new reference), or NULL when out of
 * memory. */
json_t *notify_event_json(const notify_event *ev);

/* "2025-03-01T02:03:04.567Z" */
void notify_format_time(double unix_s, char *buf, size_t len);

#endif
