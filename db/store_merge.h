/* Merging result databases: the shards of a campaign run on a cluster, or
 * databases of several machines, combined into one.
 *
 * A source's devices, plugin builds, problems, configurations and campaigns
 * are recognised by what identifies them (a device by platform, name and
 * driver; a plugin build by name, version and source hash; a problem by its
 * plugin build and canonical text; a campaign by plugin build, device,
 * problem, strategy, settings and seed) and merged with the target's. A
 * measurement new to the target is copied with its samples and parts; one
 * the target has under the same key (the same measurement merged again) is
 * skipped; a different measurement under the same key is a duplicate: the
 * target's stays, the source's goes whole into duplicate_measurements (see
 * db/schema.sql), and the source campaign's evaluation points to the kept
 * row, marked cached. A campaign's invocations (invocations) come with it.
 * So merging is idempotent: merging a source again adds
 * nothing. The source is opened read-only and never written. */
#ifndef SKYTUNE_STORE_MERGE_H
#define SKYTUNE_STORE_MERGE_H

#include <stdint.h>

#include "store.h"

typedef struct store_merge_counts {
    int64_t campaigns;     /* new to the target */
    int64_t measurements;  /* new to the target */
    int64_t duplicates;    /* kept in duplicate_measurements */
    int64_t evaluations;   /* added */
} store_merge_counts;

/* Merges the database at source_path into st in one transaction: all of it
 * or, on an error, nothing. A source that is not a skytune database, or of
 * another schema version, is refused naming its version and this one's. */
int store_merge(store *st, const char *source_path, store_merge_counts *counts,
                skytune_error *err);

#endif
