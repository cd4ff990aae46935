#include <criterion/criterion.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value.h"

static skytune_value parse_ok(const char *text, skytune_type type)
{
    skytune_value v;
    skytune_error err = {0};
    int rc = value_parse(text, type, &v, &err);
    cr_assert_eq(rc, 0, "'%s' as %s failed: %s", text, type_name(type), err.message);
    cr_assert_eq(v.type, type);
    return v;
}

/* Fails, and the message names the text and contains `word`. */
static void expect_rejected(const char *text, skytune_type type, const char *word)
{
    skytune_value v;
    skytune_error err = {0};
    int rc = value_parse(text, type, &v, &err);
    cr_expect_eq(rc, -1, "'%s' should not parse as %s", text, type_name(type));
    if (rc == 0) {
        value_clear(&v);
        return;
    }
    char quoted[300];
    snprintf(quoted, sizeof quoted, "'%s'", text);
    cr_expect(strstr(err.message, quoted) != NULL, "message \"%s\" should quote %s", err.message,
              quoted);
    cr_expect(strstr(err.message, word) != NULL, "message \"%s\" should contain \"%s\"",
              err.message, word);
}

static void expect_int(const char *text, int64_t want)
{
    skytune_value v = parse_ok(text, SKYTUNE_INT);
    cr_expect_eq(v.i, want, "'%s' gave %" PRId64 ", want %" PRId64, text, v.i, want);
}

static void expect_format(const skytune_value *v, const char *want)
{
    char buf[64];
    value_format(v, buf, sizeof buf);
    cr_expect_str_eq(buf, want);
}

static skytune_value float_value(double f)
{
    skytune_value v = {.type = SKYTUNE_FLOAT, .f = f};
    return v;
}

static skytune_value int_value(int64_t i)
{
    skytune_value v = {.type = SKYTUNE_INT, .i = i};
    return v;
}

/* ---------------------------------------------------------- parsing */

Test(value, parses_integers)
{
    expect_int("0", 0);
    expect_int("42", 42);
    expect_int("-17", -17);
    expect_int("+5", 5);
    expect_int("007", 7); /* decimal, not octal */
    expect_int("0x1F", 31);
    expect_int("0XfF", 255);
    expect_int("-0x10", -16);
    expect_int(" 64 ", 64); /* spaces around a number are not meaningful */
    expect_int("9223372036854775807", INT64_MAX);
    expect_int("-9223372036854775808", INT64_MIN);
    expect_int("0x7fffffffffffffff", INT64_MAX);
    expect_int("-0x8000000000000000", INT64_MIN);
}

Test(value, rejects_bad_integers)
{
    expect_rejected("12x", SKYTUNE_INT, "integer");
    expect_rejected("", SKYTUNE_INT, "empty");
    expect_rejected("   ", SKYTUNE_INT, "empty");
    expect_rejected("x12", SKYTUNE_INT, "integer");
    expect_rejected("1.5", SKYTUNE_INT, "integer");
    expect_rejected("1e3", SKYTUNE_INT, "integer");
    expect_rejected("--1", SKYTUNE_INT, "integer");
    expect_rejected("-", SKYTUNE_INT, "digits");
    expect_rejected("0x", SKYTUNE_INT, "hexadecimal");
    expect_rejected("0x1G", SKYTUNE_INT, "hexadecimal");
    expect_rejected("1 2", SKYTUNE_INT, "integer");
    expect_rejected("9223372036854775808", SKYTUNE_INT, "out of range");
    expect_rejected("-9223372036854775809", SKYTUNE_INT, "out of range");
    expect_rejected("99999999999999999999999", SKYTUNE_INT, "out of range");
    expect_rejected("0x8000000000000000", SKYTUNE_INT, "out of range");
}

Test(value, parses_floats)
{
    cr_expect_eq(parse_ok("1.5", SKYTUNE_FLOAT).f, 1.5);
    cr_expect_eq(parse_ok("1420", SKYTUNE_FLOAT).f, 1420.0);
    cr_expect_eq(parse_ok("1420.0", SKYTUNE_FLOAT).f, 1420.0);
    cr_expect_eq(parse_ok("-0.25", SKYTUNE_FLOAT).f, -0.25);
    cr_expect_eq(parse_ok(".5", SKYTUNE_FLOAT).f, 0.5);
    cr_expect_eq(parse_ok("1e3", SKYTUNE_FLOAT).f, 1000.0);
    cr_expect_eq(parse_ok("1.5E-3", SKYTUNE_FLOAT).f, 1.5e-3);
    cr_expect_eq(parse_ok(" 2.5 ", SKYTUNE_FLOAT).f, 2.5);
    cr_expect_eq(parse_ok("0.1", SKYTUNE_FLOAT).f, 0.1);
}

Test(value, rejects_bad_floats)
{
    expect_rejected("abc", SKYTUNE_FLOAT, "real number");
    expect_rejected("", SKYTUNE_FLOAT, "empty");
    expect_rejected("1.5.2", SKYTUNE_FLOAT, "real number");
    expect_rejected("1.5x", SKYTUNE_FLOAT, "real number");
    expect_rejected("inf", SKYTUNE_FLOAT, "finite");
    expect_rejected("-infinity", SKYTUNE_FLOAT, "finite");
    expect_rejected("nan", SKYTUNE_FLOAT, "finite");
    expect_rejected("1e999", SKYTUNE_FLOAT, "finite");
}

Test(value, parses_booleans)
{
    static const char *const truthy[] = {"true", "TRUE", "True", "1", "yes", "Yes", "on", "ON"};
    static const char *const falsy[] = {"false", "False", "0", "no", "NO", "off", "Off"};
    for (size_t k = 0; k < sizeof truthy / sizeof truthy[0]; k++)
        cr_expect_eq(parse_ok(truthy[k], SKYTUNE_BOOL).i, 1, "'%s'", truthy[k]);
    for (size_t k = 0; k < sizeof falsy / sizeof falsy[0]; k++)
        cr_expect_eq(parse_ok(falsy[k], SKYTUNE_BOOL).i, 0, "'%s'", falsy[k]);
    expect_rejected("maybe", SKYTUNE_BOOL, "true/false");
    expect_rejected("2", SKYTUNE_BOOL, "boolean");
    expect_rejected("", SKYTUNE_BOOL, "boolean");
    expect_rejected("truee", SKYTUNE_BOOL, "boolean");
    expect_rejected("y", SKYTUNE_BOOL, "boolean");
}

Test(value, parses_strings_as_copies)
{
    char text[] = "tiled";
    skytune_value v = parse_ok(text, SKYTUNE_STRING);
    cr_expect_str_eq(v.s, "tiled");
    cr_expect_neq(v.s, text);
    text[0] = 'X';
    cr_expect_str_eq(v.s, "tiled");
    value_clear(&v);
    cr_expect_null(v.s);
    cr_expect_eq(v.type, SKYTUNE_INT); /* zeroed */

    v = parse_ok(" spaced out ", SKYTUNE_STRING); /* strings are verbatim */
    cr_expect_str_eq(v.s, " spaced out ");
    value_clear(&v);
    v = parse_ok("", SKYTUNE_STRING);
    cr_expect_str_eq(v.s, "");
    value_clear(&v);
}

Test(value, null_text_and_null_error)
{
    skytune_value v;
    skytune_error err = {0};
    cr_expect_eq(value_parse(NULL, SKYTUNE_INT, &v, &err), -1);
    cr_expect_neq(err.message[0], '\0');
    cr_expect_eq(value_parse("12x", SKYTUNE_INT, &v, NULL), -1);
    value_clear(NULL);
}

/* ------------------------------------------------------- formatting */

Test(value, formats_canonically)
{
    skytune_value v = int_value(-17);
    expect_format(&v, "-17");
    v = int_value(INT64_MIN);
    expect_format(&v, "-9223372036854775808");
    v.type = SKYTUNE_BOOL;
    v.i = 1;
    expect_format(&v, "1");
    v.i = 0;
    expect_format(&v, "0");

    v = float_value(0.1);
    expect_format(&v, "0.1");
    v = float_value(1420.0);
    expect_format(&v, "1420"); /* integer-valued floats have no point; see value.c */
    v = float_value(1.0 / 3.0);
    expect_format(&v, "0.3333333333333333"); /* 16 digits suffice */
    v = float_value(0.1 + 0.2);
    expect_format(&v, "0.30000000000000004");
    v = float_value(1e300);
    expect_format(&v, "1e+300");
    v = float_value(-2.5e-7);
    expect_format(&v, "-2.5e-07");
    v = float_value(5e-324); /* 15 digits already read back as the smallest denormal */
    expect_format(&v, "4.94065645841247e-324");
    v = float_value(9007199254740993.0); /* rounds to 2^53 */
    expect_format(&v, "9007199254740992");
    v = float_value(NAN);
    expect_format(&v, "nan");
    v = float_value(-INFINITY);
    expect_format(&v, "-inf");

    v.type = SKYTUNE_STRING;
    v.s = "naive";
    expect_format(&v, "naive");
    v.s = NULL;
    expect_format(&v, "");
}

Test(value, format_truncates_safely)
{
    char buf[5];
    memset(buf, 'Z', sizeof buf);
    skytune_value v = int_value(123456789);
    value_format(&v, buf, sizeof buf);
    cr_expect_str_eq(buf, "1234");
    v = float_value(1.0 / 3.0);
    value_format(&v, buf, sizeof buf);
    cr_expect_str_eq(buf, "0.33");
    buf[0] = 'Q';
    value_format(&v, buf, 0);
    cr_expect_eq(buf[0], 'Q');
}

Test(value, float_formatting_round_trips_and_is_shortest)
{
    /* Random finite doubles from their bits, with a fixed-seed LCG. */
    uint64_t state = 0x0123456789abcdefu;
    int shorter_than_17 = 0;
    for (int k = 0; k < 20000; k++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        uint64_t bits = state;
        if (k % 2) { /* also decimal-looking values such as 0.7 or 12.25 */
            double d = (double)(int64_t)(state >> 44) / (double)(1 + (state & 0xff));
            memcpy(&bits, &d, sizeof bits);
        }
        double f;
        memcpy(&f, &bits, sizeof f);
        if (!isfinite(f)) continue;
        skytune_value v = float_value(f);
        char text[64];
        value_format(&v, text, sizeof text);
        cr_assert_eq(strtod(text, NULL), f, "%s does not read back as %.17g", text, f);
        /* No shorter %.Ng (N >= 15) would have round-tripped. */
        char shorter[64];
        int digits = 17;
        for (int precision = 15; precision <= 17; precision++) {
            snprintf(shorter, sizeof shorter, "%.*g", precision, f);
            if (strtod(shorter, NULL) == f) {
                digits = precision;
                break;
            }
        }
        snprintf(shorter, sizeof shorter, "%.*g", digits, f);
        cr_assert_str_eq(text, shorter);
        shorter_than_17 += digits < 17;

        /* And it parses back through value_parse to an equal value. */
        skytune_value back = parse_ok(text, SKYTUNE_FLOAT);
        cr_assert(value_equal(&v, &back), "%s", text);
    }
    cr_expect_gt(shorter_than_17, 1000);
}

Test(value, parse_format_round_trips)
{
    static const struct {
        const char *text;
        skytune_type type;
        const char *canonical;
    } cases[] = {
        {"42", SKYTUNE_INT, "42"},          {"0x20", SKYTUNE_INT, "32"},
        {"+7", SKYTUNE_INT, "7"},           {" -3 ", SKYTUNE_INT, "-3"},
        {"yes", SKYTUNE_BOOL, "1"},         {"Off", SKYTUNE_BOOL, "0"},
        {"1420.0", SKYTUNE_FLOAT, "1420"},  {"0.10", SKYTUNE_FLOAT, "0.1"},
        {"1e-3", SKYTUNE_FLOAT, "0.001"},   {"2.5e10", SKYTUNE_FLOAT, "25000000000"},
        {"tiled", SKYTUNE_STRING, "tiled"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        skytune_value v = parse_ok(cases[k].text, cases[k].type);
        char text[64];
        value_format(&v, text, sizeof text);
        cr_expect_str_eq(text, cases[k].canonical, "'%s'", cases[k].text);
        /* The canonical text parses back to an equal value. */
        skytune_value again = parse_ok(text, cases[k].type);
        cr_expect(value_equal(&v, &again), "'%s' -> '%s'", cases[k].text, text);
        value_clear(&v);
        value_clear(&again);
    }
}

/* ---------------------------------------------------------- the rest */

Test(value, equality)
{
    skytune_value a = int_value(3), b = int_value(3), c = int_value(4);
    cr_expect(value_equal(&a, &b));
    cr_expect_not(value_equal(&a, &c));

    skytune_value t = {.type = SKYTUNE_BOOL, .i = 1};
    skytune_value one = int_value(1);
    cr_expect(value_equal(&t, &one)); /* as Python: True == 1 */

    skytune_value f1 = float_value(1.0), f3 = float_value(3.0), half = float_value(0.5);
    cr_expect(value_equal(&one, &f1));
    cr_expect(value_equal(&f3, &a));
    cr_expect_not(value_equal(&half, &one));
    skytune_value big = int_value((INT64_C(1) << 53) + 1), big_f = float_value(9007199254740992.0);
    cr_expect_not(value_equal(&big, &big_f)); /* exact, not after rounding to double */
    cr_expect_not(value_equal(&big_f, &big));
    skytune_value nan_value = float_value(NAN);
    cr_expect_not(value_equal(&nan_value, &nan_value));

    skytune_value s1 = {.type = SKYTUNE_STRING, .s = "tiled"};
    skytune_value s2 = {.type = SKYTUNE_STRING, .s = "tiled"};
    skytune_value s3 = {.type = SKYTUNE_STRING, .s = "naive"};
    skytune_value s_null = {.type = SKYTUNE_STRING, .s = NULL};
    skytune_value s_empty = {.type = SKYTUNE_STRING, .s = ""};
    skytune_value s_one = {.type = SKYTUNE_STRING, .s = "1"};
    cr_expect(value_equal(&s1, &s2));
    cr_expect_not(value_equal(&s1, &s3));
    cr_expect(value_equal(&s_null, &s_empty));
    cr_expect_not(value_equal(&s_one, &one)); /* a string never equals a number */
    cr_expect_not(value_equal(&one, &s_one));
}

Test(value, copy_is_deep)
{
    skytune_value src = parse_ok("permutation", SKYTUNE_STRING);
    skytune_value dst;
    cr_assert_eq(value_copy(&dst, &src), 0);
    cr_expect_neq(dst.s, src.s);
    cr_expect_str_eq(dst.s, "permutation");
    value_clear(&src);
    cr_expect_str_eq(dst.s, "permutation");
    value_clear(&dst);

    skytune_value n = float_value(2.5), m;
    cr_assert_eq(value_copy(&m, &n), 0);
    cr_expect(value_equal(&m, &n));

    /* Copying onto itself duplicates the string; both must be freed. */
    skytune_value self = parse_ok("x", SKYTUNE_STRING);
    const char *original = self.s;
    cr_assert_eq(value_copy(&self, &self), 0);
    cr_expect_neq(self.s, original);
    cr_expect_str_eq(self.s, "x");
    free((char *)original);
    value_clear(&self);
}

Test(value, to_expr)
{
    skytune_value i = int_value(-5);
    expr_value x = value_to_expr(&i);
    cr_expect_eq(x.kind, EXPR_INT);
    cr_expect_eq(x.i, -5);

    skytune_value b = {.type = SKYTUNE_BOOL, .i = 1};
    x = value_to_expr(&b);
    cr_expect_eq(x.kind, EXPR_INT);
    cr_expect_eq(x.i, 1);

    skytune_value f = float_value(0.75);
    x = value_to_expr(&f);
    cr_expect_eq(x.kind, EXPR_FLOAT);
    cr_expect_eq(x.f, 0.75);

    skytune_value s = {.type = SKYTUNE_STRING, .s = "tiled"};
    x = value_to_expr(&s);
    cr_expect_eq(x.kind, EXPR_STRING);
    cr_expect_eq(x.s, s.s); /* borrowed, not copied */
    skytune_value s_null = {.type = SKYTUNE_STRING, .s = NULL};
    x = value_to_expr(&s_null);
    cr_expect_str_eq(x.s, "");
}

Test(value, type_names)
{
    cr_expect_str_eq(type_name(SKYTUNE_INT), "int");
    cr_expect_str_eq(type_name(SKYTUNE_FLOAT), "float");
    cr_expect_str_eq(type_name(SKYTUNE_BOOL), "bool");
    cr_expect_str_eq(type_name(SKYTUNE_STRING), "string");
    cr_expect_not_null(type_name((skytune_type)42));
}

Test(value, identifiers)
{
    cr_expect(name_is_identifier("a"));
    cr_expect(name_is_identifier("_x1"));
    cr_expect(name_is_identifier("wg_x"));
    cr_expect(name_is_identifier("BLOCK_SIZE_X"));
    char longest[64];
    memset(longest, 'n', 63);
    longest[63] = '\0';
    cr_expect(name_is_identifier(longest));
    char too_long[65];
    memset(too_long, 'n', 64);
    too_long[64] = '\0';
    cr_expect_not(name_is_identifier(too_long));
    cr_expect_not(name_is_identifier(""));
    cr_expect_not(name_is_identifier(NULL));
    cr_expect_not(name_is_identifier("1a"));
    cr_expect_not(name_is_identifier("a-b"));
    cr_expect_not(name_is_identifier("a.b"));
    cr_expect_not(name_is_identifier("a b"));
    cr_expect_not(name_is_identifier("caf\xc3\xa9"));
}
