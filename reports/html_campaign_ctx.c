/* The helpers every writer of a campaign's section shares. */
#include "html_campaign_ctx.h"

#include <stdio.h>
#include <stdlib.h>

#include "html_parts.h"

const query_table *campaign_table(const campaign_ctx *c, report_query q)
{
    return &c->d->tables[q];
}

const char *campaign_summary(const campaign_ctx *c, const char *column)
{
    return query_cell(campaign_table(c, REPORT_CAMPAIGNS), c->row, column);
}

double campaign_number(const query_table *t, size_t r, const char *column, double fallback)
{
    double v;
    return query_number(t, r, column, &v) ? v : fallback;
}

void campaign_heading(const campaign_ctx *c, const char *slug, const char *text)
{
    char id[96];
    snprintf(id, sizeof id, "%s-%s", c->anchor, slug);
    html_heading(c->f, 3, id, text);
}

double *campaign_numbers(size_t n)
{
    return calloc(n ? n : 1, sizeof(double));
}
