/* A plugin built out of tree, as docs/plugins.md says: skytune installed
 * into a temporary prefix (`meson install --destdir`), plugins/vector_add
 * copied elsewhere and built there with the documented commands — the
 * Makefile and the meson.build of examples/out_of_tree/ — against that
 * install alone, and loaded and run by skytune. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"

static char *scratch;

static void set_up(void)
{
    scratch = cli_make_temp_dir();
}

static void tear_down(void)
{
    cli_remove_tree(scratch);
    free(scratch);
}

TestSuite(out_of_tree, .init = set_up, .fini = tear_down, .timeout = 300);

static char *text_of(const char *path)
{
    size_t len;
    unsigned char *bytes = cli_read_file(path, &len);
    return bytes ? (char *)bytes : strdup("(nothing)");
}

/* Installs into scratch/install and returns the folder of skytune-plugin.pc. */
static char *install(void)
{
    const char *build = getenv("SKYTUNE_BUILD_DIR");
    cr_assert(build, "SKYTUNE_BUILD_DIR is not set (run through meson test)");
    char *dest = cli_path(scratch, "install");
    char *log = cli_path(scratch, "install.log");
    cr_assert_eq(cli_shell("meson install -C '%s' --destdir '%s' --no-rebuild --quiet > '%s' 2>&1",
                       build, dest, log),
                 0, "meson install failed:\n%s", text_of(log));
    char *found = cli_path(scratch, "pc.txt");
    cr_assert_eq(cli_shell("find '%s' -name skytune-plugin.pc > '%s'", dest, found), 0);
    char *pc = text_of(found);
    char *slash = strrchr(pc, '/');
    cr_assert(slash, "no skytune-plugin.pc was installed:\n%s", pc);
    *slash = '\0';
    free(found);
    free(log);
    free(dest);
    return pc;
}

/* vector_add's sources in a folder of their own, with the examples. */
static char *copy_plugin(const char *name)
{
    char *dir = cli_path(scratch, name);
    cr_assert_eq(cli_shell("mkdir -p '%s' && cp '%s/plugins/vector_add/vector_add.c' "
                       "'%s/plugins/vector_add/vector_add.cl' '%s/examples/out_of_tree/Makefile' "
                       "'%s/examples/out_of_tree/meson.build' "
                       "'%s/examples/out_of_tree/meson_options.txt' '%s'",
                       dir, cli_source_dir(), cli_source_dir(), cli_source_dir(),
                       cli_source_dir(), cli_source_dir(), dir),
                 0);
    return dir;
}

/* The plugin loads and measures: a short run on the default device. */
static void expect_loads_and_runs(const char *so)
{
    cli_result r = cli_run(CLI_ARGS("plugins", "show", so));
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "vector_add 1.0"), "%s", r.out);
    cli_result_free(&r);
    char *db = cli_path(scratch, "oot.db");
    r = cli_run(CLI_ARGS("run", "--plugin", so, "--preset", "small", "--strategy", "random",
                         "--budget", "2", "--runs", "2", "--compile-jobs", "0", "--db", db,
                         "--quiet"));
    cr_expect_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_expect(strstr(r.out, "status: ok 2"), "%s", r.out);
    cli_result_free(&r);
    free(db);
}

Test(out_of_tree, make_builds_the_template_against_an_install_in_any_prefix)
{
    if (!cli_have_compiler()) cr_skip_test("no C compiler (cc): nothing to build a plugin with");
    if (cli_shell("command -v make >/dev/null && command -v pkg-config >/dev/null") != 0)
        cr_skip_test("make or pkg-config is not installed");
    char *pc_dir = install();
    char *dir = copy_plugin("with-make");
    char *log = cli_path(dir, "build.log");
    cr_assert_eq(cli_shell("cd '%s' && env -u CFLAGS PKG_CONFIG_PATH='%s' make PLUGIN=vector_add "
                       "> '%s' 2>&1",
                       dir, pc_dir, log),
                 0, "make failed:\n%s", text_of(log));
    char *so = cli_path(dir, "vector_add.so");
    expect_loads_and_runs(so);
    free(so);
    free(log);
    free(dir);
    free(pc_dir);
}

Test(out_of_tree, meson_builds_the_template_against_an_install_in_any_prefix)
{
    if (!cli_have_compiler()) cr_skip_test("no C compiler (cc): nothing to build a plugin with");
    char *pc_dir = install();
    char *dir = copy_plugin("with-meson");
    char *log = cli_path(dir, "build.log");
    cr_assert_eq(cli_shell("cd '%s' && PKG_CONFIG_PATH='%s' meson setup build -Dplugin=vector_add "
                       "> '%s' 2>&1 && ninja -C build >> '%s' 2>&1",
                       dir, pc_dir, log, log),
                 0, "the meson build failed:\n%s", text_of(log));
    char *so = cli_path(dir, "build/vector_add.so");
    expect_loads_and_runs(so);
    free(so);
    free(log);
    free(dir);
    free(pc_dir);
}
