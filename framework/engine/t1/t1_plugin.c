/* The T1 plugin's description and callbacks (t1_plugin.h).
 *
 * setup only computes the buffer sizes of the problem and checks them
 * against the device; the data is made on first need (the reference or the
 * first prepare). A compile worker, which calls setup but never the
 * reference, so costs nothing but the file's reading. */
#include "t1_plugin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_options.h"
#include "space.h"
#include "t1_expressions.h"
#include "t1_kernel.h"
#include "value.h"

/* Enough for the longest build log excerpt a message shows. */
#define LOG_EXCERPT 600

struct t1_plugin {
    skytune_plugin desc;
    t1_kernel *spec;
    skytune_problem_param *problem_params;
    skytune_problem_check *problem_checks;
    char **problem_texts;              /* names, defaults, checks, messages: owned */
    size_t n_problem_texts;
    skytune_tuning_param *tuning_params;
    char **value_lists;                /* one per tuning parameter, owned */
    const char **constraints;          /* into spec->constraints, NULL-terminated */
};

typedef struct t1_state {
    const t1_kernel *spec;
    const skytune_plugin *desc;
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    const skytune_values *problem;
    uint64_t seed;
    size_t *count;                     /* per argument: VECTOR elements */
    bool ready;                        /* buffers made */
    void **initial;                    /* per output: its data as filled, to reset it */
    cl_mem *buffers;                   /* per VECTOR argument */
    void **expected;                   /* the reference data: per ReferenceArgument, or per
                                          output when the Default's outputs are the reference */
    void **actual;                     /* the checked outputs read back, indexed as expected */
    expr_value *slots;
} t1_state;

typedef struct t1_launch {
    cl_kernel kernel;
    cl_uint work_dim;
    size_t global[3], local[3];
    const char *label;
} t1_launch;

bool t1_plugin_names_file(const char *name_or_path)
{
    size_t len = strlen(name_or_path);
    return strncmp(name_or_path, T1_PLUGIN_PREFIX, strlen(T1_PLUGIN_PREFIX)) == 0 ||
           (len > 5 && strcmp(name_or_path + len - 5, ".json") == 0);
}

/* ------------------------------------------------------------ state */

static void t1_teardown(void *opaque)
{
    t1_state *s = opaque;
    if (!s) return;
    for (size_t k = 0; k < s->spec->n_args; k++) {
        if (s->buffers && s->buffers[k]) clReleaseMemObject(s->buffers[k]);
        if (s->initial) free(s->initial[k]);
    }
    for (size_t k = 0; k < s->spec->n_args + s->spec->n_refs; k++) {
        if (s->expected) free(s->expected[k]);
        if (s->actual) free(s->actual[k]);
    }
    free(s->buffers);
    free(s->initial);
    free(s->expected);
    free(s->actual);
    free(s->count);
    free(s->slots);
    free(s);
}

static size_t vector_bytes(const t1_state *s, size_t k)
{
    return s->count[k] * t1_type_size(s->spec->args[k].type);
}

static int t1_setup(const skytune_setup_context *ctx, void **out, skytune_error *err)
{
    const t1_kernel *spec = ((const struct t1_plugin *)ctx->plugin->data)->spec;
    t1_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    s->spec = spec;
    s->desc = ctx->plugin;
    s->context = ctx->context;
    s->device = ctx->device;
    s->queue = ctx->queue;
    s->problem = ctx->problem;
    s->seed = ctx->seed;
    size_t n = spec->n_args + 1;
    s->count = calloc(n, sizeof *s->count);
    s->initial = calloc(n, sizeof *s->initial);
    s->buffers = calloc(n, sizeof *s->buffers);
    s->expected = calloc(n + spec->n_refs, sizeof *s->expected);
    s->actual = calloc(n + spec->n_refs, sizeof *s->actual);
    s->slots = calloc(spec->n_params + spec->n_problem + 1, sizeof *s->slots);
    if (!s->count || !s->initial || !s->buffers || !s->expected || !s->actual || !s->slots) {
        t1_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    }
    t1_kernel_slots(spec, ctx->problem, NULL, s->slots);
    for (size_t k = 0; k < spec->n_args; k++) {
        const t1_argument *a = &spec->args[k];
        if (a->memory != T1_VECTOR) continue;
        int64_t count;
        if (t1_expression_integer(spec, &a->size, s->slots, 1, &count, err) != 0) {
            t1_teardown(s);
            return SKYTUNE_ERR_PROBLEM;
        }
        double bytes = (double)count * (double)t1_type_size(a->type);
        if (bytes > (double)ctx->device_info->max_mem_alloc_size) {
            t1_teardown(s);
            return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                     "%s: argument '%s' needs %.0f bytes (%lld %s); this device "
                                     "allocates at most %lld bytes in one buffer (reduce the "
                                     "ProblemSize it reads, with --set problem_size_N=...)",
                                     spec->path, a->name, bytes, (long long)count, a->type->name,
                                     (long long)ctx->device_info->max_mem_alloc_size);
        }
        s->count[k] = (size_t)count;
    }
    *out = s;
    return SKYTUNE_OK;
}

static int opencl_failure(skytune_error *err, int code, cl_int status, const char *what,
                          const char *name)
{
    if (err) err->cl_error = status;
    return skytune_error_set(err, code, "%s (argument '%s') failed", what, name);
}

/* The buffers, filled as the file says. */
static int ensure_data(t1_state *s, skytune_error *err)
{
    if (s->ready) return SKYTUNE_OK;
    const t1_kernel *spec = s->spec;
    for (size_t k = 0; k < spec->n_args; k++) {
        const t1_argument *a = &spec->args[k];
        if (a->memory != T1_VECTOR) continue;
        size_t bytes = vector_bytes(s, k);
        void *data = malloc(bytes ? bytes : 1);
        if (!data)
            return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for argument '%s' "
                                     "(%zu bytes)", a->name, bytes);
        skytune_error why = {0};
        if (t1_fill_data(&a->fill, a->type, data, s->count[k], s->seed, k + 1, &why) != 0) {
            free(data);
            return skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s: argument '%s': %s", spec->path,
                                     a->name, why.message);
        }
        cl_mem_flags flags = a->access == T1_READ_ONLY    ? CL_MEM_READ_ONLY
                             : a->access == T1_WRITE_ONLY ? CL_MEM_WRITE_ONLY
                                                          : CL_MEM_READ_WRITE;
        cl_int status;
        s->buffers[k] = clCreateBuffer(s->context, flags | CL_MEM_COPY_HOST_PTR, bytes, data,
                                       &status);
        if (status != CL_SUCCESS) {
            s->buffers[k] = NULL;
            free(data);
            return opencl_failure(err, SKYTUNE_ERR_SETUP, status, "clCreateBuffer", a->name);
        }
        /* An input's host copy is not needed again; an output's resets it. */
        if (a->output)
            s->initial[k] = data;
        else
            free(data);
    }
    s->ready = true;
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ a launch */

static void t1_release(void *opaque)
{
    t1_launch *l = opaque;
    if (!l) return;
    if (l->kernel) clReleaseKernel(l->kernel);
    free(l);
}

static int set_scalar(const t1_state *s, t1_launch *l, size_t k, skytune_error *err)
{
    const t1_argument *a = &s->spec->args[k];
    double v = a->fill.value;
    if (a->value.e) {
        expr_value r;
        skytune_error why = {0};
        if (expr_eval(a->value.e, s->slots, &r, &why) != 0 || r.kind == EXPR_STRING)
            return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "%s: %s \"%s\": %s", s->spec->path,
                                     a->value.key, a->value.text,
                                     r.kind == EXPR_STRING ? "a string, not a number" : why.message);
        v = r.kind == EXPR_INT ? (double)r.i : r.f;
        if (!t1_type_holds(a->type, v))
            return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                     "%s: %s \"%s\" is %.17g here, not a value of type %s",
                                     s->spec->path, a->value.key, a->value.text, v, a->type->name);
    }
    unsigned char bytes[128];
    for (size_t c = 0; c < a->type->width; c++) t1_component_set(a->type, bytes, c, v);
    cl_int status = clSetKernelArg(l->kernel, (cl_uint)k, t1_type_size(a->type), bytes);
    return status == CL_SUCCESS ? SKYTUNE_OK
                                : opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clSetKernelArg",
                                                 a->name);
}

static int set_arguments(const t1_state *s, t1_launch *l, skytune_error *err)
{
    for (size_t k = 0; k < s->spec->n_args; k++) {
        const t1_argument *a = &s->spec->args[k];
        cl_int status = CL_SUCCESS;
        if (a->memory == T1_SCALAR) {
            int rc = set_scalar(s, l, k, err);
            if (rc != SKYTUNE_OK) return rc;
            continue;
        }
        if (a->memory == T1_VECTOR) {
            status = clSetKernelArg(l->kernel, (cl_uint)k, sizeof(cl_mem), &s->buffers[k]);
        } else {
            int64_t count;
            if (t1_expression_integer(s->spec, &a->size, s->slots, 1, &count, err) != 0)
                return SKYTUNE_ERR_LAUNCH;
            status = clSetKernelArg(l->kernel, (cl_uint)k,
                                    (size_t)count * t1_type_size(a->type), NULL);
        }
        if (status != CL_SUCCESS)
            return opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clSetKernelArg", a->name);
    }
    return SKYTUNE_OK;
}

/* Work-items per group and in all, in each dimension (t1_kernel.c says how
 * the file's sizes are read). */
static int geometry(const t1_state *s, t1_launch *l, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    l->work_dim = spec->work_dim;
    for (unsigned d = 0; d < spec->work_dim; d++) {
        int64_t local, groups = 1, global;
        if (t1_expression_integer(spec, &spec->local[d], s->slots, 1, &local, err) != 0)
            return SKYTUNE_ERR_LAUNCH;
        if (spec->n_grid_div[d]) {
            int64_t divisor = 1;
            for (size_t k = 0; k < spec->n_grid_div[d]; k++) {
                int64_t f;
                if (t1_expression_integer(spec, &spec->grid_div[d][k], s->slots, 1, &f, err) != 0)
                    return SKYTUNE_ERR_LAUNCH;
                if (__builtin_mul_overflow(divisor, f, &divisor)) divisor = INT64_MAX;
            }
            int64_t extent = s->slots[spec->n_params + d].i;
            groups = extent / divisor + (extent % divisor != 0);
            global = groups * local;
        } else if (spec->global[d].e) {
            if (t1_expression_integer(spec, &spec->global[d], s->slots, 1, &global, err) != 0)
                return SKYTUNE_ERR_LAUNCH;
            if (spec->global_counts_groups && __builtin_mul_overflow(global, local, &global))
                global = INT64_MAX;
        } else {
            global = local; /* no extent given: one work-group */
        }
        if (global > ((int64_t)1 << 40))
            return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "%s: %lld work-items in dimension "
                                     "%u is past any device", spec->path, (long long)global, d);
        l->local[d] = (size_t)local;
        l->global[d] = (size_t)global;
    }
    return SKYTUNE_OK;
}

static int t1_prepare(void *opaque, cl_program program, const skytune_values *config,
                      void **out, skytune_error *err)
{
    t1_state *s = opaque;
    int rc = ensure_data(s, err);
    if (rc != SKYTUNE_OK) return rc;
    t1_kernel_slots(s->spec, s->problem, config, s->slots);
    t1_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    l->label = s->spec->kernel_name;
    cl_int status;
    l->kernel = clCreateKernel(program, s->spec->kernel_name, &status);
    if (status != CL_SUCCESS) {
        l->kernel = NULL;
        t1_release(l);
        err->cl_error = status;
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "clCreateKernel(%s) failed: %s has no __kernel of that name "
                                 "(KernelSpecification.KernelName)",
                                 s->spec->kernel_name, s->spec->kernel_file);
    }
    if ((rc = set_arguments(s, l, err)) != SKYTUNE_OK || (rc = geometry(s, l, err)) != SKYTUNE_OK) {
        t1_release(l);
        return rc;
    }
    *out = l;
    return SKYTUNE_OK;
}

/* Every output back to its fill, so that a configuration that writes
 * nothing is judged on nothing but the file's data. */
static int t1_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    t1_state *s = opaque;
    for (size_t k = 0; k < s->spec->n_args; k++) {
        if (!s->initial[k]) continue;
        cl_int status = clEnqueueWriteBuffer(queue, s->buffers[k], CL_FALSE, 0,
                                             vector_bytes(s, k), s->initial[k], 0, NULL, NULL);
        if (status != CL_SUCCESS)
            return opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueWriteBuffer",
                                  s->spec->args[k].name);
    }
    return SKYTUNE_OK;
}

static int t1_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                      skytune_error *err)
{
    t1_launch *l = opaque;
    cl_event done = NULL;
    cl_int status = clEnqueueNDRangeKernel(queue, l->kernel, l->work_dim, NULL, l->global,
                                           l->local, 0, NULL, &done);
    if (status != CL_SUCCESS) {
        err->cl_error = status;
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "clEnqueueNDRangeKernel (global %zu x %zu x %zu, local %zu x "
                                 "%zu x %zu) failed",
                                 l->global[0], l->work_dim > 1 ? l->global[1] : 1,
                                 l->work_dim > 2 ? l->global[2] : 1, l->local[0],
                                 l->work_dim > 1 ? l->local[1] : 1,
                                 l->work_dim > 2 ? l->local[2] : 1);
    }
    if (skytune_events_add(events, done, l->label) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "too many events in one run");
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ checking */

static int read_output(t1_state *s, cl_command_queue queue, size_t k, void *into,
                       skytune_error *err)
{
    cl_int status = clEnqueueReadBuffer(queue, s->buffers[k], CL_TRUE, 0, vector_bytes(s, k),
                                        into, 0, NULL, NULL);
    return status == CL_SUCCESS ? SKYTUNE_OK
                                : opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                                 "clEnqueueReadBuffer", s->spec->args[k].name);
}

/* The checks, in order: one per ReferenceArgument, or (without any) one per
 * argument, the outputs compared with the Default configuration's. Check c
 * reads argument k (check_target) into actual[c] and compares it with
 * expected[c]; check_target is false where c checks nothing (without
 * ReferenceArguments, an argument that is not an output). */
static size_t check_count(const t1_kernel *spec)
{
    return spec->n_refs ? spec->n_refs : spec->n_args;
}

static bool check_target(const t1_kernel *spec, size_t c, size_t *k)
{
    *k = spec->n_refs ? spec->refs[c].target : c;
    return spec->n_refs || spec->args[*k].output;
}

/* One host array per check, for `arrays` (expected or actual), made on
 * first need and kept until teardown: reference_data names the expected
 * ones before the reference fills them. */
static int check_arrays(t1_state *s, void **arrays, skytune_error *err)
{
    for (size_t c = 0, k; c < check_count(s->spec); c++) {
        if (!check_target(s->spec, c, &k) || arrays[c]) continue;
        size_t bytes = vector_bytes(s, k);
        arrays[c] = malloc(bytes ? bytes : 1);
        if (!arrays[c]) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    }
    return SKYTUNE_OK;
}

/* The checked outputs of the verification run, read right after it: the
 * engine compares them after the timed runs, off the device. */
static int t1_read_back(void *opaque, const skytune_values *config, cl_command_queue queue,
                        skytune_error *err)
{
    (void)config;
    t1_state *s = opaque;
    int rc = check_arrays(s, s->actual, err);
    for (size_t c = 0, k; rc == SKYTUNE_OK && c < check_count(s->spec); c++)
        if (check_target(s->spec, c, &k)) rc = read_output(s, queue, k, s->actual[c], err);
    return rc;
}

/* Compares what t1_read_back read, each with the file's check. */
static int t1_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                     skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    (void)queue;
    (void)err;
    t1_state *s = opaque;
    const t1_kernel *spec = s->spec;
    memset(report, 0, sizeof *report);
    report->passed = 1;
    report->first_mismatch = -1;
    for (size_t c = 0, k; c < check_count(spec); c++) {
        if (!check_target(spec, c, &k)) continue;
        const t1_check *check = spec->n_refs ? &spec->refs[c].check : &spec->default_check;
        t1_compare(spec->args[k].type, s->actual[c], s->expected[c], s->count[k], check, 0,
                   report);
    }
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ the reference */

static int expected_from_references(t1_state *s, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    for (size_t c = 0; c < spec->n_refs; c++) {
        const t1_reference *r = &spec->refs[c];
        size_t k = r->target;
        skytune_error why = {0};
        if (t1_fill_data(&r->fill, spec->args[k].type, s->expected[c], s->count[k], s->seed,
                         1000 + c, &why) != 0)
            return skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s: reference '%s': %s", spec->path,
                                     r->name, why.message);
    }
    return SKYTUNE_OK;
}

/* The Default configuration, built and run once: its outputs are what every
 * other configuration must reproduce. */
static int expected_from_default(t1_state *s, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    skytune_named_value *items = calloc(spec->n_params + 1, sizeof *items);
    if (!items) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    for (size_t k = 0; k < spec->n_params; k++) {
        items[k].name = spec->params[k].name;
        items[k].value = spec->params[k].values[spec->default_index[k]];
    }
    skytune_values config = {.count = spec->n_params, .items = items};
    char shown[512];
    size_t used = 0;
    shown[0] = '\0';
    for (size_t k = 0; k < spec->n_params && used < sizeof shown; k++) {
        char v[128];
        value_format(&items[k].value, v, sizeof v);
        used += (size_t)snprintf(shown + used, sizeof shown - used, "%s%s=%s", k ? "," : "",
                                 items[k].name, v);
    }
    char options[8192];
    cl_program program = NULL;
    t1_launch *launch = NULL;
    int rc = SKYTUNE_OK;
    cl_int status = CL_SUCCESS;
    skytune_error why = {0};
    if (build_options_format(s->desc, s, s->problem, &config, options, sizeof options, &why) !=
        0) {
        rc = skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s", why.message);
        goto done;
    }
    const char *source = spec->kernel_source;
    program = clCreateProgramWithSource(s->context, 1, &source, NULL, &status);
    if (status == CL_SUCCESS) status = clBuildProgram(program, 1, &s->device, options, NULL, NULL);
    if (status != CL_SUCCESS) {
        char log[LOG_EXCERPT] = "";
        size_t log_size = 0;
        char *full = NULL;
        /* A log read into too small a buffer fails whole: read all of it. */
        if (program &&
            clGetProgramBuildInfo(program, s->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size) ==
                CL_SUCCESS &&
            (full = malloc(log_size + 1)) &&
            clGetProgramBuildInfo(program, s->device, CL_PROGRAM_BUILD_LOG, log_size, full, NULL) ==
                CL_SUCCESS) {
            full[log_size] = '\0';
            snprintf(log, sizeof log, "%s", full);
        }
        free(full);
        err->cl_error = status;
        rc = skytune_error_set(err, SKYTUNE_ERR_SETUP,
                               "%s: the Default configuration (%s), whose outputs are the "
                               "reference, does not build: %s",
                               spec->path, shown, log);
        goto done;
    }
    skytune_events events = {0};
    if ((rc = t1_prepare(s, program, &config, (void **)&launch, &why)) == SKYTUNE_OK &&
        (rc = t1_clear_outputs(s, s->queue, &why)) == SKYTUNE_OK)
        rc = t1_enqueue(launch, s->queue, &events, &why);
    status = clFinish(s->queue);
    for (size_t k = 0; k < events.count; k++) {
        cl_int done_status = CL_COMPLETE;
        clGetEventInfo(events.events[k], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof done_status,
                       &done_status, NULL);
        if (done_status < 0) status = done_status;
        clReleaseEvent(events.events[k]);
    }
    if (rc == SKYTUNE_OK && status != CL_SUCCESS) {
        why.cl_error = status;
        rc = skytune_error_set(&why, SKYTUNE_ERR_LAUNCH, "the kernel failed");
    }
    if (rc != SKYTUNE_OK) {
        err->cl_error = why.cl_error;
        rc = skytune_error_set(err, rc, "%s: the Default configuration (%s), whose outputs are "
                               "the reference, does not run: %s",
                               spec->path, shown, why.message);
        goto done;
    }
    for (size_t k = 0; k < spec->n_args && rc == SKYTUNE_OK; k++)
        if (spec->args[k].output) rc = read_output(s, s->queue, k, s->expected[k], err);
done:
    t1_release(launch);
    if (program) clReleaseProgram(program);
    free(items);
    return rc;
}

static int t1_compute_reference(void *opaque, skytune_error *err)
{
    t1_state *s = opaque;
    int rc = ensure_data(s, err);
    if (rc == SKYTUNE_OK) rc = check_arrays(s, s->expected, err);
    if (rc != SKYTUNE_OK) return rc;
    return s->spec->n_refs ? expected_from_references(s, err) : expected_from_default(s, err);
}

/* The expected arrays, one per check in check order, which the reference
 * fills and nothing else writes: the engine computes them once per
 * campaign (building and running the Default configuration, or reading the
 * ReferenceArguments' data) and copies them into every later worker. More
 * checks than the engine takes: each worker computes its own. */
static int t1_reference_data(void *opaque, skytune_region *regions, size_t max, size_t *count,
                             skytune_error *err)
{
    t1_state *s = opaque;
    int rc = check_arrays(s, s->expected, err);
    if (rc != SKYTUNE_OK) return rc;
    size_t n = 0;
    for (size_t c = 0, k; c < check_count(s->spec); c++) {
        if (!check_target(s->spec, c, &k)) continue;
        if (n == max)
            return skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s: more than %zu checked outputs",
                                     s->spec->path, max);
        regions[n++] = (skytune_region){s->expected[c], vector_bytes(s, k)};
    }
    *count = n;
    return SKYTUNE_OK;
}

static int t1_defines(void *opaque, const skytune_values *config, char *buf, size_t len,
                      skytune_error *err)
{
    const t1_state *s = opaque;
    (void)config;
    if ((size_t)snprintf(buf, len, "%s", s->spec->compiler_options) < len) return 0;
    return skytune_error_set(err, SKYTUNE_ERR_SETUP,
                             "%s: the CompilerOptions do not fit in the build options",
                             s->spec->path);
}

/* ------------------------------------------------------------ the description */

void t1_plugin_free(struct t1_plugin *p)
{
    if (!p) return;
    for (size_t k = 0; k < p->n_problem_texts; k++) free(p->problem_texts[k]);
    free(p->problem_texts);
    free(p->problem_params);
    free(p->problem_checks);
    if (p->value_lists)
        for (size_t k = 0; k < p->spec->n_params; k++) free(p->value_lists[k]);
    free(p->value_lists);
    free(p->tuning_params);
    free(p->constraints);
    t1_kernel_free(p->spec);
    free(p);
}

static char *keep(struct t1_plugin *p, const char *fmt, ...) SKYTUNE_PRINTF(2, 3);

/* A formatted text the description points to, owned by the plugin. */
static char *keep(struct t1_plugin *p, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *copy = strdup(text);
    if (copy) p->problem_texts[p->n_problem_texts++] = copy;
    return copy;
}

/* "v1,v2,..." of a parameter's values, as the ABI's lists take them. */
static char *value_list(const param_def *p)
{
    size_t capacity = 64, used = 0;
    char *text = malloc(capacity);
    for (size_t k = 0; text && k < p->count; k++) {
        char v[128];
        value_format(&p->values[k], v, sizeof v);
        if (used + strlen(v) + 2 > capacity) {
            capacity = 2 * (used + strlen(v) + 2);
            char *grown = realloc(text, capacity);
            if (!grown) {
                free(text);
                return NULL;
            }
            text = grown;
        }
        used += (size_t)snprintf(text + used, capacity - used, "%s%s", k ? "," : "", v);
    }
    return text;
}

static int describe(struct t1_plugin *p, skytune_error *err)
{
    const t1_kernel *spec = p->spec;
    size_t np = spec->n_problem, nt = spec->n_params;
    p->problem_params = calloc(np + 1, sizeof *p->problem_params);
    p->problem_checks = calloc(np + 1, sizeof *p->problem_checks);
    p->problem_texts = calloc(4 * np + 1, sizeof *p->problem_texts);
    p->tuning_params = calloc(nt + 1, sizeof *p->tuning_params);
    p->value_lists = calloc(nt + 1, sizeof *p->value_lists);
    p->constraints = calloc(spec->n_constraints + 1, sizeof *p->constraints);
    if (!p->problem_params || !p->problem_checks || !p->problem_texts || !p->tuning_params ||
        !p->value_lists || !p->constraints)
        return err_set(err, "out of memory");
    for (size_t k = 0; k < np; k++) {
        char name[32];
        t1_problem_name(k, name, sizeof name);
        skytune_problem_param *pp = &p->problem_params[k];
        pp->name = keep(p, "%s", name);
        pp->type = SKYTUNE_INT;
        pp->default_value = keep(p, "%lld", (long long)spec->problem_size[k]);
        pp->help = "ProblemSize entry of the T1 file";
        p->problem_checks[k].expression = keep(p, "%s >= 1", name);
        p->problem_checks[k].message = keep(p, "%s (ProblemSize[%zu]) must be at least 1", name, k);
        if (!pp->name || !pp->default_value || !p->problem_checks[k].expression ||
            !p->problem_checks[k].message)
            return err_set(err, "out of memory");
    }
    for (size_t k = 0; k < nt; k++) {
        const param_def *d = &spec->params[k];
        skytune_tuning_param *tp = &p->tuning_params[k];
        p->value_lists[k] = value_list(d);
        if (!p->value_lists[k]) return err_set(err, "out of memory");
        tp->name = d->name;
        tp->kind = d->type == SKYTUNE_STRING  ? SKYTUNE_ENUM
                   : d->type == SKYTUNE_FLOAT ? SKYTUNE_FLOAT_LIST
                                              : SKYTUNE_LIST;
        tp->list = p->value_lists[k];
        tp->help = "a tuning parameter of the T1 file";
    }
    for (size_t k = 0; k < spec->n_constraints; k++) p->constraints[k] = spec->constraints[k];
    p->desc = (skytune_plugin){
        .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
        .name = spec->name,
        .version = spec->version,
        .description = spec->description,
        .problem_params = p->problem_params,
        .problem_checks = p->problem_checks,
        .tuning_params = p->tuning_params,
        .constraints = p->constraints,
        .kernel_source = spec->kernel_source,
        .defines = t1_defines,
        .setup = t1_setup,
        .reference = t1_compute_reference,
        .reference_data = t1_reference_data,
        .prepare = t1_prepare,
        .clear_outputs = t1_clear_outputs,
        .enqueue = t1_enqueue,
        .read_back = t1_read_back,
        .verify = t1_verify,
        .release = t1_release,
        .teardown = t1_teardown,
        .data = p,
    };
    return 0;
}

int t1_plugin_open(const char *name_or_path, struct t1_plugin **out, skytune_error *err)
{
    *out = NULL;
    const char *path = name_or_path;
    if (strncmp(path, T1_PLUGIN_PREFIX, strlen(T1_PLUGIN_PREFIX)) == 0)
        path += strlen(T1_PLUGIN_PREFIX);
    struct t1_plugin *p = calloc(1, sizeof *p);
    if (!p) return err_set(err, "out of memory");
    if (t1_kernel_load(path, &p->spec, err) != 0 || describe(p, err) != 0) {
        t1_plugin_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

const skytune_plugin *t1_plugin_description(const struct t1_plugin *p)
{
    return &p->desc;
}

const char *t1_plugin_checked_against(const struct t1_plugin *p)
{
    return p->spec->verification;
}

uint64_t t1_plugin_build_hash(const struct t1_plugin *p)
{
    /* The file, its kernel and its data are the build: as a module's hash
     * of its kernel source, with the name and version. */
    char identity[256];
    snprintf(identity, sizeof identity, "%s %s\n", p->spec->name, p->spec->version);
    return space_text_hash(identity) ^ p->spec->hash;
}
