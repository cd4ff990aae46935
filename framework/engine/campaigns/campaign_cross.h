/* The cross-measurement step (Sclocco et al.'s fixed-vs-tuned analysis). */
#ifndef SKYTUNE_CAMPAIGN_CROSS_H
#define SKYTUNE_CAMPAIGN_CROSS_H

#include "campaign_unit.h"

/* The cross-measurement step alone: each instance's best configurations
 * (the file's cross.top of them) measured in every other instance, on the
 * same device, from the campaigns base->db_path holds. */
int campaign_cross_run(const campaign_file *f, const campaign_plan *p, const tuning_request *base,
                       const sweep_events *events, sweep_result *out, skytune_error *err);

#endif
