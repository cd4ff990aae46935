/* What can be checked about a plugin's entry point before it is called, and
 * about what it returns before that is read: a shared object whose
 * skytune_plugin_entry is data rather than a function, or whose function
 * returns a pointer to nowhere, is refused with a message instead of
 * crashing skytune with SIGSEGV.
 *
 * These checks cannot make running a plugin safe: a plugin is code, and a
 * function that crashes or loops when called still does (docs/security.md).
 * They catch the mistakes a build makes without meaning to, such as
 * exporting the description itself under the entry's name. */
#ifndef SKYTUNE_PLUGIN_ENTRY_CHECK_H
#define SKYTUNE_PLUGIN_ENTRY_CHECK_H

#include <stddef.h>

#include "error.h"

/* 0 when symbol (what dlsym returned for the entry) is a function in an
 * executable segment of a loaded object; otherwise an error naming the
 * file (name: as messages name it, quoted) and saying what the symbol is
 * instead. */
int plugin_entry_check_function(const void *symbol, const char *name, skytune_error *err);

/* Whether the `size` bytes at address can be read without a fault. */
int plugin_memory_readable(const void *address, size_t size);

#endif
