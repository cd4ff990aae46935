/* Constraint expressions: a recursive-descent parser that emits code for a
 * small stack machine, and the machine that runs it.
 *
 * Why a stack machine: the search-space enumerator evaluates constraints on
 * the order of 10^8 times, so evaluation must not allocate, must not chase
 * pointers through a tree, and must keep the common case (integers compared
 * with integers) on a short path. The code is a flat array of fixed-size
 * instructions with constants inline; the value stack lives on the C stack.
 *
 * Short-circuits and comparison chains compile to forward jumps:
 *   a and b      ->  a; AND_JUMP L; b; TO_BOOL; L:
 *   x < y <= z   ->  x; y; LT(chain) L; z; LE; L:
 * AND_JUMP leaves 0 and jumps when its operand is false, else pops it. A
 * comparison in a chain leaves 0 and jumps when false; when true it keeps
 * only its right operand, which becomes the left operand of the next
 * comparison: every operand of a chain is evaluated once.
 *
 * Two rewrites shrink the code, since every instruction costs a dispatch:
 * binary instructions take constant and name operands directly instead of
 * through the stack (a * 4 is one instruction, not three), and once the code
 * is complete, jumps that land on a jump that must go on are retargeted, and
 * a comparison followed by AND_JUMP or OR_JUMP becomes one comparison that
 * branches on its own result (a < b and ... -> LT(branch if false) L; ...).
 *
 * Integer overflow. Python integers are unbounded; ours are 64-bit. When
 * +, -, *, unary minus, // or ** overflows, the operation is redone in
 * double precision and the result is a float, which is what a Python
 * evaluator's huge integer becomes as soon as it meets a comparison with a
 * realistic bound: the truth of `2**70 > max_size` is the same either way.
 * Treating overflow as an error instead would silently reject
 * configurations that Python accepts. No C undefined behaviour is involved:
 * every integer operation that can overflow goes through
 * __builtin_*_overflow or is special-cased (INT64_MIN // -1, INT64_MIN % -1).
 *
 * Floats follow CPython, with one difference: a float result out of range
 * is inf instead of an OverflowError. */
#include "expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

/* Nesting is bounded so that the recursive parser cannot exhaust the C
 * stack on hostile input, and so that the value stack can be a fixed array:
 * each nesting level costs at most one stack cell. */
#define EXPR_MAX_NESTING 200
#define EXPR_MAX_STACK 256

/* Tokens quoted in messages are cut to this many bytes (escaped), then "...". */
#define QUOTED_MAX 40

/* ------------------------------------------------------------ machine */

typedef struct cell {
    expr_kind kind;
    union {
        int64_t i;
        double f;
        const char *s;
    };
} cell;

typedef enum opcode {
    OP_END,
    OP_PUSH, /* constant */
    OP_LOAD, /* slot */
    OP_NEG,
    OP_POS,
    OP_NOT,
    OP_TO_BOOL,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_FLOOR_DIV,
    OP_MOD,
    OP_POW,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_AND_JUMP, /* target */
    OP_OR_JUMP,  /* target */
    OP_COUNT
} opcode;

/* What a comparison does with its result. */
typedef enum branch_kind {
    BRANCH_NONE = 0, /* leave it on the stack */
    BRANCH_CHAIN,    /* a link of a chain: false -> leave 0 and jump; true -> keep the right operand */
    BRANCH_IF_FALSE, /* fused `and`: false -> leave 0 and jump; true -> drop it */
    BRANCH_IF_TRUE   /* fused `or`: true -> leave 1 and jump; false -> drop it */
} branch_kind;

/* Where a binary instruction (OP_ADD..OP_GE) finds each operand. Taking
 * a constant or a slot directly, instead of through a push or load, saves
 * one dispatch per such operand: in typical constraints most operands are
 * names or literals, so this removes about a third of the instructions. */
typedef enum operand_source { FROM_STACK = 0, FROM_CONSTANT, FROM_SLOT } operand_source;

typedef struct insn {
    uint8_t op;
    uint8_t branch;         /* branch_kind, comparisons */
    uint8_t left, right;    /* operand_source, binary instructions */
    int32_t target;         /* jumps, and comparisons that branch */
    int32_t slot;           /* OP_LOAD, and a right operand FROM_SLOT */
    int32_t left_slot;      /* a left operand FROM_SLOT */
    cell constant;          /* OP_PUSH, and an operand FROM_CONSTANT (only one side) */
} insn;

struct expr {
    insn *code;
    size_t *columns;   /* per instruction: the 1-based column of its operator */
    size_t n_code;
    int *slots;        /* distinct, ascending */
    size_t n_slots;
    char **strings;    /* decoded string literals, referenced by the code */
    size_t n_strings;
    char *text;
    size_t column_base;  /* columns of text start after this many (expr_parse_span) */
};

/* Runtime failures. Detected in the machine without formatting anything, so
 * that expr_eval_bool pays nothing for them; expr_eval turns them into text. */
typedef enum fault_kind {
    FAULT_NONE = 0,
    FAULT_ZERO_DIVISION,
    FAULT_ZERO_MODULO,
    FAULT_ZERO_NEGATIVE_POWER,
    FAULT_COMPLEX_POWER,
    FAULT_OPERAND_TYPES,
    FAULT_STRING_ORDER,
    FAULT_UNARY_TYPE
} fault_kind;

typedef struct fault {
    size_t pc;
    expr_kind left, right;
} fault;

static const char *kind_name(expr_kind kind)
{
    switch (kind) {
    case EXPR_INT: return "int";
    case EXPR_FLOAT: return "float";
    case EXPR_STRING: return "string";
    }
    return "value";
}

static const char *opcode_symbol(int op)
{
    switch (op) {
    case OP_NEG: return "-";
    case OP_POS: return "+";
    case OP_NOT: return "not";
    case OP_ADD: return "+";
    case OP_SUB: return "-";
    case OP_MUL: return "*";
    case OP_DIV: return "/";
    case OP_FLOOR_DIV: return "//";
    case OP_MOD: return "%";
    case OP_POW: return "**";
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_AND_JUMP: return "and";
    case OP_OR_JUMP: return "or";
    }
    return "?";
}

static bool truthy(const cell *c)
{
    switch (c->kind) {
    case EXPR_INT: return c->i != 0;
    case EXPR_FLOAT: return c->f != 0.0; /* NaN is true, as in Python */
    case EXPR_STRING: return c->s[0] != '\0';
    }
    return false;
}

static double as_double(const cell *c)
{
    return c->kind == EXPR_FLOAT ? c->f : (double)c->i;
}

static fault_kind set_float(cell *c, double f)
{
    c->kind = EXPR_FLOAT;
    c->f = f;
    return FAULT_NONE;
}

static fault_kind int_power(cell *a, int64_t base, int64_t exponent)
{
    if (exponent < 0) {
        if (base == 0) return FAULT_ZERO_NEGATIVE_POWER;
        return set_float(a, pow((double)base, (double)exponent));
    }
    int64_t result = 1, square = base;
    uint64_t e = (uint64_t)exponent;
    while (e) {
        if ((e & 1u) && __builtin_mul_overflow(result, square, &result))
            return set_float(a, pow((double)base, (double)exponent));
        e >>= 1;
        /* Squaring once more than needed would overflow needlessly. */
        if (e && __builtin_mul_overflow(square, square, &square))
            return set_float(a, pow((double)base, (double)exponent));
    }
    a->i = result;
    return FAULT_NONE;
}

static fault_kind int_arith(int op, cell *a, int64_t y)
{
    int64_t x = a->i, r;
    switch (op) {
    case OP_ADD:
        if (__builtin_add_overflow(x, y, &r)) return set_float(a, (double)x + (double)y);
        a->i = r;
        return FAULT_NONE;
    case OP_SUB:
        if (__builtin_sub_overflow(x, y, &r)) return set_float(a, (double)x - (double)y);
        a->i = r;
        return FAULT_NONE;
    case OP_MUL:
        if (__builtin_mul_overflow(x, y, &r)) return set_float(a, (double)x * (double)y);
        a->i = r;
        return FAULT_NONE;
    case OP_DIV:
        if (y == 0) return FAULT_ZERO_DIVISION;
        return set_float(a, (double)x / (double)y);
    case OP_FLOOR_DIV:
        if (y == 0) return FAULT_ZERO_DIVISION;
        if (y == -1) {
            if (x == INT64_MIN) return set_float(a, -(double)INT64_MIN);
            a->i = -x;
            return FAULT_NONE;
        }
        r = x / y;
        if (x % y != 0 && ((x < 0) != (y < 0))) r--; /* C truncates; Python floors */
        a->i = r;
        return FAULT_NONE;
    case OP_MOD:
        if (y == 0) return FAULT_ZERO_MODULO;
        if (y == -1) { /* INT64_MIN % -1 is undefined in C */
            a->i = 0;
            return FAULT_NONE;
        }
        r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) r += y; /* the sign of the divisor */
        a->i = r;
        return FAULT_NONE;
    case OP_POW:
        return int_power(a, x, y);
    }
    return FAULT_OPERAND_TYPES;
}

/* CPython's float_divmod, so that -7.5 // 2 and 7.5 % -2 agree with Python
 * to the last bit. */
static double float_floor_div(double x, double y)
{
    double mod = fmod(x, y);
    double div = (x - mod) / y;
    if (mod != 0.0 && ((y < 0) != (mod < 0))) div -= 1.0;
    if (div == 0.0) return copysign(0.0, x / y);
    double floored = floor(div);
    if (div - floored > 0.5) floored += 1.0;
    return floored;
}

static double float_mod(double x, double y)
{
    double mod = fmod(x, y);
    if (mod != 0.0) {
        if ((y < 0) != (mod < 0)) mod += y;
    } else {
        mod = copysign(0.0, y);
    }
    return mod;
}

static fault_kind float_arith(int op, cell *a, double x, double y)
{
    switch (op) {
    case OP_ADD: return set_float(a, x + y);
    case OP_SUB: return set_float(a, x - y);
    case OP_MUL: return set_float(a, x * y);
    case OP_DIV:
        if (y == 0.0) return FAULT_ZERO_DIVISION;
        return set_float(a, x / y);
    case OP_FLOOR_DIV:
        if (y == 0.0) return FAULT_ZERO_DIVISION;
        return set_float(a, float_floor_div(x, y));
    case OP_MOD:
        if (y == 0.0) return FAULT_ZERO_MODULO;
        return set_float(a, float_mod(x, y));
    case OP_POW:
        if (x == 0.0 && y < 0.0) return FAULT_ZERO_NEGATIVE_POWER;
        /* Python would answer with a complex number. */
        if (x < 0.0 && isfinite(x) && isfinite(y) && y != floor(y)) return FAULT_COMPLEX_POWER;
        return set_float(a, pow(x, y));
    }
    return FAULT_OPERAND_TYPES;
}

/* a = a op b for any operand kinds. */
static fault_kind binary_arith(int op, cell *a, const cell *b)
{
    if (a->kind == EXPR_STRING || b->kind == EXPR_STRING) return FAULT_OPERAND_TYPES;
    if (a->kind == EXPR_INT && b->kind == EXPR_INT) return int_arith(op, a, b->i);
    return float_arith(op, a, as_double(a), as_double(b));
}

static fault_kind unary_arith(int op, cell *a)
{
    if (a->kind == EXPR_STRING) return FAULT_UNARY_TYPE;
    if (op == OP_POS) return FAULT_NONE;
    if (a->kind == EXPR_FLOAT) return set_float(a, -a->f);
    if (a->i == INT64_MIN) return set_float(a, -(double)INT64_MIN);
    a->i = -a->i;
    return FAULT_NONE;
}

/* Order of an integer and a finite double, exact like Python's: converting
 * 2**53 + 1 to double would make it equal to 2.0**53. Returns -1, 0, 1. */
static int order_int_double(int64_t i, double f)
{
    if (i > -(INT64_C(1) << 53) && i < (INT64_C(1) << 53)) {
        double d = (double)i;
        return (d > f) - (d < f);
    }
    if (f >= 9223372036854775808.0) return -1;
    if (f < -9223372036854775808.0) return 1;
    double whole = trunc(f);
    int64_t w = (int64_t)whole;
    if (i != w) return i < w ? -1 : 1;
    double fraction = f - whole;
    return (fraction < 0) - (fraction > 0);
}

#define UNORDERED 2

static bool order_satisfies(int compare, int order)
{
    switch (compare) {
    case OP_EQ: return order == 0;
    case OP_NE: return order != 0;
    case OP_LT: return order == -1;
    case OP_LE: return order == -1 || order == 0;
    case OP_GT: return order == 1;
    case OP_GE: return order == 1 || order == 0;
    }
    return false;
}

static fault_kind compare_cells(int compare, const cell *a, const cell *b, bool *truth)
{
    if (a->kind == EXPR_STRING || b->kind == EXPR_STRING) {
        if (compare != OP_EQ && compare != OP_NE) return FAULT_STRING_ORDER;
        bool same = a->kind == b->kind && strcmp(a->s, b->s) == 0;
        *truth = (compare == OP_EQ) == same;
        return FAULT_NONE;
    }
    int order;
    if (a->kind == EXPR_INT && b->kind == EXPR_INT) {
        order = (a->i > b->i) - (a->i < b->i);
    } else if (a->kind == EXPR_FLOAT && b->kind == EXPR_FLOAT) {
        order = (isnan(a->f) || isnan(b->f)) ? UNORDERED : (a->f > b->f) - (a->f < b->f);
    } else if (a->kind == EXPR_INT) {
        order = isnan(b->f) ? UNORDERED : order_int_double(a->i, b->f);
    } else {
        order = isnan(a->f) ? UNORDERED : -order_int_double(b->i, a->f);
    }
    *truth = order_satisfies(compare, order);
    return FAULT_NONE;
}

static inline void load_slot(cell *dst, const expr_value *v)
{
    if (v->kind == EXPR_INT) {
        dst->kind = EXPR_INT;
        dst->i = v->i;
    } else if (v->kind == EXPR_FLOAT) {
        dst->kind = EXPR_FLOAT;
        dst->f = v->f;
    } else if (v->kind == EXPR_STRING) {
        dst->kind = EXPR_STRING;
        dst->s = v->s ? v->s : "";
    } else { /* not a kind at all: read as an integer rather than chase a pointer */
        dst->kind = EXPR_INT;
        dst->i = v->i;
    }
}

/* Binds `b` to the right operand and `a` to the left one, which is on the
 * stack (pushed here when it comes from a constant or a slot) and receives
 * the result. The parser fuses the left operand only together with the
 * right one, so pushing `a` never overwrites a `b` popped from the stack. */
#define BINARY_OPERANDS                                                       \
    cell right_value;                                                         \
    const cell *b;                                                            \
    if (in->right == FROM_STACK) {                                            \
        b = --sp;                                                             \
    } else if (in->right == FROM_CONSTANT) {                                  \
        b = &in->constant;                                                    \
    } else {                                                                  \
        load_slot(&right_value, &slots[in->slot]);                            \
        b = &right_value;                                                     \
    }                                                                         \
    cell *a = sp - 1;                                                         \
    if (in->left != FROM_STACK) {                                             \
        a = sp++;                                                             \
        if (in->left == FROM_CONSTANT)                                        \
            *a = in->constant;                                                \
        else                                                                  \
            load_slot(a, &slots[in->left_slot]);                              \
    }

#define FAIL_BINARY                                                           \
    do {                                                                      \
        where->left = a->kind;                                                \
        where->right = b->kind;                                               \
        goto failed;                                                          \
    } while (0)

/* Dispatch. With GCC and Clang every handler ends in its own indirect jump
 * through a table of label addresses (a GNU extension), which the branch
 * predictor tells apart far better than the single jump of a switch; other
 * compilers, or a build with EXPR_SWITCH_DISPATCH defined, get the switch. */
#if defined(__GNUC__) && !defined(EXPR_SWITCH_DISPATCH)
#define EXPR_COMPUTED_GOTO 1
#else
#define EXPR_COMPUTED_GOTO 0
#endif

#if EXPR_COMPUTED_GOTO
#define HANDLER(OP) handle_##OP
#define NEXT                                                                  \
    do {                                                                      \
        in = ip++;                                                            \
        goto *handlers[in->op];                                               \
    } while (0)
#else
#define HANDLER(OP) case OP
#define NEXT continue
#endif

#if EXPR_COMPUTED_GOTO
/* The label-address table is the one deliberate extension; keep -Wpedantic
 * builds quiet about it without hiding anything else in the file. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif

/* Runs the code; on success the result is in *result. Kept free of
 * formatting and allocation: this is the loop the enumerator lives in. */
static inline fault_kind run(const expr *e, const expr_value *slots, cell *result, fault *where)
{
    cell stack[EXPR_MAX_STACK];
    cell *sp = stack; /* the next free cell */
    const insn *code = e->code;
    const insn *ip = code;
    const insn *in;
    fault_kind failure;

#if EXPR_COMPUTED_GOTO
    static const void *const handlers[OP_COUNT] = {
        [OP_END] = &&HANDLER(OP_END),
        [OP_PUSH] = &&HANDLER(OP_PUSH),
        [OP_LOAD] = &&HANDLER(OP_LOAD),
        [OP_NEG] = &&HANDLER(OP_NEG),
        [OP_POS] = &&HANDLER(OP_POS),
        [OP_NOT] = &&HANDLER(OP_NOT),
        [OP_TO_BOOL] = &&HANDLER(OP_TO_BOOL),
        [OP_ADD] = &&HANDLER(OP_ADD),
        [OP_SUB] = &&HANDLER(OP_SUB),
        [OP_MUL] = &&HANDLER(OP_MUL),
        [OP_DIV] = &&HANDLER(OP_DIV),
        [OP_FLOOR_DIV] = &&HANDLER(OP_FLOOR_DIV),
        [OP_MOD] = &&HANDLER(OP_MOD),
        [OP_POW] = &&HANDLER(OP_POW),
        [OP_EQ] = &&HANDLER(OP_EQ),
        [OP_NE] = &&HANDLER(OP_NE),
        [OP_LT] = &&HANDLER(OP_LT),
        [OP_LE] = &&HANDLER(OP_LE),
        [OP_GT] = &&HANDLER(OP_GT),
        [OP_GE] = &&HANDLER(OP_GE),
        [OP_AND_JUMP] = &&HANDLER(OP_AND_JUMP),
        [OP_OR_JUMP] = &&HANDLER(OP_OR_JUMP),
    };
    NEXT;
#else
    for (;;) {
        in = ip++;
        switch ((opcode)in->op) {
        case OP_COUNT:
            break;
#endif

    HANDLER(OP_END):
        *result = stack[0];
        return FAULT_NONE;
    HANDLER(OP_PUSH):
        *sp++ = in->constant;
        NEXT;
    HANDLER(OP_LOAD):
        load_slot(sp++, &slots[in->slot]);
        NEXT;
    HANDLER(OP_NEG):
        if (sp[-1].kind == EXPR_INT && sp[-1].i != INT64_MIN) {
            sp[-1].i = -sp[-1].i;
            NEXT;
        }
        failure = unary_arith(OP_NEG, &sp[-1]);
        if (failure) goto failed_unary;
        NEXT;
    HANDLER(OP_POS):
        failure = unary_arith(OP_POS, &sp[-1]);
        if (failure) goto failed_unary;
        NEXT;
    HANDLER(OP_NOT):
        sp[-1].i = !truthy(&sp[-1]);
        sp[-1].kind = EXPR_INT;
        NEXT;
    HANDLER(OP_TO_BOOL):
        sp[-1].i = truthy(&sp[-1]);
        sp[-1].kind = EXPR_INT;
        NEXT;

#define ARITH_HANDLER(OP, FAST)                                               \
    HANDLER(OP): {                                                            \
        BINARY_OPERANDS                                                       \
        if (a->kind == EXPR_INT && b->kind == EXPR_INT) {                     \
            int64_t r;                                                        \
            if (!FAST(a->i, b->i, &r)) {                                      \
                a->i = r;                                                     \
                NEXT;                                                         \
            }                                                                 \
        }                                                                     \
        failure = binary_arith(OP, a, b);                                     \
        if (failure) FAIL_BINARY;                                             \
        NEXT;                                                                 \
    }
    ARITH_HANDLER(OP_ADD, __builtin_add_overflow)
    ARITH_HANDLER(OP_SUB, __builtin_sub_overflow)
    ARITH_HANDLER(OP_MUL, __builtin_mul_overflow)
#undef ARITH_HANDLER

#define SLOW_ARITH_HANDLER(OP)                                                \
    HANDLER(OP): {                                                            \
        BINARY_OPERANDS                                                       \
        failure = binary_arith(OP, a, b);                                     \
        if (failure) FAIL_BINARY;                                             \
        NEXT;                                                                 \
    }
    SLOW_ARITH_HANDLER(OP_DIV)
    SLOW_ARITH_HANDLER(OP_FLOOR_DIV)
    SLOW_ARITH_HANDLER(OP_MOD)
    SLOW_ARITH_HANDLER(OP_POW)
#undef SLOW_ARITH_HANDLER

#define COMPARE_HANDLER(OP, C_OPERATOR)                                       \
    HANDLER(OP): {                                                            \
        BINARY_OPERANDS                                                       \
        bool truth;                                                           \
        if (a->kind == EXPR_INT && b->kind == EXPR_INT) {                     \
            truth = a->i C_OPERATOR b->i;                                     \
        } else {                                                              \
            failure = compare_cells(OP, a, b, &truth);                        \
            if (failure) FAIL_BINARY;                                         \
        }                                                                     \
        if (in->branch == BRANCH_NONE) {                                      \
            a->kind = EXPR_INT;                                               \
            a->i = truth;                                                     \
        } else if (in->branch == BRANCH_CHAIN) {                              \
            if (truth) {                                                      \
                *a = *b;                                                      \
            } else {                                                          \
                a->kind = EXPR_INT;                                           \
                a->i = 0;                                                     \
                ip = code + in->target;                                       \
            }                                                                 \
        } else if (truth == (in->branch == BRANCH_IF_TRUE)) {                 \
            a->kind = EXPR_INT;                                               \
            a->i = truth;                                                     \
            ip = code + in->target;                                           \
        } else {                                                              \
            sp = a;                                                           \
        }                                                                     \
        NEXT;                                                                 \
    }
    COMPARE_HANDLER(OP_EQ, ==)
    COMPARE_HANDLER(OP_NE, !=)
    COMPARE_HANDLER(OP_LT, <)
    COMPARE_HANDLER(OP_LE, <=)
    COMPARE_HANDLER(OP_GT, >)
    COMPARE_HANDLER(OP_GE, >=)
#undef COMPARE_HANDLER

    HANDLER(OP_AND_JUMP):
        if (!truthy(&sp[-1])) {
            sp[-1].kind = EXPR_INT;
            sp[-1].i = 0;
            ip = code + in->target;
        } else {
            sp--;
        }
        NEXT;
    HANDLER(OP_OR_JUMP):
        if (truthy(&sp[-1])) {
            sp[-1].kind = EXPR_INT;
            sp[-1].i = 1;
            ip = code + in->target;
        } else {
            sp--;
        }
        NEXT;

#if !EXPR_COMPUTED_GOTO
        }
    }
#endif

failed_unary:
    where->left = where->right = sp[-1].kind;
failed:
    where->pc = (size_t)(in - code);
    return failure;
}

#if EXPR_COMPUTED_GOTO
#pragma GCC diagnostic pop
#endif

#undef HANDLER
#undef NEXT
#undef BINARY_OPERANDS
#undef FAIL_BINARY

static int fault_message(const expr *e, fault_kind failure, const fault *where,
                         skytune_error *err)
{
    const insn *in = &e->code[where->pc];
    size_t column = e->columns[where->pc];
    const char *symbol = opcode_symbol(in->op);
    switch (failure) {
    case FAULT_ZERO_DIVISION:
        return err_set(err, "column %zu: division by zero in '%s'", column, symbol);
    case FAULT_ZERO_MODULO:
        return err_set(err, "column %zu: modulo by zero in '%%'", column);
    case FAULT_ZERO_NEGATIVE_POWER:
        return err_set(err, "column %zu: zero raised to a negative power in '**'", column);
    case FAULT_COMPLEX_POWER:
        return err_set(err, "column %zu: negative number raised to a fractional power in '**' "
                       "(the result is not a real number)", column);
    case FAULT_OPERAND_TYPES:
        return err_set(err, "column %zu: unsupported operand types for '%s': %s and %s; "
                       "arithmetic needs numbers", column, symbol, kind_name(where->left),
                       kind_name(where->right));
    case FAULT_STRING_ORDER:
        return err_set(err, "column %zu: cannot compare %s and %s with '%s'; strings compare "
                       "only with '==' and '!='", column, kind_name(where->left),
                       kind_name(where->right), symbol);
    case FAULT_UNARY_TYPE:
        return err_set(err, "column %zu: bad operand type for unary '%s': string", column, symbol);
    case FAULT_NONE:
        break;
    }
    return err_set(err, "column %zu: evaluation failed", column);
}

bool expr_eval_bool(const expr *e, const expr_value *slots)
{
    cell result;
    fault where;
    if (run(e, slots, &result, &where) != FAULT_NONE) return false;
    return truthy(&result);
}

int expr_eval(const expr *e, const expr_value *slots, expr_value *result, skytune_error *err)
{
    cell value;
    fault where;
    fault_kind failure = run(e, slots, &value, &where);
    if (failure != FAULT_NONE) return fault_message(e, failure, &where, err);
    if (result) {
        memset(result, 0, sizeof *result);
        result->kind = value.kind;
        switch (value.kind) {
        case EXPR_INT: result->i = value.i; break;
        case EXPR_FLOAT: result->f = value.f; break;
        case EXPR_STRING: result->s = value.s; break;
        }
    }
    return 0;
}

const int *expr_slots(const expr *e, size_t *count)
{
    if (count) *count = e->n_slots;
    return e->slots;
}

const char *expr_text(const expr *e)
{
    return e->text;
}

size_t expr_first_column(const expr *e)
{
    return e->column_base + 1;
}

void expr_free(expr *e)
{
    if (!e) return;
    for (size_t k = 0; k < e->n_strings; k++) free(e->strings[k]);
    free(e->strings);
    free(e->code);
    free(e->columns);
    free(e->slots);
    free(e->text);
    free(e);
}

/* ------------------------------------------------------------- lexer */

typedef enum token_type {
    TOK_END,
    TOK_INT,
    TOK_FLOAT,
    TOK_STRING,
    TOK_NAME,
    TOK_AND,
    TOK_OR,
    TOK_NOT,
    TOK_TRUE,
    TOK_FALSE,
    TOK_PLUS,
    TOK_MINUS,
    TOK_STAR,
    TOK_SLASH,
    TOK_DOUBLE_SLASH,
    TOK_PERCENT,
    TOK_DOUBLE_STAR,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_EQ,
    TOK_NE,
    TOK_LT,
    TOK_LE,
    TOK_GT,
    TOK_GE
} token_type;

typedef struct token {
    token_type type;
    size_t start, len; /* bytes of the text */
    int64_t i;         /* TOK_INT */
    double f;          /* TOK_FLOAT */
} token;

typedef struct parser {
    const char *text;
    size_t text_len;
    size_t column_base;  /* added to every column a message gives */
    size_t pos;          /* where the lexer continues */
    token tok;           /* the current token */
    token prev;          /* the last token consumed, when have_prev */
    bool have_prev;
    bool started;        /* tok holds a token */
    int nesting;
    expr_resolve_fn resolve;
    void *resolve_ctx;
    skytune_error *err;
    expr *out;           /* code, columns, strings and slots under construction */
    size_t code_cap, slots_cap, strings_cap;
    int stack, max_stack;
} parser;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

static size_t column_of(const parser *p, size_t offset) { return p->column_base + offset + 1; }

static int out_of_memory(parser *p)
{
    return err_set(p->err, "out of memory parsing expression");
}

static int lex_number(parser *p, token *t)
{
    const char *s = p->text;
    size_t n = p->text_len, at = t->start, end = at;
    bool is_float = false;
    unsigned base = 10;

    if (s[at] == '0' && at + 1 < n && (s[at + 1] == 'x' || s[at + 1] == 'X')) {
        base = 16;
        end = at + 2;
        while (end < n && ((s[end] >= '0' && s[end] <= '9') || (s[end] >= 'a' && s[end] <= 'f') ||
                           (s[end] >= 'A' && s[end] <= 'F')))
            end++;
        if (end == at + 2) end = at + 1; /* "0x" alone: reported below as invalid */
    } else {
        while (end < n && is_digit(s[end])) end++;
        if (end < n && s[end] == '.') {
            is_float = true;
            end++;
            while (end < n && is_digit(s[end])) end++;
        }
        if (end < n && (s[end] == 'e' || s[end] == 'E')) {
            size_t e = end + 1;
            if (e < n && (s[e] == '+' || s[e] == '-')) e++;
            if (e < n && is_digit(s[e])) {
                is_float = true;
                end = e;
                while (end < n && is_digit(s[end])) end++;
            }
        }
    }
    /* "12x", "1.5.2", "0x": digits run straight into something else. */
    if (end < n && (is_name_char(s[end]) || s[end] == '.')) {
        size_t stop = end;
        while (stop < n && (is_name_char(s[stop]) || s[stop] == '.')) stop++;
        return err_set(p->err, "column %zu: invalid number '%.*s'", column_of(p, at),
                       (int)(stop - at < QUOTED_MAX ? stop - at : QUOTED_MAX), s + at);
    }
    t->len = end - at;

    if (is_float) {
        char local[64];
        char *buf = local;
        if (t->len >= sizeof local) {
            buf = malloc(t->len + 1);
            if (!buf) return out_of_memory(p);
        }
        memcpy(buf, s + at, t->len);
        buf[t->len] = '\0';
        t->type = TOK_FLOAT;
        t->f = strtod(buf, NULL);
        if (buf != local) free(buf);
        return 0;
    }

    t->type = TOK_INT;
    uint64_t value = 0;
    for (size_t k = base == 16 ? at + 2 : at; k < end; k++) {
        char c = s[k];
        unsigned digit = is_digit(c) ? (unsigned)(c - '0')
                                     : (unsigned)((c | 0x20) - 'a' + 10);
        if (value > ((uint64_t)INT64_MAX - digit) / base)
            return err_set(p->err, "column %zu: integer '%.*s' is too large; the largest is "
                           "9223372036854775807", column_of(p, at),
                           (int)(t->len < QUOTED_MAX ? t->len : QUOTED_MAX), s + at);
        value = value * base + digit;
    }
    t->i = (int64_t)value;
    return 0;
}

static int lex_string(parser *p, token *t)
{
    const char *s = p->text;
    char quote = s[t->start];
    size_t end = t->start + 1;
    while (end < p->text_len && s[end] != quote) {
        if (s[end] == '\\' && end + 1 < p->text_len) end++;
        end++;
    }
    if (end >= p->text_len)
        return err_set(p->err, "column %zu: unterminated string: no closing %c",
                       column_of(p, t->start), quote);
    t->type = TOK_STRING;
    t->len = end + 1 - t->start;
    return 0;
}

static const struct {
    const char *word;
    token_type type;
} keywords[] = {
    {"and", TOK_AND}, {"or", TOK_OR}, {"not", TOK_NOT}, {"True", TOK_TRUE}, {"False", TOK_FALSE},
};

static void lex_name(parser *p, token *t)
{
    const char *s = p->text;
    size_t end = t->start;
    while (end < p->text_len && is_name_char(s[end])) end++;
    bool dotted = false;
    while (end + 1 < p->text_len && s[end] == '.' && is_name_start(s[end + 1])) {
        dotted = true;
        end++;
        while (end < p->text_len && is_name_char(s[end])) end++;
    }
    t->type = TOK_NAME;
    t->len = end - t->start;
    if (dotted) return;
    for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++) {
        if (strlen(keywords[k].word) == t->len && memcmp(keywords[k].word, s + t->start, t->len) == 0) {
            t->type = keywords[k].type;
            return;
        }
    }
}

/* Move to the next token. */
static int advance(parser *p)
{
    if (p->started) {
        p->prev = p->tok;
        p->have_prev = true;
    }
    p->started = true;
    const char *s = p->text;
    size_t n = p->text_len;
    while (p->pos < n && (s[p->pos] == ' ' || s[p->pos] == '\t' || s[p->pos] == '\n' ||
                          s[p->pos] == '\r'))
        p->pos++;

    token t;
    memset(&t, 0, sizeof t);
    t.start = p->pos;
    if (p->pos >= n) {
        t.type = TOK_END;
        p->tok = t;
        return 0;
    }

    char c = s[p->pos];
    char next = p->pos + 1 < n ? s[p->pos + 1] : '\0';
    t.len = 1;
    if (is_digit(c) || (c == '.' && is_digit(next))) {
        if (lex_number(p, &t)) return -1;
    } else if (is_name_start(c)) {
        lex_name(p, &t);
        size_t after = t.start + t.len;
        if (after < n && s[after] == '.' && !is_digit(after + 1 < n ? s[after + 1] : '\0'))
            return err_set(p->err, "column %zu: expected a name after '.' in '%.*s.'",
                           column_of(p, after), (int)(t.len < QUOTED_MAX ? t.len : QUOTED_MAX),
                           s + t.start);
    } else if (c == '\'' || c == '"') {
        if (lex_string(p, &t)) return -1;
    } else {
        switch (c) {
        case '+': t.type = TOK_PLUS; break;
        case '-': t.type = TOK_MINUS; break;
        case '%': t.type = TOK_PERCENT; break;
        case '(': t.type = TOK_LPAREN; break;
        case ')': t.type = TOK_RPAREN; break;
        case '*':
            t.type = next == '*' ? TOK_DOUBLE_STAR : TOK_STAR;
            break;
        case '/':
            t.type = next == '/' ? TOK_DOUBLE_SLASH : TOK_SLASH;
            break;
        case '<':
            t.type = next == '=' ? TOK_LE : TOK_LT;
            break;
        case '>':
            t.type = next == '=' ? TOK_GE : TOK_GT;
            break;
        case '=':
            if (next != '=')
                return err_set(p->err, "column %zu: a single '=' is not a comparison; use '==' "
                               "to compare", column_of(p, t.start));
            t.type = TOK_EQ;
            break;
        case '!':
            if (next != '=')
                return err_set(p->err, "column %zu: unexpected '!'; use '!=' to compare or "
                               "'not' to negate", column_of(p, t.start));
            t.type = TOK_NE;
            break;
        case '&':
            return err_set(p->err, "column %zu: unexpected '%s'; use 'and'", column_of(p, t.start),
                           next == '&' ? "&&" : "&");
        case '|':
            return err_set(p->err, "column %zu: unexpected '%s'; use 'or'", column_of(p, t.start),
                           next == '|' ? "||" : "|");
        default:
            if (c > ' ' && c < 127)
                return err_set(p->err, "column %zu: unexpected character '%c'",
                               column_of(p, t.start), c);
            return err_set(p->err, "column %zu: unexpected byte 0x%02x", column_of(p, t.start),
                           (unsigned)(unsigned char)c);
        }
        if (t.type == TOK_DOUBLE_STAR || t.type == TOK_DOUBLE_SLASH || t.type == TOK_LE ||
            t.type == TOK_GE || t.type == TOK_EQ || t.type == TOK_NE)
            t.len = 2;
    }
    p->pos = t.start + t.len;
    p->tok = t;
    return 0;
}

/* "'text'" for messages, or "end of input". A string literal may hold any
 * byte, so the token is quoted escaped (quote.h), cut at a character. */
static void describe_token(const parser *p, const token *t, char *buf, size_t len)
{
    if (t->type == TOK_END) {
        snprintf(buf, len, "end of input");
        return;
    }
    char shown[QUOTED_MAX + sizeof "..."];
    snprintf(buf, len, "'%s'", quote_span(p->text + t->start, t->len, shown, sizeof shown));
}

/* ----------------------------------------------------------- emitter */

/* What the parser knows about the code it just emitted for an operand. */
typedef struct operand {
    size_t start;   /* index of its first instruction */
    bool is_const;  /* its code is one OP_PUSH, at start */
    bool is_load;   /* its code is one OP_LOAD, at start */
    bool is_bool;   /* it always yields the integer 0 or 1 */
    bool is_string; /* it is a string literal */
} operand;

/* The operand that an operator has just produced from its operands. */
static void computed(operand *o, bool is_bool)
{
    o->is_const = false;
    o->is_load = false;
    o->is_string = false;
    o->is_bool = is_bool;
}

static int stack_effect(int op)
{
    switch (op) {
    case OP_PUSH:
    case OP_LOAD:
        return 1;
    case OP_END:
    case OP_NEG:
    case OP_POS:
    case OP_NOT:
    case OP_TO_BOOL:
        return 0;
    }
    return -1; /* binary instructions with both operands on the stack; the
                  jumps on their fall-through path */
}

static void adjust_stack(parser *p, int change)
{
    p->stack += change;
    if (p->stack > p->max_stack) p->max_stack = p->stack;
}

static int emit(parser *p, int op, size_t offset, insn **emitted)
{
    expr *e = p->out;
    if (e->n_code >= INT32_MAX) return err_set(p->err, "expression too long");
    if (e->n_code == p->code_cap) {
        size_t cap = p->code_cap ? 2 * p->code_cap : 16;
        insn *code = realloc(e->code, cap * sizeof *code);
        if (!code) return out_of_memory(p);
        e->code = code;
        size_t *columns = realloc(e->columns, cap * sizeof *columns);
        if (!columns) return out_of_memory(p);
        e->columns = columns;
        p->code_cap = cap;
    }
    insn *in = &e->code[e->n_code];
    memset(in, 0, sizeof *in);
    in->op = (uint8_t)op;
    e->columns[e->n_code] = column_of(p, offset);
    e->n_code++;
    adjust_stack(p, stack_effect(op));
    if (emitted) *emitted = in;
    return 0;
}

static int emit_cell(parser *p, const cell *c, size_t offset)
{
    insn *in;
    if (emit(p, OP_PUSH, offset, &in)) return -1;
    in->constant = *c;
    return 0;
}

static cell const_cell(const parser *p, const operand *o)
{
    return p->out->code[o->start].constant;
}

/* Replace the last `count` constant pushes (starting at `start`) by one. */
static int replace_with_const(parser *p, size_t start, int count, const cell *c, size_t offset)
{
    p->out->n_code = start;
    adjust_stack(p, -count);
    return emit_cell(p, c, offset);
}

/* Emit a binary instruction, moving operands whose code is a single push or
 * load into the instruction itself. */
static int emit_binary_insn(parser *p, int op, size_t offset, const operand *lhs,
                            const operand *rhs, insn **emitted)
{
    expr *e = p->out;
    bool fuse_right = (rhs->is_const || rhs->is_load) && rhs->start + 1 == e->n_code;
    /* Only one constant fits; two constants are folded unless that fails. */
    bool fuse_left = fuse_right && (lhs->is_const || lhs->is_load) &&
                     !(lhs->is_const && rhs->is_const) && lhs->start + 2 == e->n_code;
    insn right_code, left_code;
    memset(&right_code, 0, sizeof right_code);
    memset(&left_code, 0, sizeof left_code);
    if (fuse_right) right_code = e->code[e->n_code - 1];
    if (fuse_left) left_code = e->code[e->n_code - 2];
    int fused = (int)fuse_right + (int)fuse_left;
    e->n_code -= (size_t)fused;
    adjust_stack(p, -fused);

    insn *in;
    if (emit(p, op, offset, &in)) return -1;
    /* emit() counted two operands popped; the fused ones never were pushed. */
    adjust_stack(p, fused);
    if (fuse_right) {
        if (right_code.op == OP_PUSH) {
            in->right = FROM_CONSTANT;
            in->constant = right_code.constant;
        } else {
            in->right = FROM_SLOT;
            in->slot = right_code.slot;
        }
    }
    if (fuse_left) {
        if (left_code.op == OP_PUSH) {
            in->left = FROM_CONSTANT;
            in->constant = left_code.constant;
        } else {
            in->left = FROM_SLOT;
            in->left_slot = left_code.slot;
        }
    }
    if (emitted) *emitted = in;
    return 0;
}

/* Chains of forward jumps are threaded through their own target fields
 * until the target is known: no allocation for the patch list. */
static void patch_jumps(parser *p, int32_t chain)
{
    int32_t target = (int32_t)p->out->n_code;
    while (chain >= 0) {
        insn *in = &p->out->code[chain];
        int32_t next = in->target;
        in->target = target;
        chain = next;
    }
}

static void link_jump(parser *p, insn *in, int32_t *chain)
{
    in->target = *chain;
    *chain = (int32_t)(in - p->out->code);
}

static int emit_unary(parser *p, int op, const token *op_tok, operand *o)
{
    if (op != OP_NOT && o->is_string)
        return err_set(p->err, "column %zu: bad operand type for unary '%s': string",
                       column_of(p, op_tok->start), opcode_symbol(op));
    if (o->is_const) {
        cell c = const_cell(p, o);
        bool folded = true;
        if (op == OP_NOT) {
            c.i = !truthy(&c);
            c.kind = EXPR_INT;
        } else {
            folded = unary_arith(op, &c) == FAULT_NONE;
        }
        if (folded) {
            computed(o, op == OP_NOT);
            o->is_const = true;
            return replace_with_const(p, o->start, 1, &c, op_tok->start);
        }
    }
    computed(o, op == OP_NOT);
    return emit(p, op, op_tok->start, NULL);
}

static int string_operand_error(parser *p, int op, const token *op_tok)
{
    return err_set(p->err, "column %zu: '%s' cannot be applied to a string; strings compare "
                   "only with '==' and '!='", column_of(p, op_tok->start), opcode_symbol(op));
}

/* lhs = lhs op rhs, for arithmetic and single comparisons; rhs's code
 * directly follows lhs's. */
static int emit_binary(parser *p, int op, const token *op_tok, operand *lhs, const operand *rhs)
{
    bool ordering = op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE;
    bool arithmetic = op >= OP_ADD && op <= OP_POW;
    if ((ordering || arithmetic) && (lhs->is_string || rhs->is_string))
        return string_operand_error(p, op, op_tok);
    if (lhs->is_const && rhs->is_const) {
        cell a = const_cell(p, lhs), b = const_cell(p, rhs);
        bool folded = false;
        if (arithmetic) {
            folded = binary_arith(op, &a, &b) == FAULT_NONE;
        } else {
            bool truth = false;
            folded = compare_cells(op, &a, &b, &truth) == FAULT_NONE;
            a.kind = EXPR_INT;
            a.i = truth;
        }
        /* A constant operation that fails (1 / 0) is left for run time,
         * where it fails like Python does, only if it is reached. */
        if (folded) {
            computed(lhs, !arithmetic);
            lhs->is_const = true;
            return replace_with_const(p, lhs->start, 2, &a, op_tok->start);
        }
    }
    if (emit_binary_insn(p, op, op_tok->start, lhs, rhs, NULL)) return -1;
    computed(lhs, !arithmetic);
    return 0;
}

/* ------------------------------------------------------------ parser */

static int parse_or(parser *p, operand *out);
static int parse_unary(parser *p, operand *out);

static int enter(parser *p)
{
    if (++p->nesting > EXPR_MAX_NESTING)
        return err_set(p->err, "column %zu: expression nested too deeply (more than %d levels)",
                       column_of(p, p->tok.start), EXPR_MAX_NESTING);
    return 0;
}

static int expected_operand(parser *p)
{
    char found[QUOTED_MAX + 16];
    describe_token(p, &p->tok, found, sizeof found);
    size_t column = column_of(p, p->tok.start);
    if (!p->have_prev) return err_set(p->err, "column %zu: expected an operand but found %s",
                                      column, found);
    char after[QUOTED_MAX + 16];
    describe_token(p, &p->prev, after, sizeof after);
    if (p->tok.type == TOK_END)
        return err_set(p->err, "column %zu: expected an operand after %s", column, after);
    return err_set(p->err, "column %zu: expected an operand after %s but found %s", column,
                   after, found);
}

static int add_string(parser *p, char *s)
{
    expr *e = p->out;
    if (e->n_strings == p->strings_cap) {
        size_t cap = p->strings_cap ? 2 * p->strings_cap : 4;
        char **strings = realloc(e->strings, cap * sizeof *strings);
        if (!strings) {
            free(s);
            return out_of_memory(p);
        }
        e->strings = strings;
        p->strings_cap = cap;
    }
    e->strings[e->n_strings++] = s;
    return 0;
}

/* The text between the quotes with \\, \', \", \n and \t decoded; other
 * backslashes stay as written, as Python leaves unknown escapes. */
static char *decode_string(const parser *p, const token *t)
{
    const char *s = p->text + t->start + 1;
    size_t n = t->len - 2;
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        if (s[j] == '\\' && j + 1 < n) {
            char c = s[j + 1];
            if (c == '\\' || c == '\'' || c == '"') {
                out[k++] = c;
                j++;
                continue;
            }
            if (c == 'n' || c == 't') {
                out[k++] = c == 'n' ? '\n' : '\t';
                j++;
                continue;
            }
        }
        out[k++] = s[j];
    }
    out[k] = '\0';
    return out;
}

static int add_slot(parser *p, int slot)
{
    expr *e = p->out;
    for (size_t k = 0; k < e->n_slots; k++)
        if (e->slots[k] == slot) return 0;
    if (e->n_slots == p->slots_cap) {
        size_t cap = p->slots_cap ? 2 * p->slots_cap : 8;
        int *slots = realloc(e->slots, cap * sizeof *slots);
        if (!slots) return out_of_memory(p);
        e->slots = slots;
        p->slots_cap = cap;
    }
    e->slots[e->n_slots++] = slot;
    return 0;
}

/* Python words that are not part of the constraint language. */
static const char *const unsupported_words[] = {
    "in", "is", "if", "else", "None", "lambda", "for", "def", "return", "import", "while",
};

/* Fails when the current token is a Python word the language lacks. */
static int reject_unsupported_word(parser *p)
{
    const token *t = &p->tok;
    if (t->type != TOK_NAME) return 0;
    const char *name = p->text + t->start;
    for (size_t k = 0; k < sizeof unsupported_words / sizeof unsupported_words[0]; k++)
        if (strlen(unsupported_words[k]) == t->len && memcmp(unsupported_words[k], name, t->len) == 0)
            return err_set(p->err, "column %zu: '%s' is not supported in constraints",
                           column_of(p, t->start), unsupported_words[k]);
    return 0;
}

static int parse_name(parser *p, operand *out)
{
    const token *t = &p->tok;
    const char *name = p->text + t->start;
    int shown = (int)(t->len < QUOTED_MAX ? t->len : QUOTED_MAX);
    size_t column = column_of(p, t->start);
    if (reject_unsupported_word(p)) return -1;

    int slot = p->resolve ? p->resolve(p->resolve_ctx, name, t->len) : -1;
    if (slot < 0) {
        const char *hint = "";
        if (t->len == 4 && memcmp(name, "true", 4) == 0) hint = " (did you mean 'True'?)";
        if (t->len == 5 && memcmp(name, "false", 5) == 0) hint = " (did you mean 'False'?)";
        return err_set(p->err, "column %zu: unknown name '%.*s'%s", column, shown, name, hint);
    }
    if (add_slot(p, slot)) return -1;
    insn *in;
    if (emit(p, OP_LOAD, t->start, &in)) return -1;
    in->slot = slot;
    out->is_const = false;
    out->is_load = true;
    return advance(p);
}

static int parse_atom(parser *p, operand *out)
{
    out->start = p->out->n_code;
    out->is_const = true;
    out->is_load = false;
    out->is_bool = false;
    out->is_string = false;
    const token t = p->tok;
    cell c;
    memset(&c, 0, sizeof c);
    switch (t.type) {
    case TOK_INT:
        c.kind = EXPR_INT;
        c.i = t.i;
        break;
    case TOK_FLOAT:
        c.kind = EXPR_FLOAT;
        c.f = t.f;
        break;
    case TOK_TRUE:
    case TOK_FALSE:
        c.kind = EXPR_INT;
        c.i = t.type == TOK_TRUE;
        out->is_bool = true;
        break;
    case TOK_STRING: {
        char *s = decode_string(p, &t);
        if (!s) return out_of_memory(p);
        if (add_string(p, s)) return -1;
        c.kind = EXPR_STRING;
        c.s = s;
        out->is_string = true;
        break;
    }
    case TOK_NAME:
        return parse_name(p, out);
    case TOK_LPAREN: {
        if (advance(p)) return -1;
        if (parse_or(p, out)) return -1;
        if (p->tok.type != TOK_RPAREN) {
            char found[QUOTED_MAX + 16];
            describe_token(p, &p->tok, found, sizeof found);
            return err_set(p->err, "column %zu: expected ')' to close the '(' at column %zu but "
                           "found %s", column_of(p, p->tok.start), column_of(p, t.start), found);
        }
        return advance(p);
    }
    default:
        return expected_operand(p);
    }
    if (emit_cell(p, &c, t.start)) return -1;
    return advance(p);
}

/* power := atom ('**' unary)? */
static int parse_power(parser *p, operand *out)
{
    if (parse_atom(p, out)) return -1;
    if (p->tok.type != TOK_DOUBLE_STAR) return 0;
    token op_tok = p->tok;
    if (advance(p)) return -1;
    operand exponent;
    if (parse_unary(p, &exponent)) return -1;
    return emit_binary(p, OP_POW, &op_tok, out, &exponent);
}

/* unary := ('-' | '+') unary | power */
static int parse_unary(parser *p, operand *out)
{
    if (enter(p)) return -1;
    int rc;
    if (p->tok.type == TOK_MINUS || p->tok.type == TOK_PLUS) {
        token op_tok = p->tok;
        rc = advance(p);
        if (!rc) rc = parse_unary(p, out);
        if (!rc) rc = emit_unary(p, op_tok.type == TOK_MINUS ? OP_NEG : OP_POS, &op_tok, out);
    } else {
        rc = parse_power(p, out);
    }
    p->nesting--;
    return rc;
}

static int term_opcode(token_type type)
{
    switch (type) {
    case TOK_STAR: return OP_MUL;
    case TOK_SLASH: return OP_DIV;
    case TOK_DOUBLE_SLASH: return OP_FLOOR_DIV;
    case TOK_PERCENT: return OP_MOD;
    default: return -1;
    }
}

static int parse_term(parser *p, operand *out)
{
    if (parse_unary(p, out)) return -1;
    for (int op; (op = term_opcode(p->tok.type)) >= 0;) {
        token op_tok = p->tok;
        if (advance(p)) return -1;
        operand rhs;
        if (parse_unary(p, &rhs)) return -1;
        if (emit_binary(p, op, &op_tok, out, &rhs)) return -1;
    }
    return 0;
}

static int parse_sum(parser *p, operand *out)
{
    if (parse_term(p, out)) return -1;
    while (p->tok.type == TOK_PLUS || p->tok.type == TOK_MINUS) {
        token op_tok = p->tok;
        if (advance(p)) return -1;
        operand rhs;
        if (parse_term(p, &rhs)) return -1;
        if (emit_binary(p, op_tok.type == TOK_PLUS ? OP_ADD : OP_SUB, &op_tok, out, &rhs))
            return -1;
    }
    return 0;
}

static int comparison_opcode(token_type type)
{
    switch (type) {
    case TOK_EQ: return OP_EQ;
    case TOK_NE: return OP_NE;
    case TOK_LT: return OP_LT;
    case TOK_LE: return OP_LE;
    case TOK_GT: return OP_GT;
    case TOK_GE: return OP_GE;
    default: return -1;
    }
}

/* comparison := sum (cmp_op sum)* */
static int parse_comparison(parser *p, operand *out)
{
    if (parse_sum(p, out)) return -1;
    if (comparison_opcode(p->tok.type) < 0) return 0;

    int32_t exits = -1;
    operand left = *out;
    for (;;) {
        token op_tok = p->tok;
        int op = comparison_opcode(op_tok.type);
        if (advance(p)) return -1;
        operand right;
        if (parse_sum(p, &right)) return -1;
        bool ordering = op != OP_EQ && op != OP_NE;
        if (ordering && (left.is_string || right.is_string))
            return string_operand_error(p, op, &op_tok);
        if (comparison_opcode(p->tok.type) < 0) {
            if (exits < 0) return emit_binary(p, op, &op_tok, out, &right);
            if (emit_binary_insn(p, op, op_tok.start, &left, &right, NULL)) return -1;
            break;
        }
        insn *in;
        if (emit_binary_insn(p, op, op_tok.start, &left, &right, &in)) return -1;
        in->branch = BRANCH_CHAIN;
        link_jump(p, in, &exits);
        /* The next link's left operand is this one's right, which the link
         * leaves on the stack. */
        left = right;
        left.is_const = left.is_load = false;
    }
    patch_jumps(p, exits);
    computed(out, true);
    return 0;
}

/* not_expr := 'not' not_expr | comparison */
static int parse_not(parser *p, operand *out)
{
    if (enter(p)) return -1;
    int rc;
    if (p->tok.type == TOK_NOT) {
        token op_tok = p->tok;
        rc = advance(p);
        if (!rc) rc = parse_not(p, out);
        if (!rc) rc = emit_unary(p, OP_NOT, &op_tok, out);
    } else {
        rc = parse_comparison(p, out);
    }
    p->nesting--;
    return rc;
}

/* and_expr and or_expr share their shape: operands separated by a
 * short-circuit jump, the last one normalised to 0/1. */
static int parse_logical(parser *p, operand *out, token_type word, int jump_op,
                         int (*parse_operand)(parser *, operand *))
{
    if (parse_operand(p, out)) return -1;
    if (p->tok.type != word) return 0;
    int32_t exits = -1;
    operand last = *out;
    while (p->tok.type == word) {
        insn *in;
        if (emit(p, jump_op, p->tok.start, &in)) return -1;
        link_jump(p, in, &exits);
        if (advance(p)) return -1;
        if (parse_operand(p, &last)) return -1;
    }
    if (!last.is_bool && emit(p, OP_TO_BOOL, p->prev.start, NULL)) return -1;
    patch_jumps(p, exits);
    computed(out, true);
    return 0;
}

static int parse_and(parser *p, operand *out)
{
    return parse_logical(p, out, TOK_AND, OP_AND_JUMP, parse_not);
}

static int parse_or(parser *p, operand *out)
{
    return parse_logical(p, out, TOK_OR, OP_OR_JUMP, parse_and);
}

static bool is_comparison(int op)
{
    return op >= OP_EQ && op <= OP_GE;
}

/* The value a jump leaves on the stack when it is taken. */
static int jump_value(const insn *in)
{
    if (in->op == OP_OR_JUMP) return 1;
    if (in->op == OP_AND_JUMP) return 0;
    return in->branch == BRANCH_IF_TRUE ? 1 : 0;
}

static bool is_jump(const insn *in)
{
    return in->op == OP_AND_JUMP || in->op == OP_OR_JUMP ||
           (is_comparison(in->op) && in->branch != BRANCH_NONE);
}

/* The rewrites on finished code described at the top of this file. */
static int optimise(parser *p)
{
    expr *e = p->out;
    size_t n = e->n_code;

    /* A jump that leaves 0 and lands on AND_JUMP would be sent on by it,
     * likewise 1 and OR_JUMP: go straight to where that one leads. */
    for (size_t k = 0; k < n; k++) {
        insn *in = &e->code[k];
        if (!is_jump(in)) continue;
        int value = jump_value(in);
        for (;;) {
            const insn *at = &e->code[in->target];
            if ((at->op == OP_AND_JUMP && value == 0) || (at->op == OP_OR_JUMP && value == 1))
                in->target = at->target;
            else
                break;
        }
    }

    bool *is_target = calloc(n, sizeof *is_target);
    int32_t *new_index = malloc(n * sizeof *new_index);
    if (!is_target || !new_index) {
        free(is_target);
        free(new_index);
        return out_of_memory(p);
    }
    for (size_t k = 0; k < n; k++)
        if (is_jump(&e->code[k])) is_target[e->code[k].target] = true;

    /* Fuse a comparison with the AND_JUMP or OR_JUMP after it, unless some
     * jump lands between the two. */
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        insn *in = &e->code[k];
        new_index[k] = (int32_t)kept;
        if (is_comparison(in->op) && in->branch == BRANCH_NONE && k + 1 < n && !is_target[k + 1] &&
            (in[1].op == OP_AND_JUMP || in[1].op == OP_OR_JUMP)) {
            in->branch = in[1].op == OP_AND_JUMP ? BRANCH_IF_FALSE : BRANCH_IF_TRUE;
            in->target = in[1].target;
            e->code[kept] = *in;
            e->columns[kept] = e->columns[k];
            kept++;
            k++;
            new_index[k] = (int32_t)kept; /* never a target; keeps the table total */
            continue;
        }
        e->code[kept] = *in;
        e->columns[kept] = e->columns[k];
        kept++;
    }
    e->n_code = kept;
    for (size_t k = 0; k < kept; k++)
        if (is_jump(&e->code[k])) e->code[k].target = new_index[e->code[k].target];
    free(is_target);
    free(new_index);
    return 0;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int expr_parse(const char *text, expr_resolve_fn resolve, void *ctx, expr **out,
               skytune_error *err)
{
    *out = NULL;
    if (!text) return err_set(err, "empty expression");
    return expr_parse_span(text, strlen(text), 0, resolve, ctx, out, err);
}

int expr_parse_span(const char *text, size_t len, size_t column_base, expr_resolve_fn resolve,
                    void *ctx, expr **out, skytune_error *err)
{
    *out = NULL;
    parser p;
    memset(&p, 0, sizeof p);
    p.text_len = len;
    p.column_base = column_base;
    p.resolve = resolve;
    p.resolve_ctx = ctx;
    p.err = err;
    p.out = calloc(1, sizeof *p.out);
    if (!p.out) return err_set(err, "out of memory parsing expression");
    p.out->column_base = column_base;
    /* The expression keeps its own text (expr_text), and the lexer reads
     * this copy, which ends where the span does. */
    p.out->text = strndup(text, len);
    if (!p.out->text) {
        out_of_memory(&p);
        goto failed;
    }
    p.text = p.out->text;

    if (advance(&p)) goto failed;
    if (p.tok.type == TOK_END) {
        err_set(err, "empty expression");
        goto failed;
    }
    operand result;
    if (parse_or(&p, &result)) goto failed;
    if (p.tok.type != TOK_END) {
        if (reject_unsupported_word(&p)) goto failed;
        char found[QUOTED_MAX + 16];
        describe_token(&p, &p.tok, found, sizeof found);
        if (p.tok.type == TOK_RPAREN)
            err_set(err, "column %zu: unbalanced ')'", column_of(&p, p.tok.start));
        else
            err_set(err, "column %zu: unexpected trailing input %s", column_of(&p, p.tok.start),
                    found);
        goto failed;
    }
    if (emit(&p, OP_END, p.text_len, NULL)) goto failed;
    if (optimise(&p)) goto failed;
    if (p.max_stack > EXPR_MAX_STACK) {
        err_set(err, "expression too complex (it needs more than %d stack cells)",
                EXPR_MAX_STACK);
        goto failed;
    }
    if (p.out->n_slots > 1) qsort(p.out->slots, p.out->n_slots, sizeof(int), compare_ints);
    *out = p.out;
    return 0;

failed:
    expr_free(p.out);
    return -1;
}
