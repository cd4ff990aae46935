#include "value.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

/* The text a message quotes: escaped and shortened (quote.h), in the
 * `shown` buffer every function that quotes declares. */
#define SHOWN(text) quote_text((text), shown, sizeof shown)

/* Numbers arrive from files, presets and the command line, where stray
 * spaces around a value are common and never meaningful. Strings are taken
 * verbatim: their spaces may be the point. */
static void trim_spaces(const char **begin, const char **end)
{
    while (*begin < *end && isspace((unsigned char)**begin)) (*begin)++;
    while (*end > *begin && isspace((unsigned char)(*end)[-1])) (*end)--;
}

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Parsed by hand rather than with strtoll: strtoll also accepts octal with
 * base 0 ("010" would be 8), skips inner whitespace after the sign, and
 * cannot tell "-9223372036854775808" (valid) from its positive twin. */
static int parse_int(const char *text, int64_t *out, skytune_error *err)
{
    char shown[QUOTE_TEXT];
    const char *p = text;
    const char *end = text + strlen(text);
    trim_spaces(&p, &end);
    if (p == end)
        return err_set(err, "invalid integer '%s': the text is empty", SHOWN(text));

    bool negative = false;
    if (*p == '+' || *p == '-') {
        negative = *p == '-';
        p++;
    }
    unsigned base = 10;
    if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (p == end)
        return err_set(err, "invalid integer '%s': expected %s digits", SHOWN(text),
                       base == 16 ? "hexadecimal" : "decimal");

    /* Magnitude in uint64_t so that 2^63 (INT64_MIN's magnitude) fits. */
    const uint64_t limit = negative ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    uint64_t magnitude = 0;
    bool too_large = false;
    for (; p < end; p++) {
        int digit = hex_digit((unsigned char)*p);
        if (digit < 0 || (unsigned)digit >= base)
            return err_set(err, "invalid integer '%s': expected only %s digits%s", SHOWN(text),
                           base == 16 ? "hexadecimal" : "decimal",
                           base == 16 ? " after 0x" : " (or 0x and hexadecimal digits)");
        if (magnitude > (limit - (uint64_t)digit) / base) too_large = true;
        if (!too_large) magnitude = magnitude * base + (uint64_t)digit;
    }
    if (too_large)
        return err_set(err, "integer '%s' is out of range; valid integers are %" PRId64
                       " to %" PRId64, SHOWN(text), INT64_MIN, INT64_MAX);

    if (negative)
        *out = magnitude == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)magnitude;
    else
        *out = (int64_t)magnitude;
    return 0;
}

static int parse_float(const char *text, double *out, skytune_error *err)
{
    char shown[QUOTE_TEXT];
    const char *p = text;
    const char *end = text + strlen(text);
    trim_spaces(&p, &end);
    if (p == end)
        return err_set(err, "invalid real number '%s': the text is empty", SHOWN(text));

    /* strtod needs a terminated string; copy the trimmed part. */
    size_t n = (size_t)(end - p);
    char *copy = malloc(n + 1);
    if (!copy) return err_set(err, "out of memory parsing real number '%s'", SHOWN(text));
    memcpy(copy, p, n);
    copy[n] = '\0';

    char *stop = NULL;
    errno = 0;
    double f = strtod(copy, &stop);
    bool complete = stop == copy + n && n > 0;
    free(copy);
    if (!complete)
        return err_set(err, "invalid real number '%s': expected a number such as 1420, 0.5 "
                       "or 1.5e-3", SHOWN(text));
    if (!isfinite(f))
        return err_set(err, "invalid real number '%s': only finite numbers are accepted",
                       SHOWN(text));
    *out = f;
    return 0;
}

static bool equal_ignoring_case(const char *a, size_t a_len, const char *b)
{
    size_t b_len = strlen(b);
    if (a_len != b_len) return false;
    for (size_t k = 0; k < a_len; k++)
        if (tolower((unsigned char)a[k]) != tolower((unsigned char)b[k])) return false;
    return true;
}

static int parse_bool(const char *text, int64_t *out, skytune_error *err)
{
    static const char *const truthy[] = {"true", "1", "yes", "on"};
    static const char *const falsy[] = {"false", "0", "no", "off"};
    char shown[QUOTE_TEXT];
    const char *p = text;
    const char *end = text + strlen(text);
    trim_spaces(&p, &end);
    size_t n = (size_t)(end - p);
    for (size_t k = 0; k < sizeof truthy / sizeof truthy[0]; k++) {
        if (equal_ignoring_case(p, n, truthy[k])) {
            *out = 1;
            return 0;
        }
        if (equal_ignoring_case(p, n, falsy[k])) {
            *out = 0;
            return 0;
        }
    }
    return err_set(err, "invalid boolean '%s': expected true/false, 1/0, yes/no or on/off",
                   SHOWN(text));
}

int value_parse(const char *text, skytune_type type, skytune_value *out, skytune_error *err)
{
    char shown[QUOTE_TEXT];
    memset(out, 0, sizeof *out);
    out->type = type;
    if (!text) return err_set(err, "no text to parse as %s", type_name(type));

    switch (type) {
    case SKYTUNE_INT:
        return parse_int(text, &out->i, err);
    case SKYTUNE_FLOAT:
        return parse_float(text, &out->f, err);
    case SKYTUNE_BOOL:
        return parse_bool(text, &out->i, err);
    case SKYTUNE_STRING: {
        char *copy = strdup(text);
        if (!copy) return err_set(err, "out of memory copying '%s'", SHOWN(text));
        out->s = copy;
        return 0;
    }
    }
    out->type = SKYTUNE_INT;
    return err_set(err, "cannot parse '%s': unknown value type %d", SHOWN(text), (int)type);
}

void value_clear(skytune_value *v)
{
    if (!v) return;
    if (v->type == SKYTUNE_STRING) free((char *)v->s);
    memset(v, 0, sizeof *v);
}

int value_copy(skytune_value *dst, const skytune_value *src)
{
    /* Build the copy aside first so that dst == src works. */
    skytune_value copy = *src;
    if (src->type == SKYTUNE_STRING && src->s) {
        char *s = strdup(src->s);
        if (!s) {
            memset(dst, 0, sizeof *dst);
            return -1;
        }
        copy.s = s;
    }
    *dst = copy;
    return 0;
}

/* The shortest of %.15g, %.16g and %.17g that strtod reads back to the same
 * double. %.17g always round-trips, so the loop always ends with an answer;
 * the shorter forms avoid printing 0.1 as 0.10000000000000001.
 *
 * Integer-valued floats come out without a decimal point ("1420", not
 * "1420.0"): that text round-trips through strtod, and the value's type
 * travels beside its text everywhere (parameter declarations, the results
 * database), so nothing needs the point to tell a float from an integer.
 * Non-finite values (which value_parse never produces, but arithmetic can)
 * are spelled "nan", "inf" and "-inf". */
static void format_double(double f, char *out, size_t len)
{
    if (isnan(f)) {
        snprintf(out, len, "nan");
        return;
    }
    if (isinf(f)) {
        snprintf(out, len, "%s", f < 0 ? "-inf" : "inf");
        return;
    }
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(out, len, "%.*g", precision, f);
        if (strtod(out, NULL) == f) return;
    }
}

void value_format(const skytune_value *v, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    switch (v->type) {
    case SKYTUNE_INT:
        snprintf(buf, len, "%" PRId64, v->i);
        return;
    case SKYTUNE_BOOL:
        snprintf(buf, len, "%d", v->i != 0);
        return;
    case SKYTUNE_FLOAT: {
        /* Format in full first: the round-trip check needs the whole text
         * even when the caller's buffer is too small for it. */
        char text[40];
        format_double(v->f, text, sizeof text);
        snprintf(buf, len, "%s", text);
        return;
    }
    case SKYTUNE_STRING:
        snprintf(buf, len, "%s", v->s ? v->s : "");
        return;
    }
    buf[0] = '\0';
}

bool value_float_to_int64(double f, int64_t *out)
{
    if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0) || f != trunc(f)) return false;
    *out = (int64_t)f;
    return true;
}

/* -1, 0 or 1 comparing an integer with a finite double exactly, without the
 * rounding that converting a large integer to double would introduce. */
static int compare_int_with_double(int64_t i, double f)
{
    if (f >= 9223372036854775808.0) return -1;
    if (f < -9223372036854775808.0) return 1;
    double whole = trunc(f);
    int64_t w = (int64_t)whole;
    if (i != w) return i < w ? -1 : 1;
    double fraction = f - whole;
    return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0);
}

/* Numbers compare by value as Python's == does (1, 1.0 and true are all
 * equal); a string equals only a string with the same text. */
bool value_equal(const skytune_value *a, const skytune_value *b)
{
    bool a_string = a->type == SKYTUNE_STRING, b_string = b->type == SKYTUNE_STRING;
    if (a_string || b_string) {
        if (!(a_string && b_string)) return false;
        return strcmp(a->s ? a->s : "", b->s ? b->s : "") == 0;
    }
    bool a_float = a->type == SKYTUNE_FLOAT, b_float = b->type == SKYTUNE_FLOAT;
    if (a_float && b_float) return a->f == b->f;
    if (a_float) return !isnan(a->f) && compare_int_with_double(b->i, a->f) == 0;
    if (b_float) return !isnan(b->f) && compare_int_with_double(a->i, b->f) == 0;
    return a->i == b->i;
}

expr_value value_to_expr(const skytune_value *v)
{
    expr_value x;
    memset(&x, 0, sizeof x);
    switch (v->type) {
    case SKYTUNE_FLOAT:
        x.kind = EXPR_FLOAT;
        x.f = v->f;
        break;
    case SKYTUNE_STRING:
        x.kind = EXPR_STRING;
        x.s = v->s ? v->s : "";
        break;
    case SKYTUNE_BOOL:
        x.kind = EXPR_INT;
        x.i = v->i != 0;
        break;
    case SKYTUNE_INT:
    default:
        x.kind = EXPR_INT;
        x.i = v->i;
        break;
    }
    return x;
}

const char *type_name(skytune_type type)
{
    switch (type) {
    case SKYTUNE_INT: return "int";
    case SKYTUNE_FLOAT: return "float";
    case SKYTUNE_BOOL: return "bool";
    case SKYTUNE_STRING: return "string";
    }
    return "unknown type";
}

/* ASCII only, whatever the locale: the name also becomes a C macro. */
static bool is_identifier_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool name_is_identifier(const char *name)
{
    if (!name || !is_identifier_start(name[0])) return false;
    for (size_t n = 1; name[n]; n++) {
        if (n >= 63) return false;
        if (!is_identifier_start(name[n]) && !(name[n] >= '0' && name[n] <= '9')) return false;
    }
    return true;
}

/* Why `s` is not a token, or NULL when it is one. */
static const char *token_fault(const char *s, size_t *position)
{
    *position = 0;
    if (!s || !*s) return "it is empty";
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++, n++) {
        *position = n + 1;
        if (*c == ' ') return "it holds a space";
        if (*c == '"' || *c == '\'') return "it holds a quote";
        if (*c == '\\') return "it holds a backslash";
        if (*c < 0x20 || *c == 0x7F) return "it holds a control character";
        if (*c > 0x7F) return "it holds a character that is not ASCII";
    }
    *position = 0;
    if (n > VALUE_TOKEN_MAX) return "it is too long";
    return NULL;
}

bool value_is_token(const char *s)
{
    size_t position;
    return token_fault(s, &position) == NULL;
}

int value_check_token(const char *what, const char *s, skytune_error *err)
{
    size_t position;
    const char *fault = token_fault(s, &position);
    if (!fault) return 0;
    char shown[QUOTE_TEXT], where[48] = "";
    if (position) snprintf(where, sizeof where, " (character %zu)", position);
    return err_set(err, "%s%s'%s' is not a valid string value: %s%s. String values become "
                   "-D NAME=value options of the kernel build, so each must be 1 to %d "
                   "printable ASCII characters with no space, quote (\" or ') or backslash",
                   what ? what : "", what ? ": " : "", SHOWN(s), fault, where, VALUE_TOKEN_MAX);
}
