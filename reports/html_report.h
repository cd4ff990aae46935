/* The HTML report: one self-contained file (inline CSS, charts as inline
 * SVG, no script, nothing fetched from elsewhere) made from a report's
 * query results (report.h). Every string from the database or a plugin is
 * escaped. */
#ifndef SKYTUNE_HTML_REPORT_H
#define SKYTUNE_HTML_REPORT_H

#include <stdio.h>

#include "error.h"
#include "report.h"

/* Write the whole document to f. Fails on a write error or when out of
 * memory. */
int html_report_write(FILE *f, const report_data *d, skytune_error *err);

/* Write it to path through a temporary file beside it, renamed into place
 * only when complete. */
int html_report_save(const report_data *d, const char *path, skytune_error *err);

#endif
