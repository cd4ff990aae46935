/* Small constrained spaces for strategy and campaign tests. */
#ifndef SKYTUNE_TEST_SPACE_FIXTURES_H
#define SKYTUNE_TEST_SPACE_FIXTURES_H

#include <criterion/criterion.h>
#include <stdlib.h>

#include "params.h"
#include "pcg32.h"
#include "space.h"

/* A space of the given parameters and constraints. */
static inline space *fixture_space_of(const skytune_tuning_param *specs, size_t n_params,
                                      const char *const *constraints, size_t n_constraints)
{
    param_def *params = calloc(n_params, sizeof *params);
    cr_assert_not_null(params);
    skytune_error err = {0};
    for (size_t k = 0; k < n_params; k++)
        cr_assert_eq(param_expand(&specs[k], &params[k], &err), 0, "%s", err.message);
    space_spec spec = {.params = params, .n_params = n_params, .constraints = constraints,
                       .n_constraints = n_constraints};
    space *s;
    cr_assert_eq(space_build(&spec, &s, &err), 0, "%s", err.message);
    for (size_t k = 0; k < n_params; k++) param_free(&params[k]);
    free(params);
    return s;
}

/* A space of `n_params` integer parameters, values 0..n_values-1 each, with
 * the given constraints over names p0, p1, ... */
static inline space *fixture_space(size_t n_params, size_t n_values, const char *const *constraints,
                                   size_t n_constraints)
{
    skytune_tuning_param *specs = calloc(n_params, sizeof *specs);
    char(*names)[8] = calloc(n_params, sizeof *names);
    char(*lists)[256] = calloc(n_params, sizeof *lists);
    cr_assert(specs && names && lists);
    for (size_t k = 0; k < n_params; k++) {
        size_t used = 0;
        for (size_t v = 0; v < n_values; v++)
            used += (size_t)snprintf(lists[k] + used, sizeof lists[k] - used, "%s%zu", v ? "," : "",
                                     v);
        snprintf(names[k], sizeof names[k], "p%zu", k);
        specs[k] = (skytune_tuning_param){.name = names[k], .kind = SKYTUNE_LIST, .list = lists[k]};
    }
    space *s = fixture_space_of(specs, n_params, constraints, n_constraints);
    free(specs);
    free(names);
    free(lists);
    return s;
}

#endif
