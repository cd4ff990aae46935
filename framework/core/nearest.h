/* "Did you mean": the name of a known set nearest to one that is not in
 * it, for every message that refuses a name (a command, an option, an
 * option's value, a parameter). One distance serves them all, so that a
 * slip is suggested alike wherever it is made. */
#ifndef SKYTUNE_NEAREST_H
#define SKYTUNE_NEAREST_H

#include <stddef.h>

/* The optimal string alignment distance (Damerau-Levenshtein without
 * editing a substring twice) between a and b, ignoring ASCII case: the
 * insertions, deletions, substitutions and swaps of two neighbouring
 * characters that turn one into the other. "rnu" is 1 from "run". */
size_t nearest_distance(const char *a, const char *b);

/* The name of names[0..n) (NULL entries skipped) nearest to given, when
 * it is near enough to be a slip of it: at most a third of given's length
 * apart (at least 1), and less than either's length; the first of equals.
 * NULL when none is. */
const char *nearest_name(const char *given, const char *const *names, size_t n);

/* " (did you mean 'PREFIXNAME'?)" for nearest_name's answer, into buf;
 * "" when there is none. prefix (may be NULL) goes before the name, as
 * "--" before an option. Returns buf, for use as a printf argument. */
const char *nearest_hint(const char *given, const char *const *names, size_t n,
                         const char *prefix, char *buf, size_t len);

#endif
