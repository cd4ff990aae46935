#include "derived_values.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_lookups.h"

bool derived_values_declared(const skytune_plugin *plugin)
{
    return plugin->derived_values && plugin->derived_values[0].name;
}

size_t derived_values_names(const skytune_plugin *plugin, const char **names)
{
    size_t n = 0;
    for (const skytune_derived_value *v = plugin->derived_values; v && v->name; v++)
        if (n < MEAS_MAX_DERIVED) names[n++] = v->name;
    return n;
}

int derived_values_compute(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err)
{
    derived_values *d = ctx;
    space_config_values(d->space, idx, d->items);
    skytune_lookup_log lookups = {{0}};
    skytune_values config = {
        .count = space_param_count(d->space), .items = d->items, .log = &lookups};
    skytune_values problem = plugin_values_logged(d->problem, &lookups);
    m->n_derived = 0;
    for (const skytune_derived_value *v = d->plugin->derived_values;
         v && v->name && m->n_derived < MEAS_MAX_DERIVED; v++) {
        measurement_derived *out = &m->derived[m->n_derived++];
        snprintf(out->name, sizeof out->name, "%s", v->name);
        out->value = v->compute(&problem, &config);
        char callback[128];
        snprintf(callback, sizeof callback, "derived value '%s'", v->name);
        if (plugin_lookup_check(d->plugin, &lookups, callback, err) != 0) return -1;
    }
    return 0;
}

int derived_values_open(derived_values *d, const skytune_plugin *plugin,
                        const skytune_values *problem, const space *sp, skytune_error *err)
{
    memset(d, 0, sizeof *d);
    size_t declared = 0;
    for (const skytune_derived_value *v = plugin->derived_values; v && v->name; v++) declared++;
    if (declared > MEAS_MAX_DERIVED)
        return err_set(err, "plugin %s declares %zu derived values; at most %d are kept",
                       plugin->name, declared, MEAS_MAX_DERIVED);
    d->plugin = plugin;
    d->problem = problem;
    d->space = sp;
    d->items = calloc(space_param_count(sp) + 1, sizeof *d->items);
    uint16_t *idx = calloc(space_param_count(sp) + 1, sizeof *idx);
    int rc = 0;
    if (!d->items || !idx) {
        rc = err_set(err, "out of memory");
    } else if (space_count(sp) > 0) {
        measurement probe;
        measurement_init(&probe);
        space_unrank(sp, 0, idx);
        rc = derived_values_compute(d, idx, &probe, err);
        measurement_clear(&probe);
    }
    free(idx);
    if (rc != 0) derived_values_close(d);
    return rc;
}

void derived_values_close(derived_values *d)
{
    free(d->items);
    memset(d, 0, sizeof *d);
}
