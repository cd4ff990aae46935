/* Measuring a device's roofline ceilings with two small built-in kernels:
 * peak memory bandwidth with a streaming triad (a = b + s*c over float4
 * buffers much larger than any cache) and peak single-precision FLOP/s
 * with independent multiply-add chains (16 per work-item, enough
 * work-items to fill the device). Each figure is the best of a few timed
 * runs (OpenCL profiling events). The drivers do not report these, and a
 * roofline needs them. */
#ifndef SKYTUNE_DEVICE_PROBE_H
#define SKYTUNE_DEVICE_PROBE_H

#include <stddef.h>

#include "cl_device.h"
#include "error.h"

typedef struct device_probe_options {
    unsigned runs;        /* timed runs of each kernel, the best counts; 0 means 5 */
    double target_s;      /* how long one multiply-add run should take; 0 means 0.05 s */
    size_t max_buffer;    /* bytes per triad buffer at most; 0 means 256 MiB */
} device_probe_options;

typedef struct device_probe_result {
    double gbs;           /* best triad bandwidth, 10^9 bytes/s (3 arrays moved per element) */
    double gflops;        /* best multiply-add rate, 10^9 FLOP/s (2 per multiply-add) */
    size_t buffer_bytes;  /* bytes of each of the three triad buffers */
    size_t work_items;    /* multiply-add work-items */
    long iterations;      /* multiply-add loop trips per work-item */
} device_probe_result;

/* Fails naming the OpenCL call and error when the device cannot run the
 * kernels. Sizes scale with the device (global_mem_size,
 * max_mem_alloc_size, compute units), so the probe takes a few seconds
 * even on a CPU device. */
int device_probe_run(const cl_device_entry *device, const device_probe_options *options,
                     device_probe_result *out, skytune_error *err);

#endif
