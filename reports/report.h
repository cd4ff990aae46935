/* The data of a report: the results of the named queries a report is made
 * of, each run once over the whole scope (never once per row), so a report
 * over 10^5 configurations costs a fixed number of queries. The HTML and
 * CSV writers (html_report.h, report_csv.h) only format these tables. */
#ifndef SKYTUNE_REPORT_H
#define SKYTUNE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "query.h"

typedef enum report_query {
    REPORT_CAMPAIGNS = 0,
    REPORT_FAILURES,
    REPORT_TIME_SPLIT,
    REPORT_TOP,
    REPORT_BEST_SO_FAR,
    REPORT_EVALUATIONS,
    REPORT_DISTRIBUTION,
    REPORT_SNR,
    REPORT_BY_PARAM,
    REPORT_INDEPENDENCE,
    REPORT_PARTS,
    REPORT_ROOFLINE,
    REPORT_INSTANCES,
    REPORT_SCALING,
    REPORT_FIXED_VS_TUNED,
    REPORT_IMPORTANCE,
    REPORT_INTERACTIONS,
    REPORT_REJECTIONS,
    REPORT_STOP_ADVICE,
    REPORT_PORTABILITY,
    REPORT_CONFIRMATIONS,
    REPORT_TOP_SAMPLES,     /* the best's and runner-ups' runs, for the verdict */
    REPORT_N_QUERIES
} report_query;

typedef struct report_options {
    const char *campaign;  /* a campaign id, or NULL for every campaign in scope */
    const char *plugin;    /* a plugin name, or NULL for every plugin */
    unsigned top;          /* configurations in each campaign's top table; 0 means 20 */
    const char *source;    /* how the report names its database (its path) */
} report_options;

typedef struct report_data {
    report_options options;
    /* The query names (query.h) and results, by report_query. The
     * cross-campaign tables are empty when the report is for one campaign. */
    const query_def *queries[REPORT_N_QUERIES];
    query_table tables[REPORT_N_QUERIES];
    bool across;            /* the cross-campaign sections were computed */
} report_data;

/* Run the report's queries on an open database (a sqlite3 *). Fails naming
 * the campaign or plugin when the scope holds no campaign, and when SQLite
 * lacks the math functions (sqrt, ln) the queries use. */
int report_load(void *db, const report_options *options, report_data *out, skytune_error *err);
void report_free(report_data *d);

/* Rows [*first, *end) of a table ordered by its `campaign` column that
 * belong to campaign_id, searching from *first on (callers walk campaigns
 * in ascending order, so every table is read once). */
void report_campaign_rows(const query_table *t, long long campaign_id, size_t *first, size_t *end);

#endif
