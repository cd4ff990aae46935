/* The T1 plugin's description and callbacks (t1_plugin.h); the expected
 * outputs are t1_reference.c's.
 *
 * setup only computes the buffer sizes of the problem and checks them
 * against the device; the data is made on first need (the reference or the
 * first prepare). A compile worker, which calls setup but never the
 * reference, so costs nothing but the file's reading. An output whose Size
 * reads the configuration gets its buffer as a configuration is prepared,
 * grown to the largest asked so far. */
#include "t1_plugin.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_options.h"
#include "space.h"
#include "t1_expressions.h"
#include "t1_kernel.h"
#include "t1_plugin_internal.h"
#include "value.h"

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

bool t1_plugin_names_file(const char *name_or_path)
{
    size_t len = strlen(name_or_path);
    return strncmp(name_or_path, T1_PLUGIN_PREFIX, strlen(T1_PLUGIN_PREFIX)) == 0 ||
           (len > 5 && strcmp(name_or_path + len - 5, ".json") == 0);
}

/* The file whose Flops and Bytes this thread's measurements count. The
 * ABI's flops and bytes callbacks take the problem and the configuration
 * but no state, as a C plugin's work is its code's; a T1 file's is its
 * expressions. setup binds its file here, in the thread that measures
 * with it, and teardown unbinds it. */
static _Thread_local const t1_kernel *measured_spec;

/* ------------------------------------------------------------ state */

static void t1_teardown(void *opaque)
{
    t1_state *s = opaque;
    if (!s) return;
    if (measured_spec == s->spec) measured_spec = NULL;
    size_t n = s->spec->n_args > s->spec->n_refs ? s->spec->n_args : s->spec->n_refs;
    for (size_t k = 0; k < s->spec->n_args; k++) {
        if (s->buffers && s->buffers[k]) clReleaseMemObject(s->buffers[k]);
        if (s->initial) free(s->initial[k]);
    }
    for (size_t k = 0; k < n; k++) {
        if (s->expected) free(s->expected[k]);
        if (s->actual) free(s->actual[k]);
    }
    free(s->buffers);
    free(s->initial);
    free(s->expected);
    free(s->expected_count);
    free(s->reference_for);
    free(s->actual);
    free(s->count);
    free(s->capacity);
    free(s->slots);
    free(s);
}

static size_t vector_bytes(const t1_state *s, size_t k)
{
    return s->count[k] * t1_type_size(s->spec->args[k].type);
}

/* Whether argument k's host data is kept: an output's, to reset it before
 * each run, and an input's a Check reduces. */
static bool keeps_data(const t1_kernel *spec, size_t k)
{
    if (spec->args[k].output) return true;
    for (size_t c = 0; c < spec->n_checks; c++)
        if (spec->checks[c].against == k) return true;
    return false;
}

/* Elements of Vector argument k for the slots, checked against the
 * device's largest buffer. */
static int vector_count(const t1_state *s, size_t k, int code, size_t *out, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    const t1_argument *a = &spec->args[k];
    int64_t count;
    if (t1_expression_integer(spec, &a->size, s->slots, 1, &count, err) != 0) return code;
    double bytes = (double)count * (double)t1_type_size(a->type);
    if (bytes > (double)s->device_info->max_mem_alloc_size)
        return skytune_error_set(err, code,
                                 "%s: argument '%s' needs %.0f bytes (%lld %s); this device "
                                 "allocates at most %lld bytes in one buffer (reduce the "
                                 "ProblemSize it reads, with --set problem_size_N=...)",
                                 spec->path, a->name, bytes, (long long)count, a->type->name,
                                 (long long)s->device_info->max_mem_alloc_size);
    *out = (size_t)count;
    return SKYTUNE_OK;
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
    s->device_info = ctx->device_info;
    s->seed = ctx->seed;
    size_t n = (spec->n_args > spec->n_refs ? spec->n_args : spec->n_refs) + 1;
    s->count = calloc(n, sizeof *s->count);
    s->capacity = calloc(n, sizeof *s->capacity);
    s->initial = calloc(n, sizeof *s->initial);
    s->buffers = calloc(n, sizeof *s->buffers);
    s->expected = calloc(n, sizeof *s->expected);
    s->expected_count = calloc(n, sizeof *s->expected_count);
    s->actual = calloc(n, sizeof *s->actual);
    s->reference_for = calloc(spec->n_params + 1, sizeof *s->reference_for);
    s->slots = calloc(spec->n_params + T1_MAX_PROBLEM + 1, sizeof *s->slots);
    if (!s->count || !s->capacity || !s->initial || !s->buffers || !s->expected ||
        !s->expected_count || !s->actual || !s->reference_for || !s->slots) {
        t1_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    }
    t1_kernel_slots(spec, ctx->problem, NULL, s->slots);
    for (size_t k = 0; k < spec->n_args; k++) {
        const t1_argument *a = &spec->args[k];
        /* An output sized by the configuration is sized as each is prepared. */
        if (a->memory != T1_VECTOR || a->size.reads_config) continue;
        int rc = vector_count(s, k, SKYTUNE_ERR_PROBLEM, &s->count[k], err);
        if (rc != SKYTUNE_OK) {
            t1_teardown(s);
            return rc;
        }
        s->capacity[k] = s->count[k];
    }
    measured_spec = spec;
    *out = s;
    return SKYTUNE_OK;
}

static int opencl_failure(skytune_error *err, int code, cl_int status, const char *what,
                          const char *name)
{
    if (err) err->cl_error = status;
    return skytune_error_set(err, code, "%s (argument '%s') failed", what, name);
}

/* Argument k's buffer of `count` elements, filled as the file says (its
 * host copy kept where keeps_data says). */
static int make_buffer(t1_state *s, size_t k, size_t count, int code, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    const t1_argument *a = &spec->args[k];
    size_t bytes = count * t1_type_size(a->type);
    void *data = malloc(bytes ? bytes : 1);
    if (!data)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for argument '%s' "
                                 "(%zu bytes)", a->name, bytes);
    skytune_error why = {0};
    if (t1_fill_data(&a->fill, a->type, data, count, s->seed, k + 1, &why) != 0) {
        free(data);
        return skytune_error_set(err, code, "%s: argument '%s': %s", spec->path, a->name,
                                 why.message);
    }
    cl_mem_flags flags = a->access == T1_READ_ONLY    ? CL_MEM_READ_ONLY
                         : a->access == T1_WRITE_ONLY ? CL_MEM_WRITE_ONLY
                                                      : CL_MEM_READ_WRITE;
    cl_int status;
    cl_mem buffer = clCreateBuffer(s->context, flags | CL_MEM_COPY_HOST_PTR, bytes ? bytes : 1,
                                   data, &status);
    if (status != CL_SUCCESS) {
        free(data);
        return opencl_failure(err, code, status, "clCreateBuffer", a->name);
    }
    if (s->buffers[k]) clReleaseMemObject(s->buffers[k]);
    s->buffers[k] = buffer;
    free(s->initial[k]);
    s->initial[k] = NULL;
    if (keeps_data(spec, k))
        s->initial[k] = data;
    else
        free(data);
    s->capacity[k] = count;
    return SKYTUNE_OK;
}

/* The buffers of the problem, filled as the file says. */
static int ensure_data(t1_state *s, skytune_error *err)
{
    if (s->ready) return SKYTUNE_OK;
    for (size_t k = 0; k < s->spec->n_args; k++) {
        const t1_argument *a = &s->spec->args[k];
        if (a->memory != T1_VECTOR || a->size.reads_config) continue;
        int rc = make_buffer(s, k, s->count[k], SKYTUNE_ERR_SETUP, err);
        if (rc != SKYTUNE_OK) return rc;
    }
    s->ready = true;
    return SKYTUNE_OK;
}

int t1_size_outputs(t1_state *s, skytune_error *err)
{
    for (size_t k = 0; k < s->spec->n_args; k++) {
        const t1_argument *a = &s->spec->args[k];
        if (a->memory != T1_VECTOR || !a->size.reads_config) continue;
        int rc = vector_count(s, k, SKYTUNE_ERR_LAUNCH, &s->count[k], err);
        /* A buffer grows to the largest size asked so far, never shrinks. */
        if (rc == SKYTUNE_OK && s->count[k] > s->capacity[k])
            rc = make_buffer(s, k, s->count[k], SKYTUNE_ERR_LAUNCH, err);
        if (rc != SKYTUNE_OK) return rc;
    }
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ a launch */

void t1_release(void *opaque)
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

static int check_extent(const t1_kernel *spec, int64_t global, unsigned d, skytune_error *err)
{
    if (global <= ((int64_t)1 << 40)) return SKYTUNE_OK;
    return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "%s: %lld work-items in dimension %u is "
                             "past any device", spec->path, (long long)global, d);
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
        if (spec->has_grid_div[d]) {
            int64_t divisor = 1;
            for (size_t k = 0; k < spec->n_grid_div[d]; k++) {
                int64_t f;
                if (t1_expression_integer(spec, &spec->grid_div[d][k], s->slots, 1, &f, err) != 0)
                    return SKYTUNE_ERR_LAUNCH;
                if (__builtin_mul_overflow(divisor, f, &divisor)) divisor = INT64_MAX;
            }
            int64_t extent;
            if (t1_problem_extent(spec, d, s->slots, &extent, err) != 0) return SKYTUNE_ERR_LAUNCH;
            groups = extent / divisor + (extent % divisor != 0);
            if (__builtin_mul_overflow(groups, local, &global)) global = INT64_MAX;
        } else if (spec->global[d].e) {
            if (t1_expression_integer(spec, &spec->global[d], s->slots, 1, &global, err) != 0)
                return SKYTUNE_ERR_LAUNCH;
            if (spec->global_counts_groups && __builtin_mul_overflow(global, local, &global))
                global = INT64_MAX;
        } else {
            global = local; /* no extent given: one work-group */
        }
        if (check_extent(spec, global, d, err) != SKYTUNE_OK) return SKYTUNE_ERR_LAUNCH;
        l->local[d] = (size_t)local;
        l->global[d] = (size_t)global;
    }
    return SKYTUNE_OK;
}

/* The reference kernel's: GlobalSize counts work-items; without LocalSize
 * the driver chooses the work-group. */
static int reference_geometry(const t1_state *s, t1_launch *l, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    l->work_dim = spec->reference_work_dim;
    l->driver_local = !spec->reference_local[0].e;
    for (unsigned d = 0; d < spec->reference_work_dim; d++) {
        int64_t global = 1, local = 1;
        if (spec->reference_global[d].e &&
            t1_expression_integer(spec, &spec->reference_global[d], s->slots, 1, &global, err) != 0)
            return SKYTUNE_ERR_LAUNCH;
        if (spec->reference_local[d].e &&
            t1_expression_integer(spec, &spec->reference_local[d], s->slots, 1, &local, err) != 0)
            return SKYTUNE_ERR_LAUNCH;
        if (check_extent(spec, global, d, err) != SKYTUNE_OK) return SKYTUNE_ERR_LAUNCH;
        l->global[d] = (size_t)global;
        l->local[d] = (size_t)local;
    }
    return SKYTUNE_OK;
}

int t1_make_launch(t1_state *s, cl_program program, const char *kernel_name,
                   const skytune_values *config, bool reference, t1_launch **out,
                   skytune_error *err)
{
    t1_kernel_slots(s->spec, s->problem, config, s->slots);
    t1_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    l->label = kernel_name;
    cl_int status;
    l->kernel = clCreateKernel(program, kernel_name, &status);
    if (status != CL_SUCCESS) {
        l->kernel = NULL;
        t1_release(l);
        err->cl_error = status;
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "clCreateKernel(%s) failed: %s has no __kernel of that name "
                                 "(KernelSpecification.%s)",
                                 kernel_name, s->spec->kernel_file,
                                 reference ? "Verification.ReferenceKernel.KernelName"
                                           : "KernelName");
    }
    int rc = set_arguments(s, l, err);
    if (rc == SKYTUNE_OK) rc = reference ? reference_geometry(s, l, err) : geometry(s, l, err);
    if (rc != SKYTUNE_OK) {
        t1_release(l);
        return rc;
    }
    *out = l;
    return SKYTUNE_OK;
}

static int t1_prepare(void *opaque, cl_program program, const skytune_values *config,
                      void **out, skytune_error *err)
{
    t1_state *s = opaque;
    int rc = ensure_data(s, err);
    if (rc != SKYTUNE_OK) return rc;
    t1_kernel_slots(s->spec, s->problem, config, s->slots);
    if ((rc = t1_size_outputs(s, err)) != SKYTUNE_OK) return rc;
    if (!t1_reference_is_shared(s->spec)) {
        /* The reference may have run another configuration: this one's
         * sizes again. */
        if ((rc = t1_reference_for_config(s, program, config, err)) != SKYTUNE_OK) return rc;
        t1_kernel_slots(s->spec, s->problem, config, s->slots);
        if ((rc = t1_size_outputs(s, err)) != SKYTUNE_OK) return rc;
    }
    return t1_make_launch(s, program, s->spec->kernel_name, config, false, (t1_launch **)out,
                          err);
}

/* Every output back to its fill, so that a configuration that writes
 * nothing is judged on nothing but the file's data. */
int t1_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    t1_state *s = opaque;
    for (size_t k = 0; k < s->spec->n_args; k++) {
        if (!s->initial[k] || !s->spec->args[k].output) continue;
        cl_int status = clEnqueueWriteBuffer(queue, s->buffers[k], CL_FALSE, 0,
                                             vector_bytes(s, k), s->initial[k], 0, NULL, NULL);
        if (status != CL_SUCCESS)
            return opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueWriteBuffer",
                                  s->spec->args[k].name);
    }
    return SKYTUNE_OK;
}

int t1_enqueue(void *opaque, cl_command_queue queue, skytune_events *events, skytune_error *err)
{
    t1_launch *l = opaque;
    cl_event done = NULL;
    cl_int status = clEnqueueNDRangeKernel(queue, l->kernel, l->work_dim, NULL, l->global,
                                           l->driver_local ? NULL : l->local, 0, NULL, &done);
    if (status != CL_SUCCESS) {
        err->cl_error = status;
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "clEnqueueNDRangeKernel of %s (global %zu x %zu x %zu, local "
                                 "%zu x %zu x %zu) failed",
                                 l->label, l->global[0], l->work_dim > 1 ? l->global[1] : 1,
                                 l->work_dim > 2 ? l->global[2] : 1, l->local[0],
                                 l->work_dim > 1 ? l->local[1] : 1,
                                 l->work_dim > 2 ? l->local[2] : 1);
    }
    if (skytune_events_add(events, done, l->label) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "too many events in one run");
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ checking */

int t1_read_output(t1_state *s, cl_command_queue queue, size_t k, void *into, skytune_error *err)
{
    cl_int status = clEnqueueReadBuffer(queue, s->buffers[k], CL_TRUE, 0, vector_bytes(s, k),
                                        into, 0, NULL, NULL);
    return status == CL_SUCCESS ? SKYTUNE_OK
                                : opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                                 "clEnqueueReadBuffer", s->spec->args[k].name);
}

/* The outputs read back: with ReferenceArguments one per reference (its
 * target), else every output, indexed by argument. */
static size_t read_count(const t1_kernel *spec)
{
    return spec->method == T1_VERIFY_REFERENCES ? spec->n_refs : spec->n_args;
}

static bool read_target(const t1_kernel *spec, size_t c, size_t *k)
{
    *k = spec->method == T1_VERIFY_REFERENCES ? spec->refs[c].target : c;
    return spec->method == T1_VERIFY_REFERENCES || spec->args[*k].output;
}

/* The checked outputs of the verification run, read right after it: the
 * engine compares them after the timed runs, off the device. */
static int t1_read_back(void *opaque, const skytune_values *config, cl_command_queue queue,
                        skytune_error *err)
{
    (void)config;
    t1_state *s = opaque;
    for (size_t c = 0, k; c < read_count(s->spec); c++) {
        if (!read_target(s->spec, c, &k)) continue;
        size_t bytes = vector_bytes(s, k);
        void *grown = realloc(s->actual[c], bytes ? bytes : 1);
        if (!grown) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
        s->actual[c] = grown;
        int rc = t1_read_output(s, queue, k, s->actual[c], err);
        if (rc != SKYTUNE_OK) return rc;
    }
    return SKYTUNE_OK;
}

/* One comparison as an output of the report, merged into its summary as
 * skytune_verify_floats does. */
static void report_output(skytune_verify_report *report, const char *name, const t1_type *type,
                          const void *got, const void *want, size_t count, const t1_check *check)
{
    skytune_verify_report one = {.passed = 1, .first_mismatch = -1};
    t1_compare(type, got, want, count, check, 0, &one);
    if (report->n_outputs < SKYTUNE_MAX_OUTPUTS) {
        skytune_output_report *o = &report->outputs[report->n_outputs++];
        snprintf(o->name, sizeof o->name, "%s", name);
        o->abs_tol = check->method == T1_SIDE_BY_SIDE_RELATIVE ? 0.0 : check->threshold;
        o->rel_tol = check->method == T1_SIDE_BY_SIDE_RELATIVE ? check->threshold : 0.0;
        o->count = count * type->width;
        o->passed = one.passed;
        o->max_abs_error = one.max_abs_error;
        o->max_rel_error = one.max_rel_error;
        o->first_mismatch = one.first_mismatch;
        o->mismatches = one.mismatches;
    }
    bool first_failure = !one.passed && report->passed;
    if (first_failure || (report->passed && one.passed)) {
        if (first_failure || one.max_abs_error > report->max_abs_error)
            report->max_abs_error = one.max_abs_error;
        if (first_failure || one.max_rel_error > report->max_rel_error)
            report->max_rel_error = one.max_rel_error;
        if (first_failure) report->first_mismatch = one.first_mismatch;
    }
    if (!one.passed) {
        report->passed = 0;
        report->mismatches += one.mismatches;
    }
}

/* The sum, least or greatest of every component of `count` elements. */
static double reduce(t1_reduce how, const t1_type *type, const void *data, size_t count)
{
    size_t n = count * type->width;
    double r = how == T1_REDUCE_SUM ? 0.0 : how == T1_REDUCE_MIN ? INFINITY : -INFINITY;
    for (size_t k = 0; k < n; k++) {
        double v = t1_component_get(type, data, k);
        r = how == T1_REDUCE_SUM ? r + v : how == T1_REDUCE_MIN ? fmin(r, v) : fmax(r, v);
    }
    return r;
}

static void report_checks(const t1_state *s, skytune_verify_report *report)
{
    const t1_kernel *spec = s->spec;
    const t1_type *real = t1_type_find("double");
    for (size_t c = 0; c < spec->n_checks; c++) {
        const t1_reduction_check *check = &spec->checks[c];
        size_t o = check->output;
        const t1_type *type = spec->args[o].type;
        double got = reduce(check->reduce, type, s->actual[o], s->count[o]);
        double want = check->against == SIZE_MAX
                          ? reduce(check->reduce, type, s->expected[o], s->expected_count[o])
                          : reduce(check->reduce, spec->args[check->against].type,
                                   s->initial[check->against], s->count[check->against]);
        t1_check relative = {.method = T1_SIDE_BY_SIDE_RELATIVE, .threshold = check->threshold};
        report_output(report, check->text, real, &got, &want, 1, &relative);
    }
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
    if (spec->method == T1_VERIFY_REFERENCES) {
        for (size_t c = 0; c < spec->n_refs; c++) {
            size_t k = spec->refs[c].target;
            report_output(report, spec->args[k].name, spec->args[k].type, s->actual[c],
                          s->expected[c], s->count[k], &spec->refs[c].check);
        }
    } else if (spec->method != T1_VERIFY_NONE) {
        for (size_t k = 0; k < spec->n_args; k++) {
            const t1_argument *a = &spec->args[k];
            if (!a->output || a->checked_by_reduction) continue;
            report_output(report, a->name, a->type, s->actual[k], s->expected[k],
                          s->count[k] < s->expected_count[k] ? s->count[k] : s->expected_count[k],
                          &spec->default_check);
        }
    }
    report_checks(s, report);
    return SKYTUNE_OK;
}

static int t1_compute_reference(void *opaque, skytune_error *err)
{
    t1_state *s = opaque;
    int rc = ensure_data(s, err);
    return rc == SKYTUNE_OK ? t1_reference_at_setup(s, err) : rc;
}

/* The expected arrays, which the reference fills and nothing else writes:
 * the engine computes them once per campaign and copies them into every
 * later worker. None where the reference is computed as configurations
 * are prepared: each worker computes its own. */
static int t1_reference_data(void *opaque, skytune_region *regions, size_t max, size_t *count,
                             skytune_error *err)
{
    t1_state *s = opaque;
    const t1_kernel *spec = s->spec;
    *count = 0;
    if (!t1_reference_is_shared(spec) || spec->method == T1_VERIFY_NONE) return SKYTUNE_OK;
    int rc = t1_expected_arrays(s, err);
    if (rc != SKYTUNE_OK) return rc;
    size_t n = 0;
    for (size_t c = 0, k; c < read_count(spec); c++) {
        if (!read_target(spec, c, &k) || !s->expected[c]) continue;
        if (n == max)
            return skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s: more than %zu checked outputs",
                                     spec->path, max);
        regions[n++] = (skytune_region){s->expected[c], vector_bytes(s, k)};
    }
    *count = n;
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------ build and work */

static int t1_defines(void *opaque, const skytune_values *config, char *buf, size_t len,
                      skytune_error *err)
{
    t1_state *s = opaque;
    const t1_kernel *spec = s->spec;
    size_t used = (size_t)snprintf(buf, len, "%s", spec->compiler_options);
    t1_kernel_slots(spec, s->problem, config, s->slots);
    for (size_t k = 0; k < spec->n_defines && used < len; k++) {
        const t1_define *d = &spec->defines[k];
        expr_value v;
        skytune_error why = {0};
        if (expr_eval(d->value.e, s->slots, &v, &why) != 0)
            return skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s: %s \"%s\": %s", spec->path,
                                     d->value.key, d->value.text, why.message);
        const char *sep = used ? " " : "";
        if (v.kind == EXPR_INT)
            used += (size_t)snprintf(buf + used, len - used, "%s-D %s=%lld", sep, d->name,
                                     (long long)v.i);
        else if (v.kind == EXPR_FLOAT && isfinite(v.f)) {
            /* A float literal, as a real parameter's (build_options.c). */
            char number[48];
            snprintf(number, sizeof number, "%.9g", v.f);
            used += (size_t)snprintf(buf + used, len - used, "%s-D %s=%s%s", sep, d->name, number,
                                     strpbrk(number, ".eE") ? "f" : ".0f");
        } else if (v.kind == EXPR_FLOAT)
            return skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s: %s \"%s\" is not a finite "
                                     "number", spec->path, d->value.key, d->value.text);
        else
            return skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s: %s \"%s\" is a string; a Define "
                                     "is a number", spec->path, d->value.key, d->value.text);
    }
    if (used < len) return 0;
    return skytune_error_set(err, SKYTUNE_ERR_SETUP,
                             "%s: the CompilerOptions and Defines do not fit in the build options",
                             spec->path);
}

/* An expression of the work of one run, for the configuration; 0 where
 * the file gives none or it cannot be evaluated. */
static double work(const t1_expression *x, const skytune_values *problem,
                   const skytune_values *config)
{
    const t1_kernel *spec = measured_spec;
    if (!spec || !x->e) return 0.0;
    expr_value *slots = calloc(spec->n_params + T1_MAX_PROBLEM, sizeof *slots);
    if (!slots) return 0.0;
    t1_kernel_slots(spec, problem, config, slots);
    expr_value v;
    skytune_error why = {0};
    int rc = expr_eval(x->e, slots, &v, &why);
    free(slots);
    if (rc != 0) return 0.0;
    return v.kind == EXPR_INT ? (double)v.i : v.kind == EXPR_FLOAT ? v.f : 0.0;
}

static double t1_flops(const skytune_values *problem, const skytune_values *config)
{
    return measured_spec ? work(&measured_spec->flops, problem, config) : 0.0;
}

static double t1_bytes(const skytune_values *problem, const skytune_values *config)
{
    return measured_spec ? work(&measured_spec->bytes, problem, config) : 0.0;
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
    /* An entry written as an expression is no problem parameter. */
    for (size_t k = 0, n = 0; k < np; k++) {
        if (spec->problem_expr[k].e) continue;
        char name[32];
        t1_problem_name(k, name, sizeof name);
        skytune_problem_param *pp = &p->problem_params[n];
        skytune_problem_check *check = &p->problem_checks[n++];
        pp->name = keep(p, "%s", name);
        pp->type = SKYTUNE_INT;
        pp->default_value = keep(p, "%lld", (long long)spec->problem_size[k]);
        pp->help = "ProblemSize entry of the T1 file";
        check->expression = keep(p, "%s >= 1", name);
        check->message = keep(p, "%s (ProblemSize[%zu]) must be at least 1", name, k);
        if (!pp->name || !pp->default_value || !check->expression || !check->message)
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
        .flops = t1_flops,
        .bytes = t1_bytes,
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

const char *t1_plugin_compared_with(const struct t1_plugin *p)
{
    return p->spec->compared_with;
}

uint64_t t1_plugin_build_hash(const struct t1_plugin *p)
{
    /* The file, its kernel and its data are the build: as a module's hash
     * of its kernel source, with the name and version. */
    char identity[256];
    snprintf(identity, sizeof identity, "%s %s\n", p->spec->name, p->spec->version);
    return space_text_hash(identity) ^ p->spec->hash;
}
