/* What the T1 readers share: one tuning parameter of a T1 file's
 * ConfigurationSpace, read the same way for a replayed space (t1.c,
 * t1_load_space in replay.h) and for a T1 kernel (t1_kernel.c). */
#ifndef SKYTUNE_T1_H
#define SKYTUNE_T1_H

#include <stddef.h>

#include "error.h"
#include "params.h"

struct json_t;

/* ConfigurationSpace.TuningParameters item `number` (1-based, for
 * messages) of the T1 file `path`: its Name, Type and Values (a JSON array,
 * or the text of a Python expression making a list, python_values.h). */
int t1_read_parameter(const char *path, size_t number, const struct json_t *spec,
                      param_def *out, skytune_error *err);

#endif
