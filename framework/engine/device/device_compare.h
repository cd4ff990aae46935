/* Comparing a configuration's outputs with the reference on the device.
 *
 * Verifying on the host means reading every output back and comparing it
 * there: for a dedisperser's thousands of DMs that is gigabytes per
 * configuration, seconds where the kernel takes milliseconds. Here the
 * reference is copied to the device once, a kernel of the engine's own
 * compares each output in place, and only a summary per work-group (the
 * largest errors, the first mismatch, the count of mismatches) comes back.
 *
 * The verdict is skytune_verify_floats's, element for element: the same
 * test in double precision, which the device must offer (cl_khr_fp64, or a
 * nonzero CL_DEVICE_DOUBLE_FP_CONFIG); without it device_compare_open
 * fails and the caller compares on the host.
 *
 * A kernel that writes out of bounds may overwrite the device's copy of a
 * reference as well as anything else; the caller therefore takes a failed
 * comparison to the host for the verdict and calls device_compare_forget
 * so that the copies are made afresh (measurer.c). */
#ifndef SKYTUNE_DEVICE_COMPARE_H
#define SKYTUNE_DEVICE_COMPARE_H

#include <skytune/plugin.h>

#include "error.h"

typedef struct device_compare device_compare;

/* Builds the comparison kernel for `device` in `context`. Fails, saying
 * why, when the device has no double precision or the build fails. */
int device_compare_open(cl_context context, cl_device_id device, device_compare **out,
                        skytune_error *err);
void device_compare_close(device_compare *dc);

/* Compares `output` (checked against its buffer's size first) and fills
 * *report as skytune_verify_floats would for the same arrays. Returns 0;
 * 1 with err saying why when the output is no output (no buffer or no
 * reference, more elements than its buffer holds, or a buffer created
 * CL_MEM_WRITE_ONLY, which no kernel may read: the plugin's fault);
 * -1 with err saying why when an OpenCL call failed (the reference's copy
 * could not be made, say: the device's fault, and the host can still
 * compare). Waits for the queue: the summary is read back blocking. */
int device_compare_output(device_compare *dc, cl_command_queue queue,
                          const skytune_device_output *output, skytune_output_report *report,
                          skytune_error *err);

/* Drops the device's copies of the references; the next comparison copies
 * them again. */
void device_compare_forget(device_compare *dc);

#endif
