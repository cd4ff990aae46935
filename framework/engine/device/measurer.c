#include "measurer.h"
#include "run_transfers.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary_keeping.h"
#include "build_options.h"
#include "canonical.h"
#include "clock.h"
#include "device_compare.h"
#include "plugin_lookup.h"
#include "plugin_problem.h"
#include "quote.h"
#include "shared_reference.h"
#include "racing.h"
#include "stats.h"
#include "value.h"

/* Build logs can be megabytes when a generated kernel goes wrong; the first
 * part says what failed. */
#define BUILD_LOG_LIMIT (64 * 1024)
#define MAX_RUNS 100000

struct measurer {
    const skytune_plugin *plugin;
    const cl_device_entry *device;
    /* The problem as callbacks see it: its lookups recorded in `lookups`,
     * as are the configuration's (plugin_lookup.h). */
    skytune_values problem;
    skytune_lookup_log lookups;
    measurer_options opts;
    cl_context context;
    cl_command_queue queue;
    void *state;
    /* What the last build did with its cache entry, and why it was not
     * stored when it was not. */
    cache_entry_outcome entry;
    char entry_reason[CACHE_ENTRY_REASON_LEN];
    /* Whether a build from source stores its program binary, or leaves the
     * build to the driver's own cache (binary_keeping.h). */
    bool keep_binaries;
    measure_stage stage;      /* the stage the measurement is in */
    run_transfers transfers;  /* opts.transfers: the copies timed with every run */
    /* The comparison on the device (opts.compare), or NULL: on the host. */
    device_compare *compare;
};

/* The span from `since` to now on this process's trace track; returns now,
 * the start of the next span. */
static double traced(measurer *ms, const char *name, double since)
{
    double now = clock_monotonic_s();
    trace_span(ms->opts.trace, name, "stage", since, now, NULL);
    return now;
}

static bool enter_stage(measurer *ms, measure_stage stage)
{
    ms->stage = stage;
    return ms->opts.on_stage ? ms->opts.on_stage(ms->opts.stage_ctx, stage) : true;
}

/* The arrays the plugin's reference fills (reference_data), or 0 of them
 * when it names none or fails to. */
static size_t reference_regions(measurer *ms, skytune_region *regions)
{
    size_t count = 0;
    skytune_error ignored = {0};
    if (!ms->plugin->reference_data ||
        ms->plugin->reference_data(ms->state, regions, SKYTUNE_MAX_REFERENCE_REGIONS, &count,
                                   &ignored) != 0 ||
        count > SKYTUNE_MAX_REFERENCE_REGIONS)
        return 0;
    for (size_t k = 0; k < count; k++)
        if (!regions[k].data && regions[k].bytes) return 0;
    return count;
}

/* The CPU reference: copied from the campaign's shared file when an
 * earlier worker left it there, else computed and left there for the
 * workers after this one (shared_reference.h). */
static int obtain_reference(measurer *ms, double since, skytune_error *err)
{
    const skytune_plugin *plugin = ms->plugin;
    skytune_region regions[SKYTUNE_MAX_REFERENCE_REGIONS];
    size_t count = ms->opts.reference_file ? reference_regions(ms, regions) : 0;
    skytune_error shared_err = {0};
    if (count &&
        shared_reference_load(ms->opts.reference_file, regions, count, &shared_err) == 0) {
        traced(ms, "CPU reference, shared", since);
        return 0;
    }
    skytune_error perr = {0};
    if (plugin->reference(ms->state, &perr) != 0)
        return err_set(err, "plugin %s could not compute the CPU reference: %s", plugin->name,
                       perr.message);
    if (plugin_lookup_check(plugin, &ms->lookups, "reference", err) != 0) return -1;
    /* Not shared: the next workers compute their own, as before. */
    if (count) shared_reference_save(ms->opts.reference_file, regions, count, &shared_err);
    traced(ms, "CPU reference", since);
    return 0;
}

/* The comparison on the device, where the plugin offers its outputs and
 * the mode asks for it. By default only on GPUs: on a CPU device the
 * outputs are in host memory already, and reading them is no copy across
 * a bus. A device that cannot compare (no double precision) compares on
 * the host, as the trace says. */
static void open_device_compare(measurer *ms)
{
    measurer_compare mode = ms->opts.compare;
    if (!ms->plugin->device_outputs || mode == COMPARE_HOST) return;
    if (mode == COMPARE_AUTO && !ms->device->info.is_gpu) return;
    double since = clock_monotonic_s();
    skytune_error why = {0};
    if (device_compare_open(ms->context, ms->device->device, &ms->compare, &why) != 0) {
        ms->compare = NULL;
        trace_span(ms->opts.trace, "comparison on the device unavailable", "stage", since,
                   clock_monotonic_s(), why.message);
        return;
    }
    traced(ms, "comparison kernel", since);
}

int measurer_open(const skytune_plugin *plugin, const cl_device_entry *device,
                  const skytune_values *problem_values, const measurer_options *opts, measurer **out,
                  skytune_error *err)
{
    if (opts->runs < 1 || opts->runs > MAX_RUNS)
        return err_set(err, "--runs must be between 1 and %d, got %u", MAX_RUNS, opts->runs);
    /* setup may rely on the plugin's own limits having passed. */
    if (problem_check_on_device(plugin, problem_values, &device->info, err) != 0) return -1;
    measurer *ms = calloc(1, sizeof *ms);
    if (!ms) return err_set(err, "out of memory");
    ms->plugin = plugin;
    ms->device = device;
    ms->keep_binaries = binary_keeping_worthwhile(&device->info);
    ms->problem = plugin_values_logged(problem_values, &ms->lookups);
    ms->opts = *opts;
    double since = clock_monotonic_s();
    cl_int rc;
    ms->context = clCreateContext(NULL, 1, &device->device, NULL, NULL, &rc);
    if (rc != CL_SUCCESS) {
        free(ms);
        return err_set(err, "cannot create an OpenCL context on %s: %s", device->info.name,
                       cl_error_name(rc));
    }
    /* In-order with profiling: each event's START..END is the kernel alone. */
    ms->queue = clCreateCommandQueue(ms->context, device->device, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (rc != CL_SUCCESS) {
        clReleaseContext(ms->context);
        free(ms);
        return err_set(err, "cannot create a profiling command queue on %s: %s",
                       device->info.name, cl_error_name(rc));
    }
    skytune_setup_context ctx = {
        .context = ms->context,
        .device = device->device,
        .queue = ms->queue,
        .problem = &ms->problem,
        .device_info = &device->info,
        .seed = opts->seed,
        .plugin = plugin,
    };
    since = traced(ms, "context and queue", since);
    skytune_error perr = {0};
    if (plugin->setup(&ctx, &ms->state, &perr) != 0) {
        measurer_close(ms);
        return err_set(err, "plugin %s could not set up the problem on %s: %s", plugin->name,
                       device->info.name, perr.message);
    }
    if (plugin_lookup_check(plugin, &ms->lookups, "setup", err) != 0) {
        measurer_close(ms);
        return -1;
    }
    since = traced(ms, "plugin setup", since);
    if (opts->transfers && !opts->skip_reference &&
        run_transfers_open(&ms->transfers, plugin, ms->state, ms->context, err) != 0) {
        measurer_close(ms);
        return -1;
    }
    if (!opts->skip_reference && obtain_reference(ms, since, err) != 0) {
        measurer_close(ms);
        return -1;
    }
    if (!opts->skip_reference) open_device_compare(ms);
    *out = ms;
    return 0;
}

void measurer_close(measurer *ms)
{
    if (!ms) return;
    run_transfers_close(&ms->transfers);
    device_compare_close(ms->compare);
    if (ms->state) ms->plugin->teardown(ms->state);
    if (ms->queue) clReleaseCommandQueue(ms->queue);
    if (ms->context) clReleaseContext(ms->context);
    free(ms);
}

int measurer_build_options(const measurer *ms, const skytune_values *config, char *buf, size_t len,
                           skytune_error *err)
{
    return build_options_format(ms->plugin, ms->state, &ms->problem, config, buf, len, err);
}

static void fail(measurement *m, measurement_status status, const char *fmt, ...)
    SKYTUNE_PRINTF(3, 4);

static void fail(measurement *m, measurement_status status, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    m->status = status;
    measurement_set_message(m, text);
}

/* The same text whether the failure was just seen or comes from the
 * cache. */
static void fail_compile(measurement *m, cl_int status, const char *options, const char *log)
{
    fail(m, MEAS_COMPILE, "%s with options '%s'\n%s", cl_error_name(status), options,
         log ? log : "");
}

/* The first BUILD_LOG_LIMIT bytes of the build log, malloc'd; NULL when out
 * of memory. */
static char *read_build_log(measurer *ms, cl_program program)
{
    size_t log_size = 0;
    clGetProgramBuildInfo(program, ms->device->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
    if (log_size > BUILD_LOG_LIMIT) log_size = BUILD_LOG_LIMIT;
    char *log = malloc(log_size + 1);
    if (!log) return NULL;
    log[0] = '\0';
    if (log_size > 0) {
        /* A truncated read fails on some drivers; fall back to no log. */
        char *full = NULL;
        size_t full_size = 0;
        clGetProgramBuildInfo(program, ms->device->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                              &full_size);
        full = malloc(full_size + 1);
        if (full && clGetProgramBuildInfo(program, ms->device->device, CL_PROGRAM_BUILD_LOG,
                                          full_size, full, NULL) == CL_SUCCESS) {
            memcpy(log, full, log_size);
            log[log_size] = '\0';
        }
        free(full);
    }
    return log;
}

/* Failures that the same source, options and driver would repeat. Others
 * (no memory or resources, no compiler) say nothing about the
 * configuration and are never cached. */
static bool failure_repeats(cl_int status)
{
    return status == CL_BUILD_PROGRAM_FAILURE || status == CL_INVALID_BUILD_OPTIONS;
}

/* An entry that could not be stored, for measurer_cache_entry. It never
 * fails the measurement: the program is built already. */
static void not_stored(measurer *ms, const char *reason)
{
    ms->entry = CACHE_ENTRY_NOT_STORED;
    snprintf(ms->entry_reason, sizeof ms->entry_reason, "%s", reason);
}

/* What a store returned. */
static void note_store(measurer *ms, int rc)
{
    if (rc == 0)
        ms->entry = CACHE_ENTRY_STORED;
    else
        not_stored(ms, binary_cache_store_reason(ms->opts.cache));
}

static void store_program_binary(measurer *ms, cl_program program, const binary_cache_key *key)
{
    size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) !=
            CL_SUCCESS ||
        size == 0) {
        not_stored(ms, "the driver gave no program binary");
        return;
    }
    unsigned char *binary = malloc(size);
    if (!binary) {
        not_stored(ms, "out of memory");
        return;
    }
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) ==
        CL_SUCCESS)
        note_store(ms, binary_cache_store_binary(ms->opts.cache, key, binary, size, NULL));
    else
        not_stored(ms, "the driver gave no program binary");
    free(binary);
}

/* One clBuildProgram of the source: CL_SUCCESS with *program, or the
 * error with *program released and NULL (and *log the build log, NULL
 * when there is none). */
static cl_int build_from_source(measurer *ms, const char *source, const char *options,
                                cl_program *program, char **log)
{
    cl_int rc;
    *log = NULL;
    *program = clCreateProgramWithSource(ms->context, 1, &source, NULL, &rc);
    if (rc != CL_SUCCESS) {
        *program = NULL;
        return rc;
    }
    rc = clBuildProgram(*program, 1, &ms->device->device, options, NULL, NULL);
    if (rc == CL_SUCCESS) return rc;
    *log = read_build_log(ms, *program);
    clReleaseProgram(*program);
    *program = NULL;
    return rc;
}

/* Compile from source; with a key, leave the binary or a failure that would
 * repeat in the cache. A failed build is tried once more before it is
 * believed: a driver's build can fail for reasons of the moment (PoCL's own
 * kernel cache written by another process at once), and a failure the
 * cache kept would be served to every later run. */
static int compile_source(measurer *ms, const char *source, const char *options,
                          const binary_cache_key *key, cl_program *program, measurement *m)
{
    char *log = NULL;
    cl_int rc = build_from_source(ms, source, options, program, &log);
    if (rc != CL_SUCCESS) {
        free(log);
        rc = build_from_source(ms, source, options, program, &log);
    }
    if (rc == CL_SUCCESS) {
        /* Not on PoCL's CPU devices: asking for the binary would generate
         * code that no launch uses (binary_keeping.h); PoCL's kernel cache
         * keeps the build instead. */
        if (key && ms->keep_binaries) store_program_binary(ms, *program, key);
        return 0;
    }
    fail_compile(m, rc, options, log);
    if (key && log && failure_repeats(rc))
        note_store(ms, binary_cache_store_failure(ms->opts.cache, key, rc, log, NULL));
    free(log);
    return -1;
}

/* OpenCL asks for clBuildProgram even on a binary; for a binary it is
 * quick. Returns -1 when the driver refuses the binary. */
static int program_from_binary(measurer *ms, const binary_cache_entry *entry,
                               const char *options, cl_program *program)
{
    const unsigned char *binary = entry->binary;
    cl_int rc, binary_status = CL_SUCCESS;
    *program = clCreateProgramWithBinary(ms->context, 1, &ms->device->device,
                                         &entry->binary_size, &binary, &binary_status, &rc);
    if (rc != CL_SUCCESS) {
        *program = NULL;
        return -1;
    }
    if (binary_status == CL_SUCCESS &&
        clBuildProgram(*program, 1, &ms->device->device, options, NULL, NULL) == CL_SUCCESS)
        return 0;
    clReleaseProgram(*program);
    *program = NULL;
    return -1;
}

/* need_program false (a compile worker): a cached binary is enough, the
 * driver is not asked to load it. */
static int build_cached(measurer *ms, const char *source, const char *options,
                        const binary_cache_key *key, bool need_program, cl_program *program,
                        measurement *m)
{
    binary_cache_entry entry;
    int found = binary_cache_load(ms->opts.cache, key, &entry, NULL);
    if (found == BINARY_CACHE_FAILURE) {
        fail_compile(m, entry.build_status, options, entry.build_log);
        binary_cache_entry_clear(&entry);
        ms->entry = CACHE_ENTRY_FOUND;
        return -1;
    }
    if (found == BINARY_CACHE_BINARY) {
        int loaded = need_program ? program_from_binary(ms, &entry, options, program) : 0;
        binary_cache_entry_clear(&entry);
        if (loaded == 0) {
            ms->entry = CACHE_ENTRY_FOUND;
            return 0;
        }
        binary_cache_note_rejected(ms->opts.cache);
    }
    /* A miss, an unreadable cache, or a binary the driver refused: the
     * compiler decides, and what it makes replaces the entry. */
    return compile_source(ms, source, options, key, program, m);
}

/* *program is NULL afterwards only when it failed, or when need_program is
 * false and the cache held the binary. */
static int build_program(measurer *ms, const skytune_values *config, bool need_program,
                         cl_program *program, measurement *m)
{
    *program = NULL;
    char *generated = NULL;
    const char *source = ms->plugin->kernel_source;
    skytune_error perr = {0};
    skytune_error lookup = {0};
    if (ms->plugin->generate_source) {
        if (ms->plugin->generate_source(config, &ms->problem, &generated, &perr) != 0) {
            fail(m, MEAS_COMPILE, "source generator failed: %s", perr.message);
            return -1;
        }
        if (plugin_lookup_check(ms->plugin, &ms->lookups, "generate_source", &lookup) != 0) {
            free(generated);
            fail(m, MEAS_COMPILE, "%s", lookup.message);
            return -1;
        }
        source = generated;
    }
    char options[8192];
    skytune_error options_err = {0};
    if (measurer_build_options(ms, config, options, sizeof options, &options_err) != 0) {
        free(generated);
        fail(m, MEAS_COMPILE, "%s", options_err.message);
        return -1;
    }
    if (plugin_lookup_check(ms->plugin, &ms->lookups, "defines", &lookup) != 0) {
        free(generated);
        fail(m, MEAS_COMPILE, "%s", lookup.message);
        return -1;
    }
    /* Parameters named as words of OpenCL C reach it as #define lines. */
    bool made = false;
    const char *compiled = build_options_source(&ms->problem, config, source, &made);
    if (!compiled) {
        free(generated);
        fail(m, MEAS_COMPILE, "out of memory for the source");
        return -1;
    }
    if (made) {
        free(generated);
        generated = (char *)compiled;
    }
    source = compiled;
    binary_cache_key key;
    int rc;
    /* Without memory for the key, compiling is still possible. */
    if (ms->opts.cache &&
        binary_cache_key_make(&ms->device->info, source, options, &key, NULL) == 0) {
        rc = build_cached(ms, source, options, &key, need_program, program, m);
        binary_cache_key_clear(&key);
    } else {
        rc = compile_source(ms, source, options, NULL, program, m);
    }
    free(generated);
    return rc;
}

/* A kernel that was launched and then failed on the device (an illegal
 * address on a GPU ends its context; clFinish or its event reports it): a
 * crash of the configuration in the stage it ran in, as a kernel that
 * kills a CPU device's worker is, not a launch that could not be made. */
static void kernel_crashed(measurer *ms, measurement *m, const char *run, const char *what,
                           cl_int code)
{
    fail(m, MEAS_CRASH, "crash in stage %s: the kernel failed on the device in %s: %s: %s",
         measure_stage_name(ms->stage), run, what, cl_error_name(code));
    m->stage = ms->stage;
}

/* The times of one run: every event's duration and their sum. */
#define RUN_EVENTS_MAX (SKYTUNE_MAX_EVENTS + SKYTUNE_MAX_TRANSFERS)
typedef struct run_times {
    size_t count;
    const char *labels[RUN_EVENTS_MAX];
    double event_ns[RUN_EVENTS_MAX];
    double total_ns;
    double wall_s;          /* from the enqueue to the end of clFinish */
} run_times;

/* One run: enqueue (the uploads, the plugin's kernels, the downloads, when
 * transfers are on), wait, read each event's profiling times. Returns 0,
 * or -1 with m failed as a launch error that names the run (`run`, e.g.
 * "the verification run"): a kernel that broke its context fails there. */
static int run_once(measurer *ms, void *launch, const char *run, run_times *t, measurement *m)
{
    skytune_events ev = {0};
    skytune_error perr = {0};
    cl_event events[RUN_EVENTS_MAX];
    const char *labels[RUN_EVENTS_MAX];
    size_t count = 0;
    double started = clock_monotonic_s();
    cl_int copied = run_transfers_enqueue(&ms->transfers, ms->queue, true, events, labels, &count);
    int rc = copied == CL_SUCCESS ? ms->plugin->enqueue(launch, ms->queue, &ev, &perr) : 0;
    const size_t kernels = ev.count;
    for (size_t k = 0; k < ev.count && count < RUN_EVENTS_MAX; k++) {
        events[count] = ev.events[k];
        labels[count++] = ev.labels[k];
    }
    if (copied == CL_SUCCESS && rc == 0)
        copied = run_transfers_enqueue(&ms->transfers, ms->queue, false, events, labels, &count);
    cl_int finish = clFinish(ms->queue);
    t->wall_s = clock_monotonic_s() - started;
    if (copied != CL_SUCCESS) {
        rc = -1;
        fail(m, MEAS_LAUNCH, "%s: a host-device transfer could not be enqueued: %s", run,
             cl_error_name(copied));
    } else if (rc != 0) {
        fail(m, MEAS_LAUNCH, "%s: enqueue: %s [%s]", run, perr.message,
             perr.cl_error ? cl_error_name(perr.cl_error) : "no OpenCL error code");
    } else if (finish != CL_SUCCESS) {
        rc = -1;
        kernel_crashed(ms, m, run, "clFinish", finish);
    } else if (kernels == 0) {
        rc = -1;
        fail(m, MEAS_LAUNCH, "%s: the plugin's enqueue returned no event to time", run);
    }
    t->count = count;
    t->total_ns = 0.0;
    for (size_t k = 0; k < count; k++) {
        const char *label = labels[k] ? labels[k] : "kernel";
        cl_int exec = CL_COMPLETE;
        cl_ulong start = 0, end = 0;
        clGetEventInfo(events[k], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
        if (rc == 0 && exec < 0) {
            rc = -1;
            char what[96];
            snprintf(what, sizeof what, "kernel '%s'", label);
            kernel_crashed(ms, m, run, what, exec);
        }
        if (rc == 0 &&
            (clGetEventProfilingInfo(events[k], CL_PROFILING_COMMAND_START, sizeof start, &start,
                                     NULL) != CL_SUCCESS ||
             clGetEventProfilingInfo(events[k], CL_PROFILING_COMMAND_END, sizeof end, &end,
                                     NULL) != CL_SUCCESS)) {
            rc = -1;
            fail(m, MEAS_LAUNCH, "%s: no profiling information for kernel '%s'", run, label);
        }
        clReleaseEvent(events[k]);
        t->labels[k] = label;
        t->event_ns[k] = end >= start ? (double)(end - start) : 0.0;
        t->total_ns += t->event_ns[k];
    }
    return rc;
}

/* The first launch's time beyond its kernels' own: the driver's code
 * generation where it defers it, a launch's overhead elsewhere. */
static double deferred_build_s(const run_times *first)
{
    double beyond = first->wall_s - 1e-9 * first->total_ns;
    return beyond > 0 ? beyond : 0.0;
}

/* Per-label medians over the timed runs, for plugins that enqueue several
 * kernels (e.g. a FIR filter and an FFT) and want each one's share. */
static void summarise_parts(const run_times *runs, unsigned n_runs, measurement *m)
{
    size_t n_labels = runs[0].count < MEAS_MAX_PARTS ? runs[0].count : MEAS_MAX_PARTS;
    double *column = malloc(n_runs * sizeof *column);
    if (!column) return;
    m->n_parts = 0;
    for (size_t k = 0; k < n_labels; k++) {
        unsigned n = 0;
        for (unsigned r = 0; r < n_runs; r++)
            if (runs[r].count > k) column[n++] = runs[r].event_ns[k];
        measurement_part *part = &m->parts[m->n_parts++];
        snprintf(part->label, sizeof part->label, "%s", runs[0].labels[k]);
        part->median_ns = stats_median(column, n);
    }
    free(column);
}

/* A build's span says whether the driver compiled or loaded a binary from
 * the cache: the two differ by orders of magnitude. */
static const char *built_span_name(const measurer *ms)
{
    return ms->entry == CACHE_ENTRY_FOUND ? "load binary" : "compile";
}

/* The whole configuration's span, its text as the argument, around its
 * stages' spans. */
static void trace_configuration(measurer *ms, const skytune_values *config, double since)
{
    if (!ms->opts.trace) return;
    char *text = canonical_of_values(config->items, config->count);
    trace_span(ms->opts.trace, "configuration", "configuration", since, clock_monotonic_s(),
               text ? text : "");
    free(text);
}

int measurer_compile(measurer *ms, const skytune_values *config, measurement *m,
                     skytune_error *err)
{
    measurement_init(m);
    ms->entry = CACHE_ENTRY_NONE;
    cl_program program = NULL;
    skytune_values logged = plugin_values_logged(config, &ms->lookups);
    double t0 = clock_monotonic_s();
    enter_stage(ms, STAGE_BUILD);
    build_program(ms, &logged, false, &program, m);
    if (program) clReleaseProgram(program);
    m->build_s = clock_monotonic_s() - t0;
    traced(ms, built_span_name(ms), t0);
    trace_configuration(ms, &logged, t0);
    return 0;
}

/* A lookup of an undeclared name in `callback` fails the configuration:
 * the plugin's result cannot be trusted. Returns -1 when it did. */
static int check_lookups(measurer *ms, const char *callback, measurement *m)
{
    skytune_error lookup = {0};
    if (plugin_lookup_check(ms->plugin, &ms->lookups, callback, &lookup) == 0) return 0;
    fail(m, MEAS_LAUNCH, "%s", lookup.message);
    return -1;
}

/* "output 'spectra': 12 of 8192 differ ..." for every output that failed,
 * or the summary when the plugin filled the report without outputs. */
static void fail_verification(measurement *m, const skytune_verify_report *report,
                              const char *reference)
{
    m->max_abs_error = report->max_abs_error;
    m->max_rel_error = report->max_rel_error;
    m->first_mismatch = report->first_mismatch;
    char text[2048];
    size_t used = 0;
    size_t n_outputs = report->n_outputs < SKYTUNE_MAX_OUTPUTS ? report->n_outputs
                                                               : SKYTUNE_MAX_OUTPUTS;
    for (size_t k = 0; k < n_outputs && used < sizeof text; k++) {
        const skytune_output_report *o = &report->outputs[k];
        if (o->passed) continue;
        char name[64];
        quote_text(o->name, name, sizeof name);
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "%soutput '%s': %lld of %zu differ from %s; "
                                 "first at index %lld; max abs error %.6g, max rel error %.6g "
                                 "(tolerance: abs %.3g or rel %.3g)",
                                 used ? "; " : "", name, (long long)o->mismatches, o->count,
                                 reference,
                                 (long long)o->first_mismatch, o->max_abs_error,
                                 o->max_rel_error, o->abs_tol, o->rel_tol);
    }
    if (used == 0)
        snprintf(text, sizeof text,
                 "%lld of the outputs differ from %s; first at index %lld; max "
                 "abs error %.6g, max rel error %.6g",
                 (long long)report->mismatches, reference, (long long)report->first_mismatch,
                 report->max_abs_error, report->max_rel_error);
    if (report->n_outputs > SKYTUNE_MAX_OUTPUTS && used < sizeof text)
        snprintf(text + used, sizeof text - used,
                 "; the plugin compared more than %d outputs, the most a report holds",
                 SKYTUNE_MAX_OUTPUTS);
    fail(m, MEAS_WRONG_RESULT, "%s", text);
}

/* The verdict of a verification report: 0 when every output passed, -1
 * with m failed as wrong_result. The largest errors are kept either way:
 * how close a passing configuration came to its tolerance is worth knowing
 * too. */
static int judge_report(const measurer *ms, measurement *m, const skytune_verify_report *report)
{
    m->max_abs_error = report->max_abs_error;
    m->max_rel_error = report->max_rel_error;
    if (report->passed) return 0;
    fail_verification(m, report,
                      ms->opts.reference_name ? ms->opts.reference_name : "the CPU reference");
    return -1;
}

/* The outputs of the verification run compared on the device into
 * *report. 0: compared (passed or not); 1: not compared, for the host to do
 * (an OpenCL call of the comparison failed: the device compares no more in
 * this measurer); -1: m failed, the plugin's device_outputs having failed
 * or described an output its buffer does not hold. */
static int compare_on_device(measurer *ms, const skytune_values *config,
                             skytune_verify_report *report, measurement *m)
{
    skytune_device_output outputs[SKYTUNE_MAX_OUTPUTS];
    size_t count = 0;
    skytune_error perr = {0};
    if (ms->plugin->device_outputs(ms->state, config, outputs, SKYTUNE_MAX_OUTPUTS, &count,
                                   &perr) != 0) {
        fail(m, MEAS_LAUNCH, "device_outputs: %s", perr.message);
        return -1;
    }
    if (check_lookups(ms, "device_outputs", m) != 0) return -1;
    if (count == 0 || count > SKYTUNE_MAX_OUTPUTS) {
        fail(m, MEAS_LAUNCH, "device_outputs: %zu outputs named, where 1 to %d are valid", count,
             SKYTUNE_MAX_OUTPUTS);
        return -1;
    }
    for (size_t k = 0; k < count; k++) {
        skytune_output_report o;
        int rc = device_compare_output(ms->compare, ms->queue, &outputs[k], &o, &perr);
        if (rc == 1) {
            fail(m, MEAS_LAUNCH, "device_outputs: %s", perr.message);
            return -1;
        }
        if (rc != 0) {
            trace_span(ms->opts.trace, "comparison on the device failed", "stage",
                       clock_monotonic_s(), clock_monotonic_s(), perr.message);
            device_compare_close(ms->compare);
            ms->compare = NULL;
            return 1;
        }
        skytune_verify_add(report, &o);
    }
    return 0;
}

/* The configuration's launch prepared, run once and its outputs checked
 * against the CPU reference. 0: it passed; -1: it did not, with the fault
 * in *m. */
static int verify_configuration(measurer *ms, cl_program program, const skytune_values *config,
                                void **launch, bool *compare_later, measurement *m)
{
    *compare_later = false;
    const skytune_plugin *pl = ms->plugin;
    skytune_error perr = {0};
    /* After the gate: waiting for the device is nobody's verification. */
    double t1 = clock_monotonic_s();
    if (pl->prepare(ms->state, program, config, launch, &perr) != 0) {
        fail(m, MEAS_LAUNCH, "prepare: %s [%s]", perr.message,
             perr.cl_error ? cl_error_name(perr.cl_error) : "no OpenCL error code");
        return -1;
    }
    if (check_lookups(ms, "prepare", m) != 0) return -1;
    double since = traced(ms, "prepare", t1);
    enter_stage(ms, STAGE_VERIFY);
    if (pl->clear_outputs(ms->state, ms->queue, &perr) != 0) {
        fail(m, MEAS_LAUNCH, "clear_outputs: %s", perr.message);
        return -1;
    }
    /* The poison must be in place before the first launch is timed, so
     * that only the driver's own work fills the gap before it starts. */
    clFinish(ms->queue);
    run_times verification;
    if (run_once(ms, *launch, "the verification run", &verification, m) != 0) return -1;
    since = traced(ms, "verification run", since);
    double deferred_s = deferred_build_s(&verification);
    m->first_launch_extra_s = deferred_s;
    m->build_s += deferred_s;
    bool found_wrong = false;   /* on the device: the host decides now */
    if (ms->compare) {
        skytune_verify_report report = {0};
        int compared = compare_on_device(ms, config, &report, m);
        if (compared < 0) return -1;
        if (compared == 0) {
            since = traced(ms, "compare on the device", since);
            if (report.passed) {
                m->verify_s = clock_monotonic_s() - t1 - deferred_s;
                m->compared_on_device = true;
                return judge_report(ms, m, &report);
            }
            /* Found wrong on the device: the host's comparison decides and
             * says how, before any timed run (an out-of-bounds write may
             * have hit the device's copy of the reference, which is
             * therefore made afresh). */
            device_compare_forget(ms->compare);
            found_wrong = true;
        }
    }
    if (pl->read_back) {
        /* Compared after the timed runs, off the device (compare_outputs). */
        if (pl->read_back(ms->state, config, ms->queue, &perr) != 0) {
            fail(m, MEAS_LAUNCH, "read_back: %s [%s]", perr.message,
                 perr.cl_error ? cl_error_name(perr.cl_error) : "no OpenCL error code");
            return -1;
        }
        if (check_lookups(ms, "read_back", m) != 0) return -1;
        since = traced(ms, "read back", since);
        m->verify_s = clock_monotonic_s() - t1 - deferred_s;
        if (!found_wrong) {
            *compare_later = true;
            return 0;
        }
    }
    skytune_verify_report report = {0};
    if (pl->verify(ms->state, config, ms->queue, &report, &perr) != 0) {
        fail(m, MEAS_LAUNCH, "verify: %s", perr.message);
        return -1;
    }
    if (check_lookups(ms, "verify", m) != 0) return -1;
    traced(ms, "read back and compare", since);
    m->verify_s = clock_monotonic_s() - t1 - deferred_s;
    return judge_report(ms, m, &report);
}

/* With read_back: the outputs of the verification run, read before the
 * timed runs, compared now that the device is done with the configuration
 * (STAGE_COMPARE, which the engine takes as leave to give the device to
 * the next one). */
static void compare_outputs(measurer *ms, const skytune_values *config, measurement *m)
{
    double since = clock_monotonic_s();
    enter_stage(ms, STAGE_COMPARE);
    skytune_verify_report report = {0};
    skytune_error perr = {0};
    if (ms->plugin->verify(ms->state, config, ms->queue, &report, &perr) != 0)
        fail(m, MEAS_LAUNCH, "verify: %s", perr.message);
    else if (check_lookups(ms, "verify", m) == 0)
        judge_report(ms, m, &report);
    m->verify_s += traced(ms, "compare", since) - since;
    if (m->status != MEAS_OK) {
        /* The times of wrong outputs are no configuration's: recorded as
         * a failure compared before its runs is, without them. */
        measurement_set_samples(m, NULL, 0);
        m->n_parts = 0;
        m->gflops = m->gbs = 0.0;
    }
}

/* The warm-up and the timed runs of a verified launch, summarised in *m.
 * With a race limit, the runs stop early once they show the configuration
 * clearly slower than the campaign's best (racing.h); m->raced says so. A
 * fault is a status in *m; -1 only when out of memory (err). */
static int time_runs(measurer *ms, void *launch, const skytune_values *config,
                     double race_limit_ns, measurement *m, skytune_error *err)
{
    const skytune_plugin *pl = ms->plugin;
    double t2 = clock_monotonic_s();
    run_times *runs = malloc(ms->opts.runs * sizeof *runs);
    double *samples = malloc(ms->opts.runs * sizeof *samples);
    int rc = 0;
    if (!runs || !samples) {
        rc = err_set(err, "out of memory for %u timed runs", ms->opts.runs);
        goto done;
    }
    /* The verification run was the kernel's first launch: the driver's
     * deferred work and the first touches of its buffers are behind it, so
     * by default it is the warm-up too. */
    double since = t2;
    if (ms->opts.warm_up_runs > 0) {
        enter_stage(ms, STAGE_WARM_UP);
        for (unsigned r = 0; r < ms->opts.warm_up_runs; r++) {
            run_times warm_up;
            if (run_once(ms, launch, "the warm-up run", &warm_up, m) != 0) goto done;
        }
        since = traced(ms, "warm-up", t2);
    }
    enter_stage(ms, STAGE_TIMED);
    unsigned n_runs = 0;
    while (n_runs < ms->opts.runs) {
        char run[32];
        snprintf(run, sizeof run, "timed run %u", n_runs + 1);
        if (run_once(ms, launch, run, &runs[n_runs], m) != 0) goto done;
        samples[n_runs] = runs[n_runs].total_ns;
        n_runs++;
        if (n_runs < ms->opts.runs && race_stops(samples, n_runs, race_limit_ns)) {
            m->raced = true;
            break;
        }
    }
    m->bench_s = traced(ms, "timed runs", since) - t2;
    if (measurement_set_samples(m, samples, n_runs) != 0) {
        rc = err_set(err, "out of memory recording samples");
        goto done;
    }
    summarise_parts(runs, n_runs, m);
    if (m->median_ns > 0.0) {
        /* work per nanosecond is work per second in units of 10^9 */
        if (pl->flops) m->gflops = pl->flops(&ms->problem, config) / m->median_ns;
        if (pl->bytes) m->gbs = pl->bytes(&ms->problem, config) / m->median_ns;
        check_lookups(ms, "flops or bytes", m);
    }
done:
    free(runs);
    free(samples);
    return rc;
}

int measurer_measure(measurer *ms, const skytune_values *config_values, measurement *m,
                     skytune_error *err)
{
    return measurer_measure_raced(ms, config_values, 0.0, m, err);
}

int measurer_measure_raced(measurer *ms, const skytune_values *config_values,
                           double race_limit_ns, measurement *m, skytune_error *err)
{
    measurement_init(m);
    ms->entry = CACHE_ENTRY_NONE;
    if (ms->opts.skip_reference)
        return err_set(err, "this measurer was opened to compile only (skip_reference), without "
                            "the CPU reference that verification needs; open one without "
                            "skip_reference to measure");
    skytune_values logged = plugin_values_logged(config_values, &ms->lookups);
    const skytune_values *config = &logged;
    cl_program program = NULL;
    void *launch = NULL;
    int rc = 0;

    double t0 = clock_monotonic_s();
    enter_stage(ms, STAGE_BUILD);
    int built = build_program(ms, config, true, &program, m);
    m->build_s = clock_monotonic_s() - t0;
    double since = traced(ms, built_span_name(ms), t0);
    bool read_back = false;      /* outputs read, to be compared after release */
    if (built == 0) {
        bool go = enter_stage(ms, STAGE_PREPARE);
        /* The engine's answer: the device free, the configuration still
         * wanted. */
        since = traced(ms, "wait for the device", since);
        if (!go) {
            m->abandoned = true;
        } else if (verify_configuration(ms, program, config, &launch, &read_back, m) == 0) {
            rc = time_runs(ms, launch, config, race_limit_ns, m, err);
        }
    }
    if (launch) {
        since = clock_monotonic_s();
        enter_stage(ms, STAGE_RELEASE);
        ms->plugin->release(launch);
        traced(ms, "release", since);
    }
    /* A run that failed on the device has no verdict to add. */
    if (read_back && rc == 0 && m->status == MEAS_OK) compare_outputs(ms, config, m);
    if (program) clReleaseProgram(program);
    trace_configuration(ms, config, t0);
    return rc;
}

cache_entry_outcome measurer_cache_entry(const measurer *ms, const char **reason)
{
    *reason = ms->entry == CACHE_ENTRY_NOT_STORED ? ms->entry_reason : "";
    return ms->entry;
}

bool measurer_device_usable(measurer *ms)
{
    cl_int rc;
    cl_mem probe = clCreateBuffer(ms->context, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &rc);
    if (rc != CL_SUCCESS) return false;
    cl_int value = 1;
    rc = clEnqueueWriteBuffer(ms->queue, probe, CL_TRUE, 0, sizeof value, &value, 0, NULL, NULL);
    if (rc == CL_SUCCESS) rc = clFinish(ms->queue);
    clReleaseMemObject(probe);
    return rc == CL_SUCCESS;
}
