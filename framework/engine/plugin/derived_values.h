/* A plugin's derived values (skytune_derived_value): numbers computed from
 * the problem and a configuration alone, recorded with the configuration's
 * measurement. They are computed in the engine's process, like the C
 * constraint, from the same values. */
#ifndef SKYTUNE_DERIVED_VALUES_H
#define SKYTUNE_DERIVED_VALUES_H

#include <stdint.h>

#include <skytune/plugin.h>

#include "error.h"
#include "measurement.h"
#include "space.h"

typedef struct derived_values {
    const skytune_plugin *plugin;
    const skytune_values *problem;
    const space *space;
    skytune_named_value *items;   /* one configuration's values (scratch) */
} derived_values;

/* Whether the plugin declares any. */
bool derived_values_declared(const skytune_plugin *plugin);

/* The names, in declaration order, into names[] (at most MEAS_MAX_DERIVED;
 * a plugin declaring more is refused by derived_values_open). */
size_t derived_values_names(const skytune_plugin *plugin, const char **names);

/* For configurations of `space`; the pointers are kept. Fails when the
 * plugin declares more than MEAS_MAX_DERIVED values, or when computing them
 * for the space's first configuration looks up a name the plugin did not
 * declare (so that such a plugin is refused before anything is measured). */
int derived_values_open(derived_values *d, const skytune_plugin *plugin,
                        const skytune_values *problem, const space *sp, skytune_error *err);
void derived_values_close(derived_values *d);

/* tuning_loop_config.derive: m->derived for the configuration idx. -1 with err
 * when the plugin looks up a name it did not declare. */
int derived_values_compute(void *d, const uint16_t *idx, measurement *m, skytune_error *err);

#endif
