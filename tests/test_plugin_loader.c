/* Finding and loading plugins: by name on the search path, by explicit
 * path, never from the current directory implicitly. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_harness.h"
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

/* ------------------------------------------------------------ names without a slash */

Test(plugin_loader, a_so_name_without_a_slash_is_the_file_in_the_current_directory)
{
    /* dlopen("libz.so") searches the library path and finds the system's
     * zlib; the file the user named is ./libz.so. */
    char *dir = cli_make_temp_dir();
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "cp '%s/vector_add.so' '%s/libz.so'", plugin_dir(), dir);
    cr_assert_eq(system(cmd), 0);
    char old[PATH_MAX];
    cr_assert_not_null(getcwd(old, sizeof old));
    cr_assert_eq(chdir(dir), 0);
    loaded_plugin p;
    skytune_error err = {0};
    plugin_search none = {0};
    int rc = plugin_load("libz.so", &none, &p, &err);
    cr_assert_eq(chdir(old), 0);
    cr_assert_eq(rc, 0, "libz.so in the current directory was not the one loaded: %s",
                 err.message);
    cr_assert_str_eq(p.desc->name, "vector_add");
    /* Workers load the plugin again by this path, from the same directory. */
    cr_assert_str_eq(p.path, "./libz.so");
    plugin_unload(&p);
    cli_remove_tree(dir);
    free(dir);
}

/* ------------------------------------------------------------ entry points that are not functions */

/* Build source as a shared object in a new folder and load it: the load
 * must fail (not crash) with a message holding every needle. */
static void assert_entry_refused(const char *source, const char *const *needles)
{
    if (!cli_have_compiler()) cr_skip_test("no C compiler (cc) to build the test plugin");
    char *dir = cli_make_temp_dir();
    char *so = cli_path(dir, "entry.so");
    char flags[PATH_MAX + 32];
    snprintf(flags, sizeof flags, "-I'%s/framework/include'", cli_source_dir());
    cli_compile_shared(source, so, flags);
    loaded_plugin p;
    skytune_error err = {0};
    cr_assert_neq(plugin_load(so, NULL, &p, &err), 0, "a broken entry point was accepted");
    cr_assert(strstr(err.message, so), "the message does not name the file: %s", err.message);
    for (size_t k = 0; needles[k]; k++)
        cr_assert(strstr(err.message, needles[k]), "the message lacks '%s': %s", needles[k],
                  err.message);
    cli_remove_tree(dir);
    free(so);
    free(dir);
}

/* A valid description, so that only the entry point is wrong. */
#define VALID_DESCRIPTION                                                                  \
    "#include <skytune/plugin.h>\n"                                                       \
    "static const skytune_tuning_param params[] = {\n"                                    \
    "    {\"x\", SKYTUNE_LIST, \"1,2\", 0, 0, 0, \"x\"}, {NULL, 0, NULL, 0, 0, 0, NULL}};\n"

Test(plugin_loader, an_entry_symbol_that_is_the_description_itself_is_refused)
{
    /* The likeliest mistake: exporting the description under the entry's
     * name instead of a function returning it. Calling it would execute
     * the description's bytes. */
    assert_entry_refused(VALID_DESCRIPTION
                         "SKYTUNE_EXPORT const skytune_plugin skytune_plugin_entry = {\n"
                         "    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION, .name = \"data_entry\",\n"
                         "    .version = \"1\", .tuning_params = params};\n",
                         CLI_ARGS("skytune_plugin_entry", "data", "not a function",
                                  "SKYTUNE_DEFINE_PLUGIN"));
}

Test(plugin_loader, an_entry_symbol_marked_a_function_but_placed_in_data_is_refused)
{
    /* The symbol table says function; the bytes lie in the writable data
     * segment, which is not executable. */
    assert_entry_refused("__asm__(\".data\\n.globl skytune_plugin_entry\\n"
                         ".type skytune_plugin_entry, @function\\n"
                         "skytune_plugin_entry:\\n.byte 0xc3\\n.text\\n\");\n",
                         CLI_ARGS("skytune_plugin_entry", "not executable"));
}

Test(plugin_loader, an_entry_returning_an_unreadable_address_is_refused)
{
    assert_entry_refused(VALID_DESCRIPTION
                         "SKYTUNE_EXPORT const skytune_plugin *skytune_plugin_entry(void);\n"
                         "const skytune_plugin *skytune_plugin_entry(void)\n"
                         "{ return (const skytune_plugin *)(unsigned long)16; }\n",
                         CLI_ARGS("skytune_plugin_entry", "cannot be read"));
}
