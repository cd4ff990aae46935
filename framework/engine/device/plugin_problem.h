/* The core's problems (problem.h) for a plugin's description, which the
 * core reads through plugin_decls (plugin_lookups.h says why). */
#ifndef SKYTUNE_PLUGIN_PROBLEM_H
#define SKYTUNE_PLUGIN_PROBLEM_H

#include <skytune/plugin.h>

#include "plugin_lookups.h"
#include "problem.h"

/* problem_resolve_decls (problem.h) for the plugin's description. */
static inline int problem_resolve(const skytune_plugin *plugin, const char *preset,
                                  const char *const *settings, size_t n_settings, problem *out,
                                  skytune_error *err)
{
    plugin_decls decls = plugin_decls_of(plugin);
    return problem_resolve_decls(&decls, preset, settings, n_settings, out, err);
}

/* problem_check_decls_on_device (problem.h) for the plugin's description. */
static inline int problem_check_on_device(const skytune_plugin *plugin,
                                          const skytune_values *values,
                                          const skytune_device_info *device, skytune_error *err)
{
    plugin_decls decls = plugin_decls_of(plugin);
    return problem_check_decls_on_device(&decls, values, device, err);
}

#endif
