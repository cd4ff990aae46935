/* A T1 kernel's expressions evaluated for a problem and a configuration
 * (t1_expressions.c): the names the problem's entries go by, the slots
 * that bind them, and an expression's value as a whole number. */
#ifndef SKYTUNE_T1_EXPRESSIONS_H
#define SKYTUNE_T1_EXPRESSIONS_H

#include <stddef.h>
#include <stdint.h>

#include "t1_kernel.h"

/* The problem parameter that stands for ProblemSize[i]. */
void t1_problem_name(size_t i, char *buf, size_t len);

/* Slots for evaluating expressions: every tuning parameter from config
 * (NULL: none bound, for expressions of the problem alone) and every
 * problem entry. slots holds n_params + n_problem values. */
void t1_kernel_slots(const t1_kernel *spec, const skytune_values *problem,
                   const skytune_values *config, expr_value *slots);

/* An expression's value as a whole number, failing with the file, the key
 * and the value when it is not one or is below `minimum`. */
int t1_expression_integer(const t1_kernel *spec, const t1_expression *x, const expr_value *slots,
                          int64_t minimum, int64_t *out, skytune_error *err);

/* The value of ProblemSize[d]: its problem parameter's, or, for an entry
 * written as an expression, the expression's for the configuration in
 * the slots. */
int t1_problem_extent(const t1_kernel *spec, unsigned d, const expr_value *slots, int64_t *out,
                      skytune_error *err);

#endif
