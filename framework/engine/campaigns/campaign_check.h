/* Checking a campaign file against its plugin and devices before anything
 * runs, so that a bad file is refused whole and no database is touched.
 * Every message names the file, the line and the key. */
#ifndef SKYTUNE_CAMPAIGN_CHECK_H
#define SKYTUNE_CAMPAIGN_CHECK_H

#include "campaign_file.h"
#include "campaign_plan.h"
#include "plugin_loader.h"
#include "tuning_run.h"

/* What needs the plugin but no device: the plugin exists, every problem
 * parameter and `only` name is the plugin's, the preset exists, and every
 * swept value is valid on its own (reported at its own line). */
int campaign_check_file(const campaign_file *f, const plugin_search *search, skytune_error *err);

/* What needs the devices: every unit of the shard (shard 0 of 1: all)
 * resolves to a problem, a device and a non-empty space, and its strategy
 * and options are valid — everything a run checks before opening the
 * database (tuning_request.check_only). */
int campaign_check_units(const campaign_file *f, const campaign_plan *p, unsigned shard,
                         const tuning_request *base, skytune_error *err);

#endif
