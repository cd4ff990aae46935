/* Finding and loading kernel plugins.
 *
 * A plugin is named either by an explicit path (anything containing '/', or
 * ending in ".so": "NAME.so" is the file in the current directory, never a
 * library the dynamic loader would find on its search path), or by name,
 * looked up as <dir>/<name>.so in, in order:
 * each --plugin-dir, each entry of SKYTUNE_PLUGIN_PATH (colon-separated), the
 * "plugins" folder beside the running skytune executable (the build tree),
 * and the install directory. The current directory is never searched unless
 * it is named. A T1 file ("t1:PATH", or a path ending in ".json") is a
 * plugin made from the file (t1_plugin.h). */
#ifndef SKYTUNE_PLUGIN_LOADER_H
#define SKYTUNE_PLUGIN_LOADER_H

#include <stddef.h>

#include <skytune/plugin.h>

#include "error.h"

typedef struct plugin_search {
    const char *const *dirs;     /* --plugin-dir values */
    size_t n_dirs;
} plugin_search;

typedef struct loaded_plugin {
    void *handle;
    const skytune_plugin *desc;
    char *path;
    char source_hash[17];        /* FNV-1a 64 of the kernel source, hex */
    struct t1_plugin *t1;        /* a T1 file's plugin (t1_plugin.h), instead of a module */
    const char *checked_against; /* T1: what its outputs are verified against */
    const char *compared_with;   /* T1: what a wrong_result differs from; NULL: the CPU reference */
} loaded_plugin;

/* The directories searched, in order (malloc'd array of malloc'd strings). */
int plugin_search_dirs(const plugin_search *search, char ***dirs, size_t *count,
                       skytune_error *err);
void plugin_search_dirs_free(char **dirs, size_t count);

/* Load and validate: entry symbol present and a function (not data), the
 * description it returns readable, ABI version equal, names valid and
 * unique, required callbacks present, value lists well-formed. */
int plugin_load(const char *name_or_path, const plugin_search *search, loaded_plugin *out,
                skytune_error *err);
void plugin_unload(loaded_plugin *p);

/* Every loadable plugin on the search path (first one of each name wins).
 * Files that fail to load are reported through `skipped` (may be NULL). */
int plugin_list(const plugin_search *search, loaded_plugin **out, size_t *count,
                void (*skipped)(void *ctx, const char *path, const char *why), void *ctx,
                skytune_error *err);
void plugin_list_free(loaded_plugin *list, size_t count);

#endif
