#include "problem.h"

#include <stdlib.h>
#include <string.h>

#include "canonical.h"
#include "expr.h"
#include "nearest.h"
#include "plugin_lookup.h"
#include "quote.h"
#include "value.h"

static int find_param(const problem *p, const char *name, size_t len)
{
    for (size_t k = 0; k < p->count; k++)
        if (strlen(p->items[k].name) == len && strncmp(p->items[k].name, name, len) == 0)
            return (int)k;
    return -1;
}

static int resolve_name(void *ctx, const char *name, size_t len)
{
    return find_param(ctx, name, len);
}

static void list_params(const problem *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < p->count && used < len - 1; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", p->items[k].name);
}

/* A string value is refused here, when the problem is set, rather than when
 * the kernel is built: it becomes a -D option, so it must be a token. */
static int check_string(const char *name, const char *value, const char *origin,
                        skytune_error *err)
{
    char what[160];
    snprintf(what, sizeof what, "problem parameter '%s'", name);
    if (value_check_token(what, value, err) != 0) return err_prefix(err, "%s", origin);
    return 0;
}

static int assign(problem *p, const plugin_decls *plugin, const char *name, size_t name_len,
                  const char *text, const char *origin, skytune_error *err)
{
    int k = find_param(p, name, name_len);
    if (k < 0) {
        char known[600], shown[QUOTE_TEXT], value_shown[QUOTE_TEXT], hint[160];
        char *unknown = strndup(name, name_len);
        list_params(p, known, sizeof known);
        /* A tuning parameter given a problem's value is a mix-up of two
         * options, not a misspelling: the search sets it, and --only
         * narrows it. */
        for (const skytune_tuning_param *t = plugin->tuning_params; unknown && t && t->name; t++)
            if (strcmp(t->name, unknown) == 0) {
                err_set(err, "%s: '%s' is a tuning parameter of plugin %s, not a problem "
                             "parameter: --set is for problem parameters (%s); to keep only "
                             "that value of a tuning parameter, give --only %s=%s",
                        origin, quote_text(unknown, shown, sizeof shown), plugin->name,
                        p->count ? known : "none", shown,
                        quote_text(text, value_shown, sizeof value_shown));
                free(unknown);
                return -1;
            }
        const char *names[256];
        size_t n = 0;
        for (; n < p->count && n < 256; n++) names[n] = p->items[n].name;
        err_set(err, "%s: unknown problem parameter '%s' for plugin %s%s; valid: %s", origin,
                quote_text(unknown ? unknown : "", shown, sizeof shown), plugin->name,
                nearest_hint(unknown, names, n, NULL, hint, sizeof hint),
                p->count ? known : "(none)");
        free(unknown);
        return -1;
    }
    skytune_value v;
    skytune_error verr;
    if (value_parse(text, p->items[k].value.type, &v, &verr) != 0)
        return err_set(err, "%s: problem parameter '%s' wants %s: %s", origin, p->items[k].name,
                       type_name(p->items[k].value.type), verr.message);
    if (v.type == SKYTUNE_STRING && check_string(p->items[k].name, v.s, origin, err) != 0) {
        value_clear(&v);
        return -1;
    }
    value_clear(&p->items[k].value);
    p->items[k].value = v;
    return 0;
}

/* "name=value" */
static int assign_setting(problem *p, const plugin_decls *plugin, const char *setting,
                          const char *origin, skytune_error *err)
{
    const char *eq = strchr(setting, '=');
    char shown[QUOTE_TEXT];
    if (!eq || eq == setting)
        return err_set(err, "%s: '%s' is not NAME=VALUE", origin,
                       quote_text(setting, shown, sizeof shown));
    return assign(p, plugin, setting, (size_t)(eq - setting), eq + 1, origin, err);
}

static int apply_preset(problem *p, const plugin_decls *plugin, const char *preset,
                        skytune_error *err)
{
    const skytune_preset *found = NULL;
    for (const skytune_preset *ps = plugin->presets; ps && ps->name; ps++)
        if (strcmp(ps->name, preset) == 0) found = ps;
    if (!found) {
        char known[600] = "";
        size_t used = 0;
        for (const skytune_preset *ps = plugin->presets; ps && ps->name && used < sizeof known - 1;
             ps++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                     used ? ", " : "", ps->name);
        char shown[QUOTE_TEXT];
        return err_set(err, "--preset: plugin %s has no preset '%s'; valid: %s", plugin->name,
                       quote_text(preset, shown, sizeof shown), used ? known : "(none)");
    }
    char origin[160];
    snprintf(origin, sizeof origin, "preset '%s' of plugin %s", preset, plugin->name);
    /* Settings are read as a canonical text, so that a value holding ',' or
     * '=' (a stage's configuration, say) can be written quoted. */
    canonical_pair *pairs = NULL;
    size_t n_pairs = 0;
    if (canonical_split(found->settings, &pairs, &n_pairs, err) != 0)
        return err_prefix(err, "%s", origin);
    int rc = 0;
    for (size_t k = 0; k < n_pairs && rc == 0; k++)
        rc = assign(p, plugin, pairs[k].name, strlen(pairs[k].name), pairs[k].value, origin, err);
    canonical_pairs_free(pairs, n_pairs);
    return rc;
}

static int run_checks(const problem *p, const plugin_decls *plugin, skytune_error *err)
{
    expr_value slots[256];
    for (size_t k = 0; k < p->count && k < 256; k++) slots[k] = value_to_expr(&p->items[k].value);
    for (const skytune_problem_check *c = plugin->problem_checks; c && c->expression; c++) {
        expr *e;
        skytune_error perr;
        if (expr_parse(c->expression, resolve_name, (void *)p, &e, &perr) != 0)
            return err_set(err, "plugin %s: problem check '%s': %s", plugin->name, c->expression,
                           perr.message);
        bool ok = expr_eval_bool(e, slots);
        expr_free(e);
        if (!ok) {
            char now[1024];
            size_t used = 0;
            now[0] = '\0';
            /* Show the values the check read, so the user sees what to change. */
            for (size_t k = 0; k < p->count && used < sizeof now - 1; k++)
                if (strstr(c->expression, p->items[k].name)) {
                    char v[QUOTE_TEXT];
                    const skytune_value *value = &p->items[k].value;
                    if (value->type == SKYTUNE_STRING)
                        quote_text(value->s, v, sizeof v);
                    else
                        value_format(value, v, sizeof v);
                    used += (size_t)snprintf(now + used, sizeof now - used, "%s%s=%s",
                                             used ? ", " : "", p->items[k].name, v);
                }
            return err_set(err, "invalid problem: %s (requires %s; got %s)",
                           c->message ? c->message : c->expression, c->expression, now);
        }
    }
    return 0;
}

static int make_text(problem *p, skytune_error *err)
{
    p->text = canonical_of_values(p->items, p->count);
    return p->text ? 0 : err_set(err, "out of memory");
}

int problem_resolve_decls(const plugin_decls *plugin, const char *preset,
                          const char *const *settings, size_t n_settings, problem *out,
                          skytune_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    for (const skytune_problem_param *pp = plugin->problem_params; pp && pp->name; pp++) n++;
    if (n > 256) return err_set(err, "plugin %s has more than 256 problem parameters", plugin->name);
    out->items = calloc(n ? n : 1, sizeof *out->items);
    if (!out->items) return err_set(err, "out of memory");
    out->count = n;
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        const skytune_problem_param *pp = &plugin->problem_params[k];
        out->items[k].name = pp->name;
        rc = value_parse(pp->default_value ? pp->default_value : "", pp->type,
                         &out->items[k].value, err);
        if (rc == 0 && pp->type == SKYTUNE_STRING)
            rc = value_check_token(NULL, out->items[k].value.s, err);
        if (rc) err_prefix(err, "plugin %s: default of '%s'", plugin->name, pp->name);
    }
    if (rc == 0 && preset && *preset) rc = apply_preset(out, plugin, preset, err);
    for (size_t k = 0; k < n_settings && rc == 0; k++)
        rc = assign_setting(out, plugin, settings[k], "--set", err);
    if (rc == 0) rc = run_checks(out, plugin, err);
    if (rc == 0) rc = make_text(out, err);
    if (rc != 0) {
        problem_free(out);
        return -1;
    }
    out->values.count = out->count;
    out->values.items = out->items;
    return 0;
}

void problem_free(problem *p)
{
    if (!p) return;
    for (size_t k = 0; k < p->count; k++) value_clear(&p->items[k].value);
    free(p->items);
    free(p->text);
    memset(p, 0, sizeof *p);
}

int problem_check_decls_on_device(const plugin_decls *plugin, const skytune_values *values,
                                  const skytune_device_info *device, skytune_error *err)
{
    if (!plugin->check_problem) return 0;
    skytune_error plugin_err = {0};
    skytune_lookup_log lookups = {{0}};
    skytune_values logged = plugin_values_logged(values, &lookups);
    if (plugin->check_problem(&logged, device, &plugin_err) == 0)
        return plugin_lookup_check_decls(plugin, &lookups, "check_problem", err);
    /* The message is the plugin's; a plugin may leave it unterminated. */
    plugin_err.message[sizeof plugin_err.message - 1] = '\0';
    return err_set(err, "invalid problem for plugin %s on %s: %s", plugin->name, device->name,
                   plugin_err.message[0] ? plugin_err.message : "(the plugin gave no reason)");
}
