/* T4 results files: {"metadata": {"timeunit"}, "results": [{"configuration",
 * "invalidity", "times", "measurements"}]}, the auto-tuning community's
 * format for what a tuner measured. */
#ifndef SKYTUNE_T4_RESULTS_H
#define SKYTUNE_T4_RESULTS_H

#include <stdbool.h>

#include <jansson.h>

#include "error.h"
#include "replay_dataset.h"

/* Whether the JSON has the shape of T4 results (a "results" array). */
bool t4_results_is(const json_t *root);

/* The results' parameters and entries into `d` (empty so far): the first
 * result's configuration names the parameters, the values seen make their
 * lists, and a result that breaks the constraints is not an entry. `path`
 * names the file in messages. */
int t4_results_read(const char *path, const json_t *root, replay_dataset *d, skytune_error *err);

#endif
