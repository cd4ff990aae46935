/* A report's data as CSV: one file per query the report ran, named after
 * the query (DIR/top.csv, DIR/by-param.csv, ...), holding every row the
 * tables and charts of the report were drawn from. */
#ifndef SKYTUNE_REPORT_CSV_H
#define SKYTUNE_REPORT_CSV_H

#include "error.h"
#include "report.h"

/* Creates dir when it does not exist (its parent must); each file is
 * written through a temporary file and renamed into place. */
int report_csv_save(const report_data *d, const char *dir, skytune_error *err);

#endif
