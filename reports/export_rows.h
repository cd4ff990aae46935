/* What the per-campaign exports (T4, Kernel Tuner) start from. Internal to
 * reports/. */
#ifndef SKYTUNE_EXPORT_ROWS_H
#define SKYTUNE_EXPORT_ROWS_H

#include "error.h"
#include "query.h"

/* The campaign's row of the `campaigns` query into *campaigns and its
 * evaluations (the `t4` query: each with its typed configuration, status
 * and times in milliseconds) into *rows; the caller frees both. Fails,
 * with nothing to free, when there is no such campaign. */
int export_campaign_rows(void *db, const char *campaign, query_table *campaigns,
                         query_table *rows, skytune_error *err);

#endif
