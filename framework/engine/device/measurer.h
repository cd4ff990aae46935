/* Measuring configurations of one plugin on one OpenCL device for one
 * problem instance: build, verify against the CPU reference, warm up, time.
 *
 * Opening a measurer creates the context and a profiling queue, calls the
 * plugin's setup and reference once. Each measurement then builds the
 * program with the configuration's -D defines, prepares, clears the outputs,
 * runs once and verifies, runs once to warm up, and runs `runs` more times,
 * each timed with OpenCL profiling events (all of a run's events summed).
 *
 * Phases mean what they say on every driver. Some drivers (PoCL) generate
 * the device code of a kernel at its first launch, for the work-group size
 * it is launched with, not in clBuildProgram. The verification run is the
 * first launch: its wall time beyond its kernels' own profiled time counts
 * as build_s, not verify_s, and is reported as first_launch_extra_s. The
 * stage stays `verify` throughout: when a driver calls an event's
 * callbacks (at the start of a kernel, or only at its end, as NVIDIA's
 * does) must not decide which limit a hanging kernel gets. The supervisor
 * allows the first launch time for code generation from what it measured
 * (supervisor.h).
 *
 * With a binary cache, a configuration's program comes from the cache when
 * an earlier build left it there, and a build from source leaves its
 * binary (or its failure) there for the next time; on PoCL's CPU devices
 * only its failure, the build itself being PoCL's kernel cache's to keep
 * (binary_keeping.h). An entry that cannot be stored never fails the
 * measurement; measurer_cache_entry tells it. */
#ifndef SKYTUNE_MEASURER_H
#define SKYTUNE_MEASURER_H

#include <stdbool.h>
#include <stdint.h>

#include "binary_cache.h"
#include "cache_entries.h"
#include "cl_device.h"
#include "error.h"
#include "measurement.h"
#include "trace.h"

typedef struct measurer measurer;

/* Where outputs are compared with the reference (`skytune run --compare`):
 * on the device (device_compare.h) needs the plugin's device_outputs and
 * double precision on the device; otherwise, and on the host, the plugin's
 * read_back and verify do. The verdicts are the same; the difference is
 * the time, which on the device does not grow with reading the outputs
 * back. */
typedef enum measurer_compare {
    COMPARE_AUTO,     /* on the device for GPUs, on the host for CPU devices */
    COMPARE_HOST,
    COMPARE_DEVICE,   /* on the device wherever it can be, CPU devices too */
} measurer_compare;

typedef struct measurer_options {
    unsigned runs;               /* timed runs per configuration (>= 1) */
    /* Untimed runs between the verification run (itself the first launch,
     * and the default warm-up) and the timed runs. */
    unsigned warm_up_runs;
    uint64_t seed;               /* inputs */
    /* Called as each stage of a measurement begins (may be NULL). A
     * measuring worker reports stages to its supervisor, so that a crash or
     * a hang is attributed to one, and waits in STAGE_PREPARE until the
     * device is its to use (the build done, the configuration wanted, a CPU
     * device's compile workers paused). Returning false there abandons the
     * measurement before anything runs on the device (a configuration built
     * ahead that the strategy did not ask for after all); the return is
     * ignored at every other stage. */
    bool (*on_stage)(void *ctx, measure_stage stage);
    void *stage_ctx;
    /* Program binaries on disk (NULL: always compile). Kept by reference:
     * it must outlive the measurer, and is used from its thread only. */
    binary_cache *cache;
    /* For a compile worker, which only builds (measurer_compile): no CPU
     * reference. The plugin's setup still runs, since its `defines`
     * callback reads the setup state. Such a measurer refuses to measure. */
    bool skip_reference;
    /* Where the stages of each configuration are traced (`--trace`), or
     * NULL. Kept by reference. */
    trace *trace;
    /* The campaign's shared CPU reference (shared_reference.h): read when
     * an earlier worker left it, else computed and left there; NULL: every
     * measurer computes its own. */
    const char *reference_file;
    /* Time the plugin's host-device copies (its `transfers` callback) as
     * parts of every run (run_transfers.h); opening fails for a plugin that
     * names none. Off: the kernels alone, as tuning them needs. */
    bool transfers;
    /* What the plugin's reference is, in words, for a wrong_result's
     * message (NULL: "the CPU reference"); kept by reference. A T1 file's
     * may be the outputs of its Default configuration, say. */
    const char *reference_name;
    measurer_compare compare;
} measurer_options;

/* `plugin`, `device` and `problem` are kept by reference: they must outlive
 * the measurer. */
int measurer_open(const skytune_plugin *plugin, const cl_device_entry *device,
                  const skytune_values *problem, const measurer_options *opts, measurer **out,
                  skytune_error *err);
void measurer_close(measurer *ms);

/* Measure one configuration. Failures of the configuration are statuses in
 * *m (return 0); -1 only when the device itself is unusable. A measurement
 * abandoned by on_stage returns 0 with m->abandoned set. */
int measurer_measure(measurer *ms, const skytune_values *config, measurement *m,
                     skytune_error *err);

/* The same, raced: with race_limit_ns > 0, the timed runs stop early once
 * race_stops (racing.h) says the configuration is clearly slower than the
 * campaign's best, and m->raced is set; its statistics are those of the
 * runs made. 0: every run. */
int measurer_measure_raced(measurer *ms, const skytune_values *config, double race_limit_ns,
                           measurement *m, skytune_error *err);

/* Build one configuration's program and nothing more, ahead of the
 * device: from the cache when it holds the binary (or the failure),
 * otherwise compiled and stored there. m->status is MEAS_OK or
 * MEAS_COMPILE (with the same message measurer_measure gives), and
 * m->build_s the time it took. Failures of the configuration are statuses
 * in *m (return 0). */
int measurer_compile(measurer *ms, const skytune_values *config, measurement *m,
                     skytune_error *err);

/* What the last measurer_measure or measurer_compile did with its
 * program's cache entry: found it, stored it, could not store it (then
 * *reason says why, in a few words), or neither. The caller counts it: in
 * a worker nobody else sees it. */
cache_entry_outcome measurer_cache_entry(const measurer *ms, const char **reason);

/* Whether the device still answers after a configuration failed to launch:
 * some drivers (NVIDIA's after an illegal memory access) leave the context
 * unusable for good, and every later configuration would fail with it. */
bool measurer_device_usable(measurer *ms);

/* The build options a configuration gets, for `plugins show` and logs;
 * -1 with a message when they do not fit or the plugin's defines fails. */
int measurer_build_options(const measurer *ms, const skytune_values *config, char *buf,
                           size_t len, skytune_error *err);

#endif
