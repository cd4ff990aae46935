#include "problem.h"

#include <stdlib.h>
#include <string.h>

#include "expr.h"
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

static int assign(problem *p, const skytune_plugin *plugin, const char *name, size_t name_len,
                  const char *text, const char *origin, skytune_error *err)
{
    int k = find_param(p, name, name_len);
    if (k < 0) {
        char known[600];
        list_params(p, known, sizeof known);
        return err_set(err, "%s: unknown problem parameter '%.*s' for plugin %s; valid: %s",
                       origin, (int)name_len, name, plugin->name,
                       p->count ? known : "(none)");
    }
    skytune_value v;
    skytune_error verr;
    if (value_parse(text, p->items[k].value.type, &v, &verr) != 0)
        return err_set(err, "%s: problem parameter '%s' wants %s: %s", origin, p->items[k].name,
                       type_name(p->items[k].value.type), verr.message);
    value_clear(&p->items[k].value);
    p->items[k].value = v;
    return 0;
}

/* "name=value" */
static int assign_setting(problem *p, const skytune_plugin *plugin, const char *setting,
                          const char *origin, skytune_error *err)
{
    const char *eq = strchr(setting, '=');
    if (!eq || eq == setting)
        return err_set(err, "%s: '%s' is not NAME=VALUE", origin, setting);
    return assign(p, plugin, setting, (size_t)(eq - setting), eq + 1, origin, err);
}

static int apply_preset(problem *p, const skytune_plugin *plugin, const char *preset,
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
        return err_set(err, "--preset: plugin %s has no preset '%s'; valid: %s", plugin->name,
                       preset, used ? known : "(none)");
    }
    char *copy = strdup(found->settings);
    if (!copy) return err_set(err, "out of memory");
    char origin[160];
    snprintf(origin, sizeof origin, "preset '%s' of plugin %s", preset, plugin->name);
    int rc = 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item && rc == 0; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ') item++;
        if (*item) rc = assign_setting(p, plugin, item, origin, err);
    }
    free(copy);
    return rc;
}

static int run_checks(const problem *p, const skytune_plugin *plugin, skytune_error *err)
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
                    char v[64];
                    value_format(&p->items[k].value, v, sizeof v);
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
    size_t cap = 64 + p->count * 96, used = 0;
    p->text = malloc(cap);
    if (!p->text) return err_set(err, "out of memory");
    p->text[0] = '\0';
    for (size_t k = 0; k < p->count; k++) {
        char v[512];
        value_format(&p->items[k].value, v, sizeof v);
        size_t need = strlen(p->items[k].name) + strlen(v) + 3;
        if (used + need >= cap) {
            cap = 2 * (cap + need);
            char *grown = realloc(p->text, cap);
            if (!grown) return err_set(err, "out of memory");
            p->text = grown;
        }
        used += (size_t)snprintf(p->text + used, cap - used, "%s%s=%s", k ? "," : "",
                                 p->items[k].name, v);
    }
    return 0;
}

int problem_resolve(const skytune_plugin *plugin, const char *preset, const char *const *settings,
                    size_t n_settings, problem *out, skytune_error *err)
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
