/* A T1 file's description of a tunable OpenCL kernel, read and checked:
 * its ConfigurationSpace (tuning parameters with their Default values,
 * Conditions) and its KernelSpecification (kernel file and name, compiler
 * options, local and global sizes, arguments, reference arguments,
 * ProblemSize). Everything the T1 plugin (t1_plugin.h) needs to run the
 * kernel, and nothing of OpenCL.
 *
 * Expressions (sizes, conditions, scalar values) are the constraint
 * language's (expr.h). Their names are the tuning parameters, the problem's
 * entries ProblemSize[i] (problem parameters problem_size_i, set with
 * --set), and max(P) or min(P), the largest or smallest of tuning parameter
 * P's values. Every failure names the file, the key and what is valid. */
#ifndef SKYTUNE_T1_KERNEL_H
#define SKYTUNE_T1_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "expr.h"
#include "params.h"
#include "t1_data.h"

#define T1_MAX_PROBLEM 3

/* The largest files a T1 file may name, and itself: regular files only
 * (docs/t1.md). */
#define T1_MAX_FILE_BYTES (UINT64_C(64) << 20)
#define T1_MAX_KERNEL_BYTES (UINT64_C(16) << 20)
#define T1_MAX_DATA_BYTES (UINT64_C(4) << 30)

typedef enum t1_memory { T1_SCALAR, T1_VECTOR, T1_LOCAL } t1_memory;
typedef enum t1_access { T1_READ_ONLY, T1_WRITE_ONLY, T1_READ_WRITE } t1_access;

/* An expression of the file, compiled. Its slots are the tuning parameters
 * (0 .. n_params-1) and then the problem's entries (t1_kernel_slots,
 * t1_expressions.h). */
typedef struct t1_expression {
    expr *e;              /* NULL: absent */
    char *key;            /* where it is in the file, e.g. "LocalSize.X" */
    char *text;           /* as rewritten for the constraint language */
    bool reads_config;    /* uses a tuning parameter's value */
} t1_expression;

typedef struct t1_argument {
    char *name;
    const t1_type *type;
    t1_memory memory;
    t1_access access;
    t1_fill fill;             /* VECTOR: its data; SCALAR: fill.value unless `value` */
    t1_expression size;       /* VECTOR, LOCAL: elements */
    t1_expression value;      /* SCALAR given as an expression */
    bool output;              /* a VECTOR the kernel writes: reset before each run */
} t1_argument;

typedef struct t1_reference {
    char *name;
    size_t target;            /* the argument it checks */
    t1_fill fill;             /* the expected data */
    t1_check check;
} t1_reference;

typedef struct t1_kernel {
    char *path;               /* the T1 file */
    char *name;               /* the plugin's name: BenchmarkName or KernelName */
    char *version;            /* "t1." and the file's hash */
    char *description;
    char *verification;       /* what outputs are checked against, for the campaign */
    char *kernel_name;
    char *kernel_file;        /* resolved against the T1 file's folder */
    char *kernel_source;
    char *compiler_options;   /* CompilerOptions joined, "" when none */

    param_def *params;
    size_t n_params;
    int *default_index;       /* each parameter's Default among its values; -1: none */

    int64_t problem_size[T1_MAX_PROBLEM];
    size_t n_problem;

    char **constraints;       /* Conditions, then the work-group limits */
    size_t n_constraints;

    unsigned work_dim;
    t1_expression local[3];
    t1_expression global[3];  /* work-items, or work-groups when global_counts_groups */
    bool global_counts_groups;
    t1_expression *grid_div[3]; /* GridDivX/Y/Z: groups = ceil(ProblemSize[d] / product) */
    size_t n_grid_div[3];

    t1_argument *args;
    size_t n_args;
    t1_reference *refs;       /* none: the Default configuration's outputs are the reference */
    size_t n_refs;
    t1_check default_check;   /* how outputs are compared with the Default's */

    uint64_t hash;            /* the file, the kernel source and every DataSource */
} t1_kernel;

int t1_kernel_load(const char *path, t1_kernel **out, skytune_error *err);
void t1_kernel_free(t1_kernel *spec);

#endif
