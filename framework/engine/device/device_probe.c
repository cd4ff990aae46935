#include "device_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Four chains of VEC-wide vectors per work-item, four dependent
 * multiply-adds on each per loop trip: enough independent work to hide the
 * latency of a multiply-add. GPUs split vectors into scalars and find the
 * parallelism in their many work-items (VEC 4: 16 chains each); CPU drivers
 * such as PoCL need the vector width spelled out to fill their SIMD units
 * (VEC 16; the sum is reduced by halves, which PoCL vectorises where a
 * loop over the lanes halved the rate). Lanes start apart so that no
 * compiler can fold a vector into one lane. y < 1 makes every chain
 * converge to x / (1 - y) instead of overflowing or going denormal, either
 * of which would slow some devices down. The sum is stored so the compiler
 * cannot drop the chains. */
static const char probe_source[] =
    "__kernel void triad(__global float4 *a, __global const float4 *b,\n"
    "                    __global const float4 *c, const float s)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    a[i] = b[i] + s * c[i];\n"
    "}\n"
    "\n"
    "#define CAT(a, b) a##b\n"
    "#define XCAT(a, b) CAT(a, b)\n"
    "typedef XCAT(float, VEC) vec;\n"
    "__constant float lanes[16] = {0.00f, 0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f, 0.07f,\n"
    "                              0.08f, 0.09f, 0.10f, 0.11f, 0.12f, 0.13f, 0.14f, 0.15f};\n"
    "#define STEP(v) v = mad(v, yv, xv); v = mad(v, yv, xv); v = mad(v, yv, xv); v = mad(v, yv, xv)\n"
    "__kernel void mad_chains(__global float *out, const float x, const float y, const int trips)\n"
    "{\n"
    "    vec xv = (vec)(x), yv = (vec)(y);\n"
    "    vec v0 = XCAT(vload, VEC)(0, lanes) + (float)get_global_id(0) * 1e-7f;\n"
    "    vec v1 = v0 + 0.4f, v2 = v0 + 0.8f, v3 = v0 + 1.2f;\n"
    "    for (int k = 0; k < trips; k++) {\n"
    "        STEP(v0); STEP(v1); STEP(v2); STEP(v3);\n"
    "    }\n"
    "    vec sum = v0 + v1 + v2 + v3;\n"
    "#if VEC == 16\n"
    "    float8 s8 = sum.lo + sum.hi;\n"
    "    float4 s4 = s8.lo + s8.hi;\n"
    "#else\n"
    "    float4 s4 = sum;\n"
    "#endif\n"
    "    out[get_global_id(0)] = s4.x + s4.y + s4.z + s4.w;\n"
    "}\n";

/* FLOPs of one mad_chains trip: 4 chains x 4 multiply-adds x VEC lanes x 2. */
#define FLOP_PER_TRIP(vec) (32.0 * (vec))

typedef struct probe {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel triad, chains;
    cl_mem a, b, c, out;
} probe;

static void probe_release(probe *p)
{
    if (p->a) clReleaseMemObject(p->a);
    if (p->b) clReleaseMemObject(p->b);
    if (p->c) clReleaseMemObject(p->c);
    if (p->out) clReleaseMemObject(p->out);
    if (p->triad) clReleaseKernel(p->triad);
    if (p->chains) clReleaseKernel(p->chains);
    if (p->program) clReleaseProgram(p->program);
    if (p->queue) clReleaseCommandQueue(p->queue);
    if (p->context) clReleaseContext(p->context);
    memset(p, 0, sizeof *p);
}

static int cl_fail(skytune_error *err, const char *what, cl_int rc, const char *device)
{
    if (err) err->cl_error = rc;
    return err_set(err, "device probe on %s: %s failed: %s", device, what, cl_error_name(rc));
}

/* Run kernel k over `global` work-items once; its device time in seconds. */
static int timed_run(probe *p, cl_kernel k, size_t global, double *seconds, const char *device,
                     skytune_error *err)
{
    cl_event ev;
    cl_int rc = clEnqueueNDRangeKernel(p->queue, k, 1, NULL, &global, NULL, 0, NULL, &ev);
    if (rc != CL_SUCCESS) return cl_fail(err, "clEnqueueNDRangeKernel", rc, device);
    rc = clWaitForEvents(1, &ev);
    cl_ulong start = 0, end = 0;
    if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    clReleaseEvent(ev);
    if (rc != CL_SUCCESS) return cl_fail(err, "timing a probe kernel", rc, device);
    *seconds = end > start ? (double)(end - start) * 1e-9 : 1e-9;
    return 0;
}

static int setup(probe *p, const cl_device_entry *d, int vec, skytune_error *err)
{
    const char *name = d->info.name;
    cl_int rc;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
    p->context = clCreateContext(props, 1, &d->device, NULL, NULL, &rc);
    if (!p->context) return cl_fail(err, "clCreateContext", rc, name);
    p->queue = clCreateCommandQueue(p->context, d->device, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (!p->queue) return cl_fail(err, "clCreateCommandQueue", rc, name);
    const char *source = probe_source;
    p->program = clCreateProgramWithSource(p->context, 1, &source, NULL, &rc);
    if (!p->program) return cl_fail(err, "clCreateProgramWithSource", rc, name);
    char options[32];
    snprintf(options, sizeof options, "-DVEC=%d", vec);
    rc = clBuildProgram(p->program, 1, &d->device, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        char log[512] = "";
        clGetProgramBuildInfo(p->program, d->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        log[sizeof log - 1] = '\0';
        err_set(err, "device probe on %s: the probe kernels do not build (%s): %s", name,
                cl_error_name(rc), log);
        return -1;
    }
    p->triad = clCreateKernel(p->program, "triad", &rc);
    if (!p->triad) return cl_fail(err, "clCreateKernel(triad)", rc, name);
    p->chains = clCreateKernel(p->program, "mad_chains", &rc);
    if (!p->chains) return cl_fail(err, "clCreateKernel(mad_chains)", rc, name);
    return 0;
}

/* Three buffers as large as the device allows up to max_bytes each,
 * halving on allocation failure (the limits drivers report are not always
 * what they can give). */
static int bandwidth(probe *p, const cl_device_entry *d, size_t max_bytes, unsigned runs,
                     device_probe_result *out, skytune_error *err)
{
    const char *name = d->info.name;
    const size_t min_bytes = (size_t)1 << 22;
    size_t bytes = max_bytes;
    if (d->info.max_mem_alloc_size > 0 && (size_t)d->info.max_mem_alloc_size < bytes)
        bytes = (size_t)d->info.max_mem_alloc_size;
    if (d->info.global_mem_size > 0 && (size_t)d->info.global_mem_size / 8 < bytes)
        bytes = (size_t)d->info.global_mem_size / 8;
    bytes &= ~(size_t)0xFFFF;
    cl_int rc = CL_SUCCESS;
    for (; bytes >= min_bytes; bytes = (bytes / 2) & ~(size_t)0xFFFF) {
        p->a = clCreateBuffer(p->context, CL_MEM_READ_WRITE, bytes, NULL, &rc);
        if (p->a) p->b = clCreateBuffer(p->context, CL_MEM_READ_ONLY, bytes, NULL, &rc);
        if (p->b) p->c = clCreateBuffer(p->context, CL_MEM_READ_ONLY, bytes, NULL, &rc);
        const float one = 1.0f;
        if (p->c) rc = clEnqueueFillBuffer(p->queue, p->b, &one, sizeof one, 0, bytes, 0, NULL, NULL);
        if (p->c && rc == CL_SUCCESS)
            rc = clEnqueueFillBuffer(p->queue, p->c, &one, sizeof one, 0, bytes, 0, NULL, NULL);
        if (p->c && rc == CL_SUCCESS) rc = clFinish(p->queue);
        if (p->c && rc == CL_SUCCESS) break;
        if (p->a) clReleaseMemObject(p->a);
        if (p->b) clReleaseMemObject(p->b);
        if (p->c) clReleaseMemObject(p->c);
        p->a = p->b = p->c = NULL;
    }
    if (!p->c) return cl_fail(err, "allocating the triad buffers", rc, name);
    const float s = 3.0f;
    clSetKernelArg(p->triad, 0, sizeof p->a, &p->a);
    clSetKernelArg(p->triad, 1, sizeof p->b, &p->b);
    clSetKernelArg(p->triad, 2, sizeof p->c, &p->c);
    clSetKernelArg(p->triad, 3, sizeof s, &s);
    size_t global = bytes / 16;
    double best = 0, seconds;
    for (unsigned k = 0; k <= runs; k++) { /* the first run warms up */
        if (timed_run(p, p->triad, global, &seconds, name, err) != 0) return -1;
        if (k > 0 && (best == 0 || seconds < best)) best = seconds;
    }
    out->buffer_bytes = bytes;
    out->gbs = 3.0 * (double)bytes / best * 1e-9;
    return 0;
}

static int flops(probe *p, const cl_device_entry *d, int vec, double target_s, unsigned runs,
                 device_probe_result *out, skytune_error *err)
{
    const char *name = d->info.name;
    size_t units = d->info.compute_units > 0 ? (size_t)d->info.compute_units : 1;
    size_t global = units * (d->info.is_gpu ? 2048 : 256);
    cl_int rc;
    p->out = clCreateBuffer(p->context, CL_MEM_WRITE_ONLY, global * sizeof(float), NULL, &rc);
    if (!p->out) return cl_fail(err, "clCreateBuffer", rc, name);
    const float x = 1e-4f, y = 0.9999f;
    clSetKernelArg(p->chains, 0, sizeof p->out, &p->out);
    clSetKernelArg(p->chains, 1, sizeof x, &x);
    clSetKernelArg(p->chains, 2, sizeof y, &y);
    /* Grow the loop until one run takes about target_s, so launch overhead
     * is negligible whatever the device's speed. */
    cl_int trips = 16;
    double seconds = 0;
    for (;;) {
        clSetKernelArg(p->chains, 3, sizeof trips, &trips);
        if (timed_run(p, p->chains, global, &seconds, name, err) != 0) return -1;
        if (seconds >= target_s / 2 || trips >= (1 << 22)) break;
        double factor = seconds > 0 ? target_s / seconds : 64;
        if (factor > 64) factor = 64;
        if (factor < 2) factor = 2;
        trips = (cl_int)((double)trips * factor);
        if (trips > (1 << 22)) trips = 1 << 22;
    }
    double best = seconds;
    for (unsigned k = 0; k < runs; k++) {
        if (timed_run(p, p->chains, global, &seconds, name, err) != 0) return -1;
        if (seconds < best) best = seconds;
    }
    out->work_items = global;
    out->iterations = trips;
    out->gflops = FLOP_PER_TRIP(vec) * (double)trips * (double)global / best * 1e-9;
    return 0;
}

int device_probe_run(const cl_device_entry *device, const device_probe_options *options,
                     device_probe_result *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    unsigned runs = options && options->runs ? options->runs : 5;
    double target = options && options->target_s > 0 ? options->target_s : 0.05;
    size_t max_buffer = options && options->max_buffer ? options->max_buffer : (size_t)256 << 20;
    int vec = device->info.is_gpu ? 4 : 16;
    probe p = {0};
    int rc = setup(&p, device, vec, err);
    if (rc == 0) rc = bandwidth(&p, device, max_buffer, runs, out, err);
    if (rc == 0) rc = flops(&p, device, vec, target, runs, out, err);
    probe_release(&p);
    return rc;
}
