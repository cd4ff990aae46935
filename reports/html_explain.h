/* The parts of a campaign's section that explain its space: what the
 * constraints removed from it, which parameters and pairs of parameters
 * explain its times, and what more evaluations would be expected to gain
 * (html_explain.c). */
#ifndef SKYTUNE_HTML_EXPLAIN_H
#define SKYTUNE_HTML_EXPLAIN_H

#include "error.h"
#include "html_campaign_ctx.h"

/* The constraints by how much of the Cartesian product each removed. */
void campaign_write_rejections(campaign_ctx *c);
/* Each parameter's share of the variance of log-time, and the strongest
 * pairs. */
int campaign_write_importance(campaign_ctx *c, skytune_error *err);
/* The expected gain of a campaign twice as long, and whether that ended it. */
void campaign_write_stop_advice(campaign_ctx *c);

#endif
