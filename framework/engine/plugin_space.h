/* The search space of a plugin for one problem on one device: the plugin's
 * tuning parameters (narrowed by --only), its constraints plus --restrict
 * expressions, with problem parameters and device.* limits bound as names,
 * and the plugin's C constraint when it has one. */
#ifndef SKYTUNE_PLUGIN_SPACE_H
#define SKYTUNE_PLUGIN_SPACE_H

#include <stddef.h>

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
} plugin_space_request;

/* With a device, the plugin's check_problem runs first (problem.h): a
 * problem it refuses fails here before any configuration is enumerated.
 * When the plugin has a C constraint, the space calls back with `rq` as its
 * context: rq and what it points to must outlive the space. */
int plugin_space_build(const plugin_space_request *rq, space **out, skytune_error *err);

#endif
