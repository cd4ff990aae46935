#include "measurement.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static const char *const status_names[MEAS_STATUS_COUNT] = {
    "ok", "compile", "launch", "wrong_result", "timeout", "crash",
};

const char *measurement_status_name(measurement_status s)
{
    return (unsigned)s < MEAS_STATUS_COUNT ? status_names[s] : "unknown";
}

int measurement_status_parse(const char *name)
{
    for (int k = 0; k < MEAS_STATUS_COUNT; k++)
        if (strcmp(name, status_names[k]) == 0) return k;
    return -1;
}

static const char *const stage_names[STAGE_COUNT] = {
    "", "build", "prepare", "verify", "warm_up", "timed", "release", "compare",
};

const char *measure_stage_name(measure_stage s)
{
    return (unsigned)s < STAGE_COUNT ? stage_names[s] : "unknown";
}

const char *measure_stage_recorded_name(measure_stage s)
{
    return measure_stage_name(s == STAGE_COMPARE ? STAGE_VERIFY : s);
}

int measure_stage_parse(const char *name)
{
    for (int k = 0; k < STAGE_COUNT; k++)
        if (strcmp(name, stage_names[k]) == 0) return k;
    return -1;
}

void measurement_init(measurement *m)
{
    memset(m, 0, sizeof *m);
    m->status = MEAS_OK;
    m->first_mismatch = -1;
}

void measurement_clear(measurement *m)
{
    free(m->samples_ns);
    free(m->message);
    measurement_init(m);
}

int measurement_set_message(measurement *m, const char *text)
{
    char *copy = NULL;
    if (text) {
        copy = strdup(text);
        if (!copy) return -1;
    }
    free(m->message);
    m->message = copy;
    return 0;
}

int measurement_set_samples(measurement *m, const double *samples_ns, size_t n)
{
    double *copy = NULL;
    if (n > 0) {
        copy = malloc(n * sizeof *copy);
        if (!copy) return -1;
        memcpy(copy, samples_ns, n * sizeof *copy);
    }
    free(m->samples_ns);
    m->samples_ns = copy;
    m->n_samples = n;
    stats_summary s = {0};
    if (n > 0 && stats_summarise(copy, n, &s) != 0) return -1;
    m->median_ns = s.median;
    m->min_ns = s.min;
    m->max_ns = s.max;
    m->mean_ns = s.mean;
    m->stddev_ns = s.stddev;
    return 0;
}

double measurement_objective(const measurement *m)
{
    if (m->status != MEAS_OK || !(m->median_ns >= 0.0)) return INFINITY;
    return m->median_ns;
}
