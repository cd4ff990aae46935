#include "plugin_space.h"

#include <stdlib.h>
#include <string.h>

#include "cl_device.h"
#include "params.h"
#include "plugin_lookup.h"
#include "plugin_problem.h"

static int call_plugin_constraint(void *ctx, const skytune_values *config, const char **why)
{
    plugin_space_request *rq = ctx;
    skytune_values logged_config = plugin_values_logged(config, &rq->lookups);
    skytune_values logged_problem = plugin_values_logged(rq->problem, &rq->lookups);
    return rq->plugin->constraint(&logged_config, &logged_problem, rq->device, why);
}

int plugin_space_build(plugin_space_request *rq, space **out, skytune_error *err)
{
    const skytune_plugin *pl = rq->plugin;
    /* The plugin's own limits first: its C constraint may take time in
     * proportion to the problem (cells of a triangle of stations, say), and
     * a problem the plugin refuses must be refused before it is spent. */
    static const skytune_values no_problem = {0};
    if (rq->device &&
        problem_check_on_device(pl, rq->problem ? rq->problem : &no_problem, rq->device, err) != 0)
        return -1;
    size_t n_params = 0, n_constraints = 0;
    for (const skytune_tuning_param *t = pl->tuning_params; t && t->name; t++) n_params++;
    for (const char *const *c = pl->constraints; c && *c; c++) n_constraints++;

    const char *device_names[32];
    int64_t device_values[32];
    size_t n_device = rq->device ? cl_device_constants(rq->device, device_names, device_values, 32)
                                 : 0;
    size_t n_problem = rq->problem ? rq->problem->count : 0;

    param_def *params = calloc(n_params + 1, sizeof *params);
    const char **constraints = calloc(n_constraints + 1, sizeof *constraints);
    space_constant *constants = calloc(n_problem + n_device + 1, sizeof *constants);
    size_t expanded = 0;
    int rc = 0;
    if (!params || !constraints || !constants) {
        rc = err_set(err, "out of memory building the search space");
        goto done;
    }
    for (; expanded < n_params; expanded++)
        if (param_expand(&pl->tuning_params[expanded], &params[expanded], err) != 0) {
            rc = -1;
            goto done;
        }
    for (size_t k = 0; k < n_constraints; k++) constraints[k] = pl->constraints[k];
    for (size_t k = 0; k < n_problem; k++) {
        constants[k].name = rq->problem->items[k].name;
        constants[k].value = rq->problem->items[k].value;
    }
    for (size_t k = 0; k < n_device; k++) {
        constants[n_problem + k].name = device_names[k];
        constants[n_problem + k].value = (skytune_value){.type = SKYTUNE_INT, .i = device_values[k]};
    }
    space_spec spec = {
        .params = params,
        .n_params = n_params,
        .constraints = constraints,
        .n_constraints = n_constraints,
        .constants = constants,
        .n_constants = n_problem + n_device,
        .callback = pl->constraint ? call_plugin_constraint : NULL,
        .callback_ctx = (void *)rq,
    };
    /* Narrowed before it is enumerated, so that --only and --restrict cut
     * the work of enumerating it. */
    space *definition;
    if ((rc = space_define(&spec, &definition, err)) != 0) goto done;
    rc = space_narrow(definition, rq->restricts, rq->n_restricts, rq->only, rq->n_only,
                      rq->control, out, err);
    space_free(definition);
    if (rc == 0 && plugin_lookup_check(pl, &rq->lookups, "C constraint", err) != 0) {
        space_free(*out);
        *out = NULL;
        rc = -1;
    }
done:
    for (size_t k = 0; k < expanded; k++) param_free(&params[k]);
    free(params);
    free(constraints);
    free(constants);
    return rc;
}
