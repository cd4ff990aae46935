/* A tuning parameter with its values materialised: the plugin's compact
 * description (list, range, powers of two, booleans, enums, permutations)
 * expanded into the ordered list the search space indexes into. Order is
 * meaningful: "adjacent value" neighbours are adjacent in this list. */
#ifndef SKYTUNE_PARAMS_H
#define SKYTUNE_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Value lists are indexed with uint16_t in configurations. */
#define PARAM_MAX_VALUES 65535

typedef struct param_def {
    char *name;
    skytune_type type;       /* INT (also for booleans), FLOAT or STRING */
    size_t count;
    skytune_value *values;   /* owned, strings owned */
} param_def;

/* Expand a plugin's description. Fails on an empty list, a bad range
 * (step <= 0, from > to), duplicate values or more than PARAM_MAX_VALUES. */
int param_expand(const skytune_tuning_param *spec, param_def *out, skytune_error *err);

/* Build a parameter from explicit values (copied), e.g. from a T1 file. */
int param_from_values(const char *name, skytune_type type, const skytune_value *values,
                      size_t count, param_def *out, skytune_error *err);

void param_free(param_def *p);

/* Index of the value whose canonical text equals `text` (after parsing it as
 * the parameter's type), or -1. */
int param_index_of(const param_def *p, const char *text);

/* Keep only the values listed in `csv` ("v1,v2,..."), in the parameter's own
 * order. Fails naming the parameter and listing its valid values when a
 * value is not one of them. */
int param_restrict(param_def *p, const char *csv, skytune_error *err);

/* Why a text cannot be a string value ("contains a control character",
 * "is empty", ...), or NULL when it can. */
const char *param_string_value_fault(const char *s);
/* What a string value may be, for messages. */
#define PARAM_STRING_VALUES                                                                        \
    "a string value is printable ASCII text without whitespace, ',' or '='"

/* "1, 2, 4, 8" (truncated with "..." past `len`). */
void param_describe_values(const param_def *p, char *buf, size_t len);

#endif
