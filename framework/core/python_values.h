/* The values of a tuning parameter as T1 files publish them: the text of a
 * Python expression that makes a list, evaluated without Python.
 *
 * The subset read is what the benchmark hub's files write:
 *   list literals        "[16, 32, 64]", "['a', 'b']", "[True, False]", tuples "(1, 2)"
 *   range()              "range(8)", "range(1, 32)", "range(32, 1024 + 1, 32)"
 *   list()               "list(range(1, 11))"
 *   comprehensions       "[32 * i for i in range(1, 32)]",
 *                        "[2**i for i in range(0, 6)]",
 *                        "[i * j for i in range(1, 4) for j in range(i, 4) if (i + j) % 2 == 0]"
 *   concatenation        "[1] + [2 * i for i in range(1, 11)]", repetition "[0] * 3"
 * Every value inside is an expression of the constraint language (expr.h):
 * arithmetic, comparisons, and/or/not, over numbers, 'strings', True and
 * False and the variables of the enclosing comprehensions. Anything else (a
 * call of another function, indexing, attribute access, a dict, a lambda,
 * membership tests, ...) is refused with a message that names the
 * construct and its column. Evaluation is bounded: no list may grow past
 * PYTHON_VALUES_MAX_ITEMS items, and a comprehension may not iterate more
 * than PYTHON_VALUES_MAX_STEPS times in all. */
#ifndef SKYTUNE_PYTHON_VALUES_H
#define SKYTUNE_PYTHON_VALUES_H

#include <stddef.h>

#include "error.h"

#define PYTHON_VALUES_MAX_ITEMS (1u << 20)
#define PYTHON_VALUES_MAX_STEPS (1u << 22)

/* Evaluate `text` to its items: a malloc'd array of INT, FLOAT or STRING
 * values (strings malloc'd; True and False are the integers 1 and 0, as in
 * Python arithmetic). Fails with "column C: ..." naming what is wrong. */
int python_values_eval(const char *text, skytune_value **values, size_t *count,
                       skytune_error *err);

/* Free what python_values_eval returned. */
void python_values_free(skytune_value *values, size_t count);

#endif
