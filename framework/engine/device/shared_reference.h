/* The CPU reference computed once per campaign: the first measuring worker
 * computes it and saves the arrays the plugin's reference_data names into a
 * file in the campaign's private folder; every later worker (a spare, a
 * worker started again after a fault) copies them in instead of computing
 * them again. The file is checked against the plugin's arrays (their number
 * and sizes) and is written under another name and renamed, so that a
 * worker reads a whole file or none. */
#ifndef SKYTUNE_SHARED_REFERENCE_H
#define SKYTUNE_SHARED_REFERENCE_H

#include <stddef.h>

#include "error.h"
#include "skytune/plugin.h"

/* Fill `regions` from the file. 0: done; -1 (err): no usable file, the
 * caller computes the reference. */
int shared_reference_load(const char *path, const skytune_region *regions, size_t count,
                          skytune_error *err);

/* Save `regions` to the file. -1 (err) when it could not be written: the
 * other workers then compute their own. */
int shared_reference_save(const char *path, const skytune_region *regions, size_t count,
                          skytune_error *err);

#endif
