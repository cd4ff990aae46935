/* The space a campaign searched, kept with the campaign so that reports,
 * which read the database alone, can say what each constraint removed
 * (db/schema.sql: campaign_spaces, space_rejections). */
#ifndef SKYTUNE_STORE_SPACES_H
#define SKYTUNE_STORE_SPACES_H

#include <stdint.h>

#include "space.h"
#include "store.h"

/* Records the Cartesian size, the valid count and the rejections of `sp`
 * (space_rejections) as the campaign's, replacing what an earlier run of
 * it recorded, in one transaction. */
int store_record_space(store *st, int64_t campaign_id, const space *sp, skytune_error *err);

#endif
