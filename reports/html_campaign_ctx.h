/* What the writers of one campaign's section of the HTML report share: the
 * campaign, where its rows are in each of the report's tables, and small
 * helpers (html_campaign_ctx.c). Internal to html_campaign.c and the
 * section parts it calls (html_convergence.c, html_roofline.c). */
#ifndef SKYTUNE_HTML_CAMPAIGN_CTX_H
#define SKYTUNE_HTML_CAMPAIGN_CTX_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"
#include "report.h"

typedef struct campaign_ctx {
    FILE *f;
    const report_data *d;
    size_t row;                 /* in the campaigns table */
    long long id;
    char anchor[48];            /* id prefix of the section's headings */
    /* The campaign's rows [first[q], end[q]) of each table q. */
    size_t first[REPORT_N_QUERIES], end[REPORT_N_QUERIES];
} campaign_ctx;

const query_table *campaign_table(const campaign_ctx *c, report_query q);
/* A cell of the campaign's row of the campaigns table. */
const char *campaign_summary(const campaign_ctx *c, const char *column);
/* A cell's number, or fallback for NULL and text. */
double campaign_number(const query_table *t, size_t r, const char *column, double fallback);
/* <h3> with the id ANCHOR-slug. */
void campaign_heading(const campaign_ctx *c, const char *slug, const char *text);
/* Doubles for chart series, freed by the caller; NULL when out of memory. */
double *campaign_numbers(size_t n);

#endif
