#include "export_rows.h"

int export_campaign_rows(void *db, const char *campaign, query_table *campaigns,
                         query_table *rows, skytune_error *err)
{
    const char *params[QUERY_N_PARAMS] = {campaign, NULL, NULL};
    if (query_run_named(db, "campaigns", params, QUERY_N_PARAMS, campaigns, err) != 0) return -1;
    if (campaigns->n_rows == 0) {
        query_table_free(campaigns);
        return err_set(err, "there is no campaign %s (see skytune best)", campaign);
    }
    if (query_run_named(db, "t4", params, QUERY_N_PARAMS, rows, err) != 0) {
        query_table_free(campaigns);
        return -1;
    }
    return 0;
}
