/* skytune under valgrind's memcheck: a run ends with no memory error and no
 * leak, so that `valgrind --leak-check=full --error-exitcode=9 skytune run`
 * exits 0 and `make test-valgrind` can run the end-to-end tests that way.
 * A replay run: it has the command's threads (the Ctrl-C receiver) without
 * a kernel compiler, which under valgrind takes minutes; `make
 * test-valgrind` runs real campaigns on PoCL. Skipped, saying so, where
 * valgrind is not installed, and in a sanitizer build. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"

static char *scratch;

static void make_scratch(void)
{
    scratch = cli_make_temp_dir();
}

static void remove_scratch(void)
{
    cli_remove_tree(scratch);
    free(scratch);
    scratch = NULL;
}

TestSuite(valgrind, .init = make_scratch, .fini = remove_scratch);

/* Every command of this test process from here on runs under valgrind, as
 * in `make test-valgrind` (see the Makefile for what each option is for). */
static void run_under_valgrind(void)
{
    const char *sanitize = getenv("SKYTUNE_SANITIZE");
    if (sanitize && *sanitize && strcmp(sanitize, "none") != 0) {
        fprintf(stderr, "SKIP: skytune is built with -fsanitize=%s, which valgrind cannot run\n",
                sanitize);
        cr_skip_test("skytune is built with a sanitizer");
    }
    if (system("valgrind --version >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP: valgrind is not installed (tools/install-deps.sh installs it)\n");
        cr_skip_test("valgrind is not installed");
    }
    char prefix[4096];
    snprintf(prefix, sizeof prefix,
             "valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,possible "
             "--error-exitcode=9 --num-callers=50 --suppressions=%s/tools/valgrind-opencl.supp "
             "--trace-children=yes --trace-children-skip=/usr/bin/*,/bin/*",
             cli_source_dir());
    cr_assert(!strchr(cli_source_dir(), ' '), "the source path holds a space: %s",
              cli_source_dir());
    setenv("SKYTUNE_TEST_PREFIX", prefix, 1);
}

Test(valgrind, a_run_ends_without_memory_errors_or_leaks)
{
    run_under_valgrind();
    char *dataset = cli_path(scratch, "recorded.cache.json");
    char *db = cli_path(scratch, "replayed.db");
    cli_write_file(dataset, cli_recorded_cache, strlen(cli_recorded_cache));
    cli_result r = cli_run(CLI_ARGS("run", "--replay", dataset, "--space", "recorded",
                                    "--strategy", "exhaustive", "--db", db));
    /* Exit status 9 is valgrind's: an error or a leak, on stderr. */
    cr_assert_eq(r.status, 0, "skytune run under valgrind: %s\nstdout:\n%s\nstderr:\n%s",
                 cli_status_text(r.status), r.out, r.err);
    cr_assert(strstr(r.out, "wg=32"), "the best configuration is not wg=32:\n%s", r.out);
    cli_result_free(&r);

    r = cli_run(CLI_ARGS("best", "--db", db));
    cr_assert_eq(r.status, 0, "skytune best under valgrind: %s\nstderr:\n%s",
                 cli_status_text(r.status), r.err);
    cli_result_free(&r);
    free(db);
    free(dataset);
}
