#include "stage_buffer.h"

#include <stdlib.h>
#include <string.h>

#include <skytune/plugin_checks.h>

/* Bytes of the array, or 0 when the sizes are refused (no size is 0). */
static size_t array_bytes(const char *letters, const int64_t *sizes, size_t element_size)
{
    int64_t strides[LAYOUT_MAX_DIMS];
    if (layout_strides(letters, letters, sizes, strides) != 0) return 0;
    /* The canonical order of `letters` itself: the first letter's stride
     * times its size is the element count, which layout_strides checked. */
    const double bytes = (double)strides[0] * (double)sizes[0] * (double)element_size;
    return bytes < (double)SIZE_MAX / 2 ? (size_t)bytes : 0;
}

int stage_read_layout(const skytune_values *config, const char *name, const char *letters,
                      char *layout, skytune_error *err)
{
    const char *text = skytune_string(config, name);
    char message[512];
    if (layout_check(name, text, letters, message, sizeof message) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "%s", message);
    strcpy(layout, text);
    return SKYTUNE_OK;
}

int stage_layout_input_set(stage_layout_input *in, cl_program program, const void *canonical,
                           const char *canonical_layout, const char *layout,
                           const char *letters, const int64_t *sizes, size_t element_size,
                           skytune_error *err)
{
    if (in->mem && strcmp(in->layout, layout) == 0) return SKYTUNE_OK;
    cl_context context = NULL;
    cl_int status = clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status,
                                      "clGetProgramInfo (context)");
    const size_t bytes = array_bytes(letters, sizes, element_size);
    if (bytes == 0 || strlen(layout) >= sizeof in->layout)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "'%s' is not a layout of %s", layout,
                                 letters);
    void *permuted = malloc(bytes);
    if (!permuted)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the input in layout %s (%zu bytes)", layout,
                                 bytes);
    if (layout_permute(permuted, layout, canonical, canonical_layout, letters, sizes,
                       element_size) != 0) {
        free(permuted);
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "cannot convert the input from layout %s to %s", canonical_layout,
                                 layout);
    }
    cl_mem mem = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                permuted, &status);
    free(permuted);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clCreateBuffer (input)");
    stage_layout_input_release(in);
    in->mem = mem;
    strcpy(in->layout, layout);
    return SKYTUNE_OK;
}

void stage_layout_input_release(stage_layout_input *in)
{
    if (in->mem) clReleaseMemObject(in->mem);
    in->mem = NULL;
    in->layout[0] = '\0';
}

int stage_read_canonical(cl_command_queue queue, cl_mem mem, const char *layout,
                         void *canonical, const char *canonical_layout, const char *letters,
                         const int64_t *sizes, size_t element_size, skytune_error *err)
{
    const size_t bytes = array_bytes(letters, sizes, element_size);
    if (bytes == 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "the output's sizes are refused");
    /* Already in canonical order: read it in place. */
    const int same = strcmp(layout, canonical_layout) == 0;
    void *stored = same ? canonical : malloc(bytes);
    if (!stored)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory to read the output back (%zu bytes)", bytes);
    cl_int status = clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, bytes, stored, 0, NULL, NULL);
    int rc = SKYTUNE_OK;
    if (status != CL_SUCCESS)
        rc = skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueReadBuffer (output)");
    else if (!same && layout_permute(canonical, canonical_layout, stored, layout, letters, sizes,
                                     element_size) != 0)
        rc = skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                               "cannot convert the output from layout %s to %s", layout,
                               canonical_layout);
    if (!same) free(stored);
    return rc;
}
