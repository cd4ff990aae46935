/*
 * skytune/plugin.h — the one header a skytune kernel plugin includes.
 *
 * A plugin is a shared object that exports one symbol, SKYTUNE_PLUGIN_ENTRY
 * ("skytune_plugin_entry"), a function returning a pointer to a static
 * skytune_plugin description. The description is mostly data: problem
 * parameters with presets, tuning parameters, constraints as expressions. A
 * handful of callbacks do what data cannot: create buffers, compute the CPU
 * reference, set kernel arguments and enqueue, compare outputs, count work.
 *
 * Versioning. The description starts with abi_version; the engine refuses a
 * plugin whose abi_version differs from the SKYTUNE_PLUGIN_ABI_VERSION it was
 * built with. Any change to a struct in this header, or in
 * skytune/plugin_types.h that it includes, bumps the version
 * (docs/plugins.md, "Plugin ABI versions", says what each version changed).
 *
 * Ownership. Everything the engine passes to a callback is borrowed and valid
 * only for the duration of the call unless stated otherwise. Everything a
 * plugin returns through a `void **` it owns and frees in the matching
 * release callback.
 *
 * Errors. Callbacks return 0 on success. On failure they return a
 * skytune_result code and write a human-readable message into the
 * skytune_error they were given (skytune_error_set helps). The engine turns a
 * failure into a status row for that configuration; it never aborts the
 * campaign because one configuration failed.
 *
 * Threading. The engine calls a plugin from one thread at a time.
 *
 * See plugins/vector_add/vector_add.c for a complete, commented plugin.
 */
#ifndef SKYTUNE_PLUGIN_H
#define SKYTUNE_PLUGIN_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* Errors, values, problem and tuning parameters, device facts: the types
 * without OpenCL in them, in a header of their own for the layers of
 * skytune that build without OpenCL. */
#include <skytune/plugin_types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKYTUNE_PLUGIN_ABI_VERSION 7u
#define SKYTUNE_PLUGIN_ENTRY "skytune_plugin_entry"

/* ---------------------------------------------------------- callbacks */

/* What setup receives: the device, a queue with profiling enabled, the
 * problem instance and the seed for deterministic inputs (use PCG32). */
struct skytune_plugin;

typedef struct skytune_setup_context {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    const skytune_values *problem;
    const skytune_device_info *device_info;
    uint64_t seed;
    /* The description whose setup this is: a description made at run time
     * (the T1 plugin's, from a file) finds its data through plugin->data. */
    const struct skytune_plugin *plugin;
} skytune_setup_context;

/* Events of one run: enqueue appends one event per kernel (or clFFT pass) it
 * enqueues, with a short label; the engine waits, reads the profiling times,
 * and releases the events. Label strings must be static. */
#define SKYTUNE_MAX_EVENTS 16
typedef struct skytune_events {
    size_t count;
    cl_event events[SKYTUNE_MAX_EVENTS];
    const char *labels[SKYTUNE_MAX_EVENTS];
} skytune_events;

static inline int skytune_events_add(skytune_events *ev, cl_event e, const char *label)
{
    if (ev->count >= SKYTUNE_MAX_EVENTS) {
        clReleaseEvent(e);
        return -1;
    }
    ev->events[ev->count] = e;
    ev->labels[ev->count] = label;
    ev->count++;
    return 0;
}

/* One copy between host and device that a run of the kernel needs in an
 * application, outside its kernels: an input uploaded before them, an
 * output read back after. With transfers on (`skytune run --transfers`)
 * the engine times each as a labelled part of every run, the uploads
 * before the plugin's enqueue and the downloads after, copying `bytes`
 * from or into buffers of its own of the same size, so that the plugin's
 * device buffers and host arrays are never touched. */
#define SKYTUNE_MAX_TRANSFERS 8
typedef struct skytune_transfer {
    const char *label;         /* static: the part's label, e.g. "upload samples" */
    int to_device;             /* 1: host to device (an input); 0: device to host (an output) */
    const void *host;          /* an upload's host array: valid until teardown */
    size_t bytes;
} skytune_transfer;

/* Appends a transfer to `list` (which holds `max`); -1 when it is full. */
static inline int skytune_transfer_add(skytune_transfer *list, size_t max, size_t *count,
                                       const char *label, int to_device, const void *host,
                                       size_t bytes)
{
    if (*count >= max) return -1;
    list[(*count)++] = (skytune_transfer){label, to_device, host, bytes};
    return 0;
}

/* One output's comparison: which output, the tolerances it was held to and
 * what was found. A plugin with several outputs (a FIR output and its
 * spectra, a grid and its weight sum) compares each with tolerances of its
 * own, and a failure names the output and its tolerances. */
#define SKYTUNE_MAX_OUTPUTS 8
typedef struct skytune_output_report {
    char name[32];             /* e.g. "spectra" */
    double abs_tol, rel_tol;
    size_t count;              /* elements compared */
    int passed;
    double max_abs_error;
    double max_rel_error;
    int64_t first_mismatch;    /* index of the first element out of tolerance, -1 if none */
    int64_t mismatches;
} skytune_output_report;

/* What verify reports: passed is 1 when every element of every output is
 * within tolerance. The summary fields are those of the first output that
 * failed, or (all passed) the largest errors over the outputs. */
typedef struct skytune_verify_report {
    int passed;
    double max_abs_error;
    double max_rel_error;
    int64_t first_mismatch;    /* index of the first element out of tolerance, -1 if none */
    int64_t mismatches;        /* how many elements are out of tolerance */
    size_t n_outputs;
    skytune_output_report outputs[SKYTUNE_MAX_OUTPUTS];
} skytune_verify_report;

/* Add one output's comparison to the report (the engine hands verify a
 * report with no outputs), keeping the summary: while every output passes,
 * the largest errors seen; once one fails, the first failing output's.
 * Returns -1 when the report already holds SKYTUNE_MAX_OUTPUTS outputs (the
 * report then fails). Used by skytune_verify_floats, and by the engine for
 * outputs it compares on the device (device_outputs). */
static inline int skytune_verify_add(skytune_verify_report *r, const skytune_output_report *o)
{
    if (r->n_outputs == 0) {
        r->passed = 1;
        r->max_abs_error = 0.0;
        r->max_rel_error = 0.0;
        r->first_mismatch = -1;
        r->mismatches = 0;
    }
    if (r->n_outputs >= SKYTUNE_MAX_OUTPUTS) {
        r->passed = 0;
        return -1;
    }
    r->outputs[r->n_outputs++] = *o;
    int first_failure = !o->passed && r->passed;
    if (first_failure || (r->passed && o->passed)) {
        if (first_failure || o->max_abs_error > r->max_abs_error)
            r->max_abs_error = o->max_abs_error;
        if (first_failure || o->max_rel_error > r->max_rel_error)
            r->max_rel_error = o->max_rel_error;
        if (first_failure) r->first_mismatch = o->first_mismatch;
    }
    if (!o->passed) {
        r->passed = 0;
        r->mismatches += o->mismatches;
    }
    return 0;
}

/* Compare output `name`'s `n` floats with the reference and add the result
 * to the report. Element k passes when |got-want| <= abs_tol or
 * |got-want| <= rel_tol*|want|, computed in double; NaN in `got` never
 * passes. Shared by every plugin (and matched exactly by the engine's
 * comparison on the device, device_compare.h) so that tolerance means the
 * same thing everywhere. Returns -1 when the report already holds
 * SKYTUNE_MAX_OUTPUTS outputs (the comparison then fails the report). */
static inline int skytune_verify_floats(skytune_verify_report *r, const char *name,
                                        const float *got, const float *want, size_t n,
                                        double abs_tol, double rel_tol)
{
    skytune_output_report o = {0};
    snprintf(o.name, sizeof o.name, "%s", name ? name : "output");
    o.abs_tol = abs_tol;
    o.rel_tol = rel_tol;
    o.count = n;
    /* In locals, which the compiler keeps in registers: the loop runs over
     * millions of elements (the correlator's 17 MB of visibilities). */
    double max_abs = 0.0, max_rel = 0.0;
    int64_t first = -1, mismatches = 0;
    for (size_t k = 0; k < n; k++) {
        double g = got[k], w = want[k];
        double aw = fabs(w);
        double diff = g != g ? INFINITY : fabs(g - w); /* NaN in got: the worst error */
        if (diff > max_abs) max_abs = diff;
        /* The relative error can be a new largest only where diff is above
         * the largest so far times |want| (with a margin for rounding): the
         * division, which costs more than the rest of the loop, is done
         * there alone. A want of 0 makes any difference infinitely large. */
        if (diff > max_rel * aw * (1.0 - 1e-9)) {
            double rel = aw != 0.0 ? diff / aw : (diff == 0.0 ? 0.0 : INFINITY);
            if (rel > max_rel) max_rel = rel;
        }
        if (!(diff <= abs_tol || diff <= rel_tol * aw)) {
            if (first < 0) first = (int64_t)k;
            mismatches++;
        }
    }
    o.max_abs_error = max_abs;
    o.max_rel_error = max_rel;
    o.first_mismatch = first;
    o.mismatches = mismatches;
    o.passed = mismatches == 0;
    return skytune_verify_add(r, &o);
}

/* A plugin with one output: the report holds just this comparison. */
static inline void skytune_compare_floats(const float *got, const float *want, size_t n,
                                          double abs_tol, double rel_tol,
                                          skytune_verify_report *r)
{
    r->n_outputs = 0;
    skytune_verify_floats(r, "output", got, want, n, abs_tol, rel_tol);
}

/* An output the engine may compare with the reference on the device
 * (device_outputs): `count` floats of `buffer` from element `offset` on,
 * against the host array `reference`, with the tolerances
 * skytune_verify_floats would be given. The engine copies the reference to
 * the device once (again when the pointer changes) and reads back only a
 * summary of the comparison, which for outputs of hundreds of megabytes
 * is the difference between milliseconds and a second per configuration.
 * The verdict is the same as skytune_verify_floats's, element for element;
 * any output found wrong on the device is compared again on the host with
 * the plugin's read_back and verify, whose report is the one recorded. */
typedef struct skytune_device_output {
    const char *name;          /* e.g. "dedispersed"; the name verify gives it */
    cl_mem buffer;             /* the output as the kernel left it; not CL_MEM_WRITE_ONLY */
    size_t offset;             /* first element compared, in floats */
    size_t count;              /* floats compared */
    const float *reference;    /* count floats: valid until teardown */
    double abs_tol, rel_tol;
} skytune_device_output;

/* Appends an output to `list` (which holds `max`); -1 when it is full. */
static inline int skytune_device_output_add(skytune_device_output *list, size_t max,
                                            size_t *count, const char *name, cl_mem buffer,
                                            size_t elements, const float *reference,
                                            double abs_tol, double rel_tol)
{
    if (*count >= max) return -1;
    list[(*count)++] = (skytune_device_output){name,      buffer,  0, elements,
                                               reference, abs_tol, rel_tol};
    return 0;
}

/* A host array of the plugin's state, for reference_data. */
typedef struct skytune_region {
    void *data;
    size_t bytes;
} skytune_region;

#define SKYTUNE_MAX_REFERENCE_REGIONS 16

/* A number derived from the problem and the configuration alone. */
typedef struct skytune_derived_value {
    const char *name;          /* identifier; differs from every parameter's name */
    const char *help;          /* one line, e.g. "sum of the dimensions' position differences" */
    double (*compute)(const skytune_values *problem, const skytune_values *config);
} skytune_derived_value;

/*
 * The description. Arrays end with an element whose name (or expression) is
 * NULL. Optional callbacks may be NULL.
 *
 * Call order for one problem instance:
 *   check_problem (before the search space is built)
 *   setup → reference (or the reference of another process copied into
 *   reference_data's regions) → for each configuration:
 *       [build program] → prepare → clear_outputs → enqueue (verification, the
 *       first launch: a driver that generates device code then, as PoCL does,
 *       has it counted as the build's time, and the warm-up of the timed runs)
 *       → verify → enqueue × runs → release
 *   With read_back, the outputs are read right after the verification run and
 *   compared after the device is done with the configuration:
 *       ... → enqueue (verification) → read_back → enqueue × runs → release
 *       → verify (comparing only; the device may be timing the next
 *       configuration meanwhile)
 *   With device_outputs, and the comparison on the device chosen, the
 *   engine compares right after the verification run, on the device, and
 *   calls neither read_back nor verify unless an output is found wrong:
 *       ... → enqueue (verification) → device_outputs → [the engine's
 *       comparison] → enqueue × runs → release
 *   → teardown
 */
typedef struct skytune_plugin {
    uint32_t abi_version;              /* SKYTUNE_PLUGIN_ABI_VERSION */
    const char *name;                  /* identifier, e.g. "dedispersion" */
    const char *version;               /* the plugin's own version, e.g. "1.0" */
    const char *description;           /* one line */

    const skytune_problem_param *problem_params;
    const skytune_preset *presets;
    const skytune_problem_check *problem_checks;

    /* Optional: what problem_checks cannot say, above all size limits
     * against the device (an array a kernel indexes with int, a buffer larger
     * than max_mem_alloc_size; see skytune/plugin_checks.h). Called with the
     * problem after problem_checks passed, before the search space is built
     * (so before `constraint` runs) and before setup, which may rely on it.
     * Return SKYTUNE_ERR_PROBLEM with a message naming what to reduce. It
     * must be quick: compute sizes, allocate nothing. */
    int (*check_problem)(const skytune_values *problem, const skytune_device_info *device,
                         skytune_error *err);

    const skytune_tuning_param *tuning_params;
    const char *const *constraints;    /* NULL-terminated list of expressions */

    /* Optional: what an expression cannot say. Called with every tuning
     * parameter bound; return nonzero to accept the configuration. When it
     * rejects one it may point *why at a short static text saying which
     * rule ("more work-items than cells"): the engine counts rejections by
     * reason, and `plugins show` and "no valid configuration" print them. */
    int (*constraint)(const skytune_values *config, const skytune_values *problem,
                      const skytune_device_info *device, const char **why);

    /* OpenCL C source. The engine builds it with `-D NAME=value` for every
     * tuning and problem parameter (one named as a word of OpenCL C, such
     * as read_only, as a "#define NAME value" line before the source
     * instead: build_options.h) (integers in decimal, booleans as 0/1,
     * reals as float literals such as 1420.0f, strings as bare tokens) plus
     * whatever `defines` adds. A string value is a token: 1 to 200 printable
     * ASCII characters with no space, quote or backslash, so that it can
     * never become another option; the engine refuses any other value when
     * the problem is set or the plugin is loaded (docs/plugins.md). */
    const char *kernel_source;

    /* Optional: OpenCL compiler options of the plugin's own, placed before
     * the -D defines, e.g. "-cl-std=CL2.0 -cl-mad-enable". Without a
     * -cl-std here the engine asks for OpenCL C 1.2 ("-cl-std=CL1.2"), which
     * every OpenCL 1.2 and later driver compiles. Part of the plugin
     * build's identity, like the source. Printable ASCII without quotes or
     * backslashes, at most 512 characters (checked when loading). */
    const char *build_options;

    /* Optional: a source generator for kernels whose shape changes with the
     * configuration. Returns a malloc'd string in *source; the engine frees. */
    int (*generate_source)(const skytune_values *config, const skytune_values *problem,
                           char **source, skytune_error *err);

    /* Optional: extra build options derived from the problem and the
     * configuration (e.g. "-D MAX_DELAY=812"), written into buf. A nonzero
     * return fails the configuration's build, with err's message as the
     * reason (e.g. "the delays need 41000 floats of local memory"). */
    int (*defines)(void *state, const skytune_values *config, char *buf, size_t len,
                   skytune_error *err);

    /* Create inputs (deterministic, from ctx->seed) and device buffers. */
    int (*setup)(const skytune_setup_context *ctx, void **state, skytune_error *err);

    /* Compute the expected output on the CPU. Called once per problem. */
    int (*reference)(void *state, skytune_error *err);

    /* Optional (ABI 5): the host arrays that `reference` fills and nothing
     * else writes (pointer and size, at most `max`, in a fixed order), so
     * that the engine computes the reference once per campaign and copies
     * it into every other worker's arrays instead of calling `reference`
     * there. Called after setup; the arrays must stay where they are until
     * teardown. */
    int (*reference_data)(void *state, skytune_region *regions, size_t max, size_t *count,
                          skytune_error *err);

    /* Per configuration: create kernels from the built program, set their
     * arguments, compute the launch geometry. */
    int (*prepare)(void *state, cl_program program, const skytune_values *config,
                   void **launch, skytune_error *err);

    /* Overwrite the outputs with a poison value so that a kernel that writes
     * nothing cannot pass verification with a previous configuration's data. */
    int (*clear_outputs)(void *state, cl_command_queue queue, skytune_error *err);

    /* Enqueue one complete run (all kernels), appending their events. */
    int (*enqueue)(void *launch, cl_command_queue queue, skytune_events *events,
                   skytune_error *err);

    /* Optional (ABI 5): read the outputs of the verification run back into
     * host memory (blocking). With it, `verify` only compares what it read:
     * the engine calls verify after the timed runs, outside the device's
     * exclusive window, so that the device times the next configuration
     * while this one is compared; verify must then not use the queue. */
    int (*read_back)(void *state, const skytune_values *config, cl_command_queue queue,
                     skytune_error *err);

    /* Compare the outputs with the reference, each output with
     * skytune_verify_floats (or skytune_compare_floats for one), reading
     * them back first unless read_back did. `config` is the configuration
     * that produced them, for tolerances that depend on it (the order of a
     * float sum, say). */
    int (*verify)(void *state, const skytune_values *config, cl_command_queue queue,
                  skytune_verify_report *report, skytune_error *err);

    void (*release)(void *launch);
    void (*teardown)(void *state);

    /* Work of one run, for GFLOP/s and GB/s. */
    double (*flops)(const skytune_values *problem, const skytune_values *config);
    double (*bytes)(const skytune_values *problem, const skytune_values *config);

    /* Optional: numbers a configuration has besides its time, which the
     * engine stores with each of its measurements and shows as columns of
     * results_<plugin> (a transposition's layout distance, say), so that
     * queries can relate time to them. */
    const struct skytune_derived_value *derived_values;

    /* Optional (ABI 6): the copies a run needs between host and device
     * (skytune_transfer), at most `max`, uploads and downloads in any order
     * (the engine makes the uploads first). Called after setup; a problem
     * may leave some out (a buffer it does not use). Without it, a run with
     * transfers on is refused before anything is measured. */
    int (*transfers)(void *state, skytune_transfer *list, size_t max, size_t *count,
                     skytune_error *err);

    /* Optional (ABI 7): the outputs of the verification run as device
     * buffers with their references and tolerances (skytune_device_output),
     * at most `max`, the same outputs and tolerances `verify` would compare
     * for `config`. With it the engine may compare on the device instead of
     * calling read_back and verify (`skytune run --compare`); verify stays
     * the authority for an output found wrong there. */
    int (*device_outputs)(void *state, const skytune_values *config,
                          skytune_device_output *outputs, size_t max, size_t *count,
                          skytune_error *err);

    /* Optional: what a description made at run time needs in setup, which
     * reaches it as ctx->plugin->data. Static descriptions leave it NULL. */
    const void *data;
} skytune_plugin;

typedef const skytune_plugin *(*skytune_plugin_entry_fn)(void);

/* Plugins define their entry point with this macro:
 *     SKYTUNE_DEFINE_PLUGIN(my_description)
 */
#if defined(__GNUC__)
#define SKYTUNE_EXPORT __attribute__((visibility("default")))
#else
#define SKYTUNE_EXPORT
#endif

#define SKYTUNE_DEFINE_PLUGIN(description)                                   \
    SKYTUNE_EXPORT const skytune_plugin *skytune_plugin_entry(void);         \
    SKYTUNE_EXPORT const skytune_plugin *skytune_plugin_entry(void)          \
    {                                                                        \
        return &(description);                                               \
    }

#ifdef __cplusplus
}
#endif

#endif /* SKYTUNE_PLUGIN_H */
