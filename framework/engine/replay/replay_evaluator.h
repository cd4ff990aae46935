/* The replay evaluator: a recorded dataset answers a space's
 * configurations, with the recorded time for a configuration that ran and a
 * failure for one recorded as failed or absent from the dataset.
 *
 * A dataset entry and a configuration of the space are the same point when,
 * parameter by parameter (matched by name), their values have the same
 * canonical text (value_format): 16 and 16.0 match, as they do in the
 * configurations' canonical text "name=value,...". */
#ifndef SKYTUNE_REPLAY_EVALUATOR_H
#define SKYTUNE_REPLAY_EVALUATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "evaluator.h"
#include "replay_dataset.h"
#include "space.h"

/* Maps every configuration of `sp` to its dataset entry once, so each
 * evaluation is an array lookup. Parameters are matched by name; every
 * parameter of the space must exist in the dataset. The evaluator keeps a
 * pointer to `sp` (which must outlive it) and copies what it needs of `d`. */
typedef struct replay_evaluator replay_evaluator;
int replay_evaluator_new(const replay_dataset *d, const space *sp, replay_evaluator **out,
                         skytune_error *err);
void replay_evaluator_free(replay_evaluator *re);
/* The evaluator interface for tuning_loop_run (measurements marked replayed). */
evaluator replay_evaluator_as_evaluator(replay_evaluator *re);
/* Lowest recorded time over the space's configurations; false when none ran. */
bool replay_optimum(const replay_evaluator *re, double *time_ns);
/* Recorded objective (INFINITY when failed/absent) of the configuration at rank. */
double replay_objective(const replay_evaluator *re, uint64_t rank);
/* The dataset's entries that are configurations of the space, in the
 * dataset's order: record k's rank, and its time (INFINITY when it
 * failed), for k < replay_record_count. */
size_t replay_record_count(const replay_evaluator *re);
uint64_t replay_record_at(const replay_evaluator *re, size_t k, double *time_ns);

#endif
