/* The supervisor: measuring in a worker process that may die or hang
 * without taking the campaign with it.
 *
 * It is the campaign's evaluator for a real device. Each configuration goes
 * to the measuring worker (`skytune worker measure`), which reports every
 * stage as it begins. A worker that dies (a signal, exit(), a lost pipe) is
 * recorded as a `crash` of the configuration in the stage it was in; one
 * that outlives the watchdog is killed and recorded as a `timeout`. Either
 * way a new worker is started, and before going on it re-times the best
 * configuration so far: a device whose time drifted past the threshold is
 * reported degraded and its measurements are flagged until a check passes.
 *
 * The watchdog's limit for a configuration after its build is
 * min(cap, floor + factor × the slowest ok configuration's verify and
 * timed seconds so far); the build has its own limit. A driver may
 * generate a kernel's device code at its first launch (measurer.h), the
 * verification run: that stage is allowed factor × more, the most an
 * earlier first launch took beyond its kernels or, before any has been
 * measured, the configuration's own build time (at least 0.5 s). Neither
 * depends on when the driver
 * calls an event's callbacks, so a kernel that never ends is a timeout in
 * the stage it hangs in within the kernel's limit on every driver, never
 * under the compile limit. While the worker measures,
 * the supervisor also keeps the compile pool (if any) busy, and tells the
 * campaign's watcher (evaluator.watch) the stage and time of the
 * configuration in flight. What a worker writes to its standard output and
 * error goes into the configuration's message, or, outside any
 * configuration, to on_notice (worker_process.h). So does, once, the first
 * program whose cache entry could not be stored (a full disk): the run
 * goes on, and supervisor_stats counts such entries. */
#ifndef SKYTUNE_SUPERVISOR_H
#define SKYTUNE_SUPERVISOR_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cache_entries.h"
#include "error.h"
#include "evaluator.h"
#include "space.h"
#include "trace.h"
#include "worker_protocol.h"

typedef struct supervisor_limits {
    double floor_s;            /* default 10 s */
    double factor;             /* default 10 */
    double cap_s;              /* default 600 s; also a worker's own set-up */
    double compile_s;          /* the build stage; default 300 s */
    double stop_grace_s;       /* after a stop request; default 3 s */
} supervisor_limits;

typedef struct supervisor_health {
    double threshold;          /* relative drift of the reference's median; default 0.25 */
    unsigned retries;          /* re-checks while degraded before going on; default 3 */
    double wait_s;             /* before the second re-check, doubling after; default 2 s;
                                  0: every re-check at once (a CPU device: tuning_run.c) */
    unsigned every;            /* while still degraded, check again after this many
                                  measurements; default 10 */
} supervisor_health;

typedef struct supervisor_options {
    const char *worker_exe;    /* the skytune executable (`EXE worker ROLE`) */
    worker_setup setup;
    supervisor_limits limits;
    supervisor_health health;
    unsigned compile_jobs;     /* compile workers; 0 = none (needs setup.cache_dir) */
    /* Spare measuring workers that build the next configurations and wait
     * at the device gate (measure_ahead.h); 0 = none. */
    unsigned measure_ahead;
    /* A CPU device: compile workers are stopped while a configuration runs
     * on it. */
    bool pause_compile_for_device;
    volatile sig_atomic_t *stop_requested;   /* may be NULL */
    /* Lines for the log: faults, health checks (may be NULL). */
    void (*on_notice)(void *ctx, const char *text);
    void *notice_ctx;
    /* `--trace`: the engine's track, for the supervisor's own waits (a
     * worker starting, a build still running, a health check); its workers
     * append to setup.trace_path. NULL: none. */
    trace *trace;
} supervisor_options;

void supervisor_limits_default(supervisor_limits *l);
void supervisor_health_default(supervisor_health *h);

typedef struct supervisor supervisor;

/* Starts the measuring worker and waits until it is ready (its set-up and
 * the CPU reference done), so that a plugin that cannot set up fails here,
 * before anything is measured. `space` must outlive the supervisor. */
int supervisor_open(const supervisor_options *o, const space *sp, supervisor **out,
                    skytune_error *err);
void supervisor_close(supervisor *s);

evaluator supervisor_evaluator(supervisor *s);

typedef struct supervisor_stats {
    uint64_t crashes, timeouts, restarts;
    uint64_t health_checks, health_failures;
    uint64_t compiled_ahead;   /* builds the compile pool finished */
    /* What became of the cache entries of the compile workers' builds, and
     * of the measuring workers' own (spares included): the measuring
     * worker builds again what a compile worker could not store. */
    cache_entries ahead_entries, measuring_entries;
    uint64_t retired;          /* workers ended after a wrong result or a failed launch */
    /* Spares let through the gate while the configuration before compared
     * its outputs (measure_ahead_go_early). */
    uint64_t early_runs;
    uint64_t confirmations;    /* failures (wrong results, crashes, failed launches)
                                  measured again in a fresh worker */
    uint64_t damaged;          /* of those, right there: an earlier configuration's damage */
} supervisor_stats;

void supervisor_get_stats(const supervisor *s, supervisor_stats *out);

#endif
