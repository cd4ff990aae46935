/* JSON helpers shared by the exports. Internal to reports/. */
#ifndef SKYTUNE_EXPORT_JSON_H
#define SKYTUNE_EXPORT_JSON_H

#include <jansson.h>

/* The object parsed from `json_text` (a JSON object from SQLite's
 * json_group_object) with its keys in the order they appear in `text` (a
 * canonical text "name=value,...", canonical.h), then any others. NULL when it does not parse or out
 * of memory. */
json_t *export_object_in_text_order(const char *json_text, const char *text);

/* Dump to f: 2-space indentation, keys in insertion order, reals with 15
 * significant digits (what SQLite's text of a REAL holds). */
int export_json_dump(const json_t *value, FILE *f);

#endif
