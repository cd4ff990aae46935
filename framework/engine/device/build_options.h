/* The options a configuration's program is built with: the same for the
 * measurer, which builds every configuration, and for a plugin that builds
 * one itself (the T1 plugin's Default configuration, whose output is the
 * reference). */
#ifndef SKYTUNE_BUILD_OPTIONS_H
#define SKYTUNE_BUILD_OPTIONS_H

#include <stddef.h>

#include <skytune/plugin.h>

#include "error.h"

#include <stdbool.h>

/* Whether `name` is a word of OpenCL C (a qualifier such as read_only, a
 * type, a keyword of C): defined as -D NAME=value it would redefine that
 * word in the compiler's own headers too, which are read before the
 * kernel, and no kernel would build. */
bool build_options_opencl_word(const char *name);

/* The plugin's build_options (with "-cl-std=CL1.2" first unless they name a
 * -cl-std), then "-D NAME=value" for every problem and tuning parameter
 * (but those named as words of OpenCL C: see build_options_prelude),
 * then what the plugin's `defines` adds (state is setup's). Returns -1 with
 * a message in err when the options do not fit in len bytes or `defines`
 * fails (its own message, prefixed "defines: "). */
int build_options_format(const skytune_plugin *plugin, void *state, const skytune_values *problem,
                         const skytune_values *config, char *buf, size_t len, skytune_error *err);

/* The source a configuration is compiled from: its parameters named as
 * words of OpenCL C as "#define NAME value" lines, as Kernel Tuner passes
 * every parameter, then "#line 1" and `source`; `source` itself when there
 * is none. Returns NULL when out of memory; *made says whether the result
 * is a new string, for the caller to free. */
char *build_options_source(const skytune_values *problem, const skytune_values *config,
                           const char *source, bool *made);

#endif
