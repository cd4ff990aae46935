/* A campaign's evaluations as a Kernel Tuner cache file, the format
 * Kernel Tuner writes with tune_kernel(cache=...) and reads back in its
 * simulation mode (kernel_tuner/util.py, process_cache and store_cache):
 *
 *   { "device_name", "kernel_name", "problem_size", "tune_params_keys",
 *     "tune_params", "objective": "time",
 *     "cache": { "v1,v2,...": { <parameter>: value, ..., "time": ms,
 *                               "times": [ms, ...], "compile_time": ms,
 *                               "verification_time": ms,
 *                               "benchmark_time": ms, "framework_time": ms,
 *                               "timestamp": ... } } }
 *
 * A cache key is the configuration's values joined by commas as Python's
 * str() writes them, in tune_params_keys order: Kernel Tuner looks entries
 * up by that text. A configuration that gave no time is recorded the way
 * Kernel Tuner records its own failures: the name of the failure as its
 * "time" (what Kernel Tuner before 1.0 and skytune's reader look at) and
 * as "__error__" (what Kernel Tuner 1.x looks at). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_json.h"
#include "export_rows.h"
#include "query.h"
#include "query_json.h"

/* Kernel Tuner's names of its failures (util.py: ErrorConfig). It has no
 * name for a wrong result, a crash or a hang (it stops tuning on a wrong
 * result, and dies with a crash): each is a configuration that ran and
 * cannot be used, which is RuntimeFailedConfig. */
static const char *failure_name(const char *status)
{
    if (status && strcmp(status, "compile") == 0) return "CompilationFailedConfig";
    return "RuntimeFailedConfig";
}

/* A real as Python's str() writes a float: the shortest digits that read
 * back to the same double, in positional notation from 1e-4 up to 1e16
 * (with ".0" when whole), else as "1.5e+16". */
static void python_float_text(double v, char *buf, size_t len)
{
    int digits = 1;
    for (; digits < 17; digits++) {
        snprintf(buf, len, "%.*e", digits - 1, v);
        if (strtod(buf, NULL) == v) break;
    }
    int exponent = v == 0 ? 0 : (int)floor(log10(fabs(v)));
    snprintf(buf, len, "%.*e", digits - 1, v);
    /* %e rounds, so the exponent it printed is the one that holds. */
    const char *e = strchr(buf, 'e');
    if (e) exponent = atoi(e + 1);
    if (exponent >= -4 && exponent < 16) {
        int decimals = digits - 1 - exponent;
        snprintf(buf, len, "%.*f", decimals > 0 ? decimals : 0, v);
        if (!strchr(buf, '.')) snprintf(buf + strlen(buf), len - strlen(buf), ".0");
    }
}

/* A value as Python's str() writes the same JSON value once read. */
static void python_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        python_float_text(json_real_value(v), buf, len);
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_true(v))
        snprintf(buf, len, "True");
    else if (json_is_false(v))
        snprintf(buf, len, "False");
    else
        snprintf(buf, len, "None");
}

/* "v1,v2,...": the configuration's cache key; NULL when out of memory. */
static char *cache_key(const json_t *configuration)
{
    size_t cap = 64, used = 0;
    char *key = malloc(cap);
    if (!key) return NULL;
    key[0] = '\0';
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)configuration, name, value) {
        char text[128];
        python_text(value, text, sizeof text);
        size_t need = used + strlen(text) + 2;
        if (need > cap) {
            while (cap < need) cap *= 2;
            char *grown = realloc(key, cap);
            if (!grown) {
                free(key);
                return NULL;
            }
            key = grown;
        }
        used += (size_t)snprintf(key + used, cap - used, "%s%s", used ? "," : "", text);
    }
    return key;
}

static int set_ms(json_t *entry, const char *key, const query_table *t, size_t r,
                  const char *column)
{
    double v;
    if (!query_number(t, r, column, &v)) return 0;
    return json_object_set_new(entry, key, json_real(v));
}

/* The cache entry of row r: the configuration's values, then its times or
 * its failure. NULL when out of memory. */
static json_t *cache_entry(const query_table *t, size_t r, const json_t *configuration)
{
    json_t *entry = json_deep_copy(configuration);
    if (!entry) return NULL;
    const char *status = query_cell(t, r, "status");
    const char *timestamp = query_cell(t, r, "timestamp");
    double time_ms;
    int bad = 0;
    if (status && strcmp(status, "ok") == 0 && query_number(t, r, "time_ms", &time_ms)) {
        json_error_t error;
        const char *runtimes = query_cell(t, r, "runtimes_ms");
        json_t *times = json_loads(runtimes ? runtimes : "[]", 0, &error);
        bad = json_object_set_new(entry, "time", json_real(time_ms)) != 0 ||
              json_object_set_new(entry, "times", times ? times : json_array()) != 0;
    } else {
        const char *failure = failure_name(status);
        bad = json_object_set_new(entry, "time", json_string(failure)) != 0 ||
              json_object_set_new(entry, "__error__", json_string(failure)) != 0;
    }
    bad = bad || set_ms(entry, "compile_time", t, r, "compilation_ms") != 0 ||
          set_ms(entry, "verification_time", t, r, "validation_ms") != 0 ||
          set_ms(entry, "benchmark_time", t, r, "benchmark_ms") != 0 ||
          set_ms(entry, "framework_time", t, r, "framework_ms") != 0 ||
          json_object_set_new(entry, "timestamp", json_string(timestamp ? timestamp : "")) != 0;
    if (bad) {
        json_decref(entry);
        return NULL;
    }
    return entry;
}

/* Numbers before texts, numbers by value: tune_params lists each
 * parameter's values in order. */
static int compare_values(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    bool xn = json_is_number(x), yn = json_is_number(y);
    if (xn != yn) return xn ? -1 : 1;
    if (!xn) return 0;
    double u = json_number_value(x), v = json_number_value(y);
    return (u > v) - (u < v);
}

/* Each value of a parameter once, in order. */
static int sort_values(json_t *values)
{
    size_t n = json_array_size(values);
    if (n < 2) return 0;
    json_t **items = malloc(n * sizeof *items);
    if (!items) return -1;
    for (size_t k = 0; k < n; k++) items[k] = json_incref(json_array_get(values, k));
    /* A stable order for texts: qsort is not stable, so texts keep the
     * order they were first seen in by comparing equal only to numbers. */
    size_t numbers = 0;
    for (size_t k = 0; k < n; k++)
        if (json_is_number(items[k])) {
            json_t *keep = items[k];
            memmove(items + numbers + 1, items + numbers, (k - numbers) * sizeof *items);
            items[numbers++] = keep;
        }
    qsort(items, numbers, sizeof *items, compare_values);
    json_array_clear(values);
    int rc = 0;
    for (size_t k = 0; k < n; k++)
        if (json_array_append_new(values, items[k]) != 0) rc = -1;
    free(items);
    return rc;
}

/* Adds the configuration's values to tune_params (name -> the values the
 * campaign evaluated) and, the first time, its names to keys. */
static int add_tune_params(json_t *tune_params, json_t *keys, const json_t *configuration)
{
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)configuration, name, value) {
        json_t *values = json_object_get(tune_params, name);
        if (!values) {
            values = json_array();
            if (!values || json_object_set_new(tune_params, name, values) != 0 ||
                json_array_append_new(keys, json_string(name)) != 0)
                return -1;
        }
        bool seen = false;
        for (size_t k = 0; k < json_array_size(values) && !seen; k++)
            seen = json_equal(json_array_get(values, k), (json_t *)value);
        if (!seen && json_array_append(values, (json_t *)value) != 0) return -1;
    }
    return 0;
}

static json_t *cell_or_null(const query_table *t, const char *column)
{
    size_t c = query_column(t, column);
    return c < t->n_cols && t->n_rows ? query_cell_json(t, 0, c) : json_null();
}

/* The document's header and its cache, built from the campaign's row c
 * and its evaluations t. NULL when out of memory. */
static json_t *build_cache(const query_table *c, const query_table *t)
{
    json_t *root = json_object(), *keys = json_array(), *tune_params = json_object();
    json_t *cache = json_object();
    int bad = !root || !keys || !tune_params || !cache;
    for (size_t r = 0; r < t->n_rows && !bad; r++) {
        json_t *configuration = export_object_in_text_order(query_cell(t, r, "configuration"),
                                                           query_cell(t, r, "configuration_text"));
        char *key = configuration ? cache_key(configuration) : NULL;
        json_t *entry = key ? cache_entry(t, r, configuration) : NULL;
        bad = !entry || add_tune_params(tune_params, keys, configuration) != 0 ||
              json_object_set_new(cache, key, entry) != 0;
        free(key);
        json_decref(configuration);
    }
    const char *name;
    json_t *values;
    json_object_foreach(tune_params, name, values)
        if (!bad && sort_values(values) != 0) bad = 1;
    if (!bad)
        bad = json_object_set_new(root, "device_name", cell_or_null(c, "device")) != 0 ||
              json_object_set_new(root, "kernel_name", cell_or_null(c, "plugin")) != 0 ||
              json_object_set_new(root, "problem_size", cell_or_null(c, "problem")) != 0 ||
              json_object_set(root, "tune_params_keys", keys) != 0 ||
              json_object_set(root, "tune_params", tune_params) != 0 ||
              json_object_set_new(root, "objective", json_string("time")) != 0 ||
              json_object_set(root, "cache", cache) != 0;
    json_decref(keys);
    json_decref(tune_params);
    json_decref(cache);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int export_kernel_tuner(void *db, const char *campaign, FILE *f, size_t *entries,
                        skytune_error *err)
{
    /* The T4 export's rows: every evaluation with its typed configuration,
     * status and times in milliseconds. */
    query_table c, t;
    if (export_campaign_rows(db, campaign, &c, &t, err) != 0) return -1;
    json_t *root = build_cache(&c, &t);
    size_t n = t.n_rows;
    query_table_free(&c);
    query_table_free(&t);
    if (!root) return err_set(err, "out of memory building the Kernel Tuner cache");
    int rc = export_json_dump(root, f);
    json_decref(root);
    if (rc != 0) return err_set(err, "writing the Kernel Tuner cache failed");
    if (entries) *entries = n;
    return 0;
}
