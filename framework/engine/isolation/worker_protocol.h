/* The messages between the engine and its worker processes, over a pipe.
 *
 * A message is a 12-byte header (magic, protocol version, type, payload
 * length) and a payload of fields written in order: integers and doubles in
 * the host's byte order (both ends are the same binary on the same host),
 * strings as a length and bytes. The version is checked on every message,
 * so a worker from another build is refused instead of misread.
 *
 * Engine → worker: SETUP once, then MEASURE (with its race limit) or COMPILE
 * requests one at a time, GO (or CANCEL) when a measurement may use the
 * device, QUIT.
 * Worker → engine: READY (or FAILED) after SETUP, STAGE as each stage of a
 * request begins, RESULT (worker_result) for each request. */
#ifndef SKYTUNE_WORKER_PROTOCOL_H
#define SKYTUNE_WORKER_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache_entries.h"
#include "error.h"
#include "measurement.h"

#define WORKER_PROTOCOL_MAGIC 0x534b5750u /* "SKWP" */
#define WORKER_PROTOCOL_VERSION 3u
/* A payload larger than this is a corrupt stream, not a message. */
#define WORKER_MESSAGE_LIMIT (64u * 1024u * 1024u)

typedef enum worker_message_type {
    WORKER_MSG_SETUP = 1,
    WORKER_MSG_MEASURE = 2,
    WORKER_MSG_COMPILE = 3,
    WORKER_MSG_GO = 4,
    WORKER_MSG_QUIT = 5,
    WORKER_MSG_CANCEL = 6,
    WORKER_MSG_READY = 16,
    WORKER_MSG_FAILED = 17,
    WORKER_MSG_STAGE = 18,
    WORKER_MSG_RESULT = 19
} worker_message_type;

/* A growable payload being written, or a payload being read. */
typedef struct worker_message {
    uint32_t type;
    unsigned char *data;
    size_t size, capacity;
    size_t read_pos;
    bool bad;            /* a read ran past the end, or a write ran out of memory */
} worker_message;

void worker_message_init(worker_message *msg, worker_message_type type);
void worker_message_free(worker_message *msg);

void worker_put_u32(worker_message *msg, uint32_t v);
void worker_put_u64(worker_message *msg, uint64_t v);
void worker_put_f64(worker_message *msg, double v);
void worker_put_str(worker_message *msg, const char *s); /* NULL is written as "" */

uint32_t worker_get_u32(worker_message *msg);
uint64_t worker_get_u64(worker_message *msg);
double worker_get_f64(worker_message *msg);
/* A malloc'd copy, or NULL (and msg->bad) when the payload is short. */
char *worker_get_str(worker_message *msg);

/* Named typed values (a problem or a configuration), as name, type and
 * canonical text, so that the worker rebuilds exactly the engine's values. */
void worker_put_values(worker_message *msg, const skytune_named_value *items, size_t count);
/* Items and their names and strings are malloc'd; free with
 * worker_values_free. Returns -1 with err on a malformed payload. */
int worker_get_values(worker_message *msg, skytune_named_value **items, size_t *count,
                      skytune_error *err);
void worker_values_free(skytune_named_value *items, size_t count);

/* A MEASURE request's payload: its id, the configuration, and the race
 * limit its timed runs stop at (measurer_measure_raced; 0: none). A
 * COMPILE request has the same payload without the limit. */
void worker_put_measure_request(worker_message *msg, uint64_t request,
                                const skytune_named_value *items, size_t count,
                                double race_limit_ns);

void worker_put_measurement(worker_message *msg, const measurement *m);
/* Fills *m (initialised here; samples and message owned by it). */
int worker_get_measurement(worker_message *msg, measurement *m, skytune_error *err);

/* A RESULT: the request it answers, its measurement, whether the device's
 * context was lost with it (the worker is of no more use), and what became
 * of the build's binary cache entry, which only the worker sees. */
typedef struct worker_result {
    uint64_t request;
    measurement m;
    bool context_lost;
    cache_entry_outcome entry;
    char entry_reason[CACHE_ENTRY_REASON_LEN];   /* CACHE_ENTRY_NOT_STORED: why */
} worker_result;

void worker_put_result(worker_message *msg, const worker_result *r);
/* Fills *r; r->m is the caller's to clear. -1 with err on a malformed
 * payload, and nothing to clear. */
int worker_get_result(worker_message *msg, worker_result *r, skytune_error *err);

/* What every worker of a campaign is set up with (the SETUP message). */
typedef struct worker_setup {
    const char *plugin_path;           /* as loaded by the engine */
    unsigned platform_index, device_index;
    const char *device_name;           /* checked by the worker */
    const skytune_values *problem;
    unsigned runs;
    unsigned warm_up_runs;             /* measurer_options.warm_up_runs */
    bool transfers;                    /* measurer_options.transfers */
    unsigned compare;                  /* measurer_options.compare, a measurer_compare */
    uint64_t seed;
    const char *cache_dir;             /* NULL: no binary cache */
    uint64_t cache_max_bytes;
    /* The worker waits at STAGE_PREPARE for GO (or CANCEL) before it runs
     * anything on the device: the engine hands the device to one worker at
     * a time, builds configurations ahead in others, and pauses a CPU
     * device's compile workers first (a CPU runtime's thread pool slows
     * down many times over when its cores are oversubscribed). */
    bool wait_for_go;
    /* The campaign's trace file (`--trace`), which the worker appends its
     * spans to; NULL: none. */
    const char *trace_path;
    /* The campaign's shared CPU reference (measurer_options.reference_file);
     * NULL: each worker computes its own. */
    const char *reference_file;
} worker_setup;

/* SETUP for a worker of `role` (a worker_role). */
void worker_put_setup(worker_message *msg, uint32_t role, const worker_setup *setup);

/* Write the whole message; -1 with err when the pipe is gone. Never raises
 * SIGPIPE (the caller ignores it). */
int worker_send(int fd, const worker_message *msg, skytune_error *err);

/* Read one message into *msg (initialised here). Returns 1 with a message,
 * 0 at a clean end of stream before a header, -1 with err on a short or
 * malformed message (wrong magic or version, oversize payload). Blocks. */
int worker_receive(int fd, worker_message *msg, skytune_error *err);

#endif
