#include "query_json.h"

#include <stdlib.h>
#include <string.h>

/* jansson takes only UTF-8; a stray byte (a Latin-1 driver string) becomes
 * '?' rather than failing the whole output. */
static json_t *text_json(const char *text)
{
    json_t *s = json_string(text);
    if (s) return s;
    char *copy = strdup(text);
    if (!copy) return NULL;
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
        if (*p >= 0x80) *p = '?';
    s = json_string(copy);
    free(copy);
    return s;
}

json_t *query_cell_json(const query_table *t, size_t row, size_t col)
{
    size_t k = row * t->n_cols + col;
    const char *text = t->cells[k];
    switch (t->types[k]) {
    case QUERY_INTEGER: return json_integer((json_int_t)strtoll(text, NULL, 10));
    case QUERY_REAL: return json_real(strtod(text, NULL));
    case QUERY_TEXT: return text_json(text);
    default: return json_null();
    }
}

json_t *query_table_to_json(const query_table *t)
{
    json_t *rows = json_array();
    if (!rows) return NULL;
    for (size_t r = 0; r < t->n_rows; r++) {
        json_t *row = json_object();
        if (!row || json_array_append_new(rows, row) != 0) goto fail;
        for (size_t c = 0; c < t->n_cols; c++) {
            json_t *value = query_cell_json(t, r, c);
            if (!value || json_object_set_new(row, t->cols[c], value) != 0) goto fail;
        }
    }
    return rows;
fail:
    json_decref(rows);
    return NULL;
}
