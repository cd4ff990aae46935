#include "plugin_lookup.h"

#include <stdio.h>
#include <string.h>

#include "quote.h"

skytune_values plugin_values_logged(const skytune_values *v, skytune_lookup_log *log)
{
    skytune_values logged = v ? *v : (skytune_values){0};
    logged.log = log;
    return logged;
}

/* "a, b, c" (or "none"), cut to fit. */
static void list_problem_names(const plugin_decls *pl, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const skytune_problem_param *p = pl->problem_params; p && p->name && used < len; p++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", p->name);
    if (!buf[0]) snprintf(buf, len, "none");
}

static void list_tuning_names(const plugin_decls *pl, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const skytune_tuning_param *t = pl->tuning_params; t && t->name && used < len; t++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", t->name);
    if (!buf[0]) snprintf(buf, len, "none");
}

int plugin_lookup_check_decls(const plugin_decls *plugin, skytune_lookup_log *log,
                              const char *callback, skytune_error *err)
{
    if (!log->missed[0]) return 0;
    char name[QUOTE_TEXT], problem[400], tuning[400];
    quote_text(log->missed, name, sizeof name);
    list_problem_names(plugin, problem, sizeof problem);
    list_tuning_names(plugin, tuning, sizeof tuning);
    log->missed[0] = '\0';
    return err_set(err,
                   "plugin %s: its %s looked up '%s', which is none of its parameters (a "
                   "misspelt name would read as 0): problem parameters: %s; tuning parameters: "
                   "%s",
                   plugin->name, callback, name, problem, tuning);
}
