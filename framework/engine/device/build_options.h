/* The options a configuration's program is built with: the same for the
 * measurer, which builds every configuration, and for a plugin that builds
 * one itself (the T1 plugin's Default configuration, whose output is the
 * reference). */
#ifndef SKYTUNE_BUILD_OPTIONS_H
#define SKYTUNE_BUILD_OPTIONS_H

#include <stddef.h>

#include <skytune/plugin.h>

#include "error.h"

/* The plugin's build_options (with "-cl-std=CL1.2" first unless they name a
 * -cl-std), then "-D NAME=value" for every problem and tuning parameter,
 * then what the plugin's `defines` adds (state is setup's). Returns -1 with
 * a message in err when the options do not fit in len bytes or `defines`
 * fails (its own message, prefixed "defines: "). */
int build_options_format(const skytune_plugin *plugin, void *state, const skytune_values *problem,
                         const skytune_values *config, char *buf, size_t len, skytune_error *err);

#endif
