#include "plugin_support.h"

#include <math.h>
#include <stdint.h>

#include "support_failure.h"

int support_buffers_create(support_buffer *buffers, size_t count, cl_context context, int code,
                           skytune_error *err)
{
    for (size_t k = 0; k < count; k++) {
        support_buffer *b = &buffers[k];
        if (b->bytes == 0) continue;
        const cl_mem_flags flags = b->flags | (b->host ? CL_MEM_COPY_HOST_PTR : 0);
        cl_int status = CL_SUCCESS;
        b->mem = clCreateBuffer(context, flags, b->bytes, (void *)b->host, &status);
        /* The copy is made: nothing may read `host` later, when it may be
         * gone (a packed copy freed at the end of setup). */
        b->host = NULL;
        if (status != CL_SUCCESS) {
            b->mem = NULL;
            support_buffers_release(buffers, k);
            return support_failure(err, code, status, "clCreateBuffer", b->name);
        }
    }
    return SKYTUNE_OK;
}

int support_buffers_poison(const support_buffer *buffers, size_t count, cl_command_queue queue,
                           skytune_error *err)
{
    /* Both patterns are 32 bits wide, the element size of every poisoned
     * buffer. */
    const float nan_pattern = NAN;
    const uint32_t ones_pattern = UINT32_MAX;
    for (size_t k = 0; k < count; k++) {
        const support_buffer *b = &buffers[k];
        if (!b->mem || b->poison == SUPPORT_KEEP) continue;
        const void *pattern = b->poison == SUPPORT_POISON_NAN ? (const void *)&nan_pattern
                                                              : (const void *)&ones_pattern;
        cl_int status = clEnqueueFillBuffer(queue, b->mem, pattern, sizeof(uint32_t), 0, b->bytes,
                                            0, NULL, NULL);
        if (status != CL_SUCCESS)
            return support_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueFillBuffer", b->name);
    }
    return SKYTUNE_OK;
}

int support_buffer_read(const support_buffer *buffer, cl_command_queue queue, void *host,
                        skytune_error *err)
{
    cl_int status = clEnqueueReadBuffer(queue, buffer->mem, CL_TRUE, 0, buffer->bytes, host, 0,
                                        NULL, NULL);
    if (status != CL_SUCCESS)
        return support_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueReadBuffer",
                               buffer->name);
    return SKYTUNE_OK;
}

void support_buffers_release(support_buffer *buffers, size_t count)
{
    for (size_t k = 0; k < count; k++) {
        if (buffers[k].mem) clReleaseMemObject(buffers[k].mem);
        buffers[k].mem = NULL;
    }
}

int support_program_context(cl_program program, cl_context *context, skytune_error *err)
{
    cl_int status = clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof *context, context, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                      "clGetProgramInfo (context)");
    return SKYTUNE_OK;
}
