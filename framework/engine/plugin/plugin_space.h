/* The search space of a plugin for one problem on one device: the plugin's
 * tuning parameters (narrowed by --only), its constraints plus --restrict
 * expressions, with problem parameters and device.* limits bound as names,
 * and the plugin's C constraint when it has one. */
#ifndef SKYTUNE_PLUGIN_SPACE_H
#define SKYTUNE_PLUGIN_SPACE_H

#include <stddef.h>

#include <skytune/plugin.h>

#include "error.h"
#include "space.h"

typedef struct plugin_space_request {
    const skytune_plugin *plugin;
    const skytune_values *problem;
    const skytune_device_info *device;  /* NULL: device.* names are unknown */
    const char *const *restricts;       /* extra constraint expressions */
    size_t n_restricts;
    const char *const *only;            /* "name=v1,v2" */
    size_t n_only;
    const space_control *control;       /* NULL: the default work limit */
    /* The engine's record of the C constraint's lookups (plugin_lookup.h);
     * callers leave it zeroed. */
    skytune_lookup_log lookups;
} plugin_space_request;

/* With a device, the plugin's check_problem runs first (problem.h): a
 * problem it refuses fails here before any configuration is enumerated.
 * When the plugin has a C constraint, the space calls back with `rq` as its
 * context: rq and what it points to must outlive the space. A C constraint
 * that looks up a name it did not declare fails the build, naming it. */
int plugin_space_build(plugin_space_request *rq, space **out, skytune_error *err);

#endif
