#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canonical.h"
#include "export_json.h"

json_t *export_object_in_text_order(const char *json_text, const char *text)
{
    json_error_t error;
    json_t *parsed = json_loads(json_text ? json_text : "{}", 0, &error);
    if (!json_is_object(parsed)) {
        json_decref(parsed);
        return NULL;
    }
    json_t *ordered = json_object();
    if (!ordered) {
        json_decref(parsed);
        return NULL;
    }
    /* The canonical text's own reader (its values may be quoted and hold
     * ',' and '='); a text that is not pairs orders nothing. */
    canonical_pair *pairs = NULL;
    size_t n_pairs = 0;
    skytune_error ignored;
    if (canonical_split(text, &pairs, &n_pairs, &ignored) != 0) n_pairs = 0;
    for (size_t k = 0; k < n_pairs; k++) {
        json_t *value = json_object_get(parsed, pairs[k].name);
        if (value && !json_object_get(ordered, pairs[k].name) &&
            json_object_set(ordered, pairs[k].name, value) != 0) {
            canonical_pairs_free(pairs, n_pairs);
            goto fail;
        }
    }
    canonical_pairs_free(pairs, n_pairs);
    const char *key;
    json_t *value;
    json_object_foreach(parsed, key, value) {
        if (!json_object_get(ordered, key) && json_object_set(ordered, key, value) != 0) goto fail;
    }
    json_decref(parsed);
    return ordered;
fail:
    json_decref(parsed);
    json_decref(ordered);
    return NULL;
}

int export_json_dump(const json_t *value, FILE *f)
{
    if (json_dumpf(value, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) != 0)
        return -1;
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}
