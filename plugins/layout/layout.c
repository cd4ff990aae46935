#include "layout.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool is_dimension_letter(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Distinct dimension letters, at least one and at most LAYOUT_MAX_DIMS. */
static bool letters_valid(const char *letters)
{
    if (!letters) return false;
    const size_t n = strlen(letters);
    if (n == 0 || n > LAYOUT_MAX_DIMS) return false;
    for (size_t a = 0; a < n; a++) {
        if (!is_dimension_letter(letters[a])) return false;
        if (strchr(letters + a + 1, letters[a])) return false;
    }
    return true;
}

static bool is_permutation(const char *layout, const char *letters)
{
    if (!layout || !letters_valid(letters) || strlen(layout) != strlen(letters)) return false;
    for (const char *l = letters; *l; l++)
        if (!strchr(layout, *l) || strchr(layout, *l) != strrchr(layout, *l)) return false;
    return true;
}

int layout_position(const char *layout, char letter)
{
    if (!layout || letter == '\0') return -1;
    const char *at = strchr(layout, letter);
    return at ? (int)(at - layout) : -1;
}

/* ------------------------------------------------------------------ check */

static int fail(char *message, size_t len, const char *fmt, ...)
{
    if (message && len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The layout as it may be shown in a message: at most 32 characters, each
 * one that is not printable ASCII shown as '?', so that whatever a user
 * typed cannot garble the terminal. */
static const char *shown_text(const char *text, char *buf, size_t len)
{
    size_t n = 0;
    for (; text[n] && n + 4 < len && n < 32; n++)
        buf[n] = (text[n] > ' ' && text[n] <= '~') ? text[n] : '?';
    if (text[n]) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* "S, C, T and P". */
static const char *letter_list(const char *letters, char *buf, size_t len)
{
    size_t used = 0;
    const size_t n = strlen(letters);
    buf[0] = '\0';
    for (size_t k = 0; k < n && used < len; k++) {
        const char *separator = k == 0 ? "" : (k + 1 == n ? " and " : ", ");
        used += (size_t)snprintf(buf + used, len - used, "%s%c", separator, letters[k]);
    }
    return buf;
}

int layout_check(const char *name, const char *layout, const char *letters, char *message,
                 size_t message_len)
{
    if (is_permutation(layout, letters)) return 0;
    if (!name) name = "layout";
    if (!letters_valid(letters))
        return fail(message, message_len,
                    "%s: the dimension letters must be 1 to %d distinct letters, digits or '_'",
                    name, LAYOUT_MAX_DIMS);
    char list[4 * LAYOUT_MAX_DIMS + 8], shown[40];
    letter_list(letters, list, sizeof list);
    /* What every refusal ends with: what a valid layout is, and two of them
     * (the letters in their own order and reversed). */
    char reversed[LAYOUT_MAX_DIMS + 1];
    const size_t n = strlen(letters);
    for (size_t k = 0; k < n; k++) reversed[k] = letters[n - 1 - k];
    reversed[n] = '\0';
    char valid[160];
    snprintf(valid, sizeof valid,
             "a layout holds each of %s exactly once, outermost first (e.g. %s or %s)", list,
             letters, reversed);

    if (!layout || !*layout)
        return fail(message, message_len, "%s: the layout is empty; %s", name, valid);
    shown_text(layout, shown, sizeof shown);
    for (const char *c = layout; *c; c++) {
        if (!strchr(letters, *c))
            return fail(message, message_len,
                        "%s: '%s' is not a layout of %s: '%c' is not one of its letters; %s", name,
                        shown, letters, (*c > ' ' && *c <= '~') ? *c : '?', valid);
        if (strchr(c + 1, *c))
            return fail(message, message_len,
                        "%s: '%s' is not a layout of %s: '%c' appears more than once; %s", name,
                        shown, letters, *c, valid);
    }
    /* Every letter is one of `letters` and none repeats: some are missing. */
    const char *missing = letters;
    while (missing[1] && strchr(layout, *missing)) missing++;
    return fail(message, message_len, "%s: '%s' is not a layout of %s: '%c' is missing; %s",
                name, shown, letters, *missing, valid);
}

/* --------------------------------------------------------------- distance */

int layout_distance(const char *a, const char *b)
{
    if (!is_permutation(a, b)) return -1;
    int distance = 0;
    for (int k = 0; a[k]; k++) {
        const int moved = layout_position(b, a[k]) - k;
        distance += moved < 0 ? -moved : moved;
    }
    return distance;
}

/* ---------------------------------------------------------------- strides */

int layout_strides(const char *layout, const char *letters, const int64_t *sizes,
                   int64_t *strides)
{
    if (!is_permutation(layout, letters) || !sizes || !strides) return -1;
    const size_t n = strlen(letters);
    int64_t computed[LAYOUT_MAX_DIMS];
    int64_t stride = 1;
    /* Innermost first: each dimension's stride is the product of the sizes
     * inside it, checked against overflow before it is multiplied. */
    for (size_t k = n; k-- > 0;) {
        const int d = layout_position(letters, layout[k]);
        if (sizes[d] < 1) return -1;
        computed[d] = stride;
        if (stride > INT64_MAX / sizes[d]) return -1;
        stride *= sizes[d];
    }
    memcpy(strides, computed, n * sizeof *strides);
    return 0;
}

static bool is_identifier(const char *text)
{
    if (!text || !(isalpha((unsigned char)text[0]) || text[0] == '_')) return false;
    for (const char *c = text; *c; c++)
        if (!is_dimension_letter(*c)) return false;
    return true;
}

int layout_append_stride_defines(char *buf, size_t len, const char *prefix, const char *layout,
                                 const char *letters, const int64_t *sizes)
{
    int64_t strides[LAYOUT_MAX_DIMS];
    if (!buf || len == 0 || !is_identifier(prefix) ||
        layout_strides(layout, letters, sizes, strides) != 0)
        return -1;
    const size_t start = strnlen(buf, len);
    if (start == len) return -1; /* not a NUL-terminated text */
    size_t used = start;
    for (size_t k = 0; letters[k]; k++) {
        const int wrote = snprintf(buf + used, len - used, " -D %s_STRIDE_%c=%lld", prefix,
                                   letters[k], (long long)strides[k]);
        if (wrote < 0 || (size_t)wrote >= len - used) {
            buf[start] = '\0';
            return -1;
        }
        used += (size_t)wrote;
    }
    return 0;
}
