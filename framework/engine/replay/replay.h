/* Replay: a recorded dataset stands in for a device.
 *
 * A dataset is the complete (or partial) record of measuring a kernel's
 * configurations on one device: a Kernel Tuner cache file, a T4 results file
 * (both plain JSON or gzip), or a campaign in a skytune database. Its
 * entries are keyed by their parameter values. A replay evaluator answers a
 * configuration of a space with the recorded result: the recorded time for
 * a configuration that ran, a failure for one recorded as failed or absent
 * from the dataset. */
#ifndef SKYTUNE_REPLAY_H
#define SKYTUNE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "evaluator.h"
#include "measurement.h"
#include "params.h"
#include "space.h"

typedef enum replay_format {
    REPLAY_KERNEL_TUNER = 0,  /* Kernel Tuner cache: {"tune_params_keys", "tune_params", "cache"} */
    REPLAY_T4 = 1,            /* T4 results: {"results": [{"configuration", "times", ...}]} */
    REPLAY_SKYTUNE = 2        /* a skytune database campaign: "FILE.db" or "FILE.db:CAMPAIGN_ID" */
} replay_format;

typedef struct replay_entry {
    skytune_value *values;    /* one per parameter, in the dataset's parameter order */
    measurement_status status;
    double time_ns;           /* the objective (median or recorded time); 0 when failed */
    double compile_s;         /* recorded compile time, 0 when unknown */
    double bench_s;           /* recorded benchmark time (all runs), 0 when unknown */
} replay_entry;

typedef struct replay_dataset {
    char *name;               /* e.g. "A100" from A100.cache.json.gz, or device name */
    replay_format format;
    size_t n_params;
    param_def *params;        /* each parameter's values seen in the dataset (or
                                 declared by it), in the dataset's own order */
    size_t n_entries;
    replay_entry *entries;
    struct replay_recorded_set *recorded;  /* built by replay_recorded_space */
} replay_dataset;

/* JSON text (a dataset or a T1 file, after decompression) read at most
 * unless the caller allows more: a gzip file of a megabyte can inflate to
 * gigabytes, and the parsed JSON takes several times the text's size. The
 * recorded datasets of real kernels are a few megabytes. */
#define REPLAY_DEFAULT_MAX_JSON_BYTES ((uint64_t)256 << 20)

/* Load by content: gzip is detected by its magic bytes, the JSON shape says
 * Kernel Tuner or T4, SQLite's header says skytune database. Malformed input
 * (truncated gzip, wrong JSON shape, missing fields, a time that is not a
 * positive finite number) fails with a message naming the file, the entry
 * and what was expected. max_json_bytes: as for replay_read_json. */
int replay_load(const char *path, uint64_t max_json_bytes, replay_dataset **out,
                skytune_error *err);
void replay_free(replay_dataset *d);

/* Read a JSON file, plain or gzip (told by its magic bytes), into a jansson
 * value the caller releases with json_decref. Shared by the dataset and T1
 * loaders. Fails with "FILE: truncated or corrupt gzip data", "FILE: not
 * JSON: <reason> (line L, column C)", or when the text (decompressed) is
 * longer than max_json_bytes (0: REPLAY_DEFAULT_MAX_JSON_BYTES), before
 * more than that is read. A Kernel Tuner cache left unterminated by a killed
 * run is read closed, as Kernel Tuner itself reads it. */
struct json_t;
int replay_read_json(const char *path, uint64_t max_json_bytes, struct json_t **out,
                     skytune_error *err);

/* A T1 input file's search space: ConfigurationSpace.TuningParameters
 * (Name, Type, Values given as a list or as the text of a Python list) and
 * ConfigurationSpace.Conditions (expressions, parsed with the constraint
 * language). An unknown parameter in a condition fails naming it. The
 * definition is not enumerated (space_define): narrow it with space_narrow
 * or complete it with space_from_definition. */
int t1_load_definition(const char *path, uint64_t max_json_bytes, space **out,
                       skytune_error *err);
/* The same, enumerated under `control` (NULL: the default work limit). */
int t1_load_space(const char *path, uint64_t max_json_bytes, const space_control *control,
                  space **out, skytune_error *err);

/* The space of the dataset's own parameter lists, unconstrained (every
 * combination of recorded values; the unrecorded ones replay as failures). */
int replay_dataset_space(const replay_dataset *d, space **out, skytune_error *err);

/* The dataset's own parameter lists restricted to the configurations it
 * holds, ran or failed (`--space recorded`): for a database of an
 * exhaustive campaign, the plugin's valid space on that device. A
 * definition (see t1_load_definition), since enumerating it checks every
 * combination of the recorded values. It and the spaces made from it borrow
 * the dataset, which must be freed after them. */
int replay_recorded_definition(replay_dataset *d, space **out, skytune_error *err);
void replay_recorded_set_free(struct replay_recorded_set *set);

/* The value of --space that asks for replay_recorded_space. */
#define REPLAY_RECORDED_SPACE "recorded"

/* Maps every configuration of `sp` to its dataset entry once, so each
 * evaluation is an array lookup. Parameters are matched by name; every
 * parameter of the space must exist in the dataset. The evaluator keeps a
 * pointer to `sp` (which must outlive it) and copies what it needs of `d`. */
typedef struct replay_evaluator replay_evaluator;
int replay_evaluator_new(const replay_dataset *d, const space *sp, replay_evaluator **out,
                         skytune_error *err);
void replay_evaluator_free(replay_evaluator *re);
/* The evaluator interface for campaign_run (measurements marked replayed). */
evaluator replay_evaluator_as_evaluator(replay_evaluator *re);
/* Lowest recorded time over the space's configurations; false when none ran. */
bool replay_optimum(const replay_evaluator *re, double *time_ns);
/* Recorded objective (INFINITY when failed/absent) of the configuration at rank. */
double replay_objective(const replay_evaluator *re, uint64_t rank);

#endif
