/* The Kernel Tuner cache reader. See kernel_tuner_cache.h.
 *
 * Kernel Tuner records milliseconds; entries hold nanoseconds for kernel
 * times and seconds for phases. */
#include "kernel_tuner_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset_json.h"
#include "quote.h"
#include "value.h"

static long find_value(const param_def *p, const skytune_value *v)
{
    for (size_t k = 0; k < p->count; k++)
        if (value_equal(&p->values[k], v)) return (long)k;
    return -1;
}

/* Add a value seen in an entry but not declared (the dataset's parameter
 * lists are what it declared and what it recorded). */
static int param_append(param_def *p, const skytune_value *v)
{
    if (p->count >= PARAM_MAX_VALUES) return -1;
    skytune_value *grown = realloc(p->values, (p->count + 1) * sizeof *grown);
    if (!grown) return -1;
    p->values = grown;
    if (value_copy(&p->values[p->count], v) != 0) return -1;
    p->count++;
    return 0;
}

/* A parameter from a JSON array of values (Kernel Tuner's tune_params),
 * typed by what the values are. `where` names the place for messages. */
static int param_from_json_list(const char *path, const char *where, const char *name,
                                const json_t *list, param_def *out, skytune_error *err)
{
    size_t n = json_array_size(list);
    char shown[QUOTE_TEXT];
    quote_text(name, shown, sizeof shown);
    if (!json_is_array(list) || n == 0)
        return err_set(err, "%s: %s \"%s\": expected a non-empty array of values", path, where,
                       shown);
    dataset_json_kinds kinds = {0};
    for (size_t k = 0; k < n; k++) dataset_json_kinds_add(&kinds, json_array_get(list, k));
    skytune_type type;
    if (dataset_json_kinds_type(&kinds, &type) != 0)
        return err_set(err, "%s: %s \"%s\": values must be all numbers or all strings (booleans "
                       "count as numbers)", path, where, shown);
    skytune_value *values = calloc(n, sizeof *values);
    if (!values) return err_set(err, "%s: out of memory", path);
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        if (dataset_json_value(json_array_get(list, k), type, &values[k]) != 0)
            rc = err_set(err, "%s: out of memory", path);
    skytune_error param_err = {0};
    if (rc == 0 && param_from_values(name, type, values, n, out, &param_err) != 0)
        rc = err_set(err, "%s: %s: %s", path, where, param_err.message);
    for (size_t k = 0; k < n; k++) value_clear(&values[k]);
    free(values);
    return rc;
}

/* Kernel Tuner's names for configurations that did not give a time.
 * InvalidConfig (a configuration its restrictions or the device refused)
 * is a failed launch here, like any other failure it records. */
static measurement_status kernel_tuner_failure(const char *name)
{
    if (strcmp(name, "CompilationFailedConfig") == 0) return MEAS_COMPILE;
    return MEAS_LAUNCH;
}

/* An entry's values from the cache key "16,1,1,...", written in
 * tune_params_keys order: for entries that do not repeat the parameters as
 * fields. */
static int kernel_tuner_values_from_key(const char *path, const replay_dataset *d, const char *key,
                                        const char *shown_key, skytune_value *values,
                                        skytune_error *err)
{
    size_t pieces = 1;
    for (const char *c = key; *c; c++) pieces += *c == ',';
    if (pieces != d->n_params)
        return err_set(err, "%s: cache entry \"%s\": the key has %zu values for %zu parameters "
                       "(tune_params_keys), and the entry does not name its parameters", path,
                       shown_key, pieces, d->n_params);
    const char *piece = key;
    for (size_t k = 0; k < d->n_params; k++) {
        const char *comma = strchr(piece, ',');
        size_t len = comma ? (size_t)(comma - piece) : strlen(piece);
        char *text = malloc(len + 1);
        if (!text) return err_set(err, "%s: out of memory", path);
        memcpy(text, piece, len);
        text[len] = '\0';
        const param_def *p = &d->params[k];
        skytune_error value_err = {0};
        int rc = 0;
        /* Python writes booleans as True and False. */
        if (p->type == SKYTUNE_INT && (strcmp(text, "True") == 0 || strcmp(text, "False") == 0)) {
            memset(&values[k], 0, sizeof values[k]);
            values[k].type = SKYTUNE_INT;
            values[k].i = text[0] == 'T';
        } else if (value_parse(text, p->type, &values[k], &value_err) != 0) {
            char shown[QUOTE_TEXT];
            rc = err_set(err, "%s: cache entry \"%s\": value %zu of the key, '%s', is not a %s "
                         "like the values of parameter '%s'", path, shown_key, k + 1,
                         quote_text(text, shown, sizeof shown), type_name(p->type), p->name);
        }
        free(text);
        if (rc != 0) return -1;
        piece = comma ? comma + 1 : piece + len;
    }
    return 0;
}

/* Whether an entry's key, read as the values of tune_params_keys, differs
 * from the values its fields name (then err says where). A key that is not
 * one value per parameter names nothing to compare. */
static bool key_disagrees(const char *path, const replay_dataset *d, const char *key,
                          const char *key_shown, const skytune_value *named, skytune_error *err)
{
    size_t pieces = 1;
    for (const char *c = key; *c; c++) pieces += *c == ',';
    if (pieces != d->n_params) return false;
    skytune_value *from_key = calloc(d->n_params, sizeof *from_key);
    if (!from_key) {
        err_set(err, "%s: out of memory", path);
        return true;
    }
    skytune_error ignored = {0};
    bool differs = false;
    if (kernel_tuner_values_from_key(path, d, key, key_shown, from_key, &ignored) == 0) {
        for (size_t k = 0; k < d->n_params && !differs; k++) {
            if (value_equal(&from_key[k], &named[k])) continue;
            char said_raw[64], holds_raw[64], said[QUOTE_TEXT], holds[QUOTE_TEXT];
            value_format(&from_key[k], said_raw, sizeof said_raw);
            value_format(&named[k], holds_raw, sizeof holds_raw);
            quote_text(said_raw, said, sizeof said);
            quote_text(holds_raw, holds, sizeof holds);
            err_set(err, "%s: cache entry \"%s\": the key says %s=%s, the entry holds %s=%s; "
                    "a key names its entry's configuration", path, key_shown, d->params[k].name,
                    said, d->params[k].name, holds);
            differs = true;
        }
    }
    for (size_t k = 0; k < d->n_params; k++) value_clear(&from_key[k]);
    free(from_key);
    return differs;
}

static int kernel_tuner_entry(const char *path, replay_dataset *d, size_t *capacity,
                              const char *key, const json_t *fields, skytune_error *err)
{
    char key_shown[QUOTE_TEXT];
    quote_text(key, key_shown, sizeof key_shown);
    if (!json_is_object(fields))
        return err_set(err, "%s: cache entry \"%s\": expected an object", path, key_shown);
    replay_entry *e = replay_dataset_add_entry(d, capacity);
    if (!e) return err_set(err, "%s: out of memory", path);

    bool named = true;
    for (size_t k = 0; k < d->n_params && named; k++)
        named = json_object_get(fields, d->params[k].name) != NULL;
    if (named) {
        for (size_t k = 0; k < d->n_params; k++) {
            param_def *p = &d->params[k];
            const json_t *v = json_object_get(fields, p->name);
            int rc = dataset_json_value(v, p->type, &e->values[k]);
            if (rc == -2) return err_set(err, "%s: out of memory", path);
            if (rc != 0) {
                char shown[DATASET_JSON_QUOTED + 8];
                dataset_json_describe(v, shown, sizeof shown);
                return err_set(err, "%s: cache entry \"%s\": parameter '%s' is %s, not a %s like "
                               "its values in tune_params", path, key_shown, p->name, shown,
                               type_name(p->type));
            }
        }
    } else if (kernel_tuner_values_from_key(path, d, key, key_shown, e->values, err) != 0) {
        return -1;
    }
    for (size_t k = 0; k < d->n_params; k++) {
        if (find_value(&d->params[k], &e->values[k]) >= 0) continue;
        const char *fault = e->values[k].type == SKYTUNE_STRING
                                ? param_string_value_fault(e->values[k].s)
                                : NULL;
        if (fault) {
            char shown[QUOTE_TEXT];
            return err_set(err, "%s: cache entry \"%s\": parameter '%s' is \"%s\", which %s; %s",
                           path, key_shown, d->params[k].name,
                           quote_text(e->values[k].s, shown, sizeof shown), fault,
                           PARAM_STRING_VALUES);
        }
        if (param_append(&d->params[k], &e->values[k]) != 0)
            return err_set(err, "%s: cache entry \"%s\": cannot add a value to parameter '%s' "
                           "(out of memory, or more than %d values)", path, key_shown,
                           d->params[k].name, PARAM_MAX_VALUES);
    }

    const json_t *time = json_object_get(fields, "time");
    if (!time)
        return err_set(err, "%s: cache entry \"%s\": no \"time\" (the time in milliseconds, or "
                       "a failure such as \"CompilationFailedConfig\")", path, key_shown);
    if (json_is_number(time)) {
        double ms = json_number_value(time);
        if (!replay_is_kernel_time(ms * 1e6))
            return err_set(err, "%s: cache entry \"%s\": \"time\" is %g ms; a recorded time is a "
                           "positive, finite number of milliseconds (at least 1 ns)", path, key_shown, ms);
        e->status = MEAS_OK;
        e->time_ns = ms * 1e6;
    } else if (json_is_string(time)) {
        e->status = kernel_tuner_failure(json_string_value(time));
        e->time_ns = 0.0;
    } else {
        char shown[DATASET_JSON_QUOTED + 8];
        dataset_json_describe(time, shown, sizeof shown);
        return err_set(err, "%s: cache entry \"%s\": \"time\" is %s; expected milliseconds or "
                       "the name of a failure such as \"RuntimeFailedConfig\"", path, key_shown,
                       shown);
    }
    char where[32 + QUOTE_TEXT];
    snprintf(where, sizeof where, "cache entry \"%s\"", key_shown);
    if (dataset_json_phase_seconds(path, where, "compile_time",
                                   json_object_get(fields, "compile_time"), 1e6, &e->compile_s,
                                   err) != 0 ||
        dataset_json_phase_seconds(path, where, "benchmark_time",
                                   json_object_get(fields, "benchmark_time"), 1e6, &e->bench_s,
                                   err) != 0)
        return -1;
    /* The key names the configuration too: one that says another than the
     * entry's fields would stand for a configuration it does not hold. */
    if (named && key_disagrees(path, d, key, key_shown, e->values, err)) return -1;
    return 0;
}

bool kernel_tuner_cache_is(const json_t *root)
{
    return json_is_object(json_object_get(root, "cache"));
}

int kernel_tuner_cache_read(const char *path, const json_t *root, replay_dataset *d,
                            skytune_error *err)
{
    const json_t *tune_params = json_object_get(root, "tune_params");
    if (!json_is_object(tune_params))
        return err_set(err, "%s: a Kernel Tuner cache needs a \"tune_params\" object (each "
                       "parameter's list of values)", path);
    const json_t *keys = json_object_get(root, "tune_params_keys");
    if (keys && !json_is_array(keys))
        return err_set(err, "%s: \"tune_params_keys\" must be an array of parameter names", path);
    /* The cache keys list values in tune_params_keys order; without it,
     * tune_params' own order is the only one there is. */
    size_t n = keys ? json_array_size(keys) : json_object_size(tune_params);
    if (n == 0) return err_set(err, "%s: the cache declares no tuning parameters", path);
    d->params = calloc(n, sizeof *d->params);
    if (!d->params) return err_set(err, "%s: out of memory", path);
    d->n_params = n;
    const char *key;
    const json_t *list;
    size_t k = 0;
    if (keys) {
        for (k = 0; k < n; k++) {
            const char *name = json_string_value(json_array_get(keys, k));
            if (!name)
                return err_set(err, "%s: tune_params_keys item %zu is not a parameter name",
                               path, k + 1);
            list = json_object_get(tune_params, name);
            char shown[QUOTE_TEXT];
            if (!list)
                return err_set(err, "%s: tune_params_keys names '%s', which tune_params does "
                               "not list", path, quote_text(name, shown, sizeof shown));
            if (param_from_json_list(path, "tune_params", name, list, &d->params[k], err) != 0)
                return -1;
            if (replay_dataset_param_index(d, name) != (int)k)
                return err_set(err, "%s: tune_params_keys names '%s' twice", path,
                               quote_text(name, shown, sizeof shown));
        }
    } else {
        json_object_foreach((json_t *)tune_params, key, list) {
            if (param_from_json_list(path, "tune_params", key, list, &d->params[k], err) != 0)
                return -1;
            k++;
        }
    }

    const json_t *cache = json_object_get(root, "cache");
    size_t capacity = 0;
    const json_t *fields;
    json_object_foreach((json_t *)cache, key, fields) {
        if (kernel_tuner_entry(path, d, &capacity, key, fields, err) != 0) return -1;
    }
    return 0;
}
