/* libFuzzer harness: the constraint expression parser and evaluator
 * (framework/core/expr.c), and the quoting of text in messages.
 *
 * The input is an expression's text. One that parses is evaluated with
 * slot values at the edges of what the evaluator must handle: the extremes
 * of int64 (overflow, INT64_MIN // -1), NaN, infinities, negative zero and
 * strings. Quoting the input must leave no control character and fit its
 * buffer, and so must every message about the input. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "fuzz_support.h"
#include "quote.h"

static const char *const names[] = {"a", "b", "c", "s", "device.max_work_group_size"};
#define N_NAMES (sizeof names / sizeof names[0])

static int resolve(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    for (size_t k = 0; k < N_NAMES; k++)
        if (strlen(names[k]) == len && memcmp(names[k], name, len) == 0) return (int)k;
    return -1;
}

#define INT_SLOT(v) {.kind = EXPR_INT, .i = (v)}
#define FLOAT_SLOT(v) {.kind = EXPR_FLOAT, .f = (v)}
#define STRING_SLOT(v) {.kind = EXPR_STRING, .s = (v)}

static void check_quoting(const uint8_t *data, size_t size)
{
    if (size == 0) return;
    char quoted[96];
    size_t len = 1 + data[0] % sizeof quoted;
    quote_span((const char *)data, size, quoted, len);
    size_t n = strlen(quoted);
    if (n >= len) abort();
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)quoted[k];
        if (c < 0x20 || c == 0x7F) abort();
        /* C1 controls as UTF-8 (C2 80..C2 9F) must be escaped too. */
        if (c == 0xC2 && k + 1 < n && (unsigned char)quoted[k + 1] >= 0x80 &&
            (unsigned char)quoted[k + 1] <= 0x9F)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_quoting(data, size);
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    expr *e = NULL;
    skytune_error err = {0};
    if (expr_parse(text, resolve, NULL, &e, &err) == 0) {
        size_t n_slots = 0;
        const int *slots = expr_slots(e, &n_slots);
        for (size_t k = 0; k < n_slots; k++)
            if (slots[k] < 0 || (size_t)slots[k] >= N_NAMES) abort();
        const expr_value values[][N_NAMES] = {
            {INT_SLOT(0), INT_SLOT(1), INT_SLOT(-1), STRING_SLOT("x"), INT_SLOT(1024)},
            {INT_SLOT(INT64_MAX), INT_SLOT(INT64_MIN), INT_SLOT(-1), STRING_SLOT(""), INT_SLOT(0)},
            {FLOAT_SLOT(NAN), FLOAT_SLOT(INFINITY), FLOAT_SLOT(-0.0), STRING_SLOT("tiled"),
             FLOAT_SLOT(-INFINITY)},
            {INT_SLOT(INT64_MIN), INT_SLOT(-1), INT_SLOT(63), INT_SLOT(2), FLOAT_SLOT(1e308)},
        };
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            expr_value result;
            expr_eval_bool(e, values[v]);
            if (expr_eval(e, values[v], &result, &err) != 0) fuzz_check_message(&err);
        }
        if (strcmp(expr_text(e), text) != 0) abort();
        expr_free(e);
    } else {
        fuzz_check_message(&err);
    }
    free(text);
    return 0;
}
