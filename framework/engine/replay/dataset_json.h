/* What the JSON dataset readers (Kernel Tuner caches, T4 results) share:
 * JSON values as parameter values, a parameter's type from the kinds of its
 * values, recorded phase times, and JSON values quoted in messages. */
#ifndef SKYTUNE_DATASET_JSON_H
#define SKYTUNE_DATASET_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "error.h"
#include "value.h"

/* A JSON value quoted in a message is cut here; a buffer for one holds
 * DATASET_JSON_QUOTED + 8. */
#define DATASET_JSON_QUOTED 80

/* The JSON value as compact text, quoted and cut for a message ("nothing"
 * for NULL). */
void dataset_json_describe(const json_t *j, char *buf, size_t len);

/* Which kinds of JSON value a parameter's values are. */
typedef struct dataset_json_kinds {
    bool integer, real, boolean, string, other;
} dataset_json_kinds;

void dataset_json_kinds_add(dataset_json_kinds *k, const json_t *v);

/* Integers (and booleans) stay integers, any real makes the parameter a
 * float, strings are strings; anything else or a mixture fails (-1). */
int dataset_json_kinds_type(const dataset_json_kinds *k, skytune_type *type);

/* The JSON value as a value of `type` (a string is copied). Returns 0, -1
 * when the value is not of that type, -2 when out of memory. */
int dataset_json_value(const json_t *j, skytune_type type, skytune_value *out);

/* A phase time given in `unit_ns` units as a JSON number, in seconds; 0 when
 * absent. `where` and `name` name it in the message ("FILE: cache entry
 * "KEY": "compile_time" ..."). */
int dataset_json_phase_seconds(const char *path, const char *where, const char *name,
                               const json_t *j, double unit_ns, double *seconds,
                               skytune_error *err);

#endif
