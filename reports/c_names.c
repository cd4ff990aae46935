#include "c_names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void c_identifier(const char *name, bool upper, char *buf, size_t len)
{
    size_t n = 0;
    if (name && isdigit((unsigned char)name[0]) && n + 1 < len) buf[n++] = '_';
    for (const unsigned char *p = (const unsigned char *)(name ? name : ""); *p && n + 1 < len; p++) {
        char c = isalnum(*p) ? (char)*p : '_';
        buf[n++] = upper ? (char)toupper((unsigned char)c) : (char)tolower((unsigned char)c);
    }
    if (n == 0 && len > 1) buf[n++] = '_';
    buf[n] = '\0';
}

/* Fields are lower-cased, so only the lower-case keywords matter; C11's
 * _Bool and friends become _bool, which is none. */
static const char *const reserved_words[] = {
    /* C11 */
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while",
    /* C23 */
    "alignas", "alignof", "bool", "constexpr", "false", "nullptr", "static_assert",
    "thread_local", "true", "typeof", "typeof_unqual",
    /* GNU C, the default dialect of GCC and Clang */
    "asm",
    /* an object-like macro of <math.h>, which the header includes */
    "math_errhandling",
};

bool c_is_reserved(const char *word)
{
    for (size_t k = 0; k < sizeof reserved_words / sizeof reserved_words[0]; k++)
        if (strcmp(word, reserved_words[k]) == 0) return true;
    return false;
}

static bool is_taken(char *const *fields, size_t n, const char *candidate)
{
    for (size_t k = 0; k < n; k++)
        if (fields[k] && strcmp(fields[k], candidate) == 0) return true;
    return false;
}

void c_fields_free(char **fields, size_t n)
{
    for (size_t k = 0; fields && k < n; k++) free(fields[k]);
    free(fields);
}

int c_field_names(const char *const *names, size_t n, char ***out)
{
    *out = NULL;
    char **fields = calloc(n ? n : 1, sizeof *fields);
    if (!fields) return -1;
    /* First every name that can stay as it is, so that a parameter called
     * switch_ keeps its name and `switch` is the one that moves on. */
    for (size_t k = 0; k < n; k++) {
        char candidate[128];
        c_identifier(names[k], false, candidate, sizeof candidate);
        if (c_is_reserved(candidate) || is_taken(fields, n, candidate)) continue;
        if (!(fields[k] = strdup(candidate))) goto fail;
    }
    for (size_t k = 0; k < n; k++) {
        if (fields[k]) continue;
        char base[128];
        c_identifier(names[k], false, base, sizeof base);
        /* Each pass adds one underscore; at most n names can be in the way. */
        size_t size = strlen(base) + n + 2;
        char *candidate = malloc(size);
        if (!candidate) goto fail;
        snprintf(candidate, size, "%s_", base);
        while (is_taken(fields, n, candidate) && strlen(candidate) + 1 < size)
            strcat(candidate, "_");
        fields[k] = candidate;
    }
    *out = fields;
    return 0;
fail:
    c_fields_free(fields, n);
    return -1;
}
