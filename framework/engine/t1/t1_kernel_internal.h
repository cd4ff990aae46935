/* What the files reading a T1 kernel specification share (t1_kernel.c, the
 * reader; t1_expressions.c, its expressions and the messages both give):
 * internal to them, as the family's internals beside its contract,
 * t1_kernel.h. The reader calls into the expressions, never the other way. */
#ifndef SKYTUNE_T1_KERNEL_INTERNAL_H
#define SKYTUNE_T1_KERNEL_INTERNAL_H

#include <jansson.h>

#include "t1_expressions.h"
#include "t1_kernel.h"

/* Fill err with "FILE: message" and return -1. */
int t1_kernel_fail(const t1_kernel *s, skytune_error *err, const char *fmt, ...)
    SKYTUNE_PRINTF(3, 4);

/* The names an expression may use: the tuning parameters, the problem
 * sizes and, in Conditions, the device limits. */
typedef struct name_scope {
    const t1_kernel *spec;
    const char *const *device_names; /* NULL outside Conditions */
    size_t n_device;
} name_scope;

/* `text` at `key` with the T1 forms the constraint language lacks
 * rewritten into it (malloc'd into *out). */
int t1_rewrite(const t1_kernel *s, const char *key, const char *text, char **out,
               skytune_error *err);

/* Parse `text` (already rewritten) as the expression at `key`; `written`
 * is the file's text, for messages. */
int t1_parse_expression(const t1_kernel *s, const char *key, const char *written,
                        const char *text, const name_scope *scope, expr **out,
                        skytune_error *err);

/* A string or integer of the file as a compiled expression. */
int t1_compile_expression(const t1_kernel *s, const char *key, const json_t *j,
                          t1_expression *out, skytune_error *err);
void t1_expression_free(t1_expression *x);

#endif
