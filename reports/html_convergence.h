#ifndef SKYTUNE_HTML_CONVERGENCE_H
#define SKYTUNE_HTML_CONVERGENCE_H

#include "error.h"
#include "html_campaign_ctx.h"

/* Convergence: every evaluation as a point, the best so far as a line
 * (html_convergence.c). */
int campaign_write_convergence(campaign_ctx *c, skytune_error *err);

#endif
