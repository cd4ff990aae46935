/* What the campaign loop calls to evaluate one configuration: the OpenCL
 * measurer, or a recorded dataset standing in for a device (replay). */
#ifndef SKYTUNE_EVALUATOR_H
#define SKYTUNE_EVALUATOR_H

#include <stdint.h>

#include "error.h"
#include "measurement.h"

typedef struct evaluator {
    void *ctx;
    /* Fill *m for the configuration idx (space_param_count values). A
     * configuration that fails is a status in *m and a return of 0; return
     * -1 only when the campaign cannot go on (device lost, dataset gone). */
    int (*evaluate)(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err);
} evaluator;

#endif
