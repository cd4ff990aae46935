/* Parsing and formatting of typed values, shared by problem parameters,
 * tuning parameters, presets, --set and --only. */
#ifndef SKYTUNE_VALUE_H
#define SKYTUNE_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "expr.h"

/* Parse `text` as a value of `type`. Integers accept decimal and 0x hex;
 * floats accept anything strtod does (finite only); booleans accept
 * true/false/1/0/yes/no/on/off. Strings are copied (malloc) into out->s and
 * must be freed with value_clear. */
int value_parse(const char *text, skytune_type type, skytune_value *out, skytune_error *err);

/* Free a string value's text and zero the value. */
void value_clear(skytune_value *v);

/* Deep copy (duplicates strings). */
int value_copy(skytune_value *dst, const skytune_value *src);

/* Canonical text: integers in decimal, booleans as 0/1, floats with the
 * shortest "%.17g" form that round-trips, strings verbatim. */
void value_format(const skytune_value *v, char *buf, size_t len);

bool value_equal(const skytune_value *a, const skytune_value *b);

/* The value as an expression operand (bools become integers). */
expr_value value_to_expr(const skytune_value *v);

const char *type_name(skytune_type type);

/* True when `name` is an identifier usable as a parameter name, SQL column
 * and -D macro: [A-Za-z_][A-Za-z0-9_]*, at most 63 characters. */
bool name_is_identifier(const char *name);

#endif
