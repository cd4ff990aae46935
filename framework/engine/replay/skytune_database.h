/* A campaign of a skytune result database as a recorded dataset: every
 * configuration the campaign evaluated, with its status and times as the
 * store recorded them (nanoseconds for kernel times, seconds for phases). */
#ifndef SKYTUNE_SKYTUNE_DATABASE_H
#define SKYTUNE_SKYTUNE_DATABASE_H

#include "error.h"
#include "replay_dataset.h"

/* The campaign of the database `file` that `selector` names (the text
 * after "FILE.db:", a campaign id; NULL: the database's only campaign) into
 * `d` (empty so far), named after the campaign's device. The file and its
 * folder stay as they were. `name` is the dataset's path as messages quote
 * it. */
int skytune_database_read(const char *name, const char *file, const char *selector,
                          replay_dataset *d, skytune_error *err);

#endif
