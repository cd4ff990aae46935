/* A problem instance: the plugin's problem parameters with values from, in
 * order of precedence, --set overrides, the preset, the plugin's defaults.
 * Values are typed and checked against the plugin's problem checks. */
#ifndef SKYTUNE_PROBLEM_H
#define SKYTUNE_PROBLEM_H

#include <stddef.h>

#include "error.h"
#include "plugin_decls.h"

typedef struct problem {
    size_t count;
    skytune_named_value *items;  /* names borrowed from the plugin; strings owned */
    skytune_values values;       /* view over items, for callbacks */
    char *text;                  /* canonical "k=v,k=v" in declaration order (canonical.h) */
} problem;

/* The problem of the plugin that `plugin` declares (plugin_decls.h; the
 * engine's problem_resolve takes the description). preset may be NULL;
 * settings are "name=value" strings. Fails naming an unknown preset (listing
 * the valid ones), an unknown parameter (listing the plugin's problem
 * parameters), a value of the wrong type, a string value that is not a
 * token (value.h), or a failed problem check (its message). */
int problem_resolve_decls(const plugin_decls *plugin, const char *preset,
                          const char *const *settings, size_t n_settings, problem *out,
                          skytune_error *err);
void problem_free(problem *p);

/* The plugin's own check of a problem on a device (its check_problem
 * callback: size limits and what else an expression cannot say), when it
 * has one. Run before anything is done with the problem on that device:
 * before its search space is built and before the plugin's setup. */
int problem_check_decls_on_device(const plugin_decls *plugin, const skytune_values *values,
                                  const skytune_device_info *device, skytune_error *err);

#endif
