#ifndef SKYTUNE_HTML_ROOFLINE_H
#define SKYTUNE_HTML_ROOFLINE_H

#include "error.h"
#include "html_campaign_ctx.h"

/* Roofline: the configurations against the device's roofs, or against the
 * best measured when its peaks are unknown (html_roofline.c). */
int campaign_write_roofline(campaign_ctx *c, skytune_error *err);

#endif
