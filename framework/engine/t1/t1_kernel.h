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
 * P's values, the names of the Defines (the text of their expressions)
 * and NumGroups[d], the work-groups of the launch in dimension d. Every
 * failure names the file, the key and what is valid. */
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
    bool checked_by_reduction;/* an output that only Checks verify, never element-wise */
} t1_argument;

typedef struct t1_reference {
    char *name;
    size_t target;            /* the argument it checks */
    t1_fill fill;             /* the expected data */
    t1_check check;
} t1_reference;

/* How outputs are verified (Verification.Method, a T1 extension). */
typedef enum t1_verify_method {
    T1_VERIFY_NONE,             /* no element-wise comparison (Checks may still run) */
    T1_VERIFY_DEFAULT,          /* the Default configuration's outputs */
    T1_VERIFY_REFERENCES,       /* the ReferenceArguments' data */
    T1_VERIFY_KERNEL            /* the outputs of a second kernel of the same file */
} t1_verify_method;

typedef enum t1_reduce { T1_REDUCE_SUM, T1_REDUCE_MIN, T1_REDUCE_MAX } t1_reduce;

/* Verification.Checks item: a reduction of an output compared with the
 * same reduction of another argument, or of the reference's data of the
 * same output when `against` is SIZE_MAX. */
typedef struct t1_reduction_check {
    char *text;               /* e.g. "sum(partial) = sum(x)", for messages */
    size_t output;            /* the argument reduced */
    size_t against;           /* the argument it must match, or SIZE_MAX */
    t1_reduce reduce;
    double threshold;         /* relative: |got - want| <= threshold * |want| */
} t1_reduction_check;

typedef struct t1_define {
    char *name;
    t1_expression value;
} t1_define;

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
    /* A ProblemSize entry written as an expression of the tuning
     * parameters (e.g. "num_blocks") is no problem parameter: its value is
     * the expression's, per configuration. */
    t1_expression problem_expr[T1_MAX_PROBLEM];
    size_t n_problem;

    t1_define *defines;       /* KernelSpecification.Defines, in the file's order */
    size_t n_defines;
    t1_expression flops;      /* KernelSpecification.Flops, Bytes: work of one run */
    t1_expression bytes;

    char **constraints;       /* Conditions, then the work-group limits */
    size_t n_constraints;

    unsigned work_dim;
    t1_expression local[3];
    t1_expression global[3];  /* work-items, or work-groups when global_counts_groups */
    bool global_counts_groups;
    t1_expression *grid_div[3]; /* GridDivX/Y/Z: groups = ceil(ProblemSize[d] / product) */
    size_t n_grid_div[3];
    bool has_grid_div[3];     /* GridDivX/Y/Z given, [] included (a product of 1) */

    t1_argument *args;
    size_t n_args;
    t1_reference *refs;       /* ReferenceArguments */
    size_t n_refs;
    t1_verify_method method;
    t1_check default_check;   /* how outputs are compared with a computed reference */
    char *compared_with;      /* what a wrong_result differs from, in words */
    char *reference_kernel;   /* T1_VERIFY_KERNEL: its name */
    t1_expression reference_local[3];  /* its work-group (e == NULL: the driver's choice) */
    t1_expression reference_global[3]; /* its work-items */
    unsigned reference_work_dim;
    bool *output_param;       /* per tuning parameter: in Verification.OutputParameters */
    t1_reduction_check *checks;
    size_t n_checks;

    uint64_t hash;            /* the file, the kernel source and every DataSource */
} t1_kernel;

/* Whether a tuning parameter changes what the kernel computes: a computed
 * reference is then made for the same values of every such parameter. */
static inline bool t1_has_output_params(const t1_kernel *s)
{
    for (size_t k = 0; k < s->n_params; k++)
        if (s->output_param[k]) return true;
    return false;
}

int t1_kernel_load(const char *path, t1_kernel **out, skytune_error *err);
void t1_kernel_free(t1_kernel *spec);

#endif
