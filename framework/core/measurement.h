/* One configuration's measurement: what the measurer (or a replayed dataset)
 * produces, the store records and the strategies learn from. */
#ifndef SKYTUNE_MEASUREMENT_H
#define SKYTUNE_MEASUREMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum measurement_status {
    MEAS_OK = 0,
    MEAS_COMPILE = 1,       /* the OpenCL build failed; message holds the build log */
    MEAS_LAUNCH = 2,        /* an OpenCL call failed preparing or launching the kernel */
    MEAS_WRONG_RESULT = 3,  /* output differs from the CPU reference */
    MEAS_TIMEOUT = 4,       /* the worker ran past its time limit */
    MEAS_CRASH = 5,         /* the worker died, or the kernel failed on the device after
                               its launch (an illegal address on a GPU) */
    MEAS_STATUS_COUNT = 6
} measurement_status;

/* "ok", "compile", "launch", "wrong_result", "timeout", "crash". */
const char *measurement_status_name(measurement_status s);
/* Inverse of the above; -1 when unknown. */
int measurement_status_parse(const char *name);

/* Where in measuring a configuration something happened: the stage a
 * crashed or timed-out configuration was in. */
typedef enum measure_stage {
    STAGE_NONE = 0,
    STAGE_BUILD = 1,        /* source generation and the OpenCL compiler */
    STAGE_PREPARE = 2,      /* the plugin's prepare */
    STAGE_VERIFY = 3,       /* clear outputs, one run, read back and compare */
    STAGE_WARM_UP = 4,      /* the untimed run before the timed ones */
    STAGE_TIMED = 5,        /* the timed runs */
    STAGE_RELEASE = 6,      /* the plugin's release */
    /* With the plugin's read_back: the comparison with the reference, after
     * the device is done with the configuration. */
    STAGE_COMPARE = 7,
    STAGE_COUNT = 8
} measure_stage;

/* "", "build", "prepare", "verify", "warm_up", "timed", "release", "compare". */
const char *measure_stage_name(measure_stage s);
/* The stage as the database's stage column records it: the comparison
 * after the timed runs is the verification's ("verify"), the rest as
 * measure_stage_name. */
const char *measure_stage_recorded_name(measure_stage s);
/* Inverse of the above; -1 when unknown. */
int measure_stage_parse(const char *name);

#define MEAS_MAX_PARTS 24

typedef struct measurement_part {
    char label[32];         /* e.g. "fir", "fft" */
    double median_ns;
} measurement_part;

#define MEAS_MAX_DERIVED 8

/* A number the plugin derives from the configuration (its
 * derived_values), kept with the measurement. */
typedef struct measurement_derived {
    char name[64];
    double value;
} measurement_derived;

typedef struct measurement {
    measurement_status status;
    /* Statistics of the timed runs, in nanoseconds (ok only). */
    double median_ns, min_ns, max_ns, mean_ns, stddev_ns;
    double gflops, gbs;     /* from the median and the plugin's counts; 0 when unknown */
    size_t n_samples;
    double *samples_ns;     /* owned (malloc); every timed run's total */
    size_t n_parts;
    measurement_part parts[MEAS_MAX_PARTS];
    size_t n_derived;
    measurement_derived derived[MEAS_MAX_DERIVED];
    /* Wall-clock seconds spent on each phase of this configuration. */
    double build_s;         /* OpenCL compiler, and the driver's code generation at the
                               first launch (measurer.h) */
    double verify_s;        /* prepare, verification run, read-back and comparison */
    double bench_s;         /* warm-up and timed runs */
    double overhead_s;      /* everything else the engine did for it */
    /* Of build_s: the first launch's wall time beyond its kernels' own, the
     * driver's code generation where it defers it (measurer.h). The
     * supervisor allows later first launches time from it. */
    double first_launch_extra_s;
    /* Verification (wrong_result). */
    double max_abs_error, max_rel_error;
    int64_t first_mismatch; /* -1 when none */
    char *message;          /* owned (malloc) or NULL: build log or error text */
    bool replayed;          /* taken from a recorded dataset, not measured */
    /* crash and timeout: the stage the worker was in */
    measure_stage stage;
    /* Measured while the device failed its health check after a fault, so
     * its time may not be the device's own. */
    bool degraded;
    /* Stopped timing early, with the samples it has: clearly slower than
     * the best of the campaign (racing.h). */
    bool raced;
    /* Its outputs passed the comparison on the device (device_compare.h);
     * false where the host compared them, a wrong result's always. */
    bool compared_on_device;
    /* Built ahead and then not wanted: nothing ran; never recorded. */
    bool abandoned;
} measurement;

void measurement_init(measurement *m);
/* Free owned memory and reinitialise. */
void measurement_clear(measurement *m);
/* Replace the message (copied). Returns -1 when out of memory. */
int measurement_set_message(measurement *m, const char *text);
/* Set samples (copied) and compute the statistics. Returns -1 on no memory. */
int measurement_set_samples(measurement *m, const double *samples_ns, size_t n);

/* The objective strategies minimise: the median time, +infinity when the
 * configuration failed. */
double measurement_objective(const measurement *m);

#endif
