/* Names made C identifiers for the exported header (export_header.c):
 * parameter and plugin names become struct fields, macros and function
 * names, and a name that is a C keyword (a tuning parameter called
 * `switch` or `default`) must not become a field of that name. */
#ifndef SKYTUNE_C_NAMES_H
#define SKYTUNE_C_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* An identifier from a name: [A-Za-z0-9_], not starting with a digit;
 * upper-cased for macros, else lower-cased. Never empty. */
void c_identifier(const char *name, bool upper, char *buf, size_t len);

/* Whether word is a keyword of C11, or of C23 or GNU C (so that the header
 * also compiles as those), or a lower-case macro of a header the exported
 * header includes. */
bool c_is_reserved(const char *word);

/* The struct field for each of names[0..n): the name as a lower-case
 * identifier; one that is reserved gets a trailing underscore (switch_), and
 * one that is taken, by a parameter of that name or an earlier field, more
 * underscores until it is unique. Names that need no change keep theirs.
 * *fields is a malloc'd array of n malloc'd strings (c_fields_free). */
int c_field_names(const char *const *names, size_t n, char ***fields);
void c_fields_free(char **fields, size_t n);

#endif
