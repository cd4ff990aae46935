/*
 * skytune/plugin_types.h — the plain-C types of the plugin ABI: return codes
 * and errors, values, problem and tuning parameters, device facts.
 *
 * skytune/plugin.h includes this header; a plugin includes plugin.h. These
 * types stand apart because skytune's base layers (framework/core, search,
 * db, reports) use them and build without OpenCL, so nothing here names an
 * OpenCL type or includes an OpenCL header. They are part of the plugin ABI
 * all the same: a change to a struct here bumps SKYTUNE_PLUGIN_ABI_VERSION
 * (skytune/plugin.h).
 */
#ifndef SKYTUNE_PLUGIN_TYPES_H
#define SKYTUNE_PLUGIN_TYPES_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of plugin callbacks. */
typedef enum skytune_result {
    SKYTUNE_OK = 0,
    SKYTUNE_ERR_SETUP = 1,   /* could not create buffers or inputs for this problem */
    SKYTUNE_ERR_LAUNCH = 2,  /* an OpenCL call failed while preparing or enqueueing */
    SKYTUNE_ERR_PROBLEM = 3, /* the problem parameters are not acceptable */
    SKYTUNE_ERR_MEMORY = 4   /* a host allocation failed */
} skytune_result;

typedef struct skytune_error {
    int cl_error;          /* the OpenCL error code involved, 0 if none */
    char message[1024];
} skytune_error;

static inline int skytune_error_set(skytune_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ---------------------------------------------------------------- values */

typedef enum skytune_type {
    SKYTUNE_INT = 0,    /* 64-bit signed integer */
    SKYTUNE_FLOAT = 1,  /* double */
    SKYTUNE_BOOL = 2,   /* stored as an integer 0 or 1 */
    SKYTUNE_STRING = 3  /* text: string enums and permutations */
} skytune_type;

typedef struct skytune_value {
    skytune_type type;
    int64_t i;        /* INT and BOOL */
    double f;         /* FLOAT */
    const char *s;    /* STRING */
} skytune_value;

typedef struct skytune_named_value {
    const char *name;
    skytune_value value;
} skytune_named_value;

/* Where a typed lookup of a name the values do not hold is written down.
 * The engine owns it: a misspelt name in a plugin (skytune_int(config,
 * "wg_sise")) would otherwise read as 0 and go unnoticed, so the engine
 * checks the record after each callback and reports the name as the
 * plugin's error. */
typedef struct skytune_lookup_log {
    char missed[64];  /* the first name not found, cut to fit; "" when none */
} skytune_lookup_log;

/* A set of named values: a problem instance or a configuration. */
typedef struct skytune_values {
    size_t count;
    const skytune_named_value *items;
    /* Set by the engine on the values it passes to a callback (NULL
     * elsewhere); plugins leave it alone. */
    skytune_lookup_log *log;
} skytune_values;

/* The value of `name`, or NULL when the values hold no such name. A plugin
 * that asks on purpose for a name that may be absent uses this one: it
 * records nothing. */
static inline const skytune_value *skytune_values_find(const skytune_values *v, const char *name)
{
    for (size_t k = 0; v && k < v->count; k++)
        if (strcmp(v->items[k].name, name) == 0)
            return &v->items[k].value;
    return NULL;
}

/* The typed lookups' miss: recorded for the engine, which reports it. */
static inline void skytune_values_missed(const skytune_values *v, const char *name)
{
    if (!v || !v->log || v->log->missed[0]) return;
    size_t n = strlen(name);
    if (n >= sizeof v->log->missed) n = sizeof v->log->missed - 1;
    memcpy(v->log->missed, name, n);
    v->log->missed[n] = '\0';
}

/* Typed lookups of names the plugin declared. A name the values do not hold
 * yields 0 (or "") and is recorded, and the engine turns it into an error
 * naming the plugin and the name (the configuration fails, or the run stops
 * before measuring when it happens building the space). */
static inline int64_t skytune_int(const skytune_values *v, const char *name)
{
    const skytune_value *x = skytune_values_find(v, name);
    if (!x) {
        skytune_values_missed(v, name);
        return 0;
    }
    return x->type == SKYTUNE_FLOAT ? (int64_t)x->f : x->i;
}

static inline double skytune_float(const skytune_values *v, const char *name)
{
    const skytune_value *x = skytune_values_find(v, name);
    if (!x) {
        skytune_values_missed(v, name);
        return 0.0;
    }
    return x->type == SKYTUNE_FLOAT ? x->f : (double)x->i;
}

static inline const char *skytune_string(const skytune_values *v, const char *name)
{
    const skytune_value *x = skytune_values_find(v, name);
    if (!x) {
        skytune_values_missed(v, name);
        return "";
    }
    return (x->type == SKYTUNE_STRING && x->s) ? x->s : "";
}

/* ------------------------------------------------------------- problem */

typedef struct skytune_problem_param {
    const char *name;          /* identifier: [A-Za-z_][A-Za-z0-9_]* */
    skytune_type type;
    const char *default_value; /* as text, e.g. "1024", "1420.0", "true" */
    const char *help;
} skytune_problem_param;

typedef struct skytune_preset {
    const char *name;          /* e.g. "apertif" */
    const char *settings;      /* "name=value,name=value" over problem parameters; a
                                  value holding ',' or '=' is quoted: "cfg='a=1,b=2'" */
    const char *help;
} skytune_preset;

/* A rule every problem instance must satisfy, as an expression over problem
 * parameters (the constraint syntax below). `message` is shown when it fails
 * and should name the parameter and what is valid. */
typedef struct skytune_problem_check {
    const char *expression;    /* e.g. "stations >= 1" */
    const char *message;       /* e.g. "stations must be at least 1" */
} skytune_problem_check;

/* ------------------------------------------------------ tuning space */

typedef enum skytune_values_kind {
    SKYTUNE_LIST = 0,        /* `list`: comma-separated integers, e.g. "1,2,3,8" */
    SKYTUNE_RANGE = 1,       /* from, from+step, ... <= to */
    SKYTUNE_POW2 = 2,        /* the powers of two in [from, to] */
    SKYTUNE_BOOLEAN = 3,     /* 0 and 1 */
    SKYTUNE_ENUM = 4,        /* `list`: comma-separated strings, e.g. "naive,tiled" */
    SKYTUNE_PERMUTATION = 5, /* every permutation of the letters in `list`, e.g. "TCSP" */
    SKYTUNE_FLOAT_LIST = 6   /* `list`: comma-separated real numbers */
} skytune_values_kind;

typedef struct skytune_tuning_param {
    const char *name;          /* identifier, also the -D macro name */
    skytune_values_kind kind;
    const char *list;          /* LIST, ENUM, PERMUTATION, FLOAT_LIST */
    int64_t from, to, step;    /* RANGE, POW2 (step ignored) */
    const char *help;
} skytune_tuning_param;

/*
 * Constraint expressions use the Python-like syntax of the T1 format's
 * Conditions: integers, reals, 'strings', names, + - * / // % **, unary -,
 * comparisons (== != < <= > >=) including chains such as 32 <= a*b <= 1024,
 * and, or, not, parentheses. Names are tuning parameters, problem parameters
 * and device limits:
 *   device.max_work_group_size   device.local_mem_size    device.compute_units
 *   device.global_mem_size       device.max_constant_size device.max_clock_mhz
 *   device.max_work_item_size_0/1/2
 */

/* Device facts handed to callbacks and bound as device.* names. */
typedef struct skytune_device_info {
    char platform[128];
    char name[128];
    char vendor[128];
    char driver_version[256];
    char opencl_version[256];
    int is_gpu;
    int64_t compute_units;
    int64_t max_clock_mhz;
    int64_t global_mem_size;
    int64_t local_mem_size;
    int64_t max_constant_size;
    int64_t max_mem_alloc_size;
    int64_t max_work_group_size;
    int64_t max_work_item_sizes[3];
} skytune_device_info;

#ifdef __cplusplus
}
#endif

#endif /* SKYTUNE_PLUGIN_TYPES_H */
