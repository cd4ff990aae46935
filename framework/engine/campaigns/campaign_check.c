#include "campaign_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_campaigns.h"
#include "plugin_loader.h"
#include "plugin_problem.h"

static bool has_prefix(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* The key a run's message is about, from the option it names, and its line. */
static void key_of_message(const campaign_file *f, const char *message, const char **key,
                           int *line)
{
    *key = "problem";
    *line = f->problem_line;
    if (has_prefix(message, "--only")) {
        *key = "only";
        *line = f->n_only ? f->only[0].line : 0;
        for (size_t k = 0; k < f->n_only; k++)
            if (strstr(message, f->only[k].values)) *line = f->only[k].line;
    } else if (has_prefix(message, "--restrict")) {
        *key = "restrict";
        *line = f->n_restricts ? f->restricts[0].line : 0;
        for (size_t k = 0; k < f->n_restricts; k++)
            if (strstr(message, f->restricts[k].text)) *line = f->restricts[k].line;
    } else if (has_prefix(message, "--strategy-opt")) {
        *key = "strategy_options";
        *line = f->n_strategy_opts ? f->strategy_opts[0].line : 0;
        for (size_t k = 0; k < f->n_strategy_opts; k++)
            if (strstr(message, f->strategy_opts[k].text)) *line = f->strategy_opts[k].line;
    } else if (has_prefix(message, "--strategy") || has_prefix(message, "strategy ")) {
        *key = "strategy";
        *line = f->strategy.line;
    } else if (has_prefix(message, "--device") || has_prefix(message, "no OpenCL device")) {
        *key = "devices";
        *line = f->n_devices ? f->devices[0].line : 0;
    }
}

/* Whether name is one of names (n of them); valid gets them listed for a
 * message. */
static bool name_is_one_of(const char *name, const char *const *names, size_t n, char *valid,
                           size_t len)
{
    bool known = false;
    size_t used = 0;
    valid[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        known = known || strcmp(names[k], name) == 0;
        if (used < len)
            used += (size_t)snprintf(valid + used, len - used, "%s%s", used ? ", " : "", names[k]);
    }
    return known;
}

static int check_names(const campaign_file *f, const skytune_plugin *desc, skytune_error *err)
{
    /* The plugin's problem and tuning parameter names, in declaration order. */
    size_t n_problem = 0, n_tuning = 0;
    for (const skytune_problem_param *pp = desc->problem_params; pp && pp->name; pp++) n_problem++;
    for (const skytune_tuning_param *tp = desc->tuning_params; tp && tp->name; tp++) n_tuning++;
    const char **problem_names = calloc(n_problem + 1, sizeof *problem_names);
    const char **tuning_names = calloc(n_tuning + 1, sizeof *tuning_names);
    int rc = problem_names && tuning_names ? 0 : err_set(err, "out of memory");
    for (size_t k = 0; rc == 0 && k < n_problem; k++) problem_names[k] = desc->problem_params[k].name;
    for (size_t k = 0; rc == 0 && k < n_tuning; k++) tuning_names[k] = desc->tuning_params[k].name;
    char valid[600];
    for (size_t k = 0; rc == 0 && k < f->n_params; k++)
        if (!name_is_one_of(f->params[k].name, problem_names, n_problem, valid, sizeof valid))
            rc = campaign_file_err(f, f->params[k].line, err,
                                   "key 'problem.%s': plugin %s has no problem parameter '%s'; "
                                   "its problem parameters are %s",
                                   f->params[k].name, desc->name, f->params[k].name,
                                   n_problem ? valid : "none");
    for (size_t k = 0; rc == 0 && k < f->n_only; k++)
        if (!name_is_one_of(f->only[k].name, tuning_names, n_tuning, valid, sizeof valid))
            rc = campaign_file_err(f, f->only[k].line, err,
                                   "key 'only.%s': plugin %s has no tuning parameter '%s'; its "
                                   "tuning parameters are %s",
                                   f->only[k].name, desc->name, f->only[k].name, valid);
    free(problem_names);
    free(tuning_names);
    return rc;
}

/* Each value alone (with the preset and the plugin's defaults around it),
 * so that a bad one is reported at its own line. */
static int check_values(const campaign_file *f, const skytune_plugin *desc, skytune_error *err)
{
    problem prob;
    skytune_error why;
    if (problem_resolve(desc, f->preset.text, NULL, 0, &prob, &why) != 0)
        return campaign_file_err(f, f->preset.text ? f->preset.line : f->plugin.line, err,
                                 "key '%s': %s", f->preset.text ? "preset" : "plugin",
                                 why.message);
    problem_free(&prob);
    for (size_t k = 0; k < f->n_params; k++) {
        const sweep_param *sp = &f->params[k];
        for (size_t v = 0; v < sp->count; v++) {
            size_t len = strlen(sp->name) + strlen(sp->values[v].text) + 2;
            char *set = malloc(len);
            if (!set) return err_set(err, "out of memory");
            snprintf(set, len, "%s=%s", sp->name, sp->values[v].text);
            const char *sets[1] = {set};
            int rc = problem_resolve(desc, f->preset.text, sets, 1, &prob, &why);
            free(set);
            if (rc != 0)
                return campaign_file_err(f, sp->values[v].line, err, "key 'problem.%s': %s",
                                         sp->name, why.message);
            problem_free(&prob);
        }
    }
    return 0;
}

int campaign_check_file(const campaign_file *f, const plugin_search *search, skytune_error *err)
{
    loaded_plugin plugin = {0};
    skytune_error why;
    if (plugin_load(f->plugin.text, search, &plugin, &why) != 0)
        return campaign_file_err(f, f->plugin.line, err, "key 'plugin': %s", why.message);
    int rc = check_names(f, plugin.desc, err);
    if (rc == 0) rc = check_values(f, plugin.desc, err);
    /* Otherwise every unit would fail alike when it opens its measurer. */
    if (rc == 0 && f->transfers && !plugin.desc->transfers)
        rc = campaign_file_err(f, f->transfers_line, err,
                               "key 'transfers': plugin %s names no host-device transfers (its "
                               "description has no `transfers` callback); leave the key out or "
                               "set it to false",
                               plugin.desc->name);
    plugin_unload(&plugin);
    return rc;
}

int campaign_check_units(const campaign_file *f, const campaign_plan *p, unsigned shard,
                         const tuning_request *base, skytune_error *err)
{
    tuning_request check = *base;
    check.check_only = true;
    check.on_event = NULL;
    check.on_activity = NULL;
    check.on_notice = NULL;
    for (size_t u = 0; u < p->n_units; u++) {
        if (!campaign_plan_in_shard(p, u, shard)) continue;
        tuning_request rq;
        campaign_unit_request(f, p, u, &check, &rq);
        const campaign_unit *unit = &p->units[u];
        tuning_outcome out;
        skytune_error why;
        int rc = 0;
        if (unit->device && strcmp(unit->device, "all") == 0) {
            tuning_device_outcome *outcomes = NULL;
            size_t n = 0;
            rc = tuning_run_devices(&rq, "all", NULL, NULL, &outcomes, &n, &why);
            for (size_t k = 0; rc == 0 && k < n; k++)
                if (outcomes[k].status != 0) {
                    why = outcomes[k].error;
                    rc = -1;
                }
            free(outcomes);
        } else {
            rc = tuning_run(&rq, NULL, NULL, &out, &why);
        }
        if (rc != 0) {
            const char *key;
            int line;
            key_of_message(f, why.message, &key, &line);
            const char *label = p->instances[unit->instance].label;
            return campaign_file_err(f, line, err, "key '%s': %s%s%s%s%s: %s", key,
                                     *label ? "instance " : "the problem", label,
                                     unit->device ? " on device '" : "",
                                     unit->device ? unit->device : "", unit->device ? "'" : "",
                                     why.message);
        }
    }
    return 0;
}
