/* A query's result as JSON: an array with one object per row, keyed by
 * column name, numbers as JSON numbers, SQL NULL as null. */
#ifndef SKYTUNE_QUERY_JSON_H
#define SKYTUNE_QUERY_JSON_H

#include <jansson.h>

#include "query.h"

/* NULL when out of memory. */
json_t *query_table_to_json(const query_table *t);

/* The cell of a query as a JSON value: a number for an INTEGER or REAL
 * cell, a string for text, null for NULL. NULL when out of memory. */
json_t *query_cell_json(const query_table *t, size_t row, size_t col);

#endif
