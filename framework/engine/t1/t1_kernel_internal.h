/* What the files reading a T1 kernel specification share (t1_kernel.c, the
 * reader; t1_keys.c, the keys it knows; t1_verification.c, how outputs are
 * verified; t1_expressions.c, its expressions and the messages all give):
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

/* Every key of the file known where it is (t1_keys.c): an unknown key is
 * refused naming it and, when it is a key of another object, where it
 * belongs. */
int t1_check_keys(const t1_kernel *s, const json_t *root, skytune_error *err);

/* An argument's or a reference's FillType, FillValue, RandomSeed and
 * DataSource (needed: FillType must be given). */
int t1_read_fill(t1_kernel *s, const char *key, const json_t *a, const t1_type *type, bool needed,
                 t1_fill *fill, skytune_error *err);

/* Item k of a list of the KernelSpecification: its Name (or "KIND k") into
 * *name, and the key messages show it by into key. */
int t1_name_item(const t1_kernel *s, const json_t *item, const char *list, const char *kind,
                 size_t k, char **name, char *key, size_t key_len, skytune_error *err);

/* ReferenceArguments and Verification, then what outputs are checked
 * against, in words (t1_verification.c). After the arguments. */
int t1_read_verification(t1_kernel *s, const json_t *ks, skytune_error *err);

#endif
