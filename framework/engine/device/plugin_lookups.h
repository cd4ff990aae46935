/* The core reads a plugin through plugin_decls, the part of its description
 * without OpenCL in it, because the core builds without OpenCL (../DESIGN:
 * "Layers"). The engine, the CLI and the tests hold the description itself
 * (skytune_plugin): plugin_decls_of makes the core's view of it, and
 * plugin_lookup_check here takes it as it is (plugin_problem.h does the same
 * for problems). */
#ifndef SKYTUNE_PLUGIN_LOOKUPS_H
#define SKYTUNE_PLUGIN_LOOKUPS_H

#include <skytune/plugin.h>

#include "plugin_decls.h"
#include "plugin_lookup.h"

static inline plugin_decls plugin_decls_of(const skytune_plugin *plugin)
{
    plugin_decls decls = {
        .name = plugin->name,
        .problem_params = plugin->problem_params,
        .presets = plugin->presets,
        .problem_checks = plugin->problem_checks,
        .check_problem = plugin->check_problem,
        .tuning_params = plugin->tuning_params,
    };
    return decls;
}

/* plugin_lookup_check_decls (plugin_lookup.h) for the plugin's description. */
static inline int plugin_lookup_check(const skytune_plugin *plugin, skytune_lookup_log *log,
                                      const char *callback, skytune_error *err)
{
    plugin_decls decls = plugin_decls_of(plugin);
    return plugin_lookup_check_decls(&decls, log, callback, err);
}

#endif
