/* One column per parameter instead of one column of canonical text: the
 * report's top table and the CSV export show each tuning parameter (and,
 * where rows span problems, each problem parameter) as a column of its own.
 *
 * Texts are read back with canonical_split, the inverse of how the store
 * wrote them. A text that does not read as pairs with identifier names (a
 * replayed dataset's problem is the dataset's name; a problem text of an
 * old database may be marked ambiguous) gives its row no values there. */
#ifndef SKYTUNE_PARAM_COLUMNS_H
#define SKYTUNE_PARAM_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "query.h"

typedef struct param_spread {
    const char *column;  /* a column of canonical texts, e.g. "configuration" */
    bool keep;           /* keep the text column before its parameters */
    /* Set by param_columns_spread: where this column's parameter columns
     * are in the result, and how many there are. */
    size_t first, count;
} param_spread;

/* Rows [first, end) of t, with each spread column followed (keep) or
 * replaced by one column per parameter its texts hold, in the order the
 * texts name them, first seen first. A parameter whose name is already a
 * column of t (or, ignoring case, an earlier parameter column) is called
 * param_NAME, then param_NAME_2, ... A row whose text lacks a parameter
 * has NULL there. Parameter values are text cells. Fails when a spread
 * column is not in t, or out of memory. */
int param_columns_spread(const query_table *t, size_t first, size_t end, param_spread *spread,
                         size_t n_spread, query_table *out, skytune_error *err);

/* Whether rows [first, end) of t hold more than one text in column. */
bool param_columns_vary(const query_table *t, size_t first, size_t end, const char *column);

#endif
