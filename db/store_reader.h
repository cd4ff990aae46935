/* Reading a campaign's record from a result database without the store:
 * replay reads any skytune database it is given as a recorded dataset,
 * leaving the file and its folder as they were (read_in_place.h) and the
 * database as it is: no migration, no journal mode, nothing written. */
#ifndef SKYTUNE_STORE_READER_H
#define SKYTUNE_STORE_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

typedef struct store_reader store_reader;

/* Opens `path` in place and checks that it is a skytune result database of
 * this skytune's schema version or an older one. `name` is the file as
 * messages name it (the reader keeps a copy). */
int store_reader_open(const char *path, const char *name, store_reader **out,
                      skytune_error *err);
void store_reader_close(store_reader *r);

/* How many campaigns the database holds. */
int store_reader_campaign_count(store_reader *r, int64_t *count, skytune_error *err);

/* Whether the database holds campaign `id`. */
int store_reader_has_campaign(store_reader *r, int64_t id, bool *found, skytune_error *err);

/* The id of the database's campaign, for one that holds exactly one (0 when
 * it holds none). */
int store_reader_only_campaign(store_reader *r, int64_t *id, skytune_error *err);

typedef struct store_reader_campaign {
    int64_t id;
    const char *plugin, *device, *strategy;
} store_reader_campaign;

/* Every campaign in id order, with its plugin's and device's names and its
 * strategy; strings are valid during the visit only. visit returns 0 to go
 * on; any other value stops the walk, and the call returns 0. */
int store_reader_campaigns(store_reader *r,
                           int (*visit)(void *ctx, const store_reader_campaign *campaign),
                           void *ctx, skytune_error *err);

/* The name of the campaign's device (malloc'd), or NULL when the database
 * does not give one. */
int store_reader_device_name(store_reader *r, int64_t campaign, char **name,
                             skytune_error *err);

/* A time column of an evaluation as the database holds it: a database
 * written by hand (or by another program) can hold anything in a REAL
 * column, text, NULL or a negative number, and its reader decides. */
typedef struct store_recorded_time {
    const char *column;   /* its name, e.g. "median_ns" */
    bool numeric;         /* stored as an integer or a real */
    double value;         /* as SQLite converts it */
} store_recorded_time;

enum { STORE_MEDIAN_NS = 0, STORE_BUILD_S = 1, STORE_BENCH_S = 2, STORE_RECORDED_TIMES = 3 };

/* One evaluation of a campaign: its configuration's canonical text and its
 * measurement's status and times (NULL texts where the row has none). */
typedef struct store_evaluation {
    const char *config_text;
    const char *status;
    store_recorded_time times[STORE_RECORDED_TIMES];  /* median_ns, build_s, bench_s */
    void *row;            /* the reader's own: for store_evaluation_time_text */
} store_evaluation;

/* times[k] of the evaluation as SQLite gives it as text (NULL for NULL),
 * for a message quoting what the database holds; valid during the visit. */
const char *store_evaluation_time_text(const store_evaluation *e, int k);

/* Every configuration the campaign evaluated, measured by it or reused from
 * an earlier campaign, in evaluation order; strings are valid during the
 * visit only. visit returns 0 to go on; any other value stops the walk, and
 * the call returns -1 without touching err (the visitor reports its own
 * failure). */
int store_reader_evaluations(store_reader *r, int64_t campaign,
                             int (*visit)(void *ctx, const store_evaluation *e), void *ctx,
                             skytune_error *err);

#endif
