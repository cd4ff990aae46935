/* The T4 results reader. See t4_results.h.
 *
 * T4 says its unit in metadata.timeunit (milliseconds when absent), and a
 * measurement may say its own; entries hold nanoseconds for kernel times
 * and seconds for phases. */
#include "t4_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset_json.h"
#include "quote.h"
#include "stats.h"

typedef struct time_unit {
    const char *name;
    double ns;
} time_unit;

/* T4's metadata.timeunit values (and the spelling "miliseconds" that Kernel
 * Tuner's T4 writer uses), and the short forms a measurement's unit may
 * have. */
static const time_unit time_units[] = {
    {"nanoseconds", 1.0},   {"ns", 1.0},     {"microseconds", 1e3}, {"us", 1e3},
    {"milliseconds", 1e6},  {"miliseconds", 1e6}, {"ms", 1e6},     {"seconds", 1e9},
    {"s", 1e9},
};

static int time_unit_ns(const char *name, double *ns)
{
    for (size_t k = 0; k < sizeof time_units / sizeof time_units[0]; k++)
        if (strcmp(time_units[k].name, name) == 0) {
            *ns = time_units[k].ns;
            return 0;
        }
    return -1;
}

typedef struct t4_status {
    const char *invalidity;
    measurement_status status;
    bool in_space; /* false: the configuration breaks the constraints */
} t4_status;

static const t4_status t4_statuses[] = {
    {"correct", MEAS_OK, true},          {"compile", MEAS_COMPILE, true},
    {"runtime", MEAS_LAUNCH, true},      {"timeout", MEAS_TIMEOUT, true},
    {"correctness", MEAS_WRONG_RESULT, true}, {"constraints", MEAS_LAUNCH, false},
};

static const t4_status *t4_find_status(const char *invalidity)
{
    for (size_t k = 0; k < sizeof t4_statuses / sizeof t4_statuses[0]; k++)
        if (strcmp(t4_statuses[k].invalidity, invalidity) == 0) return &t4_statuses[k];
    return NULL;
}

/* The result's status, or NULL with a message. */
static const t4_status *t4_result_status(const char *path, size_t number, const json_t *result,
                                         skytune_error *err)
{
    const char *invalidity = json_string_value(json_object_get(result, "invalidity"));
    if (!invalidity) {
        err_set(err, "%s: result %zu: no \"invalidity\" (one of correct, compile, runtime, "
                "timeout, correctness, constraints)", path, number);
        return NULL;
    }
    const t4_status *s = t4_find_status(invalidity);
    char shown[QUOTE_TEXT];
    if (!s)
        err_set(err, "%s: result %zu: unknown invalidity \"%s\"; expected one of correct, "
                "compile, runtime, timeout, correctness, constraints", path, number,
                quote_text(invalidity, shown, sizeof shown));
    return s;
}

/* The configuration object of result `number`, checked to name exactly the
 * dataset's parameters. */
static const json_t *t4_configuration(const char *path, size_t number, const json_t *result,
                                      const replay_dataset *d, skytune_error *err)
{
    const json_t *config = json_object_get(result, "configuration");
    if (!json_is_object(config)) {
        err_set(err, "%s: result %zu: no \"configuration\" object", path, number);
        return NULL;
    }
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)config, name, value) {
        if (replay_dataset_param_index(d, name) < 0) {
            char shown[QUOTE_TEXT];
            err_set(err, "%s: result %zu: parameter '%s' does not appear in the first result's "
                    "configuration", path, number, quote_text(name, shown, sizeof shown));
            return NULL;
        }
    }
    if (json_object_size(config) != d->n_params) {
        err_set(err, "%s: result %zu: the configuration has %zu values for %zu parameters", path,
                number, json_object_size(config), d->n_params);
        return NULL;
    }
    return config;
}

/* The recorded time of a result in ns: the measurement named "time" (in its
 * own unit, or the file's), or the median of its runtimes. */
static int t4_time_ns(const char *path, size_t number, const json_t *result, double unit_ns,
                      double *time_ns, skytune_error *err)
{
    const json_t *measurements = json_object_get(result, "measurements");
    for (size_t k = 0; k < json_array_size(measurements); k++) {
        const json_t *m = json_array_get(measurements, k);
        const char *name = json_string_value(json_object_get(m, "name"));
        if (!name || strcmp(name, "time") != 0) continue;
        const json_t *value = json_object_get(m, "value");
        if (!json_is_number(value))
            return err_set(err, "%s: result %zu: invalidity is \"correct\" but the \"time\" "
                           "measurement is not a number", path, number);
        double scale = unit_ns;
        const char *unit = json_string_value(json_object_get(m, "unit"));
        char shown[QUOTE_TEXT];
        if (unit && *unit && time_unit_ns(unit, &scale) != 0)
            return err_set(err, "%s: result %zu: unknown time unit \"%s\"; expected ns, us, ms, s "
                           "or their long names", path, number, quote_text(unit, shown, sizeof shown));
        double t = json_number_value(value) * scale;
        if (!replay_is_kernel_time(t))
            return err_set(err, "%s: result %zu: the \"time\" measurement is %g %s; a recorded "
                           "time is a positive, finite number (at least 1 ns)", path, number,
                           json_number_value(value),
                           unit && *unit ? quote_text(unit, shown, sizeof shown) : "(the file's unit)");
        *time_ns = t;
        return 0;
    }
    const json_t *runtimes = json_object_get(json_object_get(result, "times"), "runtimes");
    size_t n = json_array_size(runtimes);
    if (n == 0)
        return err_set(err, "%s: result %zu: neither a \"time\" measurement nor runtimes", path,
                       number);
    double *samples = malloc(n * sizeof *samples);
    if (!samples) return err_set(err, "%s: out of memory", path);
    for (size_t k = 0; k < n; k++) samples[k] = json_number_value(json_array_get(runtimes, k));
    stats_summary s;
    int rc = stats_summarise(samples, n, &s);
    free(samples);
    if (rc != 0) return err_set(err, "%s: result %zu: cannot summarise its runtimes", path, number);
    *time_ns = s.median * unit_ns;
    return 0;
}

/* Every runtime of a result (checked whether or not it ran: a file that
 * records a negative or non-numeric run is not to be trusted), and their
 * total in seconds. */
static int t4_runtimes(const char *path, size_t number, const json_t *times, double unit_ns,
                       double *total_s, skytune_error *err)
{
    const json_t *runtimes = json_object_get(times, "runtimes");
    *total_s = 0.0;
    if (!runtimes) return 0;
    if (!json_is_array(runtimes))
        return err_set(err, "%s: result %zu: \"runtimes\" is not an array of times", path,
                       number);
    double total = 0.0;
    for (size_t k = 0; k < json_array_size(runtimes); k++) {
        const json_t *run = json_array_get(runtimes, k);
        if (!json_is_number(run) || !replay_is_kernel_time(json_number_value(run) * unit_ns)) {
            char shown[DATASET_JSON_QUOTED + 8];
            dataset_json_describe(run, shown, sizeof shown);
            return err_set(err, "%s: result %zu: runtime %zu is %s; a recorded time is a "
                           "positive, finite number (at least 1 ns)", path, number, k + 1, shown);
        }
        total += json_number_value(run) * unit_ns / 1e9;
    }
    if (!replay_is_phase_time(total))
        return err_set(err, "%s: result %zu: its runtimes add up to more than any time", path,
                       number);
    *total_s = total;
    return 0;
}

bool t4_results_is(const json_t *root)
{
    return json_is_array(json_object_get(root, "results"));
}

/* metadata.timeunit in nanoseconds (milliseconds when absent). */
static int read_time_unit(const char *path, const json_t *root, double *unit_ns,
                          skytune_error *err)
{
    *unit_ns = 1e6;
    const json_t *metadata = json_object_get(root, "metadata");
    const char *unit = json_string_value(json_object_get(metadata, "timeunit"));
    char shown[QUOTE_TEXT];
    if (unit && time_unit_ns(unit, unit_ns) != 0)
        return err_set(err, "%s: metadata.timeunit \"%s\" is not one of nanoseconds, "
                       "microseconds, milliseconds, seconds", path,
                       quote_text(unit, shown, sizeof shown));
    return 0;
}

/* The parameters, named by the first result's configuration: the file
 * declares them nowhere else. */
static int name_parameters(const char *path, const json_t *results, replay_dataset *d,
                           skytune_error *err)
{
    const json_t *first = json_object_get(json_array_get(results, 0), "configuration");
    if (!json_is_object(first) || json_object_size(first) == 0)
        return err_set(err, "%s: result 1: no \"configuration\" object with parameters", path);
    d->n_params = json_object_size(first);
    d->params = calloc(d->n_params, sizeof *d->params);
    if (!d->params) {
        d->n_params = 0;
        return err_set(err, "%s: out of memory", path);
    }
    size_t k = 0;
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)first, name, value) {
        if (!(d->params[k++].name = strdup(name))) return err_set(err, "%s: out of memory", path);
    }
    return 0;
}

/* Every result checked, and each parameter's type learnt from all of them. */
static int learn_types(const char *path, const json_t *results, replay_dataset *d,
                       dataset_json_kinds *kinds, skytune_error *err)
{
    for (size_t r = 0; r < json_array_size(results); r++) {
        const json_t *result = json_array_get(results, r);
        if (!json_is_object(result))
            return err_set(err, "%s: result %zu is not an object", path, r + 1);
        const json_t *config = t4_configuration(path, r + 1, result, d, err);
        if (!config || !t4_result_status(path, r + 1, result, err)) return -1;
        for (size_t k = 0; k < d->n_params; k++)
            dataset_json_kinds_add(&kinds[k], json_object_get(config, d->params[k].name));
    }
    for (size_t k = 0; k < d->n_params; k++)
        if (dataset_json_kinds_type(&kinds[k], &d->params[k].type) != 0)
            return err_set(err, "%s: parameter '%s': values must be all numbers or all strings",
                           path, d->params[k].name);
    return 0;
}

/* Result `number` (checked by learn_types) as an entry, its values added to
 * the values seen; one outside the space is left out. */
static int read_entry(const char *path, size_t number, const json_t *result, double unit_ns,
                      replay_dataset *d, size_t *capacity, replay_value_set *sets,
                      skytune_error *err)
{
    const t4_status *s = t4_result_status(path, number, result, err);
    if (!s->in_space) return 0;
    const json_t *config = json_object_get(result, "configuration");
    replay_entry *e = replay_dataset_add_entry(d, capacity);
    if (!e) return err_set(err, "%s: out of memory", path);
    for (size_t k = 0; k < d->n_params; k++) {
        if (dataset_json_value(json_object_get(config, d->params[k].name), d->params[k].type,
                               &e->values[k]) != 0 ||
            replay_value_set_add(&sets[k], &e->values[k]) != 0)
            return err_set(err, "%s: out of memory", path);
    }
    e->status = s->status;
    const json_t *times = json_object_get(result, "times");
    /* T4 has no benchmark total; the runs themselves are the closest. */
    if (t4_runtimes(path, number, times, unit_ns, &e->bench_s, err) != 0 ||
        (s->status == MEAS_OK && t4_time_ns(path, number, result, unit_ns, &e->time_ns, err) != 0))
        return -1;
    const char *compile_name = "compilation";
    const json_t *compilation = json_object_get(times, compile_name);
    if (!compilation) compilation = json_object_get(times, compile_name = "compilation_time");
    char where[32];
    snprintf(where, sizeof where, "result %zu", number);
    return dataset_json_phase_seconds(path, where, compile_name, compilation, unit_ns,
                                      &e->compile_s, err);
}

int t4_results_read(const char *path, const json_t *root, replay_dataset *d, skytune_error *err)
{
    const json_t *results = json_object_get(root, "results");
    size_t n_results = json_array_size(results);
    if (n_results == 0) return err_set(err, "%s: the \"results\" array is empty", path);
    double unit_ns;
    if (read_time_unit(path, root, &unit_ns, err) != 0 ||
        name_parameters(path, results, d, err) != 0)
        return -1;
    dataset_json_kinds *kinds = calloc(d->n_params, sizeof *kinds);
    replay_value_set *sets = calloc(d->n_params, sizeof *sets);
    int rc = !kinds || !sets ? err_set(err, "%s: out of memory", path)
                             : learn_types(path, results, d, kinds, err);
    size_t capacity = 0;
    for (size_t r = 0; rc == 0 && r < n_results; r++)
        rc = read_entry(path, r + 1, json_array_get(results, r), unit_ns, d, &capacity, sets, err);
    if (rc == 0 && d->n_entries == 0)
        rc = err_set(err, "%s: every result breaks the constraints; nothing to replay", path);
    if (rc == 0) rc = replay_dataset_params_from_sets(path, d, sets, err);
    if (sets)
        for (size_t k = 0; k < d->n_params; k++) replay_value_set_free(&sets[k]);
    free(sets);
    free(kinds);
    return rc;
}
