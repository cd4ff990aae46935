/* Constraint expressions: the Python-like syntax of the T1 format's
 * Conditions, parsed once into a compact form and evaluated many times.
 *
 * Grammar (lowest precedence first):
 *   or_expr    := and_expr ('or' and_expr)*
 *   and_expr   := not_expr ('and' not_expr)*
 *   not_expr   := 'not' not_expr | comparison
 *   comparison := sum (cmp_op sum)*          -- chains: a < b < c means a<b and b<c,
 *                                               each operand evaluated once
 *   cmp_op     := '==' | '!=' | '<' | '<=' | '>' | '>='
 *   sum        := term (('+' | '-') term)*
 *   term       := unary (('*' | '/' | '//' | '%') unary)*
 *   unary      := ('-' | '+') unary | power
 *   power      := atom ('**' unary)?         -- right-associative, binds tighter than unary minus on its left
 *   atom       := INT | FLOAT | STRING | NAME | 'True' | 'False' | '(' or_expr ')'
 *   NAME       := [A-Za-z_][A-Za-z0-9_]* ('.' [A-Za-z_][A-Za-z0-9_]*)*
 *   STRING     := '...' or "..."
 *
 * Semantics follow Python: `/` is true division (a float), `//` floors, `%`
 * takes the sign of the divisor, int ** negative int is a float, `and`/`or`
 * short-circuit and yield booleans (used as integers 0/1). Strings compare
 * with == and != only (to strings); comparing a string with a number is
 * "not equal". Division or modulo by zero makes the whole expression false
 * (a configuration that a Python evaluator would reject with an exception). */
#ifndef SKYTUNE_EXPR_H
#define SKYTUNE_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef enum expr_kind { EXPR_INT = 0, EXPR_FLOAT = 1, EXPR_STRING = 2 } expr_kind;

typedef struct expr_value {
    expr_kind kind;
    int64_t i;
    double f;
    const char *s; /* borrowed; valid while the slot array is */
} expr_value;

typedef struct expr expr;

/* Resolve a name (not NUL-terminated: `len` bytes) to a slot index >= 0, or
 * return -1 when the name is unknown. */
typedef int (*expr_resolve_fn)(void *ctx, const char *name, size_t len);

/* Parse `text`. Unknown names and syntax errors fail with a message that
 * gives the 1-based column, e.g. "column 9: expected an operand after '*'"
 * or "column 1: unknown name 'wg_z'". */
int expr_parse(const char *text, expr_resolve_fn resolve, void *ctx, expr **out,
               skytune_error *err);

/* The same for the `len` bytes at `text`, a part of a longer text that
 * starts at 0-based column `column_base` of it: messages and runtime
 * errors give columns of the longer text, and the expression keeps only
 * its own part. Parsing each item of a long list this way costs the item,
 * not the list. */
int expr_parse_span(const char *text, size_t len, size_t column_base, expr_resolve_fn resolve,
                    void *ctx, expr **out, skytune_error *err);

void expr_free(expr *e);

/* The distinct slots the expression reads, ascending. */
const int *expr_slots(const expr *e, size_t *count);

/* Evaluate with slots[k] holding the value of slot k. Returns the Python
 * truthiness of the result; false on a runtime error (division by zero). */
bool expr_eval_bool(const expr *e, const expr_value *slots);

/* Evaluate to a value. Returns 0, or -1 with a message on a runtime error. */
int expr_eval(const expr *e, const expr_value *slots, expr_value *result, skytune_error *err);

/* The source text the expression was parsed from. */
const char *expr_text(const expr *e);

/* The 1-based column of the text's first byte in the text it was part of
 * (1 for expr_parse). */
size_t expr_first_column(const expr *e);

#endif
