#include "cl_device.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "quote.h"

const char *cl_error_name(cl_int code)
{
    switch (code) {
#define NAME(c) case c: return #c
    NAME(CL_SUCCESS);
    NAME(CL_DEVICE_NOT_FOUND);
    NAME(CL_DEVICE_NOT_AVAILABLE);
    NAME(CL_COMPILER_NOT_AVAILABLE);
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    NAME(CL_OUT_OF_RESOURCES);
    NAME(CL_OUT_OF_HOST_MEMORY);
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE);
    NAME(CL_BUILD_PROGRAM_FAILURE);
    NAME(CL_MAP_FAILURE);
    NAME(CL_INVALID_VALUE);
    NAME(CL_INVALID_DEVICE_TYPE);
    NAME(CL_INVALID_PLATFORM);
    NAME(CL_INVALID_DEVICE);
    NAME(CL_INVALID_CONTEXT);
    NAME(CL_INVALID_QUEUE_PROPERTIES);
    NAME(CL_INVALID_COMMAND_QUEUE);
    NAME(CL_INVALID_MEM_OBJECT);
    NAME(CL_INVALID_BINARY);
    NAME(CL_INVALID_BUILD_OPTIONS);
    NAME(CL_INVALID_PROGRAM);
    NAME(CL_INVALID_PROGRAM_EXECUTABLE);
    NAME(CL_INVALID_KERNEL_NAME);
    NAME(CL_INVALID_KERNEL_DEFINITION);
    NAME(CL_INVALID_KERNEL);
    NAME(CL_INVALID_ARG_INDEX);
    NAME(CL_INVALID_ARG_VALUE);
    NAME(CL_INVALID_ARG_SIZE);
    NAME(CL_INVALID_KERNEL_ARGS);
    NAME(CL_INVALID_WORK_DIMENSION);
    NAME(CL_INVALID_WORK_GROUP_SIZE);
    NAME(CL_INVALID_WORK_ITEM_SIZE);
    NAME(CL_INVALID_GLOBAL_OFFSET);
    NAME(CL_INVALID_EVENT_WAIT_LIST);
    NAME(CL_INVALID_EVENT);
    NAME(CL_INVALID_OPERATION);
    NAME(CL_INVALID_BUFFER_SIZE);
    NAME(CL_INVALID_GLOBAL_WORK_SIZE);
#undef NAME
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
}

/* Drivers refuse a buffer shorter than the whole string, and some version
 * strings run long (PoCL's names the host CPU), so read it whole and keep
 * what fits. */
static void read_string(cl_device_id d, cl_device_info what, char *buf, size_t len)
{
    char whole[1024];
    if (clGetDeviceInfo(d, what, sizeof whole, whole, NULL) != CL_SUCCESS) whole[0] = '\0';
    whole[sizeof whole - 1] = '\0';
    snprintf(buf, len, "%s", whole);
}

void cl_device_text(const cl_device_entry *e, cl_device_info what, char *buf, size_t len)
{
    read_string(e->device, what, buf, len);
}

static int64_t read_number(cl_device_id d, cl_device_info what, size_t width)
{
    cl_ulong wide = 0;
    cl_uint narrow = 0;
    size_t sz = 0;
    if (width == sizeof(cl_ulong)) {
        if (clGetDeviceInfo(d, what, sizeof wide, &wide, NULL) != CL_SUCCESS) return 0;
        return (int64_t)wide;
    }
    if (width == sizeof(size_t)) {
        if (clGetDeviceInfo(d, what, sizeof sz, &sz, NULL) != CL_SUCCESS) return 0;
        return (int64_t)sz;
    }
    if (clGetDeviceInfo(d, what, sizeof narrow, &narrow, NULL) != CL_SUCCESS) return 0;
    return (int64_t)narrow;
}

static void describe_device(cl_platform_id p, cl_device_id d, skytune_device_info *info)
{
    memset(info, 0, sizeof *info);
    if (clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof info->platform, info->platform, NULL) !=
        CL_SUCCESS)
        info->platform[0] = '\0';
    info->platform[sizeof info->platform - 1] = '\0';
    read_string(d, CL_DEVICE_NAME, info->name, sizeof info->name);
    read_string(d, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    read_string(d, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    read_string(d, CL_DEVICE_VERSION, info->opencl_version, sizeof info->opencl_version);
    cl_device_type type = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS)
        info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    info->compute_units = read_number(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cl_uint));
    info->max_clock_mhz = read_number(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(cl_uint));
    info->global_mem_size = read_number(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(cl_ulong));
    info->local_mem_size = read_number(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(cl_ulong));
    info->max_constant_size = read_number(d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof(cl_ulong));
    info->max_mem_alloc_size = read_number(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(cl_ulong));
    info->max_work_group_size = read_number(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t));
    size_t items[3] = {0, 0, 0};
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL) == CL_SUCCESS)
        for (int k = 0; k < 3; k++) info->max_work_item_sizes[k] = (int64_t)items[k];
}

int cl_devices_list(cl_device_entry **out, size_t *count, skytune_error *err)
{
    *out = NULL;
    *count = 0;
    cl_uint n_platforms = 0;
    cl_int rc = clGetPlatformIDs(0, NULL, &n_platforms);
    if (rc != CL_SUCCESS || n_platforms == 0)
        return err_set(err,
                       "no OpenCL platform found (%s): install an OpenCL driver and its ICD "
                       "file, e.g. `apt-get install pocl-opencl-icd` for the CPU, and check "
                       "/etc/OpenCL/vendors",
                       rc == CL_SUCCESS ? "0 platforms" : cl_error_name(rc));
    cl_platform_id *platforms = calloc(n_platforms, sizeof *platforms);
    if (!platforms) return err_set(err, "out of memory listing OpenCL platforms");
    clGetPlatformIDs(n_platforms, platforms, NULL);

    cl_device_entry *list = NULL;
    size_t used = 0;
    int status = 0;
    for (cl_uint p = 0; p < n_platforms && status == 0; p++) {
        cl_uint n_devices = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n_devices) != CL_SUCCESS ||
            n_devices == 0)
            continue;
        cl_device_id *devices = calloc(n_devices, sizeof *devices);
        cl_device_entry *grown = realloc(list, (used + n_devices) * sizeof *list);
        if (!devices || !grown) {
            free(devices);
            if (grown) list = grown;
            status = err_set(err, "out of memory listing OpenCL devices");
            break;
        }
        list = grown;
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, n_devices, devices, NULL);
        for (cl_uint d = 0; d < n_devices; d++) {
            cl_device_entry *e = &list[used++];
            e->platform = platforms[p];
            e->device = devices[d];
            e->platform_index = p;
            e->device_index = d;
            describe_device(platforms[p], devices[d], &e->info);
        }
        free(devices);
    }
    free(platforms);
    if (status == 0 && used == 0)
        status = err_set(err, "OpenCL platforms were found but no device: check the driver");
    if (status != 0) {
        free(list);
        return -1;
    }
    *out = list;
    *count = used;
    return 0;
}

static int contains_case_insensitive(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n) return 1;
    }
    return n == 0;
}

/* Drivers name their platforms and vendors at length ("Portable Computing
 * Language", "Advanced Micro Devices, Inc.", "GenuineIntel"), and the
 * short name a user types is no part of some of them: "pocl" is in no
 * PoCL platform's name. */
static const struct {
    const char *part; /* of the driver's name, any case */
    const char *short_name;
} short_names[] = {
    {"Portable Computing Language", "PoCL"},
    {"pocl", "PoCL"},
    {"NVIDIA", "NVIDIA"},
    {"Advanced Micro Devices", "AMD"},
    {"AMD", "AMD"},
    {"Intel", "Intel"},
};

const char *cl_short_name(const char *name)
{
    for (size_t k = 0; k < sizeof short_names / sizeof short_names[0]; k++)
        if (contains_case_insensitive(name, short_names[k].part)) return short_names[k].short_name;
    return NULL;
}

static bool short_name_is(const char *name, const char *selector)
{
    const char *short_name = cl_short_name(name);
    return short_name && strcasecmp(short_name, selector) == 0;
}

/* The first device whose names hold the selector; else whose platform's
 * short name is it; else whose vendor's: "intel" picks an Intel platform
 * before PoCL on an Intel processor. count when none. */
static size_t match_name(const cl_device_entry *list, size_t count, const char *selector)
{
    for (size_t k = 0; k < count; k++) {
        char both[300];
        snprintf(both, sizeof both, "%s %s", list[k].info.platform, list[k].info.name);
        if (contains_case_insensitive(both, selector)) return k;
    }
    for (size_t k = 0; k < count; k++)
        if (short_name_is(list[k].info.platform, selector)) return k;
    for (size_t k = 0; k < count; k++)
        if (short_name_is(list[k].info.vendor, selector)) return k;
    return count;
}

int cl_device_select(const cl_device_entry *list, size_t count, const char *selector,
                     size_t *index, skytune_error *err)
{
    if (count == 0) return err_set(err, "no OpenCL device to choose from");
    if (!selector || !*selector) {
        for (size_t k = 0; k < count; k++)
            if (list[k].info.is_gpu) {
                *index = k;
                return 0;
            }
        *index = 0;
        return 0;
    }
    unsigned p, d;
    char tail;
    if (sscanf(selector, "%u:%u%c", &p, &d, &tail) == 2) {
        for (size_t k = 0; k < count; k++)
            if (list[k].platform_index == p && list[k].device_index == d) {
                *index = k;
                return 0;
            }
    } else {
        size_t k = match_name(list, count, selector);
        if (k < count) {
            *index = k;
            return 0;
        }
    }
    char known[700] = "";
    size_t used = 0;
    for (size_t k = 0; k < count && used < sizeof known - 1; k++) {
        /* The driver's names, any bytes. */
        char platform[QUOTE_TEXT], name[QUOTE_TEXT];
        const char *short_name = cl_short_name(list[k].info.platform);
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%u:%u (%s%s%s%s, %s)",
                                 k ? "; " : "", list[k].platform_index, list[k].device_index,
                                 quote_text(list[k].info.platform, platform, sizeof platform),
                                 short_name ? " [" : "", short_name ? short_name : "",
                                 short_name ? "]" : "",
                                 quote_text(list[k].info.name, name, sizeof name));
    }
    char shown[QUOTE_TEXT];
    return err_set(err,
                   "--device '%s' matches no OpenCL device; use PLATFORM:DEVICE indices, part "
                   "of a name, or a platform's or vendor's short name (PoCL, NVIDIA, AMD, "
                   "Intel): %s",
                   quote_text(selector, shown, sizeof shown), known);
}

size_t cl_device_constants(const skytune_device_info *info, const char **names, int64_t *values,
                           size_t cap)
{
    const struct {
        const char *name;
        int64_t value;
    } table[] = {
        {"device.max_work_group_size", info->max_work_group_size},
        {"device.local_mem_size", info->local_mem_size},
        {"device.compute_units", info->compute_units},
        {"device.global_mem_size", info->global_mem_size},
        {"device.max_constant_size", info->max_constant_size},
        {"device.max_mem_alloc_size", info->max_mem_alloc_size},
        {"device.max_clock_mhz", info->max_clock_mhz},
        {"device.max_work_item_size_0", info->max_work_item_sizes[0]},
        {"device.max_work_item_size_1", info->max_work_item_sizes[1]},
        {"device.max_work_item_size_2", info->max_work_item_sizes[2]},
        {"device.is_gpu", info->is_gpu},
    };
    size_t n = sizeof table / sizeof table[0];
    for (size_t k = 0; k < n && k < cap; k++) {
        names[k] = table[k].name;
        values[k] = table[k].value;
    }
    return n;
}
