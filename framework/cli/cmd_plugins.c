#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_device.h"
#include "cli.h"
#include "params.h"
#include "quote.h"
#include "terminal_text.h"
#include "plugin_loader.h"
#include "plugin_problem.h"
#include "plugin_space.h"
#include "space_rejections.h"
#include "value.h"

static const cli_option options[] = {
    {"plugin-dir", "DIR", true, "search DIR for plugins first"},
    {"preset", "NAME", false, "show: size the space for this preset"},
    {"set", "NAME=VALUE", true, "show: size the space with this problem parameter"},
    {"device", "SEL", false, "show: size the space for this device (see skytune devices)"},
};

static const char *kind_name(skytune_values_kind k)
{
    switch (k) {
    case SKYTUNE_LIST: return "list";
    case SKYTUNE_RANGE: return "range";
    case SKYTUNE_POW2: return "powers of two";
    case SKYTUNE_BOOLEAN: return "boolean";
    case SKYTUNE_ENUM: return "enum";
    case SKYTUNE_PERMUTATION: return "permutation";
    case SKYTUNE_FLOAT_LIST: return "real list";
    }
    return "?";
}

/* Widen a column to hold text (bytes: names and kinds are ASCII). */
static void widen(int *width, const char *text)
{
    int len = text ? (int)strlen(text) : 0;
    if (len > *width) *width = len;
}

static void print_skipped(void *ctx, const char *path, const char *why)
{
    char shown[QUOTE_PATH];
    cli_error("skipping %s: %s", quote_text(path, shown, sizeof shown), why);
}

/* Everything a plugin describes itself with, and every path, is printed
 * through terminal_printf: a plugin's texts may hold any bytes. */
static int list_plugins(const plugin_search *search)
{
    loaded_plugin *list;
    size_t n;
    skytune_error err;
    if (plugin_list(search, &list, &n, print_skipped, NULL, &err) != 0) {
        cli_error("%s", err.message);
        return EXIT_FAILED;
    }
    if (n == 0) {
        char **dirs;
        size_t n_dirs;
        printf("no plugins found in:");
        if (plugin_search_dirs(search, &dirs, &n_dirs, &err) == 0) {
            for (size_t k = 0; k < n_dirs; k++) terminal_printf(" %s", dirs[k]);
            plugin_search_dirs_free(dirs, n_dirs);
        }
        printf("\n");
    }
    for (size_t k = 0; k < n; k++)
        terminal_printf("%-16s %-8s %s\n%-16s %-8s %s\n", list[k].desc->name, list[k].desc->version,
                        list[k].desc->description ? list[k].desc->description : "", "", "",
                        list[k].path);
    plugin_list_free(list, n);
    return EXIT_OK;
}

/* The size of the space for the problem asked (--preset, --set). A problem
 * the plugin refuses is an error, found before the space is built; without
 * a device the size is unknown, which is not. */
static int print_space_size(const skytune_plugin *pl, const cli_args *args)
{
    const char *const *sets;
    size_t n_sets = cli_all(args, "set", &sets);
    problem prob;
    skytune_error err;
    if (problem_resolve(pl, cli_get(args, "preset"), sets, n_sets, &prob, &err) != 0) {
        fflush(stdout);
        cli_error("%s", err.message);
        return EXIT_FAILED;
    }
    cl_device_entry *devices = NULL;
    size_t n_devices = 0, chosen = 0;
    const skytune_device_info *info = NULL;
    if (cl_devices_list(&devices, &n_devices, &err) == 0 &&
        cl_device_select(devices, n_devices, cli_get(args, "device"), &chosen, &err) == 0)
        info = &devices[chosen].info;
    plugin_space_request rq = {.plugin = pl, .problem = &prob.values, .device = info};
    space *sp;
    int status = EXIT_OK;
    if (!info) {
        terminal_printf("\nvalid configurations: unknown without a device (%s)\n", err.message);
    } else if (plugin_space_build(&rq, &sp, &err) != 0) {
        fflush(stdout);
        cli_error("%s", err.message);
        status = EXIT_FAILED;
    } else {
        terminal_printf(
            "\nproblem: %s\ndevice: %s — %s\nvalid configurations: %llu of %llu combinations\n",
            prob.text, info->platform, info->name, (unsigned long long)space_count(sp),
            (unsigned long long)space_cartesian_count(sp));
        char why[8192];
        if (space_rejections_text(sp, "  ", 0, why, sizeof why) > 0)
            terminal_printf(
                "each combination ruled out, counted under the first constraint it fails:\n%s",
                why);
        space_free(sp);
    }
    free(devices);
    problem_free(&prob);
    return status;
}

static int show_plugin(const plugin_search *search, const char *name, const cli_args *args)
{
    loaded_plugin lp;
    skytune_error err;
    if (plugin_load(name, search, &lp, &err) != 0) {
        cli_error("%s", err.message);
        return EXIT_FAILED;
    }
    const skytune_plugin *pl = lp.desc;
    terminal_printf("%s %s — %s\n%s\n\nproblem parameters:\n", pl->name, pl->version,
                    pl->description ? pl->description : "", lp.path);
    /* Columns as wide as their longest entry, so that every line of a
     * section lines up whatever the names. */
    int name_w = 0, type_w = 0, default_w = 0;
    for (const skytune_problem_param *p = pl->problem_params; p && p->name; p++) {
        widen(&name_w, p->name);
        widen(&type_w, type_name(p->type));
        widen(&default_w, p->default_value);
    }
    for (const skytune_problem_param *p = pl->problem_params; p && p->name; p++)
        terminal_printf("  %-*s  %-*s  default %-*s  %s\n", name_w, p->name, type_w,
                        type_name(p->type), default_w, p->default_value, p->help ? p->help : "");
    printf("\npresets:\n");
    int preset_w = 0;
    for (const skytune_preset *p = pl->presets; p && p->name; p++) widen(&preset_w, p->name);
    for (const skytune_preset *p = pl->presets; p && p->name; p++)
        terminal_printf("  %-*s  %s\n  %-*s  %s\n", preset_w, p->name, p->help ? p->help : "",
                        preset_w, "", p->settings);
    if ((pl->problem_checks && pl->problem_checks[0].expression) || pl->check_problem) {
        printf("\nproblem checks:\n");
        for (const skytune_problem_check *c = pl->problem_checks; c && c->expression; c++)
            terminal_printf("  %s\n", c->expression);
        if (pl->check_problem) printf("  (and the plugin's own limits on the device)\n");
    }
    printf("\ntuning parameters:\n");
    int tuning_w = 0, kind_w = 0;
    for (const skytune_tuning_param *t = pl->tuning_params; t && t->name; t++) {
        widen(&tuning_w, t->name);
        widen(&kind_w, kind_name(t->kind));
    }
    for (const skytune_tuning_param *t = pl->tuning_params; t && t->name; t++) {
        param_def def;
        char values[512] = "?";
        if (param_expand(t, &def, &err) == 0) {
            param_describe_values(&def, values, sizeof values);
            terminal_printf("  %-*s  %-*s  %zu values: %s\n", tuning_w, t->name, kind_w,
                            kind_name(t->kind), def.count, values);
            param_free(&def);
        }
        if (t->help) terminal_printf("  %-*s  %s\n", tuning_w, "", t->help);
    }
    printf("\nconstraints:\n");
    for (const char *const *c = pl->constraints; c && *c; c++) terminal_printf("  %s\n", *c);
    if (pl->constraint) printf("  (and a C constraint in the plugin)\n");
    int status = print_space_size(pl, args);
    plugin_unload(&lp);
    return status;
}

int cmd_plugins(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("plugins",
                       "List the kernel plugins on the search path (--plugin-dir, "
                       "SKYTUNE_PLUGIN_PATH, the build tree, the install directory), or describe "
                       "one: `skytune plugins show NAME`.",
                       options, sizeof options / sizeof options[0], 2, "[show NAME]", argc, argv,
                       &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *const *dirs;
    size_t n_dirs = cli_all(&args, "plugin-dir", &dirs);
    plugin_search search = {.dirs = dirs, .n_dirs = n_dirs};
    if (args.n_positional == 0) return list_plugins(&search);
    static const char *const subs[] = {"show"};
    if (cli_check_choice("plugins:", args.positional[0], subs, 1) != 0) return EXIT_USAGE;
    if (args.n_positional != 2) {
        cli_error("plugins: expected `skytune plugins` or `skytune plugins show NAME`");
        return EXIT_USAGE;
    }
    return show_plugin(&search, args.positional[1], &args);
}
