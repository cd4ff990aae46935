#include <criterion/criterion.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "expr.h"

/* ----------------------------------------------------------- helpers */

/* Names the test expressions may use, bound to deliberately scattered slot
 * numbers so that slot bookkeeping is exercised. */
static const struct {
    const char *name;
    int slot;
} names[] = {
    {"a", 0}, {"b", 1}, {"c", 2}, {"wg_x", 5}, {"wg_y", 4}, {"tile", 7}, {"stride", 3},
    {"s", 6}, {"x", 8}, {"device.max_work_group_size", 9}, {"device.local_mem_size", 10},
    {"big", 11}, {"small", 12},
};
#define N_SLOTS 13

static int resolve(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strlen(names[k].name) == len && memcmp(names[k].name, name, len) == 0)
            return names[k].slot;
    return -1;
}

static expr_value slots[N_SLOTS];

static expr_value int_value(int64_t i)
{
    expr_value v = {.kind = EXPR_INT, .i = i};
    return v;
}

static expr_value float_value(double f)
{
    expr_value v = {.kind = EXPR_FLOAT, .f = f};
    return v;
}

static expr_value string_value(const char *s)
{
    expr_value v = {.kind = EXPR_STRING, .s = s};
    return v;
}

static void set_defaults(void)
{
    slots[0] = int_value(7);      /* a */
    slots[1] = int_value(2);      /* b */
    slots[2] = int_value(-3);     /* c */
    slots[5] = int_value(16);     /* wg_x */
    slots[4] = int_value(8);      /* wg_y */
    slots[7] = int_value(4);      /* tile */
    slots[3] = int_value(0);      /* stride */
    slots[6] = string_value("tiled");
    slots[8] = float_value(1.0);  /* x */
    slots[9] = int_value(1024);   /* device.max_work_group_size */
    slots[10] = int_value(65536); /* device.local_mem_size */
    slots[11] = int_value(INT64_MAX);
    slots[12] = int_value(INT64_MIN);
}

static expr *parse_ok(const char *text)
{
    expr *e = NULL;
    skytune_error err = {0};
    int rc = expr_parse(text, resolve, NULL, &e, &err);
    cr_assert_eq(rc, 0, "parsing \"%s\" failed: %s", text, err.message);
    cr_assert_not_null(e);
    return e;
}

static expr_value eval_ok(const char *text)
{
    expr *e = parse_ok(text);
    skytune_error err = {0};
    expr_value v;
    int rc = expr_eval(e, slots, &v, &err);
    cr_assert_eq(rc, 0, "evaluating \"%s\" failed: %s", text, err.message);
    expr_free(e);
    return v;
}

static void expect_int(const char *text, int64_t want)
{
    expr_value v = eval_ok(text);
    cr_expect_eq(v.kind, EXPR_INT, "\"%s\" should give an int, got kind %d", text, (int)v.kind);
    cr_expect_eq(v.i, want, "\"%s\" gave %" PRId64 ", want %" PRId64, text, v.i, want);
}

static void expect_float(const char *text, double want)
{
    expr_value v = eval_ok(text);
    cr_expect_eq(v.kind, EXPR_FLOAT, "\"%s\" should give a float, got kind %d", text,
                 (int)v.kind);
    cr_expect(v.f == want || (isnan(v.f) && isnan(want)), "\"%s\" gave %.17g, want %.17g", text,
              v.f, want);
}

static void expect_bool(const char *text, bool want)
{
    expr *e = parse_ok(text);
    bool got = expr_eval_bool(e, slots);
    cr_expect_eq(got, want, "\"%s\" gave %d, want %d", text, got, want);
    /* expr_eval agrees, and logical results are the integers 0 and 1. */
    skytune_error err = {0};
    expr_value v;
    cr_expect_eq(expr_eval(e, slots, &v, &err), 0, "\"%s\": %s", text, err.message);
    bool truth = v.kind == EXPR_INT ? v.i != 0 : v.kind == EXPR_FLOAT ? v.f != 0 : v.s[0] != 0;
    cr_expect_eq(truth, want, "expr_eval of \"%s\" disagrees with expr_eval_bool", text);
    expr_free(e);
}

/* Parsing fails, and the message contains each fragment (NULL: unused). */
static void expect_parse_error(const char *text, const char *fragment, const char *fragment2)
{
    expr *e = (expr *)0x1;
    skytune_error err = {0};
    int rc = expr_parse(text, resolve, NULL, &e, &err);
    cr_expect_eq(rc, -1, "\"%s\" should not parse", text);
    cr_expect_null(e, "\"%s\": *out should be NULL on failure", text);
    if (rc == 0) {
        expr_free(e);
        return;
    }
    cr_expect(strstr(err.message, fragment) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", text,
              err.message, fragment);
    if (fragment2)
        cr_expect(strstr(err.message, fragment2) != NULL, "\"%s\": message \"%s\" lacks \"%s\"",
                  text, err.message, fragment2);
}

/* Parses, but evaluation fails with a message containing the fragments. */
static void expect_eval_error(const char *text, const char *fragment, const char *fragment2)
{
    expr *e = parse_ok(text);
    skytune_error err = {0};
    expr_value v;
    cr_expect_eq(expr_eval(e, slots, &v, &err), -1, "\"%s\" should fail to evaluate", text);
    cr_expect(strstr(err.message, fragment) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", text,
              err.message, fragment);
    if (fragment2)
        cr_expect(strstr(err.message, fragment2) != NULL, "\"%s\": message \"%s\" lacks \"%s\"",
                  text, err.message, fragment2);
    cr_expect_not(expr_eval_bool(e, slots), "\"%s\": a failed evaluation must be false", text);
    expr_free(e);
}

TestSuite(expr, .init = set_defaults);

/* ------------------------------------------------------- arithmetic */

Test(expr, literals)
{
    expect_int("42", 42);
    expect_int("0x1F", 31);
    expect_int("9223372036854775807", INT64_MAX);
    expect_float("1.5", 1.5);
    expect_float(".5", 0.5);
    expect_float("1.", 1.0);
    expect_float("1e3", 1000.0);
    expect_float("2.5E-1", 0.25);
    expect_int("True", 1);
    expect_int("False", 0);
    /* A string result points into the expression: check it before freeing. */
    static const struct {
        const char *text, *want;
    } strings[] = {
        {"'tiled'", "tiled"}, {"\"it's\"", "it's"}, {"'a\\'b\\\\c'", "a'b\\c"},
        {"'tab\\tnew\\nline'", "tab\tnew\nline"}, {"'\\d'", "\\d"}, {"''", ""},
    };
    for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++) {
        expr *e = parse_ok(strings[k].text);
        expr_value v;
        cr_assert_eq(expr_eval(e, slots, &v, NULL), 0);
        cr_expect_eq(v.kind, EXPR_STRING);
        cr_expect_str_eq(v.s, strings[k].want, "%s", strings[k].text);
        expr_free(e);
    }
}

Test(expr, precedence)
{
    expect_int("1 + 2 * 3", 7);
    expect_int("(1 + 2) * 3", 9);
    expect_int("10 - 2 - 3", 5);
    expect_int("2 * 3 ** 2", 18);
    expect_int("2 ** 3 ** 2", 512); /* right-associative */
    expect_int("(2 ** 3) ** 2", 64);
    expect_int("-2 ** 2", -4);      /* ** binds tighter than unary minus on its left */
    expect_int("(-2) ** 2", 4);
    expect_int("-3 ** 2 + 1", -8);
    expect_float("2 ** -1", 0.5);   /* ... and accepts one on its right */
    expect_int("7 // 2 * 2", 6);
    expect_int("7 % 4 * 3", 9);
    expect_int("1 + 8 // 3 % 2", 1);
    expect_int("- - 3", 3);
    expect_int("+-+3", -3);
    expect_int("a * b + c", 11);    /* 7*2 - 3 */
    expect_int("a - b * c", 13);    /* 7 - (2 * -3) */
    expect_int("-a ** 2", -49);
    expect_int("((((a))))", 7);
    expect_bool("1 + 1 == 2 and not 2 < 1", true);
    expect_bool("not 1 == 2", true);         /* not binds looser than == */
    expect_bool("1 or 0 and 0", true);       /* and binds tighter than or */
    expect_bool("(1 or 0) and 0", false);
    expect_bool("not 0 and 0", false);       /* (not 0) and 0 */
    expect_bool("not (0 and 0)", true);
    expect_bool("not not 5", true);
}

Test(expr, true_division)
{
    expect_float("7 / 2", 3.5);
    expect_float("4 / 2", 2.0); /* always a float, as in Python 3 */
    expect_float("-7 / 2", -3.5);
    expect_float("1 / 3", 1.0 / 3.0);
    expect_float("a / b", 3.5);
    expect_float("x / 4", 0.25);
}

Test(expr, python_floor_division_and_modulo)
{
    expect_int("7 // 2", 3);
    expect_int("-7 // 2", -4);
    expect_int("7 // -2", -4);
    expect_int("-7 // -2", 3);
    expect_int("-8 // 2", -4);
    expect_int("0 // -3", 0);
    expect_int("7 % 3", 1);
    expect_int("-7 % 3", 2);
    expect_int("7 % -3", -2);
    expect_int("-7 % -3", -1);
    expect_int("-6 % 3", 0);
    expect_int("6 % -3", 0);
    expect_int("c // b", -2);  /* -3 // 2 */
    expect_int("c % b", 1);    /* -3 % 2 */
    expect_float("-7.5 // 2", -4.0);
    expect_float("7.5 // -2", -4.0);
    expect_float("-7.5 % 2", 0.5);
    expect_float("7.5 % -2", -0.5);
    expect_float("7 // 2.0", 3.0);
    expect_float("-1 % 1e300", 1e300);    /* Python: 1e+300 */
    expect_float("-0.0 % 5", 0.0);
    cr_expect(!signbit(eval_ok("-0.0 % 5").f), "Python gives 0.0, not -0.0");
    cr_expect(signbit(eval_ok("0.0 % -5").f), "Python gives -0.0");
    expect_float("5.5 % 2.5", 0.5);
}

Test(expr, power)
{
    expect_int("2 ** 10", 1024);
    expect_int("2 ** 62", INT64_C(1) << 62);
    expect_int("0 ** 0", 1);
    expect_int("(-2) ** 3", -8);
    expect_int("(-1) ** 1000001", -1);
    expect_int("1 ** 9223372036854775807", 1);
    expect_float("2 ** -2", 0.25);
    expect_float("4 ** 0.5", 2.0);
    expect_float("2.0 ** 3", 8.0);
    expect_float("(-8.0) ** 3", -512.0);
    expect_eval_error("0 ** -1", "column 3", "negative power");
    expect_eval_error("(-8) ** 0.5", "column 6", "fractional");
    expect_eval_error("0.0 ** -2", "column 5", "negative power");
}

Test(expr, overflow_falls_back_to_float)
{
    expect_float("9223372036854775807 + 1", 9223372036854775808.0);
    expect_float("big + big", 2.0 * 9223372036854775807.0);
    expect_float("small - 1", -9223372036854775809.0);
    expect_float("big * 2", 2.0 * 9223372036854775807.0);
    expect_float("-small", 9223372036854775808.0);
    expect_float("small // -1", 9223372036854775808.0);
    expect_int("small % -1", 0);
    expect_int("small // 1", INT64_MIN);
    expect_int("big // -1", -INT64_MAX);
    expect_float("2 ** 63", 9223372036854775808.0);
    expect_float("2 ** 64", 18446744073709551616.0);
    expect_float("3 ** 100", pow(3.0, 100.0));
    expect_int("(-2) ** 63", INT64_MIN);        /* in range: stays an integer */
    expect_int("-(2 ** 62) * 2", INT64_MIN);   /* in range: stays an integer */
    expect_bool("2 ** 70 > big", true);
    expect_bool("small * 2 < small", true);
}

Test(expr, comparisons_and_chains)
{
    expect_bool("1 < 2", true);
    expect_bool("2 <= 2", true);
    expect_bool("3 > 3", false);
    expect_bool("3 >= 3", true);
    expect_bool("3 != 3", false);
    expect_bool("1 < 2 < 3", true);
    expect_bool("1 < 3 < 2", false);
    expect_bool("3 > 2 > 1", true);
    expect_bool("1 == 1 == 1", true);
    expect_bool("1 == 1 == 2", false);
    expect_bool("2 == 2 != 3", true);
    expect_bool("1 < 2 > 0", true);       /* not (1 < 2) > 0 == True > 0 -- same here */
    expect_bool("3 > 2 == 1", false);     /* a chain: 3 > 2 and 2 == 1; not (3 > 2) == 1 */
    expect_bool("(3 > 2) == 1", true);
    expect_bool("1 < 2 < 3 < 4 < 5", true);
    expect_bool("1 < 2 < 3 < 4 < 4", false);
    expect_bool("5 > 4 > 3 > 2 > 3", false);
    expect_bool("32 <= wg_x * wg_y <= 1024", true);   /* 128 */
    expect_bool("32 <= wg_x * wg_y <= 64", false);
    expect_bool("256 <= wg_x * wg_y <= 1024", false);
    expect_bool("32 <= wg_x * wg_y <= 1024 and (tile > 1 or stride == 0)", true);
    expect_bool("wg_x * wg_y <= device.max_work_group_size", true);
    expect_bool("wg_x * wg_y * tile * 4 * 4 <= device.local_mem_size", true);
    expect_int("1 < 2 < 3", 1);
    expect_int("1 < 3 < 2", 0);
    expect_int("(1 < 2) + (2 < 3)", 2);
}

Test(expr, chains_stop_at_the_first_false_link)
{
    /* b == 0 after the first link is false: the division is never run. */
    slots[1] = int_value(0);
    expect_bool("a < b < a / b", false);
    expect_bool("b > a == a // b", false);
    expect_eval_error("b < a < a // b", "column 11", "by zero");
}

Test(expr, short_circuit)
{
    slots[1] = int_value(0);
    expect_bool("b == 0 or a / b > 1", true);
    expect_bool("b != 0 and a / b > 1", false);
    expect_bool("not (b != 0 and a % b == 1)", true);
    expect_bool("b or a or a // b", true);
    expect_eval_error("a / b > 1", "column 3", "division by zero");
    expect_eval_error("b == 0 and a // b", "column 14", "by zero");
    expect_eval_error("b != 0 or a % b", "column 13", "modulo by zero");
    expect_eval_error("1 < a < 2 or 1.5 // b", "column 18", "by zero");
}

Test(expr, logical_operators_yield_booleans)
{
    expect_int("3 and 5", 1);
    expect_int("0 and 5", 0);
    expect_int("0 or 7", 1);
    expect_int("0 or 0.0", 0);
    expect_int("0.5 or 0", 1);
    expect_int("not 0", 1);
    expect_int("not 3", 0);
    expect_int("not 'x'", 0);
    expect_int("not ''", 1);
    expect_int("'' or 'x'", 1);
    expect_int("a and b and c", 1);
    expect_int("a and stride and c", 0);
    expect_int("stride or stride or c", 1);
    expect_int("True + True", 2);
    expect_bool("0.0", false);
    expect_bool("-0.5", true);
    expect_bool("''", false);
    expect_bool("'0'", true);
}

Test(expr, strings)
{
    expect_bool("s == 'tiled'", true);
    expect_bool("s == \"tiled\"", true);
    expect_bool("s != 'naive'", true);
    expect_bool("s == 'naive'", false);
    expect_bool("'tiled' == s", true);
    expect_bool("s == 1", false);   /* a string never equals a number */
    expect_bool("s != 1", true);
    expect_bool("1 == s", false);
    expect_bool("'a' == 'a'", true);
    expect_bool("'a' != 'b'", true);
    expect_bool("s == 'tiled' and tile > 1", true);
    expect_eval_error("s < a", "column 3", "'=='");
    expect_eval_error("s + 1", "column 3", "string");
    expect_eval_error("-s", "column 1", "string");
    slots[6] = string_value(NULL); /* tolerated as "" */
    expect_bool("s == ''", true);
}

Test(expr, int_float_comparison_is_exact)
{
    expect_bool("1 == 1.0", true);
    expect_bool("x == 1", true);
    expect_bool("x != 1", false);
    expect_bool("x < 2", true);
    expect_bool("2 > 1.5", true);
    expect_bool("1.5 > 2", false);
    expect_bool("-1 < -0.5", true);
    expect_bool("2 ** 53 + 1 == 9007199254740992.0", false); /* Python: False */
    expect_bool("2 ** 53 + 1 > 9007199254740992.0", true);
    expect_bool("2 ** 53 == 9007199254740992.0", true);
    expect_bool("big < 9223372036854775808.0", true);
    expect_bool("big == 9223372036854775808.0", false);
    expect_bool("small == -9223372036854775808.0", true);
    expect_bool("small < -9223372036854775808.0", false);
    expect_bool("big > 1e300", false);
    expect_bool("small < -1e300", false);
    slots[8] = float_value(NAN);
    expect_bool("x == x", false);
    expect_bool("x != x", true);
    expect_bool("x < 1 or x >= 1 or 1 < x or 1 >= x", false);
    expect_bool("x != 1", true);
}

Test(expr, slots_are_distinct_and_ascending)
{
    expr *e = parse_ok("wg_x * wg_y <= device.max_work_group_size and wg_x >= tile and a == a");
    size_t count = 99;
    const int *used = expr_slots(e, &count);
    cr_assert_eq(count, 5);
    int want[] = {0, 4, 5, 7, 9};
    for (size_t k = 0; k < count; k++) cr_expect_eq(used[k], want[k], "slot %zu", k);
    expr_free(e);

    e = parse_ok("1 + 2 < 4");
    count = 99;
    expr_slots(e, &count);
    cr_expect_eq(count, 0);
    expr_free(e);

    e = parse_ok("c or b or a");
    used = expr_slots(e, &count);
    cr_assert_eq(count, 3);
    cr_expect(used[0] == 0 && used[1] == 1 && used[2] == 2);
    expr_free(e);
}

Test(expr, keeps_its_text)
{
    const char *text = "  32 <= wg_x * wg_y  ";
    expr *e = parse_ok(text);
    cr_expect_str_eq(expr_text(e), text);
    cr_expect_neq(expr_text(e), text, "the text should be a copy");
    expr_free(e);
}

Test(expr, evaluates_repeatedly_with_new_values)
{
    expr *e = parse_ok("32 <= wg_x * wg_y <= 1024 and (tile > 1 or stride == 0)");
    int accepted = 0;
    for (int64_t wx = 1; wx <= 64; wx *= 2)
        for (int64_t wy = 1; wy <= 64; wy *= 2)
            for (int64_t t = 1; t <= 2; t++)
                for (int64_t st = 0; st <= 1; st++) {
                    slots[5] = int_value(wx);
                    slots[4] = int_value(wy);
                    slots[7] = int_value(t);
                    slots[3] = int_value(st);
                    bool want = 32 <= wx * wy && wx * wy <= 1024 && (t > 1 || st == 0);
                    cr_assert_eq(expr_eval_bool(e, slots), want, "wg %" PRId64 "x%" PRId64, wx, wy);
                    accepted += want;
                }
    cr_expect_gt(accepted, 0);
    expr_free(e);
}

Test(expr, deep_but_acceptable_nesting)
{
    char text[2048];
    size_t n = 0;
    for (int k = 0; k < 60; k++) n += (size_t)snprintf(text + n, sizeof text - n, "(1 + ");
    n += (size_t)snprintf(text + n, sizeof text - n, "a");
    for (int k = 0; k < 60; k++) n += (size_t)snprintf(text + n, sizeof text - n, ")");
    expect_int(text, 67);
}

/* ------------------------------------------------------------ errors */

Test(expr, syntax_errors_name_the_column)
{
    expect_parse_error("", "empty", NULL);
    expect_parse_error("   ", "empty", NULL);
    expect_parse_error("1 + 2 * ", "column 9: expected an operand after '*'", NULL);
    expect_parse_error("1 +* 2", "column 4: expected an operand after '+'", "'*'");
    expect_parse_error("(a + b))", "column 8: unbalanced ')'", NULL);
    expect_parse_error("a)", "column 2: unbalanced ')'", NULL);
    expect_parse_error("(a + b", "column 7", "expected ')'");
    expect_parse_error("((a + b) * 2", "column 13", "column 1");
    expect_parse_error("a == b foo", "column 8: unexpected trailing input 'foo'", NULL);
    expect_parse_error("a b", "column 3", "trailing");
    expect_parse_error("wg_z > 1", "column 1: unknown name 'wg_z'", NULL);
    expect_parse_error("a > 1 and wg_z", "column 11: unknown name 'wg_z'", NULL);
    expect_parse_error("device.max_work_group_sizes > 1", "column 1", "'device.max_work_group_sizes'");
    expect_parse_error("a == true", "column 6", "True");
    expect_parse_error("s == 'abc", "column 6: unterminated string", NULL);
    expect_parse_error("s == \"abc'", "column 6", "unterminated");
    expect_parse_error("a = 1", "column 3", "'=='");
    expect_parse_error("a ! b", "column 3", "'!='");
    expect_parse_error("a && b", "column 3", "'and'");
    expect_parse_error("a || b", "column 3", "'or'");
    expect_parse_error("a @ b", "column 3", "'@'");
    expect_parse_error("a > 1 and", "column 10: expected an operand after 'and'", NULL);
    expect_parse_error("not", "column 4: expected an operand after 'not'", NULL);
    expect_parse_error("()", "column 2: expected an operand after '('", "')'");
    expect_parse_error("1 < < 2", "column 5", "operand");
    expect_parse_error("a < not b", "column 5", "'not'");
    expect_parse_error("* 2", "column 1", "operand");
    expect_parse_error("12x > 1", "column 1", "invalid number '12x'");
    expect_parse_error("a > 1.5.2", "column 5", "invalid number");
    expect_parse_error("a > 0x", "column 5", "invalid number");
    expect_parse_error("a > 1e", "column 5", "invalid number");
    expect_parse_error("99999999999999999999 > 1", "column 1", "too large");
    expect_parse_error("a in b", "column 3", "'in' is not supported");
    expect_parse_error("a is None", "column 3", "not supported");
    expect_parse_error("device. > 1", "column 7", "name after '.'");
    expect_parse_error("'a' < 'b'", "column 5", "string");
    expect_parse_error("1 <= 'b' < 2", "column 3", "string");
    expect_parse_error("'a' + 1", "column 5", "string");
    expect_parse_error("-'a'", "column 1", "string");
    expect_parse_error("a ** ", "column 6", "after '**'");
    expect_parse_error("a -", "column 4", "after '-'");
    expect_parse_error("a\x01", "column 2", "0x01");
}

Test(expr, nesting_limit)
{
    char text[3000];
    memset(text, '(', 1000);
    strcpy(text + 1000, "1");
    expect_parse_error(text, "nested too deeply", NULL);
    char minus[3000];
    memset(minus, '-', 1000);
    strcpy(minus + 1000, "1");
    expect_parse_error(minus, "nested too deeply", NULL);
}

Test(expr, unknown_names_without_a_resolver)
{
    expr *e = NULL;
    skytune_error err = {0};
    cr_expect_eq(expr_parse("1 + q", NULL, NULL, &e, &err), -1);
    cr_expect(strstr(err.message, "column 5: unknown name 'q'") != NULL, "%s", err.message);
    cr_expect_eq(expr_parse("1 + 2 < 4", NULL, NULL, &e, &err), 0, "%s", err.message);
    cr_expect(expr_eval_bool(e, NULL));
    expr_free(e);
}

/* A string literal may hold any byte; a message that shows it as a token
 * shows it escaped (found by fuzz_expr: a carriage return in a string after
 * the end of an expression reached the message as it was). */
Test(expr, tokens_in_messages_are_escaped)
{
    expect_parse_error("s != 'x' 'a\r\x1b[31m\x01'", "unexpected trailing input ''a\\r\\x1b[31m\\x01''",
                       NULL);
    expect_parse_error("(a 'x\x1b\x7f'", "but found ''x\\x1b\\x7f''", NULL);
    /* A long token is cut at a character, never inside one. */
    char text[256] = "a 'xx";
    for (int k = 0; k < 40; k++) strcat(text, "\xc3\xa9");
    strcat(text, "'");
    expr *e = NULL;
    skytune_error err = {0};
    cr_assert_eq(expr_parse(text, resolve, NULL, &e, &err), -1);
    const char *cut = strstr(err.message, "...'");
    cr_assert_not_null(cut, "%s", err.message);
    cr_expect_neq((unsigned char)cut[-1], 0xc3, "%s", err.message);
    for (const unsigned char *c = (const unsigned char *)err.message; *c; c++)
        cr_expect(*c >= 0x20 && *c != 0x7f, "%s", err.message);
}

Test(expr, null_error_is_accepted)
{
    expr *e = NULL;
    cr_expect_eq(expr_parse("1 +", resolve, NULL, &e, NULL), -1);
    e = parse_ok("a // stride");
    cr_expect_eq(expr_eval(e, slots, NULL, NULL), -1);
    expr_free(e);
}

/* ------------------------------------------------ randomized checking */

/* A small expression tree over the variables a, b and c, evaluated here by
 * a direct recursive reference with Python's integer semantics, printed
 * with as few parentheses as precedence allows (plus some redundant ones),
 * then parsed and evaluated by the library. */

enum { R_LIT, R_VAR, R_NEG, R_ADD, R_SUB, R_MUL, R_FLOORDIV, R_MOD, R_POW, R_CHAIN, R_AND, R_OR,
       R_NOT };
enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

/* Precedence levels, loosest first. */
enum { P_OR = 1, P_AND, P_NOT, P_CMP, P_SUM, P_TERM, P_UNARY, P_POW, P_ATOM };

typedef struct rnode {
    int kind;
    int64_t value;       /* R_LIT; the exponent of R_POW */
    int var;             /* R_VAR */
    int n;               /* children */
    int cmp[3];          /* R_CHAIN: operator between child k and k+1 */
    struct rnode *kid[4];
} rnode;

typedef struct lcg {
    uint64_t state;
} lcg;

static uint32_t lcg_next(lcg *g)
{
    g->state = g->state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(g->state >> 33);
}

static int lcg_below(lcg *g, int n)
{
    return (int)(lcg_next(g) % (uint32_t)n);
}

#define POOL_SIZE 256
typedef struct pool {
    rnode nodes[POOL_SIZE];
    int used;
} pool;

static rnode *node_new(pool *pl, int kind)
{
    cr_assert_lt(pl->used, POOL_SIZE);
    rnode *n = &pl->nodes[pl->used++];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    return n;
}

static rnode *gen(pool *pl, lcg *g, int depth)
{
    int choice = depth <= 0 ? lcg_below(g, 2) : lcg_below(g, 13);
    rnode *n;
    switch (choice) {
    case 0:
        n = node_new(pl, R_LIT);
        n->value = lcg_below(g, 21) - 10;
        return n;
    case 1:
        n = node_new(pl, R_VAR);
        n->var = lcg_below(g, 3);
        return n;
    case 2:
        n = node_new(pl, R_NEG);
        n->n = 1;
        n->kid[0] = gen(pl, g, depth - 1);
        return n;
    case 3: case 4: case 5: case 6: case 7:
        n = node_new(pl, R_ADD + (choice - 3));
        n->n = 2;
        n->kid[0] = gen(pl, g, depth - 1);
        n->kid[1] = gen(pl, g, depth - 1);
        return n;
    case 8:
        n = node_new(pl, R_POW);
        n->n = 1;
        n->kid[0] = gen(pl, g, depth - 1);
        n->value = lcg_below(g, 4);
        return n;
    case 9:
        n = node_new(pl, R_CHAIN);
        n->n = 2 + lcg_below(g, 3);
        for (int k = 0; k < n->n; k++) n->kid[k] = gen(pl, g, depth - 1);
        for (int k = 0; k + 1 < n->n; k++) n->cmp[k] = lcg_below(g, 6);
        return n;
    case 10: case 11:
        n = node_new(pl, choice == 10 ? R_AND : R_OR);
        n->n = 2;
        n->kid[0] = gen(pl, g, depth - 1);
        n->kid[1] = gen(pl, g, depth - 1);
        return n;
    default:
        n = node_new(pl, R_NOT);
        n->n = 1;
        n->kid[0] = gen(pl, g, depth - 1);
        return n;
    }
}

static int precedence(const rnode *n)
{
    switch (n->kind) {
    case R_LIT: return n->value < 0 ? P_UNARY : P_ATOM;
    case R_VAR: return P_ATOM;
    case R_NEG: return P_UNARY;
    case R_ADD: case R_SUB: return P_SUM;
    case R_MUL: case R_FLOORDIV: case R_MOD: return P_TERM;
    case R_POW: return P_POW;
    case R_CHAIN: return P_CMP;
    case R_AND: return P_AND;
    case R_OR: return P_OR;
    default: return P_NOT;
    }
}

typedef struct text_buf {
    char s[8192];
    size_t n;
} text_buf;

static void put(text_buf *t, const char *s)
{
    size_t len = strlen(s);
    cr_assert_lt(t->n + len, sizeof t->s);
    memcpy(t->s + t->n, s, len + 1);
    t->n += len;
}

static void print_node(text_buf *t, const rnode *n, int required, lcg *g);

static void print_kid(text_buf *t, const rnode *kid, int required, lcg *g)
{
    print_node(t, kid, required, g);
}

static void print_node(text_buf *t, const rnode *n, int required, lcg *g)
{
    static const char *const cmp_text[] = {" == ", " != ", " < ", " <= ", " > ", " >= "};
    static const char *const var_text[] = {"a", "b", "c"};
    bool parens = precedence(n) < required || lcg_below(g, 12) == 0;
    if (parens) put(t, "(");
    char number[32];
    switch (n->kind) {
    case R_LIT:
        snprintf(number, sizeof number, "%" PRId64, n->value);
        put(t, number);
        break;
    case R_VAR:
        put(t, var_text[n->var]);
        break;
    case R_NEG:
        put(t, "-");
        print_kid(t, n->kid[0], P_UNARY, g);
        break;
    case R_ADD: case R_SUB: case R_MUL: case R_FLOORDIV: case R_MOD: {
        static const char *const op_text[] = {" + ", " - ", " * ", " // ", " % "};
        int level = precedence(n);
        print_kid(t, n->kid[0], level, g);
        put(t, op_text[n->kind - R_ADD]);
        print_kid(t, n->kid[1], level + 1, g);
        break;
    }
    case R_POW:
        print_kid(t, n->kid[0], P_ATOM, g);
        snprintf(number, sizeof number, " ** %" PRId64, n->value);
        put(t, number);
        break;
    case R_CHAIN:
        for (int k = 0; k < n->n; k++) {
            if (k) put(t, cmp_text[n->cmp[k - 1]]);
            print_kid(t, n->kid[k], P_SUM, g);
        }
        break;
    case R_AND: case R_OR:
        print_kid(t, n->kid[0], precedence(n), g);
        put(t, n->kind == R_AND ? " and " : " or ");
        print_kid(t, n->kid[1], precedence(n) + 1, g);
        break;
    case R_NOT:
        put(t, "not ");
        print_kid(t, n->kid[0], P_NOT, g);
        break;
    }
    if (parens) put(t, ")");
}

enum { REF_OK, REF_ZERO_DIVISION, REF_OVERFLOW };

typedef struct ref_result {
    int status;
    int64_t value;
} ref_result;

static ref_result ref_ok(__int128 v)
{
    ref_result r = {REF_OK, 0};
    if (v > INT64_MAX || v < INT64_MIN) {
        r.status = REF_OVERFLOW;
        return r;
    }
    r.value = (int64_t)v;
    return r;
}

/* floor(a / b) by the identity a // b == (-a) // (-b), reducing to b > 0. */
static __int128 ref_floor_div(__int128 a, __int128 b)
{
    if (b < 0) return ref_floor_div(-a, -b);
    if (a >= 0) return a / b;
    return -((-a + b - 1) / b);
}

static ref_result ref_eval(const rnode *n, const int64_t *vars)
{
    ref_result x, y;
    switch (n->kind) {
    case R_LIT: return ref_ok(n->value);
    case R_VAR: return ref_ok(vars[n->var]);
    case R_NEG:
        x = ref_eval(n->kid[0], vars);
        if (x.status) return x;
        return ref_ok(-(__int128)x.value);
    case R_ADD: case R_SUB: case R_MUL: case R_FLOORDIV: case R_MOD:
        x = ref_eval(n->kid[0], vars);
        if (x.status) return x;
        y = ref_eval(n->kid[1], vars);
        if (y.status) return y;
        switch (n->kind) {
        case R_ADD: return ref_ok((__int128)x.value + y.value);
        case R_SUB: return ref_ok((__int128)x.value - y.value);
        case R_MUL: return ref_ok((__int128)x.value * y.value);
        default:
            if (y.value == 0) {
                ref_result z = {REF_ZERO_DIVISION, 0};
                return z;
            }
            __int128 q = ref_floor_div(x.value, y.value);
            return ref_ok(n->kind == R_FLOORDIV ? q : (__int128)x.value - q * y.value);
        }
    case R_POW: {
        x = ref_eval(n->kid[0], vars);
        if (x.status) return x;
        __int128 p = 1;
        for (int64_t k = 0; k < n->value; k++) {
            p *= x.value;
            if (p > INT64_MAX || p < INT64_MIN) return ref_ok(p);
        }
        return ref_ok(p);
    }
    case R_CHAIN: {
        x = ref_eval(n->kid[0], vars);
        if (x.status) return x;
        for (int k = 1; k < n->n; k++) {
            y = ref_eval(n->kid[k], vars);
            if (y.status) return y;
            bool holds = false;
            switch (n->cmp[k - 1]) {
            case CMP_EQ: holds = x.value == y.value; break;
            case CMP_NE: holds = x.value != y.value; break;
            case CMP_LT: holds = x.value < y.value; break;
            case CMP_LE: holds = x.value <= y.value; break;
            case CMP_GT: holds = x.value > y.value; break;
            case CMP_GE: holds = x.value >= y.value; break;
            }
            if (!holds) return ref_ok(0);
            x = y;
        }
        return ref_ok(1);
    }
    case R_AND: case R_OR:
        x = ref_eval(n->kid[0], vars);
        if (x.status) return x;
        if (n->kind == R_AND && x.value == 0) return ref_ok(0);
        if (n->kind == R_OR && x.value != 0) return ref_ok(1);
        y = ref_eval(n->kid[1], vars);
        if (y.status) return y;
        return ref_ok(y.value != 0);
    default:
        x = ref_eval(n->kid[0], vars);
        if (x.status) return x;
        return ref_ok(x.value == 0);
    }
}

static void mark_vars(const rnode *n, bool *used)
{
    if (n->kind == R_VAR) used[n->var] = true;
    int kids = n->kind == R_POW ? 1 : n->n;
    for (int k = 0; k < kids; k++) mark_vars(n->kid[k], used);
}

static int64_t random_variable(lcg *g)
{
    switch (lcg_below(g, 20)) {
    case 0: return INT64_MAX - lcg_below(g, 3);
    case 1: return INT64_MIN + lcg_below(g, 3);
    case 2: return (int64_t)lcg_next(g) * (lcg_below(g, 2) ? 1 : -1) * 4;
    case 3: return 0;
    default: return lcg_below(g, 41) - 20;
    }
}

Test(expr, randomized_against_reference)
{
    lcg g = {0x5eed5eed12345678u};
    int compared = 0, zero_divisions = 0, overflows = 0;
    for (int round = 0; round < 3000; round++) {
        pool pl;
        pl.used = 0;
        rnode *tree = gen(&pl, &g, 1 + lcg_below(&g, 5));
        text_buf text;
        text.n = 0;
        text.s[0] = '\0';
        print_node(&text, tree, 0, &g);

        expr *e = parse_ok(text.s);
        bool used[3] = {false, false, false};
        mark_vars(tree, used);
        size_t count;
        const int *slot_list = expr_slots(e, &count);
        size_t want_count = (size_t)used[0] + used[1] + used[2];
        cr_assert_eq(count, want_count, "\"%s\": %zu slots, want %zu", text.s, count, want_count);
        for (size_t k = 0, v = 0; v < 3; v++)
            if (used[v]) cr_assert_eq(slot_list[k++], (int)v, "\"%s\"", text.s);

        for (int trial = 0; trial < 40; trial++) {
            int64_t vars[3];
            for (int k = 0; k < 3; k++) vars[k] = random_variable(&g);
            for (int k = 0; k < 3; k++) slots[k] = int_value(vars[k]);
            ref_result want = ref_eval(tree, vars);
            expr_value got;
            skytune_error err = {0};
            int rc = expr_eval(e, slots, &got, &err);
            bool truth = expr_eval_bool(e, slots);
            if (want.status == REF_OVERFLOW) {
                overflows++; /* the library goes on in floating point; nothing exact to compare */
                continue;
            }
            if (want.status == REF_ZERO_DIVISION) {
                zero_divisions++;
                cr_assert_eq(rc, -1, "\"%s\" with a=%" PRId64 " b=%" PRId64 " c=%" PRId64
                             " should divide by zero", text.s, vars[0], vars[1], vars[2]);
                cr_assert(strstr(err.message, "by zero") != NULL, "%s", err.message);
                cr_assert_not(truth);
                continue;
            }
            cr_assert_eq(rc, 0, "\"%s\" with a=%" PRId64 " b=%" PRId64 " c=%" PRId64 ": %s",
                         text.s, vars[0], vars[1], vars[2], err.message);
            cr_assert_eq(got.kind, EXPR_INT, "\"%s\" should give an int", text.s);
            cr_assert_eq(got.i, want.value, "\"%s\" with a=%" PRId64 " b=%" PRId64 " c=%" PRId64
                         ": got %" PRId64 ", want %" PRId64, text.s, vars[0], vars[1], vars[2],
                         got.i, want.value);
            cr_assert_eq(truth, want.value != 0, "\"%s\": expr_eval_bool disagrees", text.s);
            compared++;
        }
        expr_free(e);
    }
    cr_expect_gt(compared, 50000, "too few exact comparisons (%d)", compared);
    cr_expect_gt(zero_divisions, 100, "division by zero never exercised");
    cr_expect_gt(overflows, 100, "overflow never exercised");
}
