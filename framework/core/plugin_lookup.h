/* Holding plugins to the names they declared. The typed lookups of
 * skytune/plugin_types.h record a name that the values they search do not
 * hold (a misspelling reads as 0 and would go unnoticed); the engine hands
 * each callback values that carry a record, and turns a recorded name into
 * an error that names the plugin, the callback and what it could have asked
 * for. */
#ifndef SKYTUNE_PLUGIN_LOOKUP_H
#define SKYTUNE_PLUGIN_LOOKUP_H

#include "error.h"
#include "plugin_decls.h"

/* `v` (which may be NULL: no values) with its lookups recorded in `log`;
 * the items are shared, not copied. */
skytune_values plugin_values_logged(const skytune_values *v, skytune_lookup_log *log);

/* 0 when `log` records no name. Otherwise -1 with err saying that the
 * plugin's `callback` looked up the recorded name, which is none of its
 * problem or tuning parameters (listed), and the log is emptied. */
int plugin_lookup_check_decls(const plugin_decls *plugin, skytune_lookup_log *log,
                              const char *callback, skytune_error *err);

#endif
