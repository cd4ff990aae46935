/* Replay: a recorded dataset stands in for a device.
 *
 * A dataset is the complete (or partial) record of measuring a kernel's
 * configurations on one device: a Kernel Tuner cache file, a T4 results file
 * (both plain JSON or gzip), or a campaign in a skytune database, each read
 * by a reader of its own (replay_load.h). Its entries are keyed by their
 * parameter values. A replay evaluator (replay_evaluator.h) answers a
 * configuration of a space with the recorded result.
 *
 * Units. Entries hold kernel times in nanoseconds and phases (compile,
 * benchmark) in seconds, whatever unit the file recorded.
 *
 * This header is the dataset and what its readers share while they fill
 * one: entries, parameters by name, parameter lists made from the values
 * seen, the checks of a recorded time. */
#ifndef SKYTUNE_REPLAY_DATASET_H
#define SKYTUNE_REPLAY_DATASET_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
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
    struct replay_recorded_set *recorded;  /* built by replay_recorded_definition */
} replay_dataset;

void replay_free(replay_dataset *d);

/* The space of the dataset's own parameter lists, unconstrained (every
 * combination of recorded values; the unrecorded ones replay as failures). */
int replay_dataset_space(const replay_dataset *d, space **out, skytune_error *err);

/* Canonical text of a number fits easily: "%.17g" of a double or a 64-bit
 * integer. */
#define REPLAY_NUMBER_TEXT 64

/* The canonical text of a value, as configurations spell it: a string
 * itself, a number formatted into `number` (REPLAY_NUMBER_TEXT). */
const char *replay_value_text(const skytune_value *v, char *number, size_t len);

/* ------------------------------------------------ filling a dataset */

/* A new entry with room for a value per parameter, or NULL when out of
 * memory. Entries grow by doubling; `capacity` lives beside the dataset
 * while it is being loaded. */
replay_entry *replay_dataset_add_entry(replay_dataset *d, size_t *capacity);

/* The index of the parameter named `name`, or -1. Parameters still being
 * loaded have no name yet. */
int replay_dataset_param_index(const replay_dataset *d, const char *name);

/* A growing list of distinct values, one per parameter while loading. */
typedef struct replay_value_set {
    skytune_value *items;
    size_t count, capacity;
} replay_value_set;

void replay_value_set_free(replay_value_set *s);
/* Adds a copy of v unless an equal value is there; -1 when out of memory. */
int replay_value_set_add(replay_value_set *s, const skytune_value *v);

/* Parameter lists from the values seen, one set per parameter (for a
 * dataset that declares none): numbers in ascending order, so that adjacent
 * values are neighbours; strings in the order they first appear. Each
 * parameter holds its name and type so far. `path` names the file in
 * messages. */
int replay_dataset_params_from_sets(const char *path, replay_dataset *d, replay_value_set *sets,
                                    skytune_error *err);

/* A recorded kernel time is a finite number of nanoseconds of at least
 * REPLAY_MIN_KERNEL_NS: zero or less is no time at all, a denormal such as
 * 5e-324 ms is none either (no kernel launch takes less than a
 * nanosecond), and an infinite one (1e308 ms is one in ns) cannot be
 * ranked. A strategy would take any of them for the best. */
#define REPLAY_MIN_KERNEL_NS 1.0
bool replay_is_kernel_time(double ns);

/* A recorded phase (compile, benchmark) is a finite number of seconds, not
 * negative: 0 stands for a phase that was not timed. */
bool replay_is_phase_time(double s);

#endif
