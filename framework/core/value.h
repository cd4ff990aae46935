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

/* String values reach the kernel build unquoted, as `-D NAME=value`: each
 * must be a token that cannot become more than that one option, or split
 * or end it. A token is 1 to VALUE_TOKEN_MAX printable ASCII characters
 * (from '!' to '~') other than the quotes '"' and '\'' and the backslash.
 * (',' and '=' are allowed here; the canonical text quotes them.) */
#define VALUE_TOKEN_MAX 200
bool value_is_token(const char *s);

/* Fail unless `s` is a token, with a message that names `what` (e.g.
 * "problem parameter 'mode'"; NULL: the caller names it), quotes the value
 * (escaped and shortened), says what is wrong with it and what a token is. */
int value_check_token(const char *what, const char *s, skytune_error *err);

/* True when `name` is an identifier usable as a parameter name, SQL column
 * and -D macro: [A-Za-z_][A-Za-z0-9_]*, at most 63 characters. */
bool name_is_identifier(const char *name);

/* Whether f is a whole number an int64_t holds (then *out is it): the test
 * to make before converting, since converting a double outside int64_t's
 * range is undefined behaviour. */
bool value_float_to_int64(double f, int64_t *out);

#endif
