/* Whether a device's program binaries are worth keeping in the binary
 * cache, or are better left to the driver's own kernel cache.
 *
 * PoCL on a CPU builds a program to LLVM bitcode in clBuildProgram and
 * generates machine code only at a kernel's first launch, specialised for
 * the work-group size it is launched with. Asking it for the program's
 * binary (CL_PROGRAM_BINARIES) makes it generate code a second time, for
 * any work-group size, and a program created from that binary is still
 * specialised again at its first launch: keeping binaries costs every
 * configuration a whole code generation and saves none (matmul.cl on the
 * 2-core VM: build 1.20 s, binary 0.83 s, first launch 0.73 s of CPU).
 * PoCL's own kernel cache (POCL_CACHE_DIR, on unless POCL_KERNEL_CACHE=0)
 * keeps both the bitcode and each specialised kernel, keyed by the
 * preprocessed source (headers included), the options and the device, so
 * a build it has seen, in this run or an earlier one, costs a few tens of
 * milliseconds, launch included. docs/benchmarks.md, "Close to the
 * device's limit", has the figures.
 *
 * Failures are kept on every device: a cached failure saves the compiler
 * and asks nothing of the driver. */
#ifndef SKYTUNE_BINARY_KEEPING_H
#define SKYTUNE_BINARY_KEEPING_H

#include <stdbool.h>

#include "skytune/plugin_types.h"

/* False on PoCL's CPU devices while PoCL's kernel cache is on; true
 * everywhere else (GPUs, other drivers). */
bool binary_keeping_worthwhile(const skytune_device_info *dev);

#endif
