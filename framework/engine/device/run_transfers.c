#include "run_transfers.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

int run_transfers_open(run_transfers *t, const skytune_plugin *plugin, void *state,
                       cl_context context, skytune_error *err)
{
    memset(t, 0, sizeof *t);
    if (!plugin->transfers)
        return err_set(err,
                       "--transfers: plugin %s names no host-device transfers (its description "
                       "has no `transfers` callback)",
                       plugin->name);
    skytune_error perr = {0};
    size_t count = 0;
    if (plugin->transfers(state, t->list, SKYTUNE_MAX_TRANSFERS, &count, &perr) != 0)
        return err_set(err, "--transfers: plugin %s could not list its transfers: %s",
                       plugin->name, perr.message);
    if (count > SKYTUNE_MAX_TRANSFERS)
        return err_set(err, "--transfers: plugin %s listed %zu transfers, at most %d are allowed",
                       plugin->name, count, SKYTUNE_MAX_TRANSFERS);
    for (size_t k = 0; k < count; k++) {
        const skytune_transfer *x = &t->list[k];
        if (!x->label || x->bytes == 0 || (x->to_device && !x->host)) {
            run_transfers_close(t);
            return err_set(err,
                           "--transfers: plugin %s's transfer %zu has no label, no bytes or (an "
                           "upload) no host array",
                           plugin->name, k);
        }
        cl_int status = CL_SUCCESS;
        t->device[k] = clCreateBuffer(context, x->to_device ? CL_MEM_READ_ONLY : CL_MEM_WRITE_ONLY,
                                      x->bytes, NULL, &status);
        if (!x->to_device && status == CL_SUCCESS) t->download[k] = malloc(x->bytes);
        t->count = k + 1;
        if (status != CL_SUCCESS || (!x->to_device && !t->download[k])) {
            run_transfers_close(t);
            return err_set(err, "--transfers: no room for %s's %zu bytes (%s)", plugin->name,
                           x->bytes, x->label);
        }
    }
    t->count = count;
    return 0;
}

cl_int run_transfers_enqueue(const run_transfers *t, cl_command_queue queue, bool to_device,
                             cl_event *events, const char **labels, size_t *count)
{
    for (size_t k = 0; k < t->count; k++) {
        const skytune_transfer *x = &t->list[k];
        if ((x->to_device != 0) != to_device) continue;
        cl_event e = NULL;
        const cl_int status =
            to_device ? clEnqueueWriteBuffer(queue, t->device[k], CL_FALSE, 0, x->bytes, x->host,
                                             0, NULL, &e)
                      : clEnqueueReadBuffer(queue, t->device[k], CL_FALSE, 0, x->bytes,
                                            t->download[k], 0, NULL, &e);
        if (status != CL_SUCCESS) return status;
        events[*count] = e;
        labels[*count] = x->label;
        (*count)++;
    }
    return CL_SUCCESS;
}

void run_transfers_close(run_transfers *t)
{
    for (size_t k = 0; k < t->count; k++) {
        if (t->device[k]) clReleaseMemObject(t->device[k]);
        free(t->download[k]);
    }
    memset(t, 0, sizeof *t);
}
