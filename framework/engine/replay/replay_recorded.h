/* The recorded space of a dataset (`--space recorded`): its own parameter
 * lists restricted to the configurations it holds, ran or failed. */
#ifndef SKYTUNE_REPLAY_RECORDED_H
#define SKYTUNE_REPLAY_RECORDED_H

#include "error.h"
#include "replay_dataset.h"
#include "space.h"

/* The value of --space that asks for the recorded space. */
#define REPLAY_RECORDED_SPACE "recorded"

/* The dataset's own parameter lists restricted to the configurations it
 * holds: for a database of an exhaustive campaign, the plugin's valid space
 * on that device. A definition (see t1_load_definition), since enumerating
 * it checks every combination of the recorded values. It and the spaces
 * made from it borrow the dataset, which must be freed after them. */
int replay_recorded_definition(replay_dataset *d, space **out, skytune_error *err);

/* What replay_recorded_definition keeps in the dataset (d->recorded),
 * freed with it. */
void replay_recorded_set_free(struct replay_recorded_set *set);

#endif
