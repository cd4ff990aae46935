#include "trivial_plugin.h"

#include <math.h>
#include <stdlib.h>


static const char kernel_source[] =
    "#if MODE == 1\n"
    "#error this configuration does not compile\n"
    "#endif\n"
    "__kernel void scale(__global const float *in, __global float *out) {\n"
    "    size_t i = get_global_id(0);\n"
    "#if MODE == 3\n"
    "    out[i] = (i == 100) ? -1.0f : 2.0f * in[i];\n"
    "#elif MODE == 4\n"
    "    (void)in; (void)out; (void)i;\n"
    "#else\n"
    "    out[i] = 2.0f * in[i];\n"
    "#endif\n"
    "}\n";

typedef struct scale_state {
    cl_context context;
    cl_mem in, out;
    float host_in[TRIVIAL_N], expected[TRIVIAL_N], got[TRIVIAL_N];
} scale_state;

typedef struct scale_launch {
    cl_kernel kernel;
    size_t local;
} scale_launch;

static int scale_setup(const skytune_setup_context *ctx, void **state, skytune_error *err)
{
    scale_state *s = calloc(1, sizeof *s);
    if (!s) return SKYTUNE_ERR_MEMORY;
    for (int k = 0; k < TRIVIAL_N; k++) s->host_in[k] = (float)k * 0.5f;
    cl_int rc;
    s->in = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof s->host_in,
                           s->host_in, &rc);
    s->out = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, sizeof s->got, NULL, &rc);
    *state = s;
    return rc == CL_SUCCESS ? 0 : skytune_error_set(err, SKYTUNE_ERR_SETUP, "buffers");
}

static int scale_reference(void *state, skytune_error *err)
{
    scale_state *s = state;
    for (int k = 0; k < TRIVIAL_N; k++) s->expected[k] = 2.0f * s->host_in[k];
    return 0;
}

static int scale_prepare(void *state, cl_program program, const skytune_values *config,
                         void **launch, skytune_error *err)
{
    scale_state *s = state;
    scale_launch *l = calloc(1, sizeof *l);
    cl_int rc;
    l->kernel = clCreateKernel(program, "scale", &rc);
    if (rc != CL_SUCCESS) {
        free(l);
        err->cl_error = rc;
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "clCreateKernel");
    }
    clSetKernelArg(l->kernel, 0, sizeof s->in, &s->in);
    clSetKernelArg(l->kernel, 1, sizeof s->out, &s->out);
    l->local = (size_t)skytune_int(config, "wg");
    *launch = l;
    return 0;
}

static int scale_clear(void *state, cl_command_queue q, skytune_error *err)
{
    scale_state *s = state;
    float nan_value = NAN;
    return clEnqueueFillBuffer(q, s->out, &nan_value, sizeof nan_value, 0, sizeof s->got, 0, NULL,
                               NULL) == CL_SUCCESS
               ? 0
               : SKYTUNE_ERR_LAUNCH;
}

static int scale_enqueue(void *launch, cl_command_queue q, skytune_events *ev, skytune_error *err)
{
    scale_launch *l = launch;
    size_t global = TRIVIAL_N;
    cl_event e;
    cl_int rc = clEnqueueNDRangeKernel(q, l->kernel, 1, NULL, &global, &l->local, 0, NULL, &e);
    if (rc != CL_SUCCESS) {
        err->cl_error = rc;
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "clEnqueueNDRangeKernel");
    }
    skytune_events_add(ev, e, "scale");
    return 0;
}

static int scale_verify(void *state, const skytune_values *config, cl_command_queue q,
                        skytune_verify_report *r, skytune_error *err)
{
    (void)config;
    scale_state *s = state;
    if (clEnqueueReadBuffer(q, s->out, CL_TRUE, 0, sizeof s->got, s->got, 0, NULL, NULL) !=
        CL_SUCCESS)
        return SKYTUNE_ERR_LAUNCH;
    skytune_compare_floats(s->got, s->expected, TRIVIAL_N, 1e-6, 1e-6, r);
    return 0;
}

static void scale_release(void *launch)
{
    scale_launch *l = launch;
    clReleaseKernel(l->kernel);
    free(l);
}

static void scale_teardown(void *state)
{
    scale_state *s = state;
    clReleaseMemObject(s->in);
    clReleaseMemObject(s->out);
    free(s);
}

static double scale_flops(const skytune_values *p, const skytune_values *c)
{
    return TRIVIAL_N;
}

static double scale_bytes(const skytune_values *p, const skytune_values *c)
{
    return 8.0 * TRIVIAL_N;
}

static const skytune_tuning_param scale_params[] = {
    {.name = "wg", .kind = SKYTUNE_LIST, .list = "1,3,64"},
    {.name = "MODE", .kind = SKYTUNE_LIST, .list = "0,1,3,4"},
    /* Changes nothing but the build options: a space of many configurations
     * of one trivial kernel, for measuring the engine's own overhead. */
    {.name = "variant", .kind = SKYTUNE_RANGE, .from = 0, .to = 999, .step = 1},
    {0},
};

const skytune_plugin trivial_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "scale",
    .version = "1",
    .tuning_params = scale_params,
    .kernel_source = kernel_source,
    .setup = scale_setup,
    .reference = scale_reference,
    .prepare = scale_prepare,
    .clear_outputs = scale_clear,
    .enqueue = scale_enqueue,
    .verify = scale_verify,
    .release = scale_release,
    .teardown = scale_teardown,
    .flops = scale_flops,
    .bytes = scale_bytes,
};


/* The kernel of the strings plugin: a build option that should not be
 * there (-D INJECTED) makes every configuration compute 3 x in. */
static const char strings_kernel_source[] =
    "__kernel void scale(__global const float *in, __global float *out) {\n"
    "    size_t i = get_global_id(0);\n"
    "#ifdef INJECTED\n"
    "    out[i] = 3.0f * in[i];\n"
    "#else\n"
    "    out[i] = 2.0f * in[i];\n"
    "#endif\n"
    "}\n";

static const skytune_problem_param strings_problem_params[] = {
    {"a", SKYTUNE_STRING, "x", "text the kernel gets as -D a=VALUE and never reads"},
    {"b", SKYTUNE_STRING, "y", "text the kernel gets as -D b=VALUE and never reads"},
    {NULL, 0, NULL, NULL},
};

static const skytune_tuning_param strings_tuning_params[] = {
    {.name = "wg", .kind = SKYTUNE_LIST, .list = "1,64"},
    {0},
};

const skytune_plugin trivial_strings_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "strings",
    .version = "1",
    .problem_params = strings_problem_params,
    .tuning_params = strings_tuning_params,
    .kernel_source = strings_kernel_source,
    .setup = scale_setup,
    .reference = scale_reference,
    .prepare = scale_prepare,
    .clear_outputs = scale_clear,
    .enqueue = scale_enqueue,
    .verify = scale_verify,
    .release = scale_release,
    .teardown = scale_teardown,
    .flops = scale_flops,
    .bytes = scale_bytes,
};
