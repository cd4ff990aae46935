/* Recording measurements without waiting for SQLite: a writer thread runs
 * each configuration's store transaction while the campaign goes on to
 * build and measure the next one.
 *
 * At most one record is outstanding: submitting waits for the previous one
 * to commit, so the database is never more than one configuration behind
 * the campaign, and a killed run loses at most the configuration being
 * written and the one in flight. Every record is still its own
 * transaction. An error in the writer is returned by the next call. */
#ifndef SKYTUNE_STORE_WRITER_H
#define SKYTUNE_STORE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "measurement.h"
#include "store.h"

typedef struct store_writer store_writer;

int store_writer_start(store *st, store_writer **out, skytune_error *err);

/* Takes ownership of *m's samples and message (m is reinitialised); the
 * strings are copied. */
int store_writer_submit(store_writer *w, int64_t campaign_id, int64_t seq, const char *config_text,
                        uint64_t config_hash, const char *const *names,
                        const char *const *values, size_t n_params, measurement *m,
                        skytune_error *err);

/* Waits for the outstanding record, then records a cached evaluation in the
 * caller's thread. */
int store_writer_record_cached(store_writer *w, int64_t campaign_id, int64_t seq,
                               int64_t measurement_id, skytune_error *err);

/* Waits for the outstanding record and ends the thread; returns its error. */
int store_writer_finish(store_writer *w, skytune_error *err);

#endif
