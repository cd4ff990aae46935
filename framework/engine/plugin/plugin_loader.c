#include "plugin_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler_inputs.h"
#include "params.h"
#include "plugin_entry_check.h"
#include "quote.h"
#include "space.h"
#include "t1_plugin.h"
#include "value.h"

#ifndef SKYTUNE_PLUGIN_INSTALL_DIR
#define SKYTUNE_PLUGIN_INSTALL_DIR "/usr/local/lib/skytune/plugins"
#endif

/* What a plugin of the previous ABI changes to load again, for the message
 * that refuses it (docs/plugins.md, "Plugin ABI versions"). */
#define ABI_CHANGES_FROM_PREVIOUS                                                              \
    "; from version 6: the description gained device_outputs (it may stay NULL: a plugin of "   \
    "version 6 needs only a rebuild)"

static int push_dir(char ***dirs, size_t *count, const char *dir, size_t len)
{
    if (len == 0) return 0;
    char **grown = realloc(*dirs, (*count + 1) * sizeof *grown);
    if (!grown) return -1;
    *dirs = grown;
    grown[*count] = strndup(dir, len);
    if (!grown[*count]) return -1;
    (*count)++;
    return 0;
}

void plugin_search_dirs_free(char **dirs, size_t count)
{
    for (size_t k = 0; k < count; k++) free(dirs[k]);
    free(dirs);
}

int plugin_search_dirs(const plugin_search *search, char ***dirs_out, size_t *count_out,
                       skytune_error *err)
{
    char **dirs = NULL;
    size_t count = 0;
    int rc = 0;
    for (size_t k = 0; search && k < search->n_dirs && rc == 0; k++)
        rc = push_dir(&dirs, &count, search->dirs[k], strlen(search->dirs[k]));
    const char *env = getenv("SKYTUNE_PLUGIN_PATH");
    while (env && *env && rc == 0) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        rc = push_dir(&dirs, &count, env, len);
        env = colon ? colon + 1 : NULL;
    }
    /* The build tree: plugins/ beside the executable, so `build/skytune`
     * finds the modules in `build/plugins/` without installing. */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0 && rc == 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            snprintf(slash, sizeof exe - (size_t)(slash - exe), "/plugins");
            rc = push_dir(&dirs, &count, exe, strlen(exe));
        }
    }
    if (rc == 0)
        rc = push_dir(&dirs, &count, SKYTUNE_PLUGIN_INSTALL_DIR, strlen(SKYTUNE_PLUGIN_INSTALL_DIR));
    if (rc != 0) {
        plugin_search_dirs_free(dirs, count);
        return err_set(err, "out of memory building the plugin search path");
    }
    *dirs_out = dirs;
    *count_out = count;
    return 0;
}

static int check_callbacks(const skytune_plugin *d, const char *name, skytune_error *err)
{
    const struct {
        const char *name;
        int present;
    } required[] = {
        {"setup", d->setup != NULL},
        {"reference", d->reference != NULL},
        {"prepare", d->prepare != NULL},
        {"clear_outputs", d->clear_outputs != NULL},
        {"enqueue", d->enqueue != NULL},
        {"verify", d->verify != NULL},
        {"release", d->release != NULL},
        {"teardown", d->teardown != NULL},
        {"kernel_source or generate_source", d->kernel_source || d->generate_source},
    };
    for (size_t k = 0; k < sizeof required / sizeof required[0]; k++)
        if (!required[k].present)
            return err_set(err, "plugin %s (%s) lacks the required callback %s", d->name, name,
                           required[k].name);
    return 0;
}

/* The plugin's own compiler options reach clBuildProgram as they are, in
 * one string that drivers split at spaces: keep them to what cannot
 * surprise a driver's splitting. */
#define BUILD_OPTIONS_MAX 512
static int check_build_options(const skytune_plugin *d, const char *name, skytune_error *err)
{
    const char *o = d->build_options;
    if (!o) return 0;
    size_t n = strlen(o);
    if (n > BUILD_OPTIONS_MAX)
        return err_set(err, "plugin %s (%s): build_options has %zu characters; at most %d", d->name,
                       name, n, BUILD_OPTIONS_MAX);
    for (size_t k = 0; k < n; k++)
        if (o[k] < ' ' || o[k] > '~' || o[k] == '"' || o[k] == '\'' || o[k] == '\\')
            return err_set(err,
                           "plugin %s (%s): build_options holds character %zu (code %u), which "
                           "is not printable ASCII without quotes and backslashes",
                           d->name, name, k + 1, (unsigned)(unsigned char)o[k]);
    return 0;
}

/* Names are shared by expressions, -D macros and SQL columns, so a problem
 * parameter and a tuning parameter may not share one. */
static int check_names(const skytune_plugin *d, const char *name, skytune_error *err)
{
    const char *seen[512];
    size_t n_seen = 0;
    for (const skytune_problem_param *p = d->problem_params; p && p->name; p++) {
        if (!name_is_identifier(p->name))
            return err_set(err, "plugin %s (%s): problem parameter '%s' is not an identifier",
                           d->name, name, p->name);
        skytune_value v;
        skytune_error verr;
        if (value_parse(p->default_value ? p->default_value : "", p->type, &v, &verr) != 0 ||
            (p->type == SKYTUNE_STRING && value_check_token(NULL, v.s, &verr) != 0)) {
            value_clear(&v); /* value_parse leaves a value that is safe to clear */
            return err_set(err, "plugin %s (%s): default of problem parameter '%s': %s", d->name,
                           name, p->name, verr.message);
        }
        value_clear(&v);
        if (n_seen < 512) seen[n_seen++] = p->name;
    }
    for (const skytune_tuning_param *t = d->tuning_params; t && t->name; t++) {
        if (!name_is_identifier(t->name))
            return err_set(err, "plugin %s (%s): tuning parameter '%s' is not an identifier",
                           d->name, name, t->name);
        for (size_t k = 0; k < n_seen; k++)
            if (strcmp(seen[k], t->name) == 0)
                return err_set(err, "plugin %s (%s): the name '%s' is declared twice", d->name,
                               name, t->name);
        param_def expanded;
        if (param_expand(t, &expanded, err) != 0)
            return err_prefix(err, "plugin %s (%s)", d->name, name);
        param_free(&expanded);
        if (n_seen < 512) seen[n_seen++] = t->name;
    }
    if (!d->tuning_params || !d->tuning_params[0].name)
        return err_set(err, "plugin %s (%s) declares no tuning parameter", d->name, name);
    for (const skytune_derived_value *v = d->derived_values; v && v->name; v++) {
        if (!name_is_identifier(v->name) || !v->compute)
            return err_set(err,
                           "plugin %s (%s): derived value '%s' needs an identifier for a name "
                           "and a compute function",
                           d->name, name, v->name);
        for (size_t k = 0; k < n_seen; k++)
            if (strcmp(seen[k], v->name) == 0)
                return err_set(err, "plugin %s (%s): the name '%s' is declared twice", d->name,
                               name, v->name);
        if (n_seen < 512) seen[n_seen++] = v->name;
    }
    for (const skytune_preset *p = d->presets; p && p->name; p++)
        if (!p->settings)
            return err_set(err, "plugin %s (%s): preset '%s' has no settings", d->name, name,
                           p->name);
    return check_build_options(d, name, err);
}

/* path names a file (it holds a '/'): dlopen searches the library path for
 * a name without one, and would load the system's libz for "libz.so" in
 * the current directory. */
static int load_file(const char *path, loaded_plugin *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    char name[QUOTE_PATH]; /* the file as messages name it */
    quote_text(path, name, sizeof name);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) return err_set(err, "cannot load plugin %s: %s", name, dlerror());
    void *symbol = dlsym(handle, SKYTUNE_PLUGIN_ENTRY);
    if (!symbol) {
        dlclose(handle);
        return err_set(err,
                       "%s is not a skytune plugin: it does not export %s (define it with "
                       "SKYTUNE_DEFINE_PLUGIN from skytune/plugin.h)",
                       name, SKYTUNE_PLUGIN_ENTRY);
    }
    /* Calling data would end skytune with SIGSEGV and no word of why. */
    if (plugin_entry_check_function(symbol, name, err) != 0) {
        dlclose(handle);
        return -1;
    }
    skytune_plugin_entry_fn entry;
    /* POSIX allows converting dlsym's void * to a function pointer this way. */
    *(void **)(&entry) = symbol;
    const skytune_plugin *desc = entry();
    if (!desc) {
        dlclose(handle);
        return err_set(err, "plugin %s returned no description from %s", name,
                       SKYTUNE_PLUGIN_ENTRY);
    }
    /* The version first: a description of another ABI may be of another size. */
    if (!plugin_memory_readable(&desc->abi_version, sizeof desc->abi_version)) {
        dlclose(handle);
        return err_set(err,
                       "plugin %s: %s returned %p, an address that cannot be read, not a "
                       "description",
                       name, SKYTUNE_PLUGIN_ENTRY, (const void *)desc);
    }
    if (desc->abi_version != SKYTUNE_PLUGIN_ABI_VERSION) {
        /* The description lives in the library: read it before unloading. */
        unsigned found = desc->abi_version;
        dlclose(handle);
        return err_set(err,
                       "plugin %s was built for plugin ABI version %u, but this skytune loads "
                       "version %u: rebuild the plugin against this skytune's skytune/plugin.h%s",
                       name, found, SKYTUNE_PLUGIN_ABI_VERSION,
                       found == SKYTUNE_PLUGIN_ABI_VERSION - 1 ? ABI_CHANGES_FROM_PREVIOUS : "");
    }
    if (!plugin_memory_readable(desc, sizeof *desc)) {
        dlclose(handle);
        return err_set(err,
                       "plugin %s: the description %s returned at %p is not %zu readable "
                       "bytes (a skytune_plugin)",
                       name, SKYTUNE_PLUGIN_ENTRY, (const void *)desc, sizeof *desc);
    }
    if (!desc->name || !name_is_identifier(desc->name) || !desc->version) {
        dlclose(handle);
        return err_set(err, "plugin %s has no valid name (an identifier) or version", name);
    }
    if (check_callbacks(desc, name, err) != 0 || check_names(desc, name, err) != 0) {
        dlclose(handle);
        return -1;
    }
    out->handle = handle;
    out->desc = desc;
    out->path = strdup(path);
    if (!out->path) {
        dlclose(handle);
        return err_set(err, "out of memory loading %s", name);
    }
    /* The hash identifies the plugin build in the store: a changed kernel is
     * a new build whose measurements are not mixed with the old one's. */
    char identity[256];
    snprintf(identity, sizeof identity, "%s %s\n", desc->name, desc->version);
    uint64_t h = space_text_hash(identity) ^
                 space_text_hash(desc->kernel_source ? desc->kernel_source : "") ^
                 (desc->build_options ? space_text_hash(desc->build_options) * 31u : 0u);
    /* So do the files the kernel includes (through -I of its build
     * options), a header changed being a new build like a source changed. */
    uint64_t includes = 0;
    if (desc->kernel_source &&
        compiler_includes_digest(desc->kernel_source, desc->build_options, &includes, err) != 0) {
        err_prefix(err, "plugin %s", name);
        plugin_unload(out);
        return -1;
    }
    h ^= includes * 17u;
    snprintf(out->source_hash, sizeof out->source_hash, "%016llx", (unsigned long long)h);
    return 0;
}

void plugin_unload(loaded_plugin *p)
{
    if (!p) return;
    if (p->handle) dlclose(p->handle);
    t1_plugin_free(p->t1);
    free(p->path);
    memset(p, 0, sizeof *p);
}

static int is_regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A T1 file's plugin, described as a module's is. */
static int load_t1_file(const char *name_or_path, loaded_plugin *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    struct t1_plugin *p;
    if (t1_plugin_open(name_or_path, &p, err) != 0) return -1;
    out->path = strdup(name_or_path);
    if (!out->path) {
        t1_plugin_free(p);
        return err_set(err, "out of memory");
    }
    out->desc = t1_plugin_description(p);
    out->t1 = p;
    out->checked_against = t1_plugin_checked_against(p);
    out->compared_with = t1_plugin_compared_with(p);
    snprintf(out->source_hash, sizeof out->source_hash, "%016llx",
             (unsigned long long)t1_plugin_build_hash(p));
    return 0;
}

int plugin_load(const char *name_or_path, const plugin_search *search, loaded_plugin *out,
                skytune_error *err)
{
    if (t1_plugin_names_file(name_or_path)) {
        /* Checked like a module's description: the file is the author. */
        if (load_t1_file(name_or_path, out, err) != 0) return -1;
        char name[QUOTE_PATH];
        quote_text(out->path, name, sizeof name);
        if (check_callbacks(out->desc, name, err) == 0 && check_names(out->desc, name, err) == 0)
            return 0;
        plugin_unload(out);
        return -1;
    }
    size_t len = strlen(name_or_path);
    char name[QUOTE_PATH];
    quote_text(name_or_path, name, sizeof name);
    int explicit_path = strchr(name_or_path, '/') != NULL ||
                        (len > 3 && strcmp(name_or_path + len - 3, ".so") == 0);
    if (explicit_path) {
        if (!is_regular_file(name_or_path))
            return err_set(err, "plugin file %s does not exist", name);
        if (strchr(name_or_path, '/')) return load_file(name_or_path, out, err);
        /* "NAME.so" is the file in the current directory, the one checked
         * above: given to dlopen as "./NAME.so". */
        char *in_current_dir = malloc(len + 3);
        if (!in_current_dir) return err_set(err, "out of memory loading %s", name);
        snprintf(in_current_dir, len + 3, "./%s", name_or_path);
        int rc = load_file(in_current_dir, out, err);
        free(in_current_dir);
        return rc;
    }
    if (!name_is_identifier(name_or_path))
        return err_set(err, "'%s' is not a plugin name (letters, digits, '_') or a path to a .so",
                       name);
    char **dirs;
    size_t n_dirs;
    if (plugin_search_dirs(search, &dirs, &n_dirs, err) != 0) return -1;
    int rc = 1;
    for (size_t k = 0; k < n_dirs && rc == 1; k++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s.so", dirs[k], name_or_path);
        if (is_regular_file(path)) rc = load_file(path, out, err);
    }
    if (rc == 1) {
        char where[900] = "";
        size_t used = 0;
        for (size_t k = 0; k < n_dirs && used < sizeof where - 1; k++) {
            char dir[QUOTE_PATH];
            used += (size_t)snprintf(where + used, sizeof where - used, "%s%s", k ? ", " : "",
                                     quote_text(dirs[k], dir, sizeof dir));
        }
        rc = err_set(err,
                     "unknown plugin '%s': no %s.so in %s (see `skytune plugins`, or pass "
                     "--plugin-dir DIR or a path to the .so)",
                     name_or_path, name_or_path, where);
    }
    plugin_search_dirs_free(dirs, n_dirs);
    return rc;
}

static int compare_plugins(const void *a, const void *b)
{
    const loaded_plugin *x = a, *y = b;
    return strcmp(x->desc->name, y->desc->name);
}

int plugin_list(const plugin_search *search, loaded_plugin **out, size_t *count,
                void (*skipped)(void *ctx, const char *path, const char *why), void *ctx,
                skytune_error *err)
{
    *out = NULL;
    *count = 0;
    char **dirs;
    size_t n_dirs;
    if (plugin_search_dirs(search, &dirs, &n_dirs, err) != 0) return -1;
    loaded_plugin *list = NULL;
    size_t used = 0;
    int rc = 0;
    for (size_t k = 0; k < n_dirs && rc == 0; k++) {
        DIR *dir = opendir(dirs[k]);
        if (!dir) continue;
        struct dirent *entry;
        while ((entry = readdir(dir)) != NULL && rc == 0) {
            size_t len = strlen(entry->d_name);
            if (len < 4 || strcmp(entry->d_name + len - 3, ".so") != 0) continue;
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", dirs[k], entry->d_name);
            loaded_plugin p;
            skytune_error why;
            if (load_file(path, &p, &why) != 0) {
                if (skipped) skipped(ctx, path, why.message);
                continue;
            }
            int duplicate = 0;
            for (size_t j = 0; j < used; j++)
                if (strcmp(list[j].desc->name, p.desc->name) == 0) duplicate = 1;
            if (duplicate) {
                plugin_unload(&p);
                continue;
            }
            loaded_plugin *grown = realloc(list, (used + 1) * sizeof *list);
            if (!grown) {
                plugin_unload(&p);
                rc = err_set(err, "out of memory listing plugins");
                break;
            }
            list = grown;
            list[used++] = p;
        }
        closedir(dir);
    }
    plugin_search_dirs_free(dirs, n_dirs);
    if (rc != 0) {
        plugin_list_free(list, used);
        return -1;
    }
    if (used > 1) qsort(list, used, sizeof *list, compare_plugins);
    *out = list;
    *count = used;
    return 0;
}

void plugin_list_free(loaded_plugin *list, size_t count)
{
    for (size_t k = 0; k < count; k++) plugin_unload(&list[k]);
    free(list);
}
