#include "param_columns.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "canonical.h"
#include "value.h"

/* The pairs of a text, or none when it does not read as pairs named by
 * identifiers. */
static size_t read_pairs(const char *text, canonical_pair **pairs)
{
    size_t n = 0;
    skytune_error ignored;
    *pairs = NULL;
    if (!text || canonical_split(text, pairs, &n, &ignored) != 0) return 0;
    for (size_t k = 0; k < n; k++)
        if (!name_is_identifier((*pairs)[k].name)) {
            canonical_pairs_free(*pairs, n);
            *pairs = NULL;
            return 0;
        }
    return n;
}

typedef struct name_list {
    char **items;
    size_t n, capacity;
} name_list;

static void names_free(name_list *l)
{
    for (size_t k = 0; k < l->n; k++) free(l->items[k]);
    free(l->items);
    *l = (name_list){0};
}

static bool names_has(const name_list *l, const char *name, bool ignore_case)
{
    for (size_t k = 0; k < l->n; k++)
        if ((ignore_case ? strcasecmp(l->items[k], name) : strcmp(l->items[k], name)) == 0)
            return true;
    return false;
}

/* Append a copy of name; takes ownership of nothing. */
static int names_add(name_list *l, const char *name)
{
    if (l->n == l->capacity) {
        size_t capacity = l->capacity ? 2 * l->capacity : 16;
        char **grown = realloc(l->items, capacity * sizeof *grown);
        if (!grown) return -1;
        l->items = grown;
        l->capacity = capacity;
    }
    if (!(l->items[l->n] = strdup(name))) return -1;
    l->n++;
    return 0;
}

/* The parameter names column c's texts hold, in order, first seen first. */
static int collect_names(const query_table *t, size_t first, size_t end, size_t c,
                         name_list *names)
{
    for (size_t r = first; r < end; r++) {
        canonical_pair *pairs;
        size_t n = read_pairs(t->cells[r * t->n_cols + c], &pairs);
        int rc = 0;
        for (size_t k = 0; k < n && rc == 0; k++)
            if (!names_has(names, pairs[k].name, false)) rc = names_add(names, pairs[k].name);
        canonical_pairs_free(pairs, n);
        if (rc != 0) return -1;
    }
    return 0;
}

/* A column name for a parameter that no column of t and no earlier column
 * of the result has, ignoring case (SQL and spreadsheets may). */
static int unique_column(const query_table *t, const name_list *columns, const char *name,
                         name_list *out)
{
    size_t len = strlen(name) + 32;
    char *candidate = malloc(len);
    if (!candidate) return -1;
    snprintf(candidate, len, "%s", name);
    for (unsigned k = 1;; k++) {
        bool taken = names_has(columns, candidate, true);
        for (size_t c = 0; c < t->n_cols && !taken; c++)
            taken = strcasecmp(t->cols[c], candidate) == 0;
        if (!taken) break;
        if (k == 1)
            snprintf(candidate, len, "param_%s", name);
        else
            snprintf(candidate, len, "param_%s_%u", name, k);
    }
    int rc = names_add(out, candidate);
    free(candidate);
    return rc;
}

static int find_column(const query_table *t, const char *name, size_t *c, skytune_error *err)
{
    *c = query_column(t, name);
    if (*c == t->n_cols) return err_set(err, "the table has no column '%s' to spread", name);
    return 0;
}

/* Where each column of the result comes from: a column of t, or parameter
 * `param` of spread column `spread`. */
typedef struct source {
    size_t column;       /* of t, or SIZE_MAX for a parameter */
    size_t spread, param;
} source;

static int copy_cell(const query_table *t, size_t r, size_t c, char **cell, unsigned char *type)
{
    const char *text = t->cells[r * t->n_cols + c];
    *type = t->types[r * t->n_cols + c];
    *cell = NULL;
    return text && !(*cell = strdup(text)) ? -1 : 0;
}

static size_t name_index(const name_list *l, const char *name)
{
    size_t k = 0;
    while (k < l->n && strcmp(l->items[k], name) != 0) k++;
    return k;
}

/* Row r of the result: the columns of t copied, each spread text read once
 * into its parameter columns (NULL where the text lacks one). */
static int fill_row(const query_table *t, size_t r, const param_spread *spread, size_t n_spread,
                    const size_t *spread_column, const name_list *params, const source *from,
                    char **cells, unsigned char *types, size_t n_cols)
{
    for (size_t c = 0; c < n_cols; c++)
        if (from[c].column != SIZE_MAX && copy_cell(t, r, from[c].column, &cells[c], &types[c]) != 0)
            return -1;
    for (size_t s = 0; s < n_spread; s++) {
        canonical_pair *pairs;
        size_t n = read_pairs(t->cells[r * t->n_cols + spread_column[s]], &pairs);
        int rc = 0;
        for (size_t k = 0; k < n && rc == 0; k++) {
            size_t c = spread[s].first + name_index(&params[s], pairs[k].name);
            if (cells[c]) continue; /* a name given twice: the first counts */
            rc = (cells[c] = strdup(pairs[k].value)) ? 0 : -1;
            types[c] = QUERY_TEXT;
        }
        canonical_pairs_free(pairs, n);
        if (rc != 0) return -1;
    }
    return 0;
}

int param_columns_spread(const query_table *t, size_t first, size_t end, param_spread *spread,
                         size_t n_spread, query_table *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    if (end > t->n_rows) end = t->n_rows;
    if (first > end) first = end;
    size_t *spread_column = calloc(n_spread + 1, sizeof *spread_column);
    name_list *params = calloc(n_spread + 1, sizeof *params);
    name_list columns = {0};
    source *from = NULL;
    int rc = -1;
    if (!spread_column || !params) goto oom;
    size_t n_params = 0;
    for (size_t s = 0; s < n_spread; s++) {
        if (find_column(t, spread[s].column, &spread_column[s], err) != 0) goto done;
        if (collect_names(t, first, end, spread_column[s], &params[s]) != 0) goto oom;
        n_params += params[s].n;
    }
    from = calloc(t->n_cols + n_params + 1, sizeof *from);
    if (!from) goto oom;
    for (size_t c = 0; c < t->n_cols; c++) {
        size_t s = 0;
        while (s < n_spread && spread_column[s] != c) s++;
        if (s == n_spread || spread[s].keep) {
            from[columns.n] = (source){.column = c};
            if (names_add(&columns, t->cols[c]) != 0) goto oom;
        }
        if (s == n_spread) continue;
        spread[s].first = columns.n;
        spread[s].count = params[s].n;
        for (size_t p = 0; p < params[s].n; p++) {
            from[columns.n] = (source){.column = SIZE_MAX, .spread = s, .param = p};
            if (unique_column(t, &columns, params[s].items[p], &columns) != 0) goto oom;
        }
    }
    out->n_cols = columns.n;
    out->cols = columns.items;
    columns = (name_list){0};
    size_t rows = end - first;
    out->cells = calloc(rows * out->n_cols + 1, sizeof *out->cells);
    out->types = calloc(rows * out->n_cols + 1, 1);
    if (!out->cells || !out->types) goto oom;
    out->n_rows = rows;
    for (size_t r = 0; r < rows; r++)
        if (fill_row(t, first + r, spread, n_spread, spread_column, params, from,
                     out->cells + r * out->n_cols, out->types + r * out->n_cols, out->n_cols) != 0)
            goto oom;
    rc = 0;
    goto done;
oom:
    rc = err_set(err, "out of memory spreading parameters into columns");
done:
    if (rc != 0) query_table_free(out);
    names_free(&columns);
    for (size_t s = 0; params && s < n_spread; s++) names_free(&params[s]);
    free(params);
    free(spread_column);
    free(from);
    return rc;
}

bool param_columns_vary(const query_table *t, size_t first, size_t end, const char *column)
{
    size_t c = query_column(t, column);
    if (c == t->n_cols) return false;
    const char *seen = NULL;
    for (size_t r = first; r < end && r < t->n_rows; r++) {
        const char *text = t->cells[r * t->n_cols + c];
        if (!text) continue;
        if (seen && strcmp(seen, text) != 0) return true;
        seen = text;
    }
    return false;
}
