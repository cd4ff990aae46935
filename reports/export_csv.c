/* The CSV export: reports/sql/measurements.sql with the configuration text
 * spread into one column per tuning parameter, and, where the rows hold
 * more than one problem, one column per problem parameter after the
 * problem's text (kept: a replayed dataset's problem has only its name). */
#include "csv.h"
#include "export.h"
#include "param_columns.h"
#include "query.h"

int export_csv(void *db, const char *campaign, const char *plugin, FILE *f, size_t *rows,
               skytune_error *err)
{
    query_table t, wide;
    const char *params[QUERY_N_PARAMS] = {campaign, plugin, NULL};
    if (query_run_named(db, "measurements", params, QUERY_N_PARAMS, &t, err) != 0) return -1;
    param_spread spread[2] = {{.column = "problem", .keep = true}, {.column = "configuration"}};
    bool problems = param_columns_vary(&t, 0, t.n_rows, "problem");
    int rc = param_columns_spread(&t, 0, t.n_rows, problems ? spread : spread + 1,
                                  problems ? 2 : 1, &wide, err);
    query_table_free(&t);
    if (rc != 0) return -1;
    *rows = wide.n_rows;
    rc = csv_write_table(f, &wide);
    query_table_free(&wide);
    return rc == 0 ? 0 : err_set(err, "writing CSV failed");
}
