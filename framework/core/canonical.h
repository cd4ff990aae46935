/* Canonical text of a set of named values, "name=value,name=value": how a
 * problem instance and a configuration are identified in the result
 * database and in exports.
 *
 * It must be unambiguous: two different sets of values never share a text.
 * A value is written bare, as it is, unless it could be mistaken for the
 * separators: when it holds ',' or '=', begins with a single quote, or
 * begins or ends with white space, it is written in single quotes instead,
 * with a backslash before a backslash or a single quote inside:
 *
 *     a=1,b=tiled             bare
 *     a='1,b=2',b=3           a is "1,b=2"
 *     a=1,b='2,b=3'           b is "2,b=3"
 *     mode=it's               bare: only a leading quote starts a quoted value
 *     mode='\'x\''            mode is "'x'"
 *
 * So the texts of ordinary values are what they always were. Numbers
 * (value_format) and the values a plugin declares for its tuning parameters
 * (tokens without ',' or '=', see params.h) never need quotes, so neither
 * does a configuration of a plugin's space; a value of a recorded dataset
 * does only when it begins with a single quote, and a string problem
 * parameter when it holds ',' or '='. */
#ifndef SKYTUNE_CANONICAL_H
#define SKYTUNE_CANONICAL_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* Whether the value text can be written without quotes. */
bool canonical_value_is_bare(const char *value);

/* The value as the text writes it: itself when bare, else quoted (malloc'd;
 * NULL when out of memory). */
char *canonical_value_text(const char *value);

/* A growing text (malloc'd). */
typedef struct canonical_text {
    char *text;
    size_t length, capacity;
    bool failed;             /* an allocation failed: text is incomplete */
} canonical_text;

/* Append "name=value" (with a ',' before it unless it is the first pair),
 * quoting the value when it needs quotes. */
void canonical_append(canonical_text *t, const char *name, const char *value);
void canonical_text_free(canonical_text *t);

/* The canonical text of named values in the given order (malloc'd), or NULL
 * when out of memory. Values are formatted with value_format. */
char *canonical_of_values(const skytune_named_value *items, size_t count);

/* One pair read back: the name and the value as it was before quoting. */
typedef struct canonical_pair {
    char *name;
    char *value;
} canonical_pair;

/* Split a canonical text into its pairs (malloc'd, in text order; free with
 * canonical_pairs_free). White space around names and around values is
 * ignored, so hand-written "a = 1, b = 2" reads too. Fails naming the text
 * and what is wrong with it: a pair without '=', an empty name, an
 * unterminated quote, text after a closing quote. An empty text has no
 * pairs. */
int canonical_split(const char *text, canonical_pair **pairs, size_t *count, skytune_error *err);
void canonical_pairs_free(canonical_pair *pairs, size_t count);

#endif
