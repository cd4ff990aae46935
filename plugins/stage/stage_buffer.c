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
    if (in->buffer.mem && strcmp(in->layout, layout) == 0) return SKYTUNE_OK;
    cl_context context = NULL;
    int rc = support_program_context(program, &context, err);
    if (rc) return rc;
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
    support_buffer upload = support_input("input", permuted, bytes);
    rc = support_buffers_create(&upload, 1, context, SKYTUNE_ERR_LAUNCH, err);
    free(permuted);
    if (rc) return rc;
    stage_layout_input_release(in);
    in->buffer = upload;
    strcpy(in->layout, layout);
    return SKYTUNE_OK;
}

void stage_layout_input_release(stage_layout_input *in)
{
    support_buffers_release(&in->buffer, 1);
    in->layout[0] = '\0';
}

int stage_layout_input_hold(const stage_layout_input *in, support_buffer *held,
                            skytune_error *err)
{
    cl_int status = clRetainMemObject(in->buffer.mem);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clRetainMemObject");
    *held = in->buffer;
    return SKYTUNE_OK;
}

int stage_read_canonical(cl_command_queue queue, const support_buffer *buffer, const char *layout,
                         void *canonical, const char *canonical_layout, const char *letters,
                         const int64_t *sizes, size_t element_size, skytune_error *err)
{
    const size_t bytes = array_bytes(letters, sizes, element_size);
    if (bytes == 0 || bytes != buffer->bytes)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "the output's sizes are refused");
    /* Already in canonical order: read it in place. */
    const int same = strcmp(layout, canonical_layout) == 0;
    void *stored = same ? canonical : malloc(bytes);
    if (!stored)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory to read the output back (%zu bytes)", bytes);
    int rc = support_buffer_read(buffer, queue, stored, err);
    if (rc == SKYTUNE_OK && !same &&
        layout_permute(canonical, canonical_layout, stored, layout, letters, sizes,
                       element_size) != 0)
        rc = skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                               "cannot convert the output from layout %s to %s", layout,
                               canonical_layout);
    if (!same) free(stored);
    return rc;
}
