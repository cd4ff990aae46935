/* Small constrained spaces for strategy and campaign tests. */
#ifndef SKYTUNE_TEST_SPACE_FIXTURES_H
#define SKYTUNE_TEST_SPACE_FIXTURES_H

#include <criterion/criterion.h>
#include <stdlib.h>

#include "params.h"
#include "pcg32.h"
#include "space.h"

/* A space of `n_params` integer parameters, values 0..n_values-1 each, with
 * the given constraints over names p0, p1, ... */
static inline space *fixture_space(size_t n_params, size_t n_values, const char *const *constraints,
                                   size_t n_constraints)
{
    param_def *params = calloc(n_params, sizeof *params);
    cr_assert_not_null(params);
    char name[8], list[256];
    for (size_t k = 0; k < n_params; k++) {
        size_t used = 0;
        for (size_t v = 0; v < n_values; v++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%zu", v ? "," : "", v);
        snprintf(name, sizeof name, "p%zu", k);
        skytune_tuning_param spec = {.name = name, .kind = SKYTUNE_LIST, .list = list};
        skytune_error err = {0};
        cr_assert_eq(param_expand(&spec, &params[k], &err), 0, "%s", err.message);
    }
    space_spec spec = {.params = params, .n_params = n_params, .constraints = constraints,
                       .n_constraints = n_constraints};
    space *s;
    skytune_error err = {0};
    cr_assert_eq(space_build(&spec, &s, &err), 0, "%s", err.message);
    for (size_t k = 0; k < n_params; k++) param_free(&params[k]);
    free(params);
    return s;
}

#endif
