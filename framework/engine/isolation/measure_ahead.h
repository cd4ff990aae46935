/* Measuring workers that get the next configurations ready while the
 * device times the current one.
 *
 * Loading a program is not free even from the binary cache: NVIDIA's
 * binaries are PTX, and every process JIT-compiles them again (~70 ms a
 * configuration on an H100 with the driver's own cache off), while timing
 * a configuration may take a few milliseconds. So a few spare measuring
 * workers are given the configurations the strategy will probably ask next;
 * each builds its configuration and then waits at the device gate
 * (STAGE_PREPARE, see worker_setup.wait_for_go). When the campaign asks for
 * one, the supervisor takes that worker over and lets it through the gate:
 * the device only ever waits for the one configuration it is timing. A
 * configuration no longer predicted is cancelled at the gate, before
 * anything runs on the device.
 *
 * Like the compile pool it has no thread: the supervisor polls its
 * descriptors while it waits and calls measure_ahead_service. A spare
 * worker that dies or hangs while building is replaced; its configuration
 * is measured again, in turn, where what it does is recorded. */
#ifndef SKYTUNE_MEASURE_AHEAD_H
#define SKYTUNE_MEASURE_AHEAD_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "space.h"
#include "worker_process.h"
#include "worker_protocol.h"

typedef struct measure_ahead measure_ahead;

typedef struct measure_ahead_options {
    const char *worker_exe;
    worker_setup setup;          /* as the supervisor's measuring worker's */
    unsigned workers;            /* spare measuring workers, >= 1 */
    double compile_timeout_s;    /* a build running longer is killed */
    double setup_timeout_s;      /* a worker not ready by then is killed */
    /* What a spare writes during its set-up, as a line for the log (may be
     * NULL: forgotten). What it writes building a configuration goes with
     * the worker when it is handed over. */
    void (*on_notice)(void *ctx, const char *text);
    void *notice_ctx;
    /* What became of the cache entry of each build a spare finished and
     * told here: one that ended before the gate, or was cancelled there
     * (may be NULL: forgotten). A build handed over is told to the
     * supervisor with its result. */
    void (*on_entry)(void *ctx, cache_entry_outcome outcome, const char *reason);
    void *entry_ctx;
} measure_ahead_options;

/* Starts the workers without waiting for them. `sp` must outlive it. */
int measure_ahead_open(const measure_ahead_options *o, const space *sp, measure_ahead **out,
                       skytune_error *err);
void measure_ahead_close(measure_ahead *a);

/* The configurations the strategy will probably ask next, soonest first:
 * the first ones go to idle workers; one being built or waiting that is no
 * longer among them is cancelled. Those sent now are raced with
 * race_limit_ns, the campaign's limit at this moment (racing.h): an older,
 * higher limit stops fewer, and never one of the best. */
void measure_ahead_hint(measure_ahead *a, const uint64_t *ranks, size_t n,
                        double race_limit_ns);

size_t measure_ahead_pollfds(const measure_ahead *a, struct pollfd *fds, size_t cap);
double measure_ahead_deadline(const measure_ahead *a);
void measure_ahead_service(measure_ahead *a, const struct pollfd *fds, size_t n);

/* A worker handed over with its request in flight. */
typedef struct ahead_handover {
    worker_process proc;
    uint64_t request;            /* its MEASURE's id */
    /* STAGE_BUILD, STAGE_PREPARE (at the gate) or, running, the stage it
     * reported last */
    measure_stage stage;
    bool running;                /* let through the gate already (go_at) */
    double go_at;
    double started, build_end;   /* monotonic seconds; build_end 0 while building */
    bool finished;               /* it ended before the gate (a compile failure) */
    measurement result;          /* finished: the result (owned by the caller) */
} ahead_handover;

/* While the measuring worker compares its outputs (the device done with
 * its configuration), the spare that holds `rank`, the configuration the
 * strategy will probably ask next, waiting at the gate, is let through it
 * now: the device times it meanwhile. True when one was. Its run must end
 * within limit_s, or the spare is ended and the configuration measured
 * again in its turn. When the strategy asks something else after all, the
 * result is kept while the configuration stays predicted. */
bool measure_ahead_go_early(measure_ahead *a, uint64_t rank, double limit_s);

/* Whether a spare let through early is still using the device (not yet at
 * its release): nobody else may be given the device until it is. */
bool measure_ahead_device_busy(const measure_ahead *a);

/* If a worker has `rank` in hand, give it to the caller (true) and put
 * `spare` — the caller's idle measuring worker, or one with pid 0 — in its
 * place. */
bool measure_ahead_take(measure_ahead *a, uint64_t rank, const worker_process *spare,
                        ahead_handover *out);

#endif
