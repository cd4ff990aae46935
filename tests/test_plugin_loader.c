/* Finding and loading plugins: by name on the search path, by explicit
 * path, never from the current directory implicitly. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_loader.h"

static const char *plugin_dir(void)
{
    const char *d = getenv("SKYTUNE_PLUGIN_DIR");
    cr_assert_not_null(d, "SKYTUNE_PLUGIN_DIR is not set (run through meson test)");
    return d;
}

Test(plugin_loader, loads_by_name_from_a_search_directory)
{
    const char *dirs[] = {plugin_dir()};
    plugin_search search = {dirs, 1};
    loaded_plugin p;
    skytune_error err = {0};
    cr_assert_eq(plugin_load("vector_add", &search, &p, &err), 0, "%s", err.message);
    cr_assert_str_eq(p.desc->name, "vector_add");
    cr_assert_eq(strlen(p.source_hash), 16);
    plugin_unload(&p);
}

Test(plugin_loader, unknown_name_lists_the_directories_searched)
{
    const char *dirs[] = {"/nonexistent/skytune-plugins"};
    plugin_search search = {dirs, 1};
    loaded_plugin p;
    skytune_error err = {0};
    cr_assert_neq(plugin_load("no_such_kernel", &search, &p, &err), 0);
    cr_assert(strstr(err.message, "no_such_kernel") &&
                  strstr(err.message, "/nonexistent/skytune-plugins"),
              "%s", err.message);
}

Test(plugin_loader, environment_path_is_searched)
{
    setenv("SKYTUNE_PLUGIN_PATH", plugin_dir(), 1);
    loaded_plugin p;
    skytune_error err = {0};
    cr_assert_eq(plugin_load("dedispersion", NULL, &p, &err), 0, "%s", err.message);
    plugin_unload(&p);
    unsetenv("SKYTUNE_PLUGIN_PATH");
}

Test(plugin_loader, current_directory_is_not_searched_implicitly)
{
    char dir[] = "/tmp/skytune-loader-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "cp '%s/vector_add.so' '%s/lurking.so'", plugin_dir(), dir);
    cr_assert_eq(system(cmd), 0);
    char old[PATH_MAX];
    cr_assert_not_null(getcwd(old, sizeof old));
    cr_assert_eq(chdir(dir), 0);
    loaded_plugin p;
    skytune_error err = {0};
    plugin_search none = {0};
    cr_assert_neq(plugin_load("lurking", &none, &p, &err), 0,
                  "a plugin in the current directory was loaded by name");
    cr_assert_eq(plugin_load("./lurking.so", &none, &p, &err), 0, "%s", err.message);
    cr_assert_str_eq(p.desc->name, "vector_add");
    plugin_unload(&p);
    cr_assert_eq(chdir(old), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(plugin_loader, list_finds_the_built_plugins_sorted)
{
    const char *dirs[] = {plugin_dir()};
    plugin_search search = {dirs, 1};
    loaded_plugin *list;
    size_t n;
    skytune_error err = {0};
    cr_assert_eq(plugin_list(&search, &list, &n, NULL, NULL, &err), 0, "%s", err.message);
    int found_vector_add = 0, found_dedispersion = 0;
    for (size_t k = 0; k < n; k++) {
        if (strcmp(list[k].desc->name, "vector_add") == 0) found_vector_add = 1;
        if (strcmp(list[k].desc->name, "dedispersion") == 0) found_dedispersion = 1;
        if (k) cr_assert_lt(strcmp(list[k - 1].desc->name, list[k].desc->name), 0);
    }
    cr_assert(found_vector_add && found_dedispersion);
    plugin_list_free(list, n);
}

Test(plugin_loader, a_file_that_is_not_a_shared_object_is_refused)
{
    char path[] = "/tmp/skytune-notso-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "hello", 5), 5);
    close(fd);
    char so[64];
    snprintf(so, sizeof so, "%s.so", path);
    cr_assert_eq(rename(path, so), 0);
    loaded_plugin p;
    skytune_error err = {0};
    cr_assert_neq(plugin_load(so, NULL, &p, &err), 0);
    cr_assert(strstr(err.message, so), "%s", err.message);
    unlink(so);
}
