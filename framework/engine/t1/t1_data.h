/* The data of a T1 kernel's arguments: the element types a T1 file names,
 * filling host memory as an argument's FillType says, and comparing an
 * output with its reference by one of the T1 validation methods. */
#ifndef SKYTUNE_T1_DATA_H
#define SKYTUNE_T1_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <skytune/plugin.h>

#include "error.h"

typedef enum t1_number { T1_SIGNED, T1_UNSIGNED, T1_REAL } t1_number;

/* An argument's Type: int8 ... uint64, half, float, double, and the
 * vectors half2 ... double16 (width components of component_size bytes). */
typedef struct t1_type {
    const char *name;
    t1_number number;
    size_t component_size;   /* 1, 2, 4 or 8 bytes (2: half) */
    size_t width;            /* 1, 2, 4, 8 or 16 */
} t1_type;

/* NULL when `name` is not a type skytune reads; the message then lists
 * the valid ones (t1_type_names). */
const t1_type *t1_type_find(const char *name);
const char *t1_type_names(void);

static inline size_t t1_type_size(const t1_type *t)
{
    return t->component_size * t->width;
}

/* Whether a type's component holds `v` exactly (an integer in range, or
 * any real). */
bool t1_type_holds(const t1_type *t, double v);

/* Component k of an array of components, as a double, and the reverse. */
double t1_component_get(const t1_type *t, const void *data, size_t k);
void t1_component_set(const t1_type *t, void *data, size_t k, double v);

typedef enum t1_fill_kind {
    T1_FILL_CONSTANT,    /* every component is `value` */
    T1_FILL_RANDOM,      /* uniform in [0, value): reals, or integers below value */
    T1_FILL_BINARY_RAW   /* the first bytes of the file `data_path`, as they are */
} t1_fill_kind;

typedef struct t1_fill {
    t1_fill_kind kind;
    double value;          /* FillValue */
    bool has_seed;         /* RandomSeed given: the same data on every run */
    uint64_t seed;
    char *data_path;       /* DataSource, resolved against the T1 file's folder */
} t1_fill;

/* Fill `count` elements of type t. A Random fill without RandomSeed draws
 * from the run's seed, on a PCG stream of its own per `stream`, so that
 * two arguments never share their data. */
int t1_fill_data(const t1_fill *f, const t1_type *t, void *data, size_t count,
                 uint64_t run_seed, uint64_t stream, skytune_error *err);

typedef enum t1_method {
    T1_ABSOLUTE_DIFFERENCE,        /* the sum of |got - want| is at most the threshold */
    T1_SIDE_BY_SIDE,               /* every |got - want| is at most the threshold */
    T1_SIDE_BY_SIDE_RELATIVE       /* every |got - want| is at most threshold * |want| (at most
                                      the threshold where want is 0) */
} t1_method;

typedef struct t1_check {
    t1_method method;
    double threshold;
} t1_check;

/* The T1 name of a method, and the method of a name (-1 when unknown). */
const char *t1_method_name(t1_method m);
int t1_method_find(const char *name, t1_method *out);

/* Compare `count` components and add to the report: a NaN matches only a
 * NaN in the reference. first_mismatch is the index of the first component
 * out of tolerance (offset by `first_index`, for several outputs in one
 * report); max_rel_error is over components whose reference is not 0. */
void t1_compare(const t1_type *t, const void *got, const void *want, size_t count,
                const t1_check *check, int64_t first_index, skytune_verify_report *report);

#endif
