/* Compile workers that build configurations ahead of the device.
 *
 * The OpenCL compiler is the slow part of a campaign (on an H100 ~235 ms a
 * configuration against a few ms of timed runs) and a driver's compiler may
 * not run in parallel inside one process, so the pool is processes: each a
 * `skytune worker compile` that builds what it is given into the on-disk
 * binary cache, where the measuring worker then finds it (or, where the
 * entry could not be stored, builds it again). The campaign tells
 * the pool what the strategy will probably ask next (compile_pool_hint); the
 * pool keeps its workers busy with that list, never building a
 * configuration twice.
 *
 * The pool has no thread of its own: whoever waits (the supervisor, while
 * the device measures) polls the pool's descriptors with its own and calls
 * compile_pool_service. A compile worker that dies or hangs past the compile
 * limit is killed and replaced; its configuration is left to the measuring
 * worker, which records what happens to it. */
#ifndef SKYTUNE_COMPILE_POOL_H
#define SKYTUNE_COMPILE_POOL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "space.h"
#include "worker_protocol.h"

typedef struct compile_pool compile_pool;

typedef struct compile_pool_options {
    const char *worker_exe;
    worker_setup setup;         /* as the measuring worker's; must name a cache */
    unsigned jobs;              /* worker processes, >= 1 */
    double compile_timeout_s;   /* a build running longer is killed */
    double setup_timeout_s;     /* a worker not ready by then is killed */
    /* What a worker writes outside a build (its set-up, its end), as a
     * line for the log (may be NULL: forgotten). */
    void (*on_notice)(void *ctx, const char *text);
    void *notice_ctx;
    /* What became of each finished build's cache entry: stored, found
     * there, or not stored and why (may be NULL: forgotten). A store that
     * fails fails no build, so this is the only place it shows. */
    void (*on_entry)(void *ctx, cache_entry_outcome outcome, const char *reason);
    void *entry_ctx;
} compile_pool_options;

/* Starts the workers without waiting for them. `space` must outlive the pool. */
int compile_pool_open(const compile_pool_options *o, const space *sp, compile_pool **out,
                      skytune_error *err);
/* Ends every worker (they are killed: a build in flight is not needed). */
void compile_pool_close(compile_pool *p);

/* The configurations to build next, most wanted first. Replaces the
 * previous list; builds in flight go on. */
void compile_pool_hint(compile_pool *p, const uint64_t *ranks, size_t n);

/* What a compile worker wrote to its output while building this
 * configuration (a driver's compiler messages), malloc'd, for the
 * configuration's message; NULL when nothing. Taken once. The pool keeps
 * the latest COMPILE_POOL_OUTPUTS of them. */
#define COMPILE_POOL_OUTPUTS 64
char *compile_pool_take_output(compile_pool *p, uint64_t rank);

/* Seconds a compile worker spent on this configuration before the compile
 * limit ended it (it was killed); 0 when none did. The pool keeps the
 * latest COMPILE_POOL_OUTPUTS of them. A build that outlasted the limit in
 * a compile worker is not built again by the measuring worker, which would
 * wait as long again: a hung compiler costs one compile limit, not two. */
double compile_pool_timed_out_s(const compile_pool *p, uint64_t rank);

/* Whether a worker is building this configuration now. */
bool compile_pool_building(const compile_pool *p, uint64_t rank);
/* Whether a worker finished building `rank` (its binary, or its failure, is
 * in the cache) or gave it up to the measuring worker. */
bool compile_pool_done(const compile_pool *p, uint64_t rank);

/* The descriptors to poll (at most `cap`), and the time (monotonic seconds)
 * by which compile_pool_service must be called even if none is ready
 * (a watchdog); +infinity when none. */
size_t compile_pool_pollfds(const compile_pool *p, struct pollfd *fds, size_t cap);
double compile_pool_deadline(const compile_pool *p);

/* Read what the workers said (fds as filled by compile_pool_pollfds and
 * polled), enforce the compile limit, replace dead workers, hand out work. */
void compile_pool_service(compile_pool *p, const struct pollfd *fds, size_t n);

/* Stop every worker (SIGSTOP) while a CPU device times a configuration, and
 * let them go on; the paused time does not count against the limit. */
void compile_pool_pause(compile_pool *p);
void compile_pool_resume(compile_pool *p);

typedef struct compile_pool_stats {
    uint64_t built;        /* builds that finished: compiled (a binary or a compile
                              failure), or found in the cache; on_entry says which */
    uint64_t failed;       /* workers that died or timed out building */
    uint64_t restarts;     /* workers replaced */
    double busy_s;         /* seconds of building, summed over workers */
} compile_pool_stats;

void compile_pool_get_stats(const compile_pool *p, compile_pool_stats *out);

#endif
