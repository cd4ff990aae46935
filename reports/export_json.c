#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    /* Names are what precedes each '=' after the start or a ','. */
    const char *p = text ? text : "";
    while (*p) {
        const char *eq = strchr(p, '=');
        if (!eq) break;
        char name[256];
        size_t len = (size_t)(eq - p);
        if (len < sizeof name) {
            memcpy(name, p, len);
            name[len] = '\0';
            json_t *value = json_object_get(parsed, name);
            if (value && !json_object_get(ordered, name) &&
                json_object_set(ordered, name, value) != 0)
                goto fail;
        }
        const char *comma = strchr(eq, ',');
        if (!comma) break;
        p = comma + 1;
    }
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
