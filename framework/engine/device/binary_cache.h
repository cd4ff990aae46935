/* Program binaries on disk, so that a configuration compiled once (by this
 * run, a compile worker, or an earlier campaign over the same space) is
 * never compiled again.
 *
 * An entry is keyed by the platform, the device name and OpenCL version,
 * the driver version, the full source text compiled, every file it
 * includes (compiler_inputs.h) and the complete build options. It holds either the program binary (CL_PROGRAM_BINARIES) or a
 * recorded build failure (the OpenCL error and the build log): the same
 * source and options fail the same way on the same driver, so a cached
 * failure saves the compiler too.
 *
 * The file name is 128 bits of hash of the key; the entry also holds the
 * whole key text and a checksum of its contents, and a load compares both,
 * so neither a hash collision nor a damaged file can hand back a wrong
 * binary. Entries are written to a temporary file in the same folder and
 * renamed into place: processes sharing the folder (compile workers, a
 * measuring worker, concurrent runs) see a whole entry or none. A file that
 * is damaged, truncated or not an entry reads as a miss and is removed.
 *
 * The folder has a size limit: a store that takes it past the limit
 * removes the least recently used entries (a load marks an entry used by
 * touching its modification time) until the folder is at most 90 % of the
 * limit, so that the next stores do not each rescan it.
 *
 * A binary_cache object is used by one thread at a time; each process
 * opens its own. */
#ifndef SKYTUNE_BINARY_CACHE_H
#define SKYTUNE_BINARY_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define BINARY_CACHE_DEFAULT_MAX_BYTES (UINT64_C(1) << 30)
/* Hex digits of an entry's name (128 bits of hash). */
#define BINARY_CACHE_NAME_LEN 32

typedef struct binary_cache binary_cache;

/* The folder used when none is given: $SKYTUNE_CACHE_DIR, else
 * $XDG_CACHE_HOME/skytune/binaries (when absolute, as the XDG specification
 * asks), else $HOME/.cache/skytune/binaries. *out is malloc'd. */
int binary_cache_default_dir(char **out, skytune_error *err);

/* dir: the folder, or NULL for the default; it is created (with its
 * parents, mode 0700) by the first store, not here. max_bytes: the size
 * limit of the folder's entries, 0 for none. Fails when dir exists and is
 * not a folder. */
int binary_cache_open(const char *dir, uint64_t max_bytes, binary_cache **out,
                      skytune_error *err);
void binary_cache_close(binary_cache *c);
const char *binary_cache_dir(const binary_cache *c);

/* Where the folder is not this user's alone (a symbolic link, another
 * user's folder, or one others can write), why, in words; NULL when it
 * is. A binary cache object on such a folder reads nothing (every load is
 * a miss) and writes nothing: a binary planted there would run as this
 * user's code. The caller says so once and compiles from source. Entries
 * are checked the same way one by one (binary_cache_counts.untrusted). */
const char *binary_cache_distrust(const binary_cache *c);
bool binary_cache_folder_trusted(const char *dir, char *why, size_t len);

/* ------------------------------------------------------------ keys */

typedef struct binary_cache_key {
    char *text;       /* malloc'd; what an entry must hold to match */
    size_t text_len;
    char name[BINARY_CACHE_NAME_LEN + 1];  /* hex: the entry's file name */
} binary_cache_key;

/* The key of `source` built with `options` on the device `dev`. */
int binary_cache_key_make(const skytune_device_info *dev, const char *source,
                          const char *options, binary_cache_key *key, skytune_error *err);
void binary_cache_key_clear(binary_cache_key *key);

/* ------------------------------------------------------------ entries */

typedef enum binary_cache_found {
    BINARY_CACHE_MISS = 0,
    BINARY_CACHE_BINARY = 1,    /* entry.binary holds the program binary */
    BINARY_CACHE_FAILURE = 2,   /* entry.build_status and entry.build_log */
} binary_cache_found;

typedef struct binary_cache_entry {
    unsigned char *binary;      /* malloc'd */
    size_t binary_size;
    int build_status;           /* the OpenCL error clBuildProgram returned */
    char *build_log;            /* malloc'd, NUL-terminated */
} binary_cache_entry;

/* Returns a binary_cache_found, with *entry filled (release it with
 * binary_cache_entry_clear), or -1 when the folder or the entry cannot be
 * read (permissions, I/O error, no memory). */
int binary_cache_load(binary_cache *c, const binary_cache_key *key, binary_cache_entry *entry,
                      skytune_error *err);
void binary_cache_entry_clear(binary_cache_entry *entry);

/* Store (or replace) the entry of `key`. Only a failure that the same
 * source, options and driver would repeat belongs here; a compile that was
 * killed or timed out, or ran out of memory, does not. 0 when the entry is
 * in place (a size limit that could not be kept then is counted among the
 * errors and kept as binary_cache_last_error, not returned); -1 with err
 * when it could not be written, and binary_cache_store_reason says why. */
int binary_cache_store_binary(binary_cache *c, const binary_cache_key *key,
                              const unsigned char *binary, size_t size, skytune_error *err);
int binary_cache_store_failure(binary_cache *c, const binary_cache_key *key, int build_status,
                               const char *log, skytune_error *err);

/* ------------------------------------------------------------ accounting */

/* What one cache object has done, for a run's summary and for tests. A
 * caller that gives the cache's binary to the driver and has it refused
 * says so with binary_cache_note_rejected. */
typedef struct binary_cache_counts {
    uint64_t binary_hits, failure_hits, misses;
    uint64_t rejected;          /* binaries the driver refused */
    uint64_t stores;
    uint64_t evicted;           /* entries removed for the size limit */
    uint64_t errors;            /* loads and stores that failed */
    uint64_t untrusted;         /* entries passed over: not regular files, or not this user's
                                   alone */
} binary_cache_counts;

void binary_cache_note_rejected(binary_cache *c);
binary_cache_counts binary_cache_get_counts(const binary_cache *c);
/* The message of the last load or store that failed; "" when none did. A
 * failing cache never stops a measurement, so this is how it is told. */
const char *binary_cache_last_error(const binary_cache *c);
/* Why the last store that failed could not write its entry, in a few words
 * that are the same for every entry one cause refuses: strerror's text
 * ("No space left on device"), "out of memory", or why the folder is not
 * used. The message names the entry; this is what a run counts its stores
 * under. "" when no store has failed. */
const char *binary_cache_store_reason(const binary_cache *c);

/* ------------------------------------------------------------ the folder */

typedef struct binary_cache_folder_usage {
    uint64_t entries, bytes;
    uint64_t others;            /* what else lies at entries' names (FIFOs, links, sockets) */
} binary_cache_folder_usage;

/* The entries in `dir`, their total size, and what else lies at their
 * names; all 0 when the folder does not exist. */
int binary_cache_usage(const char *dir, binary_cache_folder_usage *out, skytune_error *err);

/* Remove every entry of `dir`, any temporary file a writer left and
 * whatever else lies at an entry's name; nothing else in the folder is
 * touched. *removed counts them. */
int binary_cache_clear(const char *dir, binary_cache_folder_usage *removed, skytune_error *err);

#endif
