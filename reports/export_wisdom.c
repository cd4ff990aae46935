/* The best configuration per (plugin, device, problem) as JSON wisdom. */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_json.h"
#include "query.h"
#include "query_json.h"

static int no_entries(const char *plugin, skytune_error *err)
{
    if (plugin)
        return err_set(err, "plugin '%s' has no configuration that passed verification; nothing "
                       "to export", plugin);
    return err_set(err, "no configuration passed verification in this database; nothing to export");
}

static json_t *cell_or_null(const query_table *t, size_t r, const char *column)
{
    size_t c = query_column(t, column);
    return c < t->n_cols ? query_cell_json(t, r, c) : json_null();
}

int export_wisdom_json(void *db, const char *plugin, FILE *f, size_t *entries, skytune_error *err)
{
    const char *params[QUERY_N_PARAMS] = {NULL, plugin, NULL};
    query_table t;
    if (query_run_named(db, "wisdom", params, QUERY_N_PARAMS, &t, err) != 0) return -1;
    if (t.n_rows == 0) {
        query_table_free(&t);
        return no_entries(plugin, err);
    }
    json_t *list = json_array();
    int rc = list ? 0 : -1;
    for (size_t r = 0; r < t.n_rows && rc == 0; r++) {
        json_t *entry = json_object();
        json_t *problem = export_object_in_text_order(query_cell(&t, r, "problem_values"),
                                                      query_cell(&t, r, "problem"));
        json_t *configuration = export_object_in_text_order(
            query_cell(&t, r, "configuration_values"), query_cell(&t, r, "configuration"));
        if (!entry || !problem || !configuration || json_array_append_new(list, entry) != 0) {
            json_decref(entry);
            json_decref(problem);
            json_decref(configuration);
            rc = -1;
            break;
        }
        if (json_object_set_new(entry, "plugin", cell_or_null(&t, r, "plugin")) != 0 ||
            json_object_set_new(entry, "plugin_version", cell_or_null(&t, r, "plugin_version")) != 0 ||
            json_object_set_new(entry, "device", cell_or_null(&t, r, "device")) != 0 ||
            json_object_set_new(entry, "platform", cell_or_null(&t, r, "platform")) != 0 ||
            json_object_set_new(entry, "problem", problem) != 0 ||
            json_object_set_new(entry, "configuration", configuration) != 0 ||
            json_object_set_new(entry, "median_ns", cell_or_null(&t, r, "median_ns")) != 0 ||
            json_object_set_new(entry, "ci_low_ns", cell_or_null(&t, r, "ci_low_ns")) != 0 ||
            json_object_set_new(entry, "ci_high_ns", cell_or_null(&t, r, "ci_high_ns")) != 0 ||
            json_object_set_new(entry, "ci_coverage", cell_or_null(&t, r, "ci_coverage")) != 0 ||
            json_object_set_new(entry, "gflops", cell_or_null(&t, r, "gflops")) != 0)
            rc = -1;
    }
    if (rc != 0) {
        json_decref(list);
        query_table_free(&t);
        return err_set(err, "out of memory building the wisdom JSON");
    }
    if (entries) *entries = t.n_rows;
    query_table_free(&t);
    rc = export_json_dump(list, f);
    json_decref(list);
    if (rc != 0) return err_set(err, "writing the wisdom JSON failed");
    return 0;
}
