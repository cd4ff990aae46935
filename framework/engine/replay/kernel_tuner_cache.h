/* Kernel Tuner cache files: {"tune_params_keys", "tune_params", "cache"},
 * each cache entry a configuration with its time in milliseconds or the
 * name of the failure Kernel Tuner recorded for it. */
#ifndef SKYTUNE_KERNEL_TUNER_CACHE_H
#define SKYTUNE_KERNEL_TUNER_CACHE_H

#include <stdbool.h>

#include <jansson.h>

#include "error.h"
#include "replay_dataset.h"

/* Whether the JSON has the shape of a Kernel Tuner cache (a "cache"
 * object). */
bool kernel_tuner_cache_is(const json_t *root);

/* The cache's parameters and entries into `d` (empty so far). `path` names
 * the file in messages. */
int kernel_tuner_cache_read(const char *path, const json_t *root, replay_dataset *d,
                            skytune_error *err);

#endif
