/* What the builds of a run did with their binary cache entries, counted.
 *
 * A build tells what became of its entry (cache_entry_outcome): taken from
 * the cache, compiled and stored, or compiled and not stored, and then
 * why. A store that fails never fails a measurement (the configuration is
 * compiled and measured all the same), so without this count a full disk
 * would go unseen: a run would say it compiled ahead what the next run
 * then compiles again. The builds happen in worker processes; their
 * outcomes reach the engine with each result (worker_protocol.h) and are
 * counted here for the run's summary. */
#ifndef SKYTUNE_CACHE_ENTRIES_H
#define SKYTUNE_CACHE_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cache_entry_outcome {
    CACHE_ENTRY_NONE = 0,        /* nothing to keep or nowhere to keep it: no cache, a failure
                                    that would not repeat, one before the compiler, or a build
                                    the driver's own cache keeps (binary_keeping.h) */
    CACHE_ENTRY_FOUND = 1,       /* the cache held it: nothing was compiled */
    CACHE_ENTRY_STORED = 2,      /* compiled, and the entry written */
    CACHE_ENTRY_NOT_STORED = 3,  /* compiled, and the entry could not be written */
    CACHE_ENTRY_OUTCOMES = 4
} cache_entry_outcome;

/* Why an entry was not stored, in a few words the same for every entry one
 * cause refuses ("No space left on device"). */
#define CACHE_ENTRY_REASON_LEN 256

typedef struct cache_entries {
    uint64_t found, stored, not_stored;
    /* Why the first entry that could not be stored was not; "" while none. */
    char first_reason[CACHE_ENTRY_REASON_LEN];
} cache_entries;

/* Count one build's outcome; reason: why it was not stored (read for
 * CACHE_ENTRY_NOT_STORED only; NULL reads as unknown). Returns true for
 * the first entry that was not stored, which is when to tell the user. */
bool cache_entries_count(cache_entries *e, cache_entry_outcome outcome, const char *reason);

/* The notice a run gives once, at its first entry not stored: the
 * folder `dir` cannot be written, why (first_reason), and what that
 * costs. */
void cache_entries_unwritable_notice(const char *dir, const char *reason, char *buf, size_t len);

#endif
