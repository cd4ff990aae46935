/* Tuning parameters: expanding a plugin's compact description into the
 * ordered value list that configurations index into. */
#include "params.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "value.h"

/* Longest permutation accepted: 8! = 40320 values fits a uint16_t index;
 * 9! = 362880 would not. */
#define PARAM_MAX_PERMUTATION_LETTERS 8

/* Canonical text of a number is at most ~25 characters ("%.17g" of a double,
 * or a 64-bit integer); strings are compared directly and never formatted
 * into one of these. */
#define PARAM_NUMBER_TEXT 64

static const char *kind_name(skytune_values_kind kind)
{
    switch (kind) {
    case SKYTUNE_LIST: return "list";
    case SKYTUNE_RANGE: return "range";
    case SKYTUNE_POW2: return "powers of two";
    case SKYTUNE_BOOLEAN: return "boolean";
    case SKYTUNE_ENUM: return "enum";
    case SKYTUNE_PERMUTATION: return "permutation";
    case SKYTUNE_FLOAT_LIST: return "float list";
    }
    return "unknown";
}

static char *duplicate_text(const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy) return NULL;
    memcpy(copy, text, len);
    copy[len] = '\0';
    return copy;
}

/* [*begin, *end) with leading and trailing whitespace removed. */
static void trim(const char **begin, const char **end)
{
    while (*begin < *end && isspace((unsigned char)**begin)) (*begin)++;
    while (*end > *begin && isspace((unsigned char)(*end)[-1])) (*end)--;
}

static void free_values(skytune_value *values, size_t count)
{
    if (!values) return;
    for (size_t k = 0; k < count; k++) value_clear(&values[k]);
    free(values);
}

/* The value list under construction, before it is handed to a param_def. */
typedef struct value_list {
    skytune_value *items;
    size_t count;
    size_t capacity;
} value_list;

/* Takes ownership of *v (its string, if any) whether or not it succeeds. */
static int value_list_push(value_list *list, skytune_value *v)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 16;
        skytune_value *grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown) {
            value_clear(v);
            return -1;
        }
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = *v;
    memset(v, 0, sizeof *v);
    return 0;
}

static void value_list_free(value_list *list)
{
    free_values(list->items, list->count);
    memset(list, 0, sizeof *list);
}

/* Values of one list appear in --only lists and in the canonical text
 * "name=value,name=value", so they must not contain the separators. This is
 * all a recorded dataset's values (T1, Kernel Tuner, T4) must satisfy. */
const char *param_string_value_fault(const char *s)
{
    if (!s || !*s) return "is empty";
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (isspace(*c)) return "contains whitespace";
        if (*c < 0x20 || *c == 0x7F) return "contains a control character";
        if (*c > 0x7F) return "contains a character outside printable ASCII";
        if (*c == ',') return "contains ','";
        if (*c == '=') return "contains '='";
    }
    return NULL;
}

/* The name check of both ways to make a parameter; the name is quoted since
 * it may come from a file. */
static int check_name(const char *name, skytune_error *err)
{
    if (!name) return err_set(err, "tuning parameter without a name");
    if (name_is_identifier(name)) return 0;
    char shown[QUOTE_TEXT];
    return err_set(err, "tuning parameter '%s': the name must be an identifier "
                   "([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)",
                   quote_text(name, shown, sizeof shown));
}

/* A string value a plugin declares also becomes a -D option of the kernel
 * build, so it must be a token as well (value.h). */
static int check_declared_string(const char *name, const char *s, skytune_error *err)
{
    char what[128];
    snprintf(what, sizeof what, "tuning parameter '%s'", name);
    if (value_check_token(what, s, err) != 0) return -1;
    const char *fault = param_string_value_fault(s);
    if (fault) {
        char shown[QUOTE_TEXT];
        return err_set(err, "%s: value '%s' %s; %s", what, quote_text(s, shown, sizeof shown),
                       fault, PARAM_STRING_VALUES);
    }
    return 0;
}

/* Split a comma-separated list, parse each item as `type` and append it. */
static int parse_list(const char *name, skytune_values_kind kind, const char *text,
                      skytune_type type, value_list *list, skytune_error *err)
{
    if (!text) return err_set(err, "tuning parameter '%s': a %s needs its values in `list`", name,
                              kind_name(kind));
    const char *item = text;
    for (size_t position = 1;; position++) {
        const char *comma = strchr(item, ',');
        const char *begin = item;
        const char *end = comma ? comma : item + strlen(item);
        trim(&begin, &end);
        if (begin == end) {
            if (!comma && position == 1)
                return err_set(err, "tuning parameter '%s': the %s is empty; give "
                               "comma-separated values such as \"%s\"", name, kind_name(kind),
                               type == SKYTUNE_STRING ? "naive,tiled" : "1,2,4");
            return err_set(err, "tuning parameter '%s': value %zu of \"%s\" is empty; give "
                           "comma-separated values", name, position, text);
        }
        char *item_text = duplicate_text(begin, (size_t)(end - begin));
        if (!item_text) return err_set(err, "tuning parameter '%s': out of memory", name);
        skytune_value v;
        memset(&v, 0, sizeof v);
        skytune_error parse_err;
        parse_err.message[0] = '\0';
        if (value_parse(item_text, type, &v, &parse_err) != 0) {
            err_set(err, "tuning parameter '%s': value %zu '%s' is not a valid %s (%s)", name,
                    position, item_text, type_name(type), parse_err.message);
            free(item_text);
            return -1;
        }
        if (type == SKYTUNE_STRING && check_declared_string(name, v.s, err) != 0) {
            free(item_text);
            value_clear(&v);
            return -1;
        }
        free(item_text);
        if (list->count >= PARAM_MAX_VALUES) {
            value_clear(&v);
            return err_set(err, "tuning parameter '%s': more than %d values", name,
                           PARAM_MAX_VALUES);
        }
        if (value_list_push(list, &v) != 0)
            return err_set(err, "tuning parameter '%s': out of memory", name);
        if (!comma) return 0;
        item = comma + 1;
    }
}

static skytune_value int_value(int64_t i)
{
    skytune_value v;
    memset(&v, 0, sizeof v);
    v.type = SKYTUNE_INT;
    v.i = i;
    return v;
}

static int expand_range(const skytune_tuning_param *spec, value_list *list, skytune_error *err)
{
    if (spec->step <= 0)
        return err_set(err, "tuning parameter '%s': range step is %lld; it must be at least 1",
                       spec->name, (long long)spec->step);
    if (spec->from > spec->to)
        return err_set(err, "tuning parameter '%s': range from %lld is greater than to %lld",
                       spec->name, (long long)spec->from, (long long)spec->to);
    /* Unsigned arithmetic: to - from can exceed INT64_MAX. */
    uint64_t span = (uint64_t)spec->to - (uint64_t)spec->from;
    uint64_t count = span / (uint64_t)spec->step + 1;
    if (count > PARAM_MAX_VALUES)
        return err_set(err, "tuning parameter '%s': range %lld..%lld step %lld has %llu values; "
                       "at most %d are allowed", spec->name, (long long)spec->from,
                       (long long)spec->to, (long long)spec->step, (unsigned long long)count,
                       PARAM_MAX_VALUES);
    for (uint64_t k = 0; k < count; k++) {
        skytune_value v = int_value((int64_t)((uint64_t)spec->from + k * (uint64_t)spec->step));
        if (value_list_push(list, &v) != 0)
            return err_set(err, "tuning parameter '%s': out of memory", spec->name);
    }
    return 0;
}

static int expand_pow2(const skytune_tuning_param *spec, value_list *list, skytune_error *err)
{
    if (spec->from > spec->to)
        return err_set(err, "tuning parameter '%s': powers of two from %lld is greater than "
                       "to %lld", spec->name, (long long)spec->from, (long long)spec->to);
    for (int shift = 0; shift < 63; shift++) {
        int64_t p = (int64_t)1 << shift;
        if (p > spec->to) break;
        if (p < spec->from) continue;
        skytune_value v = int_value(p);
        if (value_list_push(list, &v) != 0)
            return err_set(err, "tuning parameter '%s': out of memory", spec->name);
    }
    if (list->count == 0)
        return err_set(err, "tuning parameter '%s': there is no power of two in [%lld, %lld]; "
                       "give a range that contains one of 1, 2, 4, ...", spec->name,
                       (long long)spec->from, (long long)spec->to);
    return 0;
}

/* Next permutation of order[0..n) in lexicographic order; false after the
 * last one. */
static bool next_permutation(unsigned char *order, size_t n)
{
    if (n < 2) return false;
    size_t i = n - 1;
    while (i > 0 && order[i - 1] >= order[i]) i--;
    if (i == 0) return false;
    size_t j = n - 1;
    while (order[j] <= order[i - 1]) j--;
    unsigned char t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
    for (size_t a = i, b = n - 1; a < b; a++, b--) {
        t = order[a];
        order[a] = order[b];
        order[b] = t;
    }
    return true;
}

/* Every arrangement of the letters, ordered as if the letters as given were
 * the alphabet: "ab" gives ab, ba; "TCSP" starts TCSP, TCPS, TSCP. */
static int expand_permutation(const skytune_tuning_param *spec, value_list *list,
                              skytune_error *err)
{
    if (!spec->list)
        return err_set(err, "tuning parameter '%s': a permutation needs its letters in `list`, "
                       "e.g. \"TCSP\"", spec->name);
    const char *begin = spec->list;
    const char *end = begin + strlen(begin);
    trim(&begin, &end);
    size_t n = (size_t)(end - begin);
    if (n == 0)
        return err_set(err, "tuning parameter '%s': a permutation needs at least one letter, "
                       "e.g. \"TCSP\"", spec->name);
    if (n > PARAM_MAX_PERMUTATION_LETTERS)
        return err_set(err, "tuning parameter '%s': permutation \"%s\" has %zu letters; at most "
                       "%d are allowed", spec->name, spec->list, n, PARAM_MAX_PERMUTATION_LETTERS);
    for (size_t a = 0; a < n; a++) {
        if (!isalnum((unsigned char)begin[a]) && begin[a] != '_')
            return err_set(err, "tuning parameter '%s': permutation \"%s\" may only contain "
                           "letters, digits and '_'", spec->name, spec->list);
        for (size_t b = 0; b < a; b++)
            if (begin[a] == begin[b])
                return err_set(err, "tuning parameter '%s': permutation \"%s\" repeats the "
                               "letter '%c'; each letter must appear once", spec->name,
                               spec->list, begin[a]);
    }
    unsigned char order[PARAM_MAX_PERMUTATION_LETTERS];
    for (size_t a = 0; a < n; a++) order[a] = (unsigned char)a;
    do {
        char *text = malloc(n + 1);
        if (!text) return err_set(err, "tuning parameter '%s': out of memory", spec->name);
        for (size_t a = 0; a < n; a++) text[a] = begin[order[a]];
        text[n] = '\0';
        skytune_value v;
        memset(&v, 0, sizeof v);
        v.type = SKYTUNE_STRING;
        v.s = text;
        if (value_list_push(list, &v) != 0)
            return err_set(err, "tuning parameter '%s': out of memory", spec->name);
    } while (next_permutation(order, n));
    return 0;
}

/* Total order on values of one type, consistent with canonical text
 * equality, so that sorting finds duplicates in O(n log n). */
static int compare_values(const skytune_value *a, const skytune_value *b)
{
    if (a->type == SKYTUNE_STRING) return strcmp(a->s ? a->s : "", b->s ? b->s : "");
    if (a->type == SKYTUNE_FLOAT) {
        char ta[PARAM_NUMBER_TEXT], tb[PARAM_NUMBER_TEXT];
        value_format(a, ta, sizeof ta);
        value_format(b, tb, sizeof tb);
        return strcmp(ta, tb);
    }
    return (a->i > b->i) - (a->i < b->i);
}

static int compare_value_pointers(const void *pa, const void *pb)
{
    const skytune_value *const *a = pa;
    const skytune_value *const *b = pb;
    return compare_values(*a, *b);
}

static int check_no_duplicates(const char *name, const skytune_value *values, size_t count,
                               skytune_error *err)
{
    if (count < 2) return 0;
    const skytune_value **sorted = malloc(count * sizeof *sorted);
    if (!sorted) return err_set(err, "tuning parameter '%s': out of memory", name);
    for (size_t k = 0; k < count; k++) sorted[k] = &values[k];
    qsort(sorted, count, sizeof *sorted, compare_value_pointers);
    for (size_t k = 1; k < count; k++) {
        if (compare_values(sorted[k - 1], sorted[k]) == 0) {
            char text[PARAM_NUMBER_TEXT];
            const char *shown = text;
            if (sorted[k]->type == SKYTUNE_STRING)
                shown = sorted[k]->s;
            else
                value_format(sorted[k], text, sizeof text);
            err_set(err, "tuning parameter '%s': value '%s' appears more than once; each value "
                    "must be distinct", name, shown);
            free(sorted);
            return -1;
        }
    }
    free(sorted);
    return 0;
}

/* Hand the list over to `out` (which owns it afterwards) after the checks
 * every parameter shares. */
static int finish(const char *name, skytune_type type, value_list *list, param_def *out,
                  skytune_error *err)
{
    if (list->count == 0)
        return err_set(err, "tuning parameter '%s': it has no values", name);
    if (list->count > PARAM_MAX_VALUES)
        return err_set(err, "tuning parameter '%s': %zu values; at most %d are allowed", name,
                       list->count, PARAM_MAX_VALUES);
    if (check_no_duplicates(name, list->items, list->count, err) != 0) return -1;
    char *name_copy = duplicate_text(name, strlen(name));
    if (!name_copy) return err_set(err, "tuning parameter '%s': out of memory", name);
    out->name = name_copy;
    out->type = type;
    out->count = list->count;
    out->values = list->items;
    memset(list, 0, sizeof *list);
    return 0;
}

int param_expand(const skytune_tuning_param *spec, param_def *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    if (!spec) return err_set(err, "tuning parameter without a name");
    if (check_name(spec->name, err) != 0) return -1;
    value_list list;
    memset(&list, 0, sizeof list);
    skytune_type type = SKYTUNE_INT;
    int rc = 0;
    switch (spec->kind) {
    case SKYTUNE_LIST:
        rc = parse_list(spec->name, spec->kind, spec->list, SKYTUNE_INT, &list, err);
        break;
    case SKYTUNE_RANGE:
        rc = expand_range(spec, &list, err);
        break;
    case SKYTUNE_POW2:
        rc = expand_pow2(spec, &list, err);
        break;
    case SKYTUNE_BOOLEAN: {
        skytune_value off = int_value(0), on = int_value(1);
        if (value_list_push(&list, &off) != 0 || value_list_push(&list, &on) != 0)
            rc = err_set(err, "tuning parameter '%s': out of memory", spec->name);
        break;
    }
    case SKYTUNE_ENUM:
        type = SKYTUNE_STRING;
        rc = parse_list(spec->name, spec->kind, spec->list, SKYTUNE_STRING, &list, err);
        break;
    case SKYTUNE_PERMUTATION:
        type = SKYTUNE_STRING;
        rc = expand_permutation(spec, &list, err);
        break;
    case SKYTUNE_FLOAT_LIST:
        type = SKYTUNE_FLOAT;
        rc = parse_list(spec->name, spec->kind, spec->list, SKYTUNE_FLOAT, &list, err);
        break;
    default:
        rc = err_set(err, "tuning parameter '%s': unknown kind of values %d; valid kinds are "
                     "list, range, pow2, boolean, enum, permutation and float list", spec->name,
                     (int)spec->kind);
        break;
    }
    if (rc == 0) rc = finish(spec->name, type, &list, out, err);
    value_list_free(&list);
    return rc;
}

int param_from_values(const char *name, skytune_type type, const skytune_value *values,
                      size_t count, param_def *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    if (check_name(name, err) != 0) return -1;
    /* Booleans are indexed like any integer parameter. */
    if (type == SKYTUNE_BOOL) type = SKYTUNE_INT;
    if (type != SKYTUNE_INT && type != SKYTUNE_FLOAT && type != SKYTUNE_STRING)
        return err_set(err, "tuning parameter '%s': unknown type %d", name, (int)type);
    if (count == 0) return err_set(err, "tuning parameter '%s': it has no values", name);
    if (count > PARAM_MAX_VALUES)
        return err_set(err, "tuning parameter '%s': %zu values; at most %d are allowed", name,
                       count, PARAM_MAX_VALUES);
    value_list list;
    memset(&list, 0, sizeof list);
    for (size_t k = 0; k < count; k++) {
        skytune_type given = values[k].type == SKYTUNE_BOOL ? SKYTUNE_INT : values[k].type;
        if (given != type) {
            value_list_free(&list);
            return err_set(err, "tuning parameter '%s': value %zu has type %s; all values "
                           "must have type %s", name, k + 1, type_name(values[k].type), type_name(type));
        }
        const char *fault = type == SKYTUNE_STRING ? param_string_value_fault(values[k].s) : NULL;
        if (fault) {
            value_list_free(&list);
            char shown[QUOTE_TEXT];
            return err_set(err, "tuning parameter '%s': value %zu, '%s', %s; %s", name, k + 1,
                           quote_text(values[k].s, shown, sizeof shown), fault,
                           PARAM_STRING_VALUES);
        }
        skytune_value copy;
        if (value_copy(&copy, &values[k]) != 0) {
            value_list_free(&list);
            return err_set(err, "tuning parameter '%s': out of memory", name);
        }
        copy.type = type;
        if (value_list_push(&list, &copy) != 0) {
            value_list_free(&list);
            return err_set(err, "tuning parameter '%s': out of memory", name);
        }
    }
    int rc = finish(name, type, &list, out, err);
    value_list_free(&list);
    return rc;
}

void param_free(param_def *p)
{
    if (!p) return;
    free_values(p->values, p->count);
    free(p->name);
    memset(p, 0, sizeof *p);
}

/* Index of the value written as [begin, end), or -1. */
static int index_of_text(const param_def *p, const char *begin, const char *end)
{
    trim(&begin, &end);
    size_t len = (size_t)(end - begin);
    if (len == 0) return -1;
    if (p->type == SKYTUNE_STRING) {
        for (size_t k = 0; k < p->count; k++)
            if (strlen(p->values[k].s) == len && memcmp(p->values[k].s, begin, len) == 0)
                return (int)k;
        return -1;
    }
    char text[PARAM_NUMBER_TEXT];
    if (len >= sizeof text) return -1;
    memcpy(text, begin, len);
    text[len] = '\0';
    skytune_value parsed;
    memset(&parsed, 0, sizeof parsed);
    skytune_error ignored;
    if (value_parse(text, p->type, &parsed, &ignored) != 0) return -1;
    /* Compare canonical forms, so "0x10" finds 16 and "0.50" finds 0.5. */
    int found = -1;
    for (size_t k = 0; k < p->count && found < 0; k++)
        if (compare_values(&parsed, &p->values[k]) == 0) found = (int)k;
    value_clear(&parsed);
    return found;
}

int param_index_of(const param_def *p, const char *text)
{
    if (!p || !text) return -1;
    return index_of_text(p, text, text + strlen(text));
}

int param_restrict(param_def *p, const char *csv, skytune_error *err)
{
    if (!csv) return err_set(err, "parameter '%s': no values given to keep", p->name);
    bool *keep = calloc(p->count, sizeof *keep);
    if (!keep) return err_set(err, "parameter '%s': out of memory", p->name);
    const char *item = csv;
    size_t kept = 0;
    for (;;) {
        const char *comma = strchr(item, ',');
        const char *end = comma ? comma : item + strlen(item);
        const char *begin = item;
        trim(&begin, &end);
        int k = index_of_text(p, begin, end);
        if (k < 0) {
            char valid[512], shown[QUOTE_TEXT];
            param_describe_values(p, valid, sizeof valid);
            char *item_text = duplicate_text(begin, (size_t)(end - begin));
            if (begin == end)
                err_set(err, "parameter '%s': empty value in '%s'; valid values are %s",
                        p->name, quote_text(csv, shown, sizeof shown), valid);
            else
                err_set(err, "parameter '%s': '%s' is not one of its values; valid values "
                        "are %s", p->name, quote_text(item_text, shown, sizeof shown), valid);
            free(item_text);
            free(keep);
            return -1;
        }
        if (!keep[k]) kept++;
        keep[k] = true;
        if (!comma) break;
        item = comma + 1;
    }
    skytune_value *values = malloc(kept * sizeof *values);
    if (!values) {
        free(keep);
        return err_set(err, "parameter '%s': out of memory", p->name);
    }
    size_t n = 0;
    for (size_t k = 0; k < p->count; k++) {
        if (keep[k])
            values[n++] = p->values[k];
        else
            value_clear(&p->values[k]);
    }
    free(keep);
    free(p->values);
    p->values = values;
    p->count = n;
    return 0;
}

static const char *value_text(const skytune_value *v, char *number, size_t len)
{
    if (v->type == SKYTUNE_STRING) return v->s ? v->s : "";
    value_format(v, number, len);
    return number;
}

void param_describe_values(const param_def *p, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    buf[0] = '\0';
    char number[PARAM_NUMBER_TEXT];
    size_t total = 0;
    for (size_t k = 0; k < p->count; k++)
        total += (k ? 2 : 0) + strlen(value_text(&p->values[k], number, sizeof number));
    /* When not everything fits, every value shown must leave room for the
     * ", ..." that says more follow. */
    size_t reserve = total < len ? 0 : strlen(", ...");
    size_t used = 0;
    for (size_t k = 0; k < p->count; k++) {
        const char *text = value_text(&p->values[k], number, sizeof number);
        const char *separator = k ? ", " : "";
        if (used + strlen(separator) + strlen(text) + reserve >= len) {
            snprintf(buf + used, len - used, "%s", k ? ", ..." : "...");
            return;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s", separator, text);
    }
}
