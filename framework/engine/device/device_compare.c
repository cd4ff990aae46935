#include "device_compare.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_device.h"

/* Work-items per group (a power of two, for the tree reduction) and the
 * most groups: enough to keep a GPU's memory busy, few enough that their
 * summaries are a few kilobytes to read back. */
#define COMPARE_GROUP 256
#define COMPARE_MAX_GROUPS 1024

/* The references copied: one per output a report can hold. */
#define COMPARE_REFERENCES SKYTUNE_MAX_OUTPUTS

/* skytune_verify_floats's test, element for element, in double precision.
 * Each work-item strides over the output; each group leaves its largest
 * errors, its first mismatch (LONG_MAX: none) and its count of mismatches.
 * No relaxed math: the division and the comparisons must round as the
 * host's do. */
static const char *compare_source =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))\n"
    "void compare_floats(__global const float *got, ulong offset, __global const float *want,\n"
    "                    ulong n, double abs_tol, double rel_tol,\n"
    "                    __global double *errors, __global long *counts)\n"
    "{\n"
    "    __local double l_abs[GROUP], l_rel[GROUP];\n"
    "    __local long l_first[GROUP], l_mismatches[GROUP];\n"
    "    double max_abs = 0.0, max_rel = 0.0;\n"
    "    long first = LONG_MAX, mismatches = 0;\n"
    "    for (ulong k = get_global_id(0); k < n; k += get_global_size(0)) {\n"
    "        double g = got[offset + k], w = want[k];\n"
    "        double aw = fabs(w);\n"
    "        double diff = g != g ? (double)INFINITY : fabs(g - w);\n"
    "        max_abs = diff > max_abs ? diff : max_abs;\n"
    "        double rel = aw != 0.0 ? diff / aw : (diff == 0.0 ? 0.0 : (double)INFINITY);\n"
    "        max_rel = rel > max_rel ? rel : max_rel;\n"
    "        if (!(diff <= abs_tol || diff <= rel_tol * aw)) {\n"
    "            if (first == LONG_MAX) first = (long)k;\n"
    "            mismatches++;\n"
    "        }\n"
    "    }\n"
    "    size_t l = get_local_id(0);\n"
    "    l_abs[l] = max_abs; l_rel[l] = max_rel;\n"
    "    l_first[l] = first; l_mismatches[l] = mismatches;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t step = GROUP / 2; step > 0; step /= 2) {\n"
    "        if (l < step) {\n"
    "            l_abs[l] = l_abs[l + step] > l_abs[l] ? l_abs[l + step] : l_abs[l];\n"
    "            l_rel[l] = l_rel[l + step] > l_rel[l] ? l_rel[l + step] : l_rel[l];\n"
    "            l_first[l] = l_first[l + step] < l_first[l] ? l_first[l + step] : l_first[l];\n"
    "            l_mismatches[l] += l_mismatches[l + step];\n"
    "        }\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (l == 0) {\n"
    "        size_t g = get_group_id(0), groups = get_num_groups(0);\n"
    "        errors[g] = l_abs[0]; errors[groups + g] = l_rel[0];\n"
    "        counts[g] = l_first[0]; counts[groups + g] = l_mismatches[0];\n"
    "    }\n"
    "}\n";

typedef struct copied_reference {
    const float *host;
    size_t count;
    cl_mem device;
} copied_reference;

struct device_compare {
    cl_context context;
    cl_program program;
    cl_kernel kernel;
    cl_mem errors, counts;   /* each group's summary: 2 × COMPARE_MAX_GROUPS each */
    size_t group;            /* work-items per group, COMPARE_GROUP or fewer */
    copied_reference references[COMPARE_REFERENCES];
    size_t next_slot;        /* the slot a new reference replaces when all are taken */
};

static bool has_double_precision(cl_device_id device)
{
    cl_device_fp_config fp64 = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) ==
            CL_SUCCESS &&
        fp64 != 0)
        return true;
    size_t size = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS) return false;
    char *extensions = malloc(size + 1);
    bool found = false;
    if (extensions &&
        clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, extensions, NULL) == CL_SUCCESS) {
        extensions[size] = '\0';
        found = strstr(extensions, "cl_khr_fp64") != NULL;
    }
    free(extensions);
    return found;
}

/* The largest power of two up to COMPARE_GROUP that the device takes in
 * one work-group. */
static size_t group_size(cl_device_id device)
{
    size_t most = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof most, &most, NULL);
    size_t group = COMPARE_GROUP;
    while (group > 1 && group > most) group /= 2;
    return group;
}

int device_compare_open(cl_context context, cl_device_id device, device_compare **out,
                        skytune_error *err)
{
    if (!has_double_precision(device))
        return err_set(err, "the device has no double precision (cl_khr_fp64), which the "
                            "comparison on the device needs to match the host's");
    device_compare *dc = calloc(1, sizeof *dc);
    if (!dc) return err_set(err, "out of memory");
    dc->context = context;
    dc->group = group_size(device);
    cl_int rc;
    dc->program = clCreateProgramWithSource(context, 1, &compare_source, NULL, &rc);
    char options[64];
    snprintf(options, sizeof options, "-cl-std=CL1.2 -D GROUP=%zu", dc->group);
    if (rc == CL_SUCCESS &&
        clBuildProgram(dc->program, 1, &device, options, NULL, NULL) != CL_SUCCESS) {
        /* The source is the engine's own: a driver that refuses it says
         * why in its log, the start of which goes in the message. */
        size_t size = 0;
        clGetProgramBuildInfo(dc->program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
        char *log = calloc(size + 1, 1);
        if (log) clGetProgramBuildInfo(dc->program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
        err_set(err, "the comparison kernel did not build: %.400s", log ? log : "");
        free(log);
        device_compare_close(dc);
        return -1;
    }
    if (rc == CL_SUCCESS) dc->kernel = clCreateKernel(dc->program, "compare_floats", &rc);
    if (rc == CL_SUCCESS)
        dc->errors = clCreateBuffer(context, CL_MEM_WRITE_ONLY,
                                    2 * COMPARE_MAX_GROUPS * sizeof(cl_double), NULL, &rc);
    if (rc == CL_SUCCESS)
        dc->counts = clCreateBuffer(context, CL_MEM_WRITE_ONLY,
                                    2 * COMPARE_MAX_GROUPS * sizeof(cl_long), NULL, &rc);
    if (rc != CL_SUCCESS) {
        device_compare_close(dc);
        return err_set(err, "the comparison kernel could not be built or set up: %s",
                       cl_error_name(rc));
    }
    *out = dc;
    return 0;
}

void device_compare_forget(device_compare *dc)
{
    for (size_t k = 0; k < COMPARE_REFERENCES; k++) {
        if (dc->references[k].device) clReleaseMemObject(dc->references[k].device);
        dc->references[k] = (copied_reference){0};
    }
    dc->next_slot = 0;
}

void device_compare_close(device_compare *dc)
{
    if (!dc) return;
    device_compare_forget(dc);
    if (dc->errors) clReleaseMemObject(dc->errors);
    if (dc->counts) clReleaseMemObject(dc->counts);
    if (dc->kernel) clReleaseKernel(dc->kernel);
    if (dc->program) clReleaseProgram(dc->program);
    free(dc);
}

/* The device's copy of `host` (count floats), made now when there is none. */
static cl_mem reference_on_device(device_compare *dc, cl_command_queue queue, const float *host,
                                  size_t count, cl_int *rc)
{
    for (size_t k = 0; k < COMPARE_REFERENCES; k++)
        if (dc->references[k].device && dc->references[k].host == host &&
            dc->references[k].count == count)
            return dc->references[k].device;
    copied_reference *slot = &dc->references[dc->next_slot];
    dc->next_slot = (dc->next_slot + 1) % COMPARE_REFERENCES;
    if (slot->device) clReleaseMemObject(slot->device);
    *slot = (copied_reference){0};
    cl_mem copy = clCreateBuffer(dc->context, CL_MEM_READ_ONLY, count * sizeof(float), NULL, rc);
    if (*rc != CL_SUCCESS) return NULL;
    *rc = clEnqueueWriteBuffer(queue, copy, CL_TRUE, 0, count * sizeof(float), host, 0, NULL,
                               NULL);
    if (*rc != CL_SUCCESS) {
        clReleaseMemObject(copy);
        return NULL;
    }
    *slot = (copied_reference){host, count, copy};
    return copy;
}

int device_compare_output(device_compare *dc, cl_command_queue queue,
                          const skytune_device_output *o, skytune_output_report *report,
                          skytune_error *err)
{
    const char *name = o->name ? o->name : "output";
    *report = (skytune_output_report){0};
    snprintf(report->name, sizeof report->name, "%s", name);
    report->abs_tol = o->abs_tol;
    report->rel_tol = o->rel_tol;
    report->count = o->count;
    report->first_mismatch = -1;
    report->passed = 1;
    if (o->count == 0) return 0;
    size_t bytes = 0;
    cl_mem_flags flags = 0;
    if (!o->buffer || !o->reference ||
        clGetMemObjectInfo(o->buffer, CL_MEM_SIZE, sizeof bytes, &bytes, NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(o->buffer, CL_MEM_FLAGS, sizeof flags, &flags, NULL) != CL_SUCCESS) {
        err_set(err, "output '%.32s': no buffer or no reference to compare", name);
        return 1;
    }
    /* What a kernel reads from such a buffer is undefined (OpenCL 1.2,
     * 5.2.1): no verdict can rest on it. */
    if (flags & CL_MEM_WRITE_ONLY) {
        err_set(err, "output '%.32s': its buffer was created CL_MEM_WRITE_ONLY, which no kernel "
                     "may read; create it CL_MEM_READ_WRITE to have it compared on the device",
                name);
        return 1;
    }
    size_t floats = bytes / sizeof(float);
    if (o->offset > floats || o->count > floats - o->offset) {
        err_set(err,
                "output '%.32s': %zu floats from element %zu do not fit its buffer of %zu floats",
                name, o->count, o->offset, floats);
        return 1;
    }
    cl_int rc = CL_SUCCESS;
    cl_mem want = reference_on_device(dc, queue, o->reference, o->count, &rc);
    if (!want)
        return err_set(err, "output '%.32s': the reference's copy on the device (%zu bytes): %s",
                       name, o->count * sizeof(float), cl_error_name(rc));
    size_t groups = (o->count + dc->group - 1) / dc->group;
    if (groups > COMPARE_MAX_GROUPS) groups = COMPARE_MAX_GROUPS;
    size_t global = groups * dc->group;
    cl_ulong offset = o->offset, n = o->count;
    cl_double abs_tol = o->abs_tol, rel_tol = o->rel_tol;
    cl_uint a = 0;
    rc = clSetKernelArg(dc->kernel, a++, sizeof o->buffer, &o->buffer);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(dc->kernel, a++, sizeof offset, &offset);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(dc->kernel, a++, sizeof want, &want);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(dc->kernel, a++, sizeof n, &n);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(dc->kernel, a++, sizeof abs_tol, &abs_tol);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(dc->kernel, a++, sizeof rel_tol, &rel_tol);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(dc->kernel, a++, sizeof dc->errors, &dc->errors);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(dc->kernel, a++, sizeof dc->counts, &dc->counts);
    if (rc == CL_SUCCESS)
        rc = clEnqueueNDRangeKernel(queue, dc->kernel, 1, NULL, &global, &dc->group, 0, NULL,
                                    NULL);
    cl_double errors[2 * COMPARE_MAX_GROUPS];
    cl_long counts[2 * COMPARE_MAX_GROUPS];
    if (rc == CL_SUCCESS)
        rc = clEnqueueReadBuffer(queue, dc->errors, CL_FALSE, 0, 2 * groups * sizeof *errors,
                                 errors, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueReadBuffer(queue, dc->counts, CL_TRUE, 0, 2 * groups * sizeof *counts,
                                 counts, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return err_set(err, "output '%.32s': the comparison on the device failed: %s", name,
                       cl_error_name(rc));
    int64_t first = INT64_MAX, mismatches = 0;
    for (size_t g = 0; g < groups; g++) {
        if (errors[g] > report->max_abs_error) report->max_abs_error = errors[g];
        if (errors[groups + g] > report->max_rel_error)
            report->max_rel_error = errors[groups + g];
        if (counts[g] < first) first = counts[g];
        mismatches += counts[groups + g];
    }
    report->first_mismatch = first == INT64_MAX ? -1 : first;
    report->mismatches = mismatches;
    report->passed = mismatches == 0;
    return 0;
}
