/* OpenCL device discovery and selection. */
#ifndef SKYTUNE_CL_DEVICE_H
#define SKYTUNE_CL_DEVICE_H

#include <stddef.h>

#include <skytune/plugin.h>

#include "error.h"

typedef struct cl_device_entry {
    cl_platform_id platform;
    cl_device_id device;
    unsigned platform_index, device_index;
    skytune_device_info info;
} cl_device_entry;

/* Every device of every platform. No platform at all is an error that says
 * how to get one (install an ICD such as pocl-opencl-icd). */
int cl_devices_list(cl_device_entry **out, size_t *count, skytune_error *err);

/* selector: NULL or "" for the default (the first GPU, else the first
 * device); "P:D" platform and device indices; or a case-insensitive substring
 * of "platform device" names, else a platform's short name (cl_short_name,
 * any case: "pocl"), else a vendor's. Fails listing the devices when none
 * matches. */
int cl_device_select(const cl_device_entry *list, size_t count, const char *selector,
                     size_t *index, skytune_error *err);

/* The short name of a platform or vendor as a driver names it: "PoCL" for
 * "Portable Computing Language", "NVIDIA", "AMD" (for "Advanced Micro
 * Devices, Inc." and "AuthenticAMD" too), "Intel" ("GenuineIntel"); NULL
 * for any other. */
const char *cl_short_name(const char *name);

/* A text the driver reports (CL_DEVICE_VERSION, CL_DRIVER_VERSION, ...)
 * whole, up to len - 1 bytes: skytune_device_info keeps the first 63 bytes
 * of the versions, and a driver's can be longer ("OpenCL 3.0 PoCL HSTR:
 * pthread-x86_64-pc-linux-gnu-skylake-avx512"). "" when it cannot be read. */
void cl_device_text(const cl_device_entry *e, cl_device_info what, char *buf, size_t len);

/* "CL_BUILD_PROGRAM_FAILURE" for -11, etc. */
const char *cl_error_name(cl_int code);

/* The device.* names bound in constraint expressions, with their values. */
size_t cl_device_constants(const skytune_device_info *info, const char **names,
                           int64_t *values, size_t cap);

#endif
