/*
 * A plugin that exercises each part of the plugin ABI the engine must hold
 * a plugin to, for tests/test_plugin_abi.c: build options of its own, a
 * configuration handed to verify, two outputs with tolerances of their own,
 * a derived value, a C constraint that gives reasons, and `defines`. The
 * problem parameter `fault` makes one callback misbehave:
 *
 *   none                nothing goes wrong
 *   check_lookup        check_problem looks up the undeclared name "nn"
 *   constraint_lookup   the C constraint looks up the undeclared name "shfit"
 *   prepare_lookup      prepare looks up the undeclared name "wg_sise"
 *   flops_lookup        flops looks up the undeclared name "N"
 *   derived_lookup      the derived value looks up the undeclared name "wgg"
 *   defines_fails       defines fails for shift = 1, saying why
 *   constraint_reason   the C constraint rejects shift = 1, saying why
 *
 * Configurations with shift = 1 add 1 to the second output, `shifted`,
 * which the reference never does: they fail verification on that output
 * alone. `unroll` adds that many sine evaluations the output never depends
 * on in practice, so that a driver generating code at the first launch has
 * a large kernel to generate.
 *
 * Compiled with -DABI_PLUGIN_VERSION=N it claims plugin ABI N, and with
 * -DABI_PLUGIN_BAD_OPTIONS its build options hold a quote, for the tests of
 * what the loader refuses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <skytune/plugin.h>

#ifndef ABI_PLUGIN_VERSION
#define ABI_PLUGIN_VERSION SKYTUNE_PLUGIN_ABI_VERSION
#endif

static const char kernel_source[] =
    "__kernel void abi_kernel(__global const float *in, __global float *scaled,\n"
    "                         __global float *shifted)\n"
    "{\n"
    "    const int i = get_global_id(0);\n"
    "    const float x = in[i];\n"
    "    float s = 0.0f;\n"
    "#pragma unroll\n"
    "    for (int j = 0; j < unroll; j++) s += sin(x * (float)(j + 1));\n"
    /* |s| <= unroll < 12345: never true, but no compiler can know. */
    "    scaled[i] = x * FACTOR + (s == 12345.5f ? 1.0f : 0.0f);\n"
    "    shifted[i] = x + shift;\n"
    "}\n";

static const skytune_problem_param problem_params[] = {
    {"n", SKYTUNE_INT, "1024", "elements"},
    {"unroll", SKYTUNE_INT, "0", "sine evaluations per element, for a large kernel"},
    {"fault", SKYTUNE_STRING, "none", "which callback misbehaves"},
    {NULL, 0, NULL, NULL}};

static const skytune_tuning_param tuning_params[] = {
    {"wg", SKYTUNE_LIST, "16,32,64", 0, 0, 0, "work-group size"},
    {"shift", SKYTUNE_LIST, "0,1", 0, 0, 0, "1: the second output is off by one"},
    {NULL, 0, NULL, 0, 0, 0, NULL}};

static const char *const constraints[] = {"n % wg == 0", NULL};

static int is_fault(const skytune_values *problem, const char *fault)
{
    const skytune_value *v = skytune_values_find(problem, "fault");
    return v && v->s && strcmp(v->s, fault) == 0;
}

static int abi_check_problem(const skytune_values *problem, const skytune_device_info *device,
                             skytune_error *err)
{
    (void)device;
    if (is_fault(problem, "check_lookup") && skytune_int(problem, "nn") < 0)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "nn is negative");
    if (skytune_int(problem, "n") < 64)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "n must be at least 64");
    return SKYTUNE_OK;
}

static int abi_constraint(const skytune_values *config, const skytune_values *problem,
                          const skytune_device_info *device, const char **why)
{
    (void)device;
    if (is_fault(problem, "constraint_lookup")) return skytune_int(config, "shfit") == 0;
    if (is_fault(problem, "constraint_reason") && skytune_int(config, "shift") == 1) {
        *why = "shift 1 is left out on purpose";
        return 0;
    }
    return 1;
}

typedef struct abi_state {
    int64_t n;
    int fault_prepare, fault_defines;
    int64_t prepared_wg;
    float *in, *expected_scaled, *expected_shifted, *got;
    cl_mem in_buf, scaled_buf, shifted_buf;
} abi_state;

typedef struct abi_launch {
    cl_kernel kernel;
    size_t global, local;
} abi_launch;

static void abi_teardown(void *opaque)
{
    abi_state *s = opaque;
    if (!s) return;
    if (s->in_buf) clReleaseMemObject(s->in_buf);
    if (s->scaled_buf) clReleaseMemObject(s->scaled_buf);
    if (s->shifted_buf) clReleaseMemObject(s->shifted_buf);
    free(s->in);
    free(s->expected_scaled);
    free(s->expected_shifted);
    free(s->got);
    free(s);
}

static int abi_setup(const skytune_setup_context *ctx, void **out, skytune_error *err)
{
    abi_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    *out = s;
    s->n = skytune_int(ctx->problem, "n");
    s->fault_prepare = is_fault(ctx->problem, "prepare_lookup");
    s->fault_defines = is_fault(ctx->problem, "defines_fails");
    size_t bytes = (size_t)s->n * sizeof(float);
    s->in = malloc(bytes);
    s->expected_scaled = malloc(bytes);
    s->expected_shifted = malloc(bytes);
    s->got = malloc(bytes);
    if (!s->in || !s->expected_scaled || !s->expected_shifted || !s->got)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    for (int64_t k = 0; k < s->n; k++) s->in[k] = (float)(k % 97) * 0.25f;
    cl_int rc;
    s->in_buf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                               s->in, &rc);
    if (rc == CL_SUCCESS)
        s->scaled_buf = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, bytes, NULL, &rc);
    if (rc == CL_SUCCESS)
        s->shifted_buf = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, bytes, NULL, &rc);
    if (rc != CL_SUCCESS) return skytune_error_set(err, SKYTUNE_ERR_SETUP, "clCreateBuffer");
    return SKYTUNE_OK;
}

/* FACTOR comes from the plugin's build options. */
#define FACTOR 3.0f

static int abi_reference(void *opaque, skytune_error *err)
{
    (void)err;
    abi_state *s = opaque;
    for (int64_t k = 0; k < s->n; k++) {
        s->expected_scaled[k] = s->in[k] * FACTOR;
        s->expected_shifted[k] = s->in[k];
    }
    return SKYTUNE_OK;
}

static int abi_defines(void *opaque, const skytune_values *config, char *buf, size_t len,
                       skytune_error *err)
{
    const abi_state *s = opaque;
    if (s->fault_defines && skytune_int(config, "shift") == 1)
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "the shift table does not fit");
    if (len > 0) buf[0] = '\0';
    return SKYTUNE_OK;
}

static int abi_prepare(void *opaque, cl_program program, const skytune_values *config,
                       void **out, skytune_error *err)
{
    abi_state *s = opaque;
    abi_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    cl_int rc;
    l->kernel = clCreateKernel(program, "abi_kernel", &rc);
    if (rc != CL_SUCCESS) {
        free(l);
        err->cl_error = rc;
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "clCreateKernel");
    }
    clSetKernelArg(l->kernel, 0, sizeof s->in_buf, &s->in_buf);
    clSetKernelArg(l->kernel, 1, sizeof s->scaled_buf, &s->scaled_buf);
    clSetKernelArg(l->kernel, 2, sizeof s->shifted_buf, &s->shifted_buf);
    l->global = (size_t)s->n;
    l->local = (size_t)skytune_int(config, s->fault_prepare ? "wg_sise" : "wg");
    if (l->local == 0) l->local = 16;
    s->prepared_wg = skytune_int(config, "wg");
    *out = l;
    return SKYTUNE_OK;
}

static int abi_clear(void *opaque, cl_command_queue queue, skytune_error *err)
{
    abi_state *s = opaque;
    float poison = NAN;
    size_t bytes = (size_t)s->n * sizeof(float);
    if (clEnqueueFillBuffer(queue, s->scaled_buf, &poison, sizeof poison, 0, bytes, 0, NULL,
                            NULL) != CL_SUCCESS ||
        clEnqueueFillBuffer(queue, s->shifted_buf, &poison, sizeof poison, 0, bytes, 0, NULL,
                            NULL) != CL_SUCCESS)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "clEnqueueFillBuffer");
    return SKYTUNE_OK;
}

static int abi_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                       skytune_error *err)
{
    abi_launch *l = opaque;
    cl_event done;
    cl_int rc = clEnqueueNDRangeKernel(queue, l->kernel, 1, NULL, &l->global, &l->local, 0, NULL,
                                       &done);
    if (rc != CL_SUCCESS) {
        err->cl_error = rc;
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "clEnqueueNDRangeKernel");
    }
    skytune_events_add(events, done, "abi_kernel");
    return SKYTUNE_OK;
}

/* Each output under its own name and tolerances. The configuration must be
 * the one prepare saw: verify is told which configuration it checks. */
static int abi_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                      skytune_verify_report *report, skytune_error *err)
{
    abi_state *s = opaque;
    if (!config || skytune_int(config, "wg") != s->prepared_wg)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "verify was not given the configuration prepare was");
    size_t bytes = (size_t)s->n * sizeof(float);
    if (clEnqueueReadBuffer(queue, s->scaled_buf, CL_TRUE, 0, bytes, s->got, 0, NULL, NULL) !=
        CL_SUCCESS)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "clEnqueueReadBuffer (scaled)");
    skytune_verify_floats(report, "scaled", s->got, s->expected_scaled, (size_t)s->n, 0.0,
                          1e-6);
    if (clEnqueueReadBuffer(queue, s->shifted_buf, CL_TRUE, 0, bytes, s->got, 0, NULL, NULL) !=
        CL_SUCCESS)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "clEnqueueReadBuffer (shifted)");
    skytune_verify_floats(report, "shifted", s->got, s->expected_shifted, (size_t)s->n, 0.5,
                          0.0);
    return SKYTUNE_OK;
}

static void abi_release(void *opaque)
{
    abi_launch *l = opaque;
    if (!l) return;
    if (l->kernel) clReleaseKernel(l->kernel);
    free(l);
}

static double abi_flops(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    return (double)skytune_int(problem, is_fault(problem, "flops_lookup") ? "N" : "n");
}

static double abi_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    return 12.0 * (double)skytune_int(problem, "n");
}

static double abi_work_groups(const skytune_values *problem, const skytune_values *config)
{
    int64_t wg = skytune_int(config, is_fault(problem, "derived_lookup") ? "wgg" : "wg");
    return wg > 0 ? (double)skytune_int(problem, "n") / (double)wg : 0.0;
}

static const skytune_derived_value derived_values[] = {
    {"work_groups", "n / wg", abi_work_groups},
    {NULL, NULL, NULL}};

static const skytune_plugin abi_plugin = {
    .abi_version = ABI_PLUGIN_VERSION,
    .name = "abi",
    .version = "1",
    .description = "exercises the plugin ABI (tests)",
    .problem_params = problem_params,
    .check_problem = abi_check_problem,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = abi_constraint,
    .kernel_source = kernel_source,
#ifdef ABI_PLUGIN_BAD_OPTIONS
    .build_options = "-D FACTOR=3.0f -D NAME=\"quoted\"",
#else
    .build_options = "-D FACTOR=3.0f",
#endif
    .defines = abi_defines,
    .setup = abi_setup,
    .reference = abi_reference,
    .prepare = abi_prepare,
    .clear_outputs = abi_clear,
    .enqueue = abi_enqueue,
    .verify = abi_verify,
    .release = abi_release,
    .teardown = abi_teardown,
    .flops = abi_flops,
    .bytes = abi_bytes,
    .derived_values = derived_values,
};

SKYTUNE_DEFINE_PLUGIN(abi_plugin)
