/* JSON values of the recorded datasets. See dataset_json.h. */
#include "dataset_json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "replay_dataset.h"

void dataset_json_describe(const json_t *j, char *buf, size_t len)
{
    char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (!text) {
        snprintf(buf, len, "%s", j ? "(a value)" : "nothing");
        return;
    }
    /* The dump escapes ASCII controls but keeps other UTF-8, C1 controls
     * too; the cut is the quoting's. */
    quote_text(text, buf, len < DATASET_JSON_QUOTED + 4 ? len : DATASET_JSON_QUOTED + 4);
    free(text);
}

void dataset_json_kinds_add(dataset_json_kinds *k, const json_t *v)
{
    if (json_is_integer(v))
        k->integer = true;
    else if (json_is_real(v))
        k->real = true;
    else if (json_is_boolean(v))
        k->boolean = true;
    else if (json_is_string(v))
        k->string = true;
    else
        k->other = true;
}

int dataset_json_kinds_type(const dataset_json_kinds *k, skytune_type *type)
{
    if (k->other) return -1;
    if (k->string) {
        if (k->integer || k->real || k->boolean) return -1;
        *type = SKYTUNE_STRING;
        return 0;
    }
    *type = k->real ? SKYTUNE_FLOAT : SKYTUNE_INT;
    return 0;
}

int dataset_json_value(const json_t *j, skytune_type type, skytune_value *out)
{
    memset(out, 0, sizeof *out);
    switch (type) {
    case SKYTUNE_INT:
    case SKYTUNE_BOOL:
        out->type = SKYTUNE_INT;
        if (json_is_integer(j)) {
            out->i = (int64_t)json_integer_value(j);
            return 0;
        }
        if (json_is_boolean(j)) {
            out->i = json_is_true(j);
            return 0;
        }
        if (json_is_real(j)) {
            double f = json_real_value(j);
            if (f == trunc(f) && fabs(f) < 9.0e18) {
                out->i = (int64_t)f;
                return 0;
            }
        }
        return -1;
    case SKYTUNE_FLOAT:
        out->type = SKYTUNE_FLOAT;
        if (json_is_number(j)) {
            out->f = json_number_value(j);
            return 0;
        }
        if (json_is_boolean(j)) {
            out->f = json_is_true(j);
            return 0;
        }
        return -1;
    case SKYTUNE_STRING: {
        out->type = SKYTUNE_STRING;
        if (!json_is_string(j)) return -1;
        char *copy = strdup(json_string_value(j));
        if (!copy) return -2;
        out->s = copy;
        return 0;
    }
    }
    return -1;
}

int dataset_json_phase_seconds(const char *path, const char *where, const char *name,
                               const json_t *j, double unit_ns, double *seconds,
                               skytune_error *err)
{
    *seconds = 0.0;
    if (!j) return 0;
    if (json_is_number(j) && replay_is_phase_time(json_number_value(j) * unit_ns / 1e9)) {
        *seconds = json_number_value(j) * unit_ns / 1e9;
        return 0;
    }
    char shown[DATASET_JSON_QUOTED + 8];
    dataset_json_describe(j, shown, sizeof shown);
    return err_set(err, "%s: %s: \"%s\" is %s; a recorded phase time is a finite number, 0 or "
                   "more", path, where, name, shown);
}
