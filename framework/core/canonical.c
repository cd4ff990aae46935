#include "canonical.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "value.h"

bool canonical_value_is_bare(const char *value)
{
    if (!value) return true;
    size_t n = strlen(value);
    if (n && (isspace((unsigned char)value[0]) || isspace((unsigned char)value[n - 1])))
        return false;
    return value[0] != '\'' && strpbrk(value, ",=") == NULL;
}

static void reserve(canonical_text *t, size_t more)
{
    if (t->failed) return;
    if (t->length + more + 1 <= t->capacity) return;
    size_t capacity = t->capacity ? t->capacity : 64;
    while (capacity < t->length + more + 1) {
        if (capacity > SIZE_MAX / 2) {
            t->failed = true;
            return;
        }
        capacity *= 2;
    }
    char *grown = realloc(t->text, capacity);
    if (!grown) {
        t->failed = true;
        return;
    }
    t->text = grown;
    t->capacity = capacity;
}

static void append_bytes(canonical_text *t, const char *bytes, size_t n)
{
    reserve(t, n);
    if (t->failed) return;
    memcpy(t->text + t->length, bytes, n);
    t->length += n;
    t->text[t->length] = '\0';
}

char *canonical_value_text(const char *value)
{
    if (!value) value = "";
    size_t n = strlen(value), extra = 0;
    bool bare = canonical_value_is_bare(value);
    if (!bare)
        for (const char *c = value; *c; c++) extra += *c == '\\' || *c == '\'';
    char *text = malloc(n + extra + 3);
    if (!text) return NULL;
    if (bare) {
        memcpy(text, value, n + 1);
        return text;
    }
    size_t k = 0;
    text[k++] = '\'';
    for (const char *c = value; *c; c++) {
        if (*c == '\\' || *c == '\'') text[k++] = '\\';
        text[k++] = *c;
    }
    text[k++] = '\'';
    text[k] = '\0';
    return text;
}

void canonical_append(canonical_text *t, const char *name, const char *value)
{
    if (t->length) append_bytes(t, ",", 1);
    append_bytes(t, name, strlen(name));
    append_bytes(t, "=", 1);
    char *shown = canonical_value_text(value);
    if (!shown) {
        t->failed = true;
        return;
    }
    append_bytes(t, shown, strlen(shown));
    free(shown);
}

void canonical_text_free(canonical_text *t)
{
    free(t->text);
    memset(t, 0, sizeof *t);
}

char *canonical_of_values(const skytune_named_value *items, size_t count)
{
    canonical_text t = {0};
    append_bytes(&t, "", 0); /* an empty set of values is the empty text */
    for (size_t k = 0; k < count; k++) {
        const skytune_value *v = &items[k].value;
        /* Strings go in whole: a fixed buffer would cut two long values
         * that differ only at their end into one text. */
        char number[64];
        if (v->type != SKYTUNE_STRING) value_format(v, number, sizeof number);
        canonical_append(&t, items[k].name, v->type == SKYTUNE_STRING ? v->s : number);
    }
    if (t.failed) {
        canonical_text_free(&t);
        return NULL;
    }
    return t.text;
}

/* ------------------------------------------------------------ reading */

static const char *skip_space(const char *p)
{
    while (*p && isspace((unsigned char)*p)) p++;
    return p;
}

static char *copy_span(const char *begin, const char *end)
{
    while (end > begin && isspace((unsigned char)end[-1])) end--;
    size_t n = (size_t)(end - begin);
    char *copy = malloc(n + 1);
    if (!copy) return NULL;
    memcpy(copy, begin, n);
    copy[n] = '\0';
    return copy;
}

/* The quoted value starting at the quote *p; *p ends after the closing
 * quote. */
static char *read_quoted(const char **p)
{
    const char *c = *p + 1;
    size_t n = 0;
    for (const char *scan = c; *scan != '\''; scan++) {
        if (!*scan) return NULL;
        if (*scan == '\\' && scan[1]) scan++;
        n++;
    }
    char *value = malloc(n + 1);
    if (!value) return NULL;
    size_t k = 0;
    for (; *c != '\''; c++) {
        if (*c == '\\' && c[1]) c++;
        value[k++] = *c;
    }
    value[k] = '\0';
    *p = c + 1;
    return value;
}

void canonical_pairs_free(canonical_pair *pairs, size_t count)
{
    for (size_t k = 0; pairs && k < count; k++) {
        free(pairs[k].name);
        free(pairs[k].value);
    }
    free(pairs);
}

static int split_failed(const char *text, const char *why, canonical_pair *pairs, size_t count,
                        skytune_error *err)
{
    char shown[QUOTE_TEXT];
    canonical_pairs_free(pairs, count);
    return err_set(err, "'%s' is not a list of name=value pairs: %s",
                   quote_text(text, shown, sizeof shown), why);
}

int canonical_split(const char *text, canonical_pair **pairs_out, size_t *count_out,
                    skytune_error *err)
{
    *pairs_out = NULL;
    *count_out = 0;
    if (!text) text = "";
    canonical_pair *pairs = NULL;
    size_t count = 0, capacity = 0;
    const char *p = skip_space(text);
    if (!*p) return 0;
    for (;;) {
        if (count == capacity) {
            size_t grown_capacity = capacity ? capacity * 2 : 8;
            canonical_pair *grown = realloc(pairs, grown_capacity * sizeof *grown);
            if (!grown) return split_failed(text, "out of memory", pairs, count, err);
            pairs = grown;
            capacity = grown_capacity;
        }
        const char *name = skip_space(p);
        const char *equals = name;
        while (*equals && *equals != '=' && *equals != ',') equals++;
        if (*equals != '=') return split_failed(text, "a pair has no '='", pairs, count, err);
        if (skip_space(name) == equals)
            return split_failed(text, "a pair has no name before '='", pairs, count, err);
        canonical_pair pair = {copy_span(name, equals), NULL};
        const char *v = skip_space(equals + 1);
        if (*v == '\'') {
            pair.value = read_quoted(&v);
            if (!pair.value) {
                free(pair.name);
                return split_failed(text, "a quoted value has no closing quote", pairs, count,
                                    err);
            }
            v = skip_space(v);
            if (*v && *v != ',') {
                free(pair.name);
                free(pair.value);
                return split_failed(text, "text follows a closing quote before the next ','",
                                    pairs, count, err);
            }
        } else {
            const char *end = v;
            while (*end && *end != ',') end++;
            pair.value = copy_span(v, end);
            v = end;
        }
        if (!pair.name || !pair.value) {
            free(pair.name);
            free(pair.value);
            return split_failed(text, "out of memory", pairs, count, err);
        }
        pairs[count++] = pair;
        if (!*v) break;
        p = v + 1; /* after the ',' */
    }
    *pairs_out = pairs;
    *count_out = count;
    return 0;
}
