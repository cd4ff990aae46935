/* The message of a failed OpenCL call on one buffer or kernel, shared by
 * plugin_support's sources (not installed). */
#ifndef SKYTUNE_PLUGINS_SUPPORT_FAILURE_H
#define SKYTUNE_PLUGINS_SUPPORT_FAILURE_H

#include <stdio.h>

#include <skytune/plugin_checks.h>

/* "<call> (<object>) failed", with the status in err->cl_error: the user
 * sees which buffer or kernel, not only which call. */
static inline int support_failure(skytune_error *err, int code, cl_int status, const char *call,
                                  const char *object)
{
    char what[160];
    snprintf(what, sizeof what, "%s (%s)", call, object);
    return skytune_opencl_failure(err, code, status, what);
}

#endif
