/* T1 input files as search spaces (t1.c), and what the T1 readers share:
 * one tuning parameter of a T1 file's ConfigurationSpace, read the same way
 * for a search space and for a T1 kernel (t1_kernel.c). */
#ifndef SKYTUNE_T1_H
#define SKYTUNE_T1_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "params.h"
#include "space.h"

struct json_t;

/* A T1 input file's search space: ConfigurationSpace.TuningParameters
 * (Name, Type, Values given as a list or as the text of a Python list) and
 * ConfigurationSpace.Conditions (expressions, parsed with the constraint
 * language). An unknown parameter in a condition fails naming it. The
 * definition is not enumerated (space_define): narrow it with space_narrow
 * or complete it with space_from_definition. max_json_bytes: as for
 * replay_read_json (dataset_file.h). */
int t1_load_definition(const char *path, uint64_t max_json_bytes, space **out,
                       skytune_error *err);
/* The same, enumerated under `control` (NULL: the default work limit). */
int t1_load_space(const char *path, uint64_t max_json_bytes, const space_control *control,
                  space **out, skytune_error *err);

/* ConfigurationSpace.TuningParameters item `number` (1-based, for
 * messages) of the T1 file `path`: its Name, Type and Values (a JSON array,
 * or the text of a Python expression making a list, python_values.h). */
int t1_read_parameter(const char *path, size_t number, const struct json_t *spec,
                      param_def *out, skytune_error *err);

#endif
