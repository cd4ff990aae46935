/* The sections of the HTML report: one per campaign (html_campaign.c) and
 * one per plugin compared across its campaigns (html_across.c). Internal to
 * html_report.c. */
#ifndef SKYTUNE_HTML_SECTIONS_H
#define SKYTUNE_HTML_SECTIONS_H

#include <stdio.h>

#include "error.h"
#include "report.h"

/* The section of the campaign in row `row` of the campaigns table.
 * cursors[q] is where the campaign's rows may start in table q; it is moved
 * past them, so campaigns must come in ascending order. */
int html_campaign_write(FILE *f, const report_data *d, size_t row, size_t *cursors,
                        skytune_error *err);

/* The cross-campaign sections, one per plugin worth comparing: --plugin
 * named it, or it has more than one campaign or problem instance. Writes
 * nothing when d->across is false. Also lists the sections it writes, as
 * (anchor, title) for the table of contents, when f is NULL. */
typedef void (*html_toc_entry)(void *ctx, const char *anchor, const char *title);
int html_across_write(FILE *f, const report_data *d, html_toc_entry toc, void *toc_ctx,
                      skytune_error *err);

#endif
