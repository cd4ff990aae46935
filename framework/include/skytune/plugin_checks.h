/* Checks most plugins make in setup, with the messages the engine shows a
 * user (header-only, like plugin.h).
 *
 *   skytune_opencl_failure     an OpenCL call failed: the status goes to
 *                              err->cl_error, the message names the call
 *   skytune_check_index_extent a kernel that indexes with int cannot address
 *                              an array of more than INT_MAX items
 *   skytune_check_allocation   one buffer may not exceed the device's
 *                              CL_DEVICE_MAX_MEM_ALLOC_SIZE
 *
 * `items` names what an array holds ("elements", "complex values") and
 * `reduce` which problem parameters make it smaller ("stations or
 * samples"); both end up in the message. Each returns SKYTUNE_OK or the
 * error code it set. */
#ifndef SKYTUNE_PLUGIN_CHECKS_H
#define SKYTUNE_PLUGIN_CHECKS_H

#include <limits.h>

#include <skytune/plugin.h>

static inline int skytune_opencl_failure(skytune_error *err, int code, cl_int status,
                                         const char *what)
{
    if (err) err->cl_error = status;
    return skytune_error_set(err, code, "%s failed", what);
}

static inline int skytune_check_index_extent(const char *what, double count, const char *items,
                                             const char *reduce, skytune_error *err)
{
    if (count <= (double)INT_MAX) return SKYTUNE_OK;
    return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                             "the %s would hold %.0f %s; the kernel indexes at most %d (reduce %s)",
                             what, count, items, INT_MAX, reduce);
}

static inline int skytune_check_allocation(const char *what, double bytes,
                                           const skytune_device_info *device, const char *reduce,
                                           skytune_error *err)
{
    if (bytes <= (double)device->max_mem_alloc_size) return SKYTUNE_OK;
    return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                             "the %s needs %.0f bytes; this device allocates at most %lld bytes "
                             "in one buffer (reduce %s)",
                             what, bytes, (long long)device->max_mem_alloc_size, reduce);
}

#endif
