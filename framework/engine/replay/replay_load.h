/* Loading a recorded dataset by its content, whatever its format. */
#ifndef SKYTUNE_REPLAY_LOAD_H
#define SKYTUNE_REPLAY_LOAD_H

#include <stdint.h>

#include "error.h"
#include "replay_dataset.h"

/* Load by content: gzip is detected by its magic bytes, the JSON shape says
 * Kernel Tuner or T4, SQLite's header says skytune database ("FILE.db", or
 * "FILE.db:CAMPAIGN_ID" for one of several campaigns). Malformed input
 * (truncated gzip, wrong JSON shape, missing fields, a time that is not a
 * positive finite number) fails with a message naming the file, the entry
 * and what was expected. max_json_bytes: as for replay_read_json
 * (dataset_file.h). Free the dataset with replay_free. */
int replay_load(const char *path, uint64_t max_json_bytes, replay_dataset **out,
                skytune_error *err);

#endif
