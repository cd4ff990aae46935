/* What the core reads of a plugin's description (skytune_plugin): its name,
 * what it declares of problems and tuning parameters, and its check_problem
 * callback, all of types from skytune/plugin_types.h. The description itself
 * also holds the callbacks that take OpenCL objects, and the core builds
 * without OpenCL, so the layers that load plugins hand the core this view of
 * a description (plugin_decls_of, framework/engine/plugin_lookups.h). */
#ifndef SKYTUNE_PLUGIN_DECLS_H
#define SKYTUNE_PLUGIN_DECLS_H

#include "error.h"

/* The fields mean what skytune_plugin's fields of the same names mean. */
typedef struct plugin_decls {
    const char *name;
    const skytune_problem_param *problem_params;
    const skytune_preset *presets;
    const skytune_problem_check *problem_checks;
    int (*check_problem)(const skytune_values *problem, const skytune_device_info *device,
                         skytune_error *err);
    const skytune_tuning_param *tuning_params;
} plugin_decls;

#endif
