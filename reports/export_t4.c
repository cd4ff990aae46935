/* A campaign's evaluations in the T4 results format (schema 1.0.0 of
 * github.com/odgaard/TuningSchema, as Kernel Tuner writes it), so that
 * other auto-tuning tools can read skytune campaigns. Times are in
 * milliseconds, as metadata.timeunit says. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_json.h"
#include "export_rows.h"
#include "query.h"
#include "query_json.h"

#define T4_SCHEMA_VERSION "1.0.0"

static int set_number(json_t *object, const char *key, const query_table *t, size_t r,
                      const char *column)
{
    double v;
    if (!query_number(t, r, column, &v)) return 0;
    return json_object_set_new(object, key, json_real(v));
}

static json_t *metadata(const query_table *c)
{
    json_t *m = json_object();
    if (!m) return NULL;
    static const char *const keys[][2] = {
        {"plugin", "plugin"},   {"plugin_version", "plugin_version"}, {"device", "device"},
        {"platform", "platform"}, {"problem", "problem"},            {"strategy", "strategy"},
        {"seed", "seed"},       {"started_at", "started_at"},          {"ended_at", "ended_at"},
    };
    int bad = json_object_set_new(m, "generator", json_string("skytune")) != 0 ||
              json_object_set_new(m, "timeunit", json_string("milliseconds")) != 0 ||
              json_object_set_new(m, "campaign", query_cell_json(c, 0, query_column(c, "campaign"))) != 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !bad; k++) {
        size_t col = query_column(c, keys[k][1]);
        if (col < c->n_cols) bad = json_object_set_new(m, keys[k][0], query_cell_json(c, 0, col)) != 0;
    }
    if (bad) {
        json_decref(m);
        return NULL;
    }
    return m;
}

/* Hand over *p (jansson's *_new calls take the reference even when they
 * fail), so that the cleanup below never releases it twice. */
static json_t *take(json_t **p)
{
    json_t *v = *p;
    *p = NULL;
    return v;
}

static json_t *result(const query_table *t, size_t r)
{
    json_t *out = json_object(), *times = json_object(), *measurements = json_array();
    json_t *configuration = export_object_in_text_order(query_cell(t, r, "configuration"),
                                                       query_cell(t, r, "configuration_text"));
    json_error_t error;
    const char *runtimes_text = query_cell(t, r, "runtimes_ms");
    json_t *runtimes = json_loads(runtimes_text ? runtimes_text : "[]", 0, &error);
    const char *status = query_cell(t, r, "status");
    const char *timestamp = query_cell(t, r, "timestamp");
    const char *invalidity = query_cell(t, r, "invalidity");
    bool ok = status && strcmp(status, "ok") == 0;
    double correctness = 0;
    query_number(t, r, "correctness", &correctness);
    if (!out || !times || !measurements || !configuration || !json_is_array(runtimes)) goto fail;
    if (set_number(times, "compilation_time", t, r, "compilation_ms") != 0 ||
        json_object_set_new(times, "runtimes", take(&runtimes)) != 0 ||
        set_number(times, "framework", t, r, "framework_ms") != 0 ||
        set_number(times, "validation", t, r, "validation_ms") != 0 ||
        set_number(times, "benchmark", t, r, "benchmark_ms") != 0)
        goto fail;
    /* The time's 95 % interval (median_interval.h) as two measurements of
     * their own: T4 has no field for an interval. */
    static const char *const figures[][3] = {
        {"time", "time_ms", "ms"}, {"time_ci_low", "time_ci_low_ms", "ms"},
        {"time_ci_high", "time_ci_high_ms", "ms"}, {"GFLOP/s", "gflops", "GFLOP/s"},
        {"GB/s", "gbs", "GB/s"}};
    for (size_t k = 0; ok && k < sizeof figures / sizeof figures[0]; k++) {
        double v;
        if (!query_number(t, r, figures[k][1], &v)) continue;
        json_t *m = json_pack("{s:s, s:f, s:s}", "name", figures[k][0], "value", v, "unit",
                              figures[k][2]);
        if (!m || json_array_append_new(measurements, m) != 0) goto fail;
    }
    if (json_object_set_new(out, "timestamp", json_string(timestamp ? timestamp : "")) != 0 ||
        json_object_set_new(out, "configuration", take(&configuration)) != 0 ||
        json_object_set_new(out, "times", take(&times)) != 0 ||
        json_object_set_new(out, "invalidity", json_string(invalidity ? invalidity : "runtime")) != 0 ||
        json_object_set_new(out, "correctness", json_integer((json_int_t)correctness)) != 0 ||
        json_object_set_new(out, "measurements", take(&measurements)) != 0 ||
        json_object_set_new(out, "objectives", json_pack("[s]", "time")) != 0)
        goto fail;
    return out;
fail:
    json_decref(out);
    json_decref(times);
    json_decref(measurements);
    json_decref(configuration);
    json_decref(runtimes);
    return NULL;
}

int export_t4(void *db, const char *campaign, FILE *f, size_t *results, skytune_error *err)
{
    query_table c, t;
    if (export_campaign_rows(db, campaign, &c, &t, err) != 0) return -1;
    json_t *root = json_object(), *list = json_array(), *meta = metadata(&c);
    int rc = 0;
    if (!root || !list || !meta ||
        json_object_set_new(root, "schema_version", json_string(T4_SCHEMA_VERSION)) != 0 ||
        json_object_set_new(root, "metadata", take(&meta)) != 0)
        rc = -1;
    json_decref(meta);
    for (size_t r = 0; r < t.n_rows && rc == 0; r++) {
        json_t *entry = result(&t, r);
        if (!entry || json_array_append_new(list, entry) != 0) rc = -1;
    }
    if (rc == 0 && json_object_set(root, "results", list) != 0) rc = -1;
    if (rc == 0 && export_json_dump(root, f) != 0) {
        json_decref(root);
        json_decref(list);
        query_table_free(&c);
        query_table_free(&t);
        return err_set(err, "writing the T4 results failed");
    }
    if (results) *results = t.n_rows;
    json_decref(root);
    json_decref(list);
    query_table_free(&c);
    query_table_free(&t);
    if (rc != 0) return err_set(err, "out of memory building the T4 results");
    return 0;
}
