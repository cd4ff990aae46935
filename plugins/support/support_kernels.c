#include "plugin_support.h"

#include <stdlib.h>
#include <string.h>

#include "support_failure.h"

/* The work-items of one work-group. */
static size_t group_size(const support_kernel *k)
{
    size_t items = 1;
    for (cl_uint d = 0; d < k->dims; d++) items *= k->local[d];
    return items;
}

static int check_work_group(const support_kernel *k, const char *name, skytune_error *err)
{
    size_t limit = 0;
    cl_int status = clGetKernelWorkGroupInfo(k->kernel, NULL, CL_KERNEL_WORK_GROUP_SIZE,
                                             sizeof limit, &limit, NULL);
    /* A driver that cannot say leaves the judgement to the launch. */
    if (status != CL_SUCCESS || limit == 0 || limit >= group_size(k)) return SKYTUNE_OK;
    return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                             "this configuration's kernel %s runs at most %zu work-items per "
                             "work-group on this device, fewer than the %zu it is launched with",
                             name, limit, group_size(k));
}

int support_kernel_create(support_kernel *k, cl_program program, const support_kernel_spec *spec,
                          skytune_error *err)
{
    memset(k, 0, sizeof *k);
    cl_int status = CL_SUCCESS;
    k->kernel = clCreateKernel(program, spec->name, &status);
    if (status != CL_SUCCESS) {
        k->kernel = NULL;
        return support_failure(err, SKYTUNE_ERR_LAUNCH, status, "clCreateKernel", spec->name);
    }
    k->label = spec->label;
    k->dims = spec->dims;
    memcpy(k->global, spec->global, sizeof k->global);
    memcpy(k->local, spec->local, sizeof k->local);
    for (cl_uint i = 0; i < SUPPORT_MAX_ARGS && spec->args[i].size > 0; i++) {
        status = clSetKernelArg(k->kernel, i, spec->args[i].size, spec->args[i].value);
        if (status != CL_SUCCESS) {
            support_kernel_release(k);
            char argument[128];
            snprintf(argument, sizeof argument, "%s, argument %u", spec->name, (unsigned)i);
            return support_failure(err, SKYTUNE_ERR_LAUNCH, status, "clSetKernelArg", argument);
        }
    }
    int rc = spec->check_work_group ? check_work_group(k, spec->name, err) : SKYTUNE_OK;
    if (rc) support_kernel_release(k);
    return rc;
}

int support_kernel_enqueue(const support_kernel *k, cl_command_queue queue, skytune_events *events,
                           skytune_error *err)
{
    if (!k->kernel) return SKYTUNE_OK;
    cl_event done = NULL;
    cl_int status = clEnqueueNDRangeKernel(queue, k->kernel, k->dims, NULL, k->global, k->local, 0,
                                           NULL, &done);
    if (status != CL_SUCCESS)
        return support_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueNDRangeKernel",
                               k->label);
    return support_event_add(events, done, k->label, err);
}

void support_kernel_release(support_kernel *k)
{
    if (k->kernel) clReleaseKernel(k->kernel);
    memset(k, 0, sizeof *k);
}

int support_event_add(skytune_events *events, cl_event event, const char *label,
                      skytune_error *err)
{
    if (skytune_events_add(events, event, label) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "too many events in one run");
    return SKYTUNE_OK;
}

int support_kernel_new(cl_program program, const support_kernel_spec *spec, void **launch,
                       skytune_error *err)
{
    support_kernel *k = calloc(1, sizeof *k);
    if (!k) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    int rc = support_kernel_create(k, program, spec, err);
    if (rc) {
        free(k);
        return rc;
    }
    *launch = k;
    return SKYTUNE_OK;
}

int support_kernel_run(void *launch, cl_command_queue queue, skytune_events *events,
                       skytune_error *err)
{
    return support_kernel_enqueue(launch, queue, events, err);
}

void support_kernel_free(void *launch)
{
    if (!launch) return;
    support_kernel_release(launch);
    free(launch);
}
