/* `--devices`: one campaign per device, at once. */
#ifndef SKYTUNE_DEVICE_CAMPAIGNS_H
#define SKYTUNE_DEVICE_CAMPAIGNS_H

#include <stddef.h>

#include "tuning_run.h"

/* One campaign per device, all at once, each in a thread of its own with
 * its own measuring worker and compile workers, recording into the same
 * database. `devices` is "all" or a comma-separated list of --device
 * selectors. Callbacks are called from those threads one at a time, with
 * each event labelled by its device. outcomes[k] and errors[k] are the k-th
 * device's (*n of them, malloc'd arrays); the call fails as a whole only
 * when the list itself is bad. */
typedef struct tuning_device_outcome {
    char device[300];                    /* "P:D platform device" */
    char label[160];                     /* "P:D device": the label of its events */
    int status;                          /* 0, or -1 with error */
    skytune_error error;
    tuning_outcome outcome;
} tuning_device_outcome;

int tuning_run_devices(const tuning_request *rq, const char *devices,
                       void (*on_start)(void *ctx, const tuning_started *s), void *start_ctx,
                       tuning_device_outcome **outcomes, size_t *n, skytune_error *err);

#endif
