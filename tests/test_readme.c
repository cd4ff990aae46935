/* The README's commands, as a newcomer runs them: every ```sh block of
 * README.md, in order, in one temporary folder with a fresh database and
 * an empty binary cache, where `build` and `examples` are the build tree's
 * and the repository's (the README's commands run from the repository
 * root). A block that cannot run here is skipped with its reason on
 * standard error: `make demo` and `make test` install packages and build
 * (and `make test` runs this test), a paper-sized preset needs a GPU, a
 * SLURM command needs a cluster. Any block that names a file the
 * repository does not hold fails here. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_harness.h"
#include "clock.h"

/* How long one block may take on a loaded 2-core machine: the README says
 * each finishes in under two minutes on an idle one. */
#define BLOCK_LIMIT_S 900

typedef struct sh_block {
    char *text;
    int line;                   /* of README.md, where the block's commands start */
} sh_block;

/* Every ```sh block of `readme`, in order, into *blocks; their count. */
static size_t sh_blocks(const char *readme, sh_block **blocks)
{
    size_t n = 0, cap = 16;
    *blocks = calloc(cap, sizeof **blocks);
    cr_assert(*blocks, "out of memory");
    int line = 1;
    for (const char *at = readme; *at;) {
        const char *end = strchr(at, '\n');
        size_t len = end ? (size_t)(end - at) : strlen(at);
        if (len == 5 && strncmp(at, "```sh", 5) == 0 && end) {
            const char *body = end + 1;
            const char *close = strstr(body, "\n```");
            cr_assert(close, "README.md:%d: a ```sh block that does not end", line);
            if (n == cap) {
                cap *= 2;
                *blocks = realloc(*blocks, cap * sizeof **blocks);
                cr_assert(*blocks, "out of memory");
            }
            (*blocks)[n].text = strndup(body, (size_t)(close - body) + 1);
            (*blocks)[n].line = line + 1;
            n++;
            for (const char *c = at; c < close + 1; c++) line += *c == '\n';
            at = close + 1;
            continue;
        }
        line++;
        at = end ? end + 1 : at + len;
    }
    return n;
}

/* Why a block cannot run here, or NULL when it can. */
static const char *why_not_here(const char *block)
{
    for (const char *at = block; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL)
        if (strncmp(at, "make ", 5) == 0)
            return "`make` installs packages and builds the whole tree, and `make test` runs this "
                   "test";
    if (strstr(block, "--preset apertif") || strstr(block, "--preset lofar"))
        return "a paper-sized preset is for a GPU (one configuration takes about 10 s on PoCL)";
    if (strstr(block, "sbatch") || strstr(block, "srun") || strstr(block, "campaign slurm"))
        return "needs a SLURM cluster";
    return NULL;
}

Test(readme, every_sh_block_runs_as_written_in_a_fresh_folder, .timeout = 3600)
{
    const char *source = cli_source_dir();
    const char *build = getenv("SKYTUNE_BUILD_DIR");
    cr_assert(build, "SKYTUNE_BUILD_DIR is not set: run the tests through `meson test`");
    char *readme_path = cli_path(source, "README.md");
    size_t len;
    char *readme = (char *)cli_read_file(readme_path, &len);
    cr_assert(readme, "cannot read %s", readme_path);
    sh_block *blocks;
    size_t n = sh_blocks(readme, &blocks);
    cr_assert_geq(n, 4, "README.md has %zu ```sh blocks: the tour's are gone?", n);

    char *folder = cli_make_temp_dir();
    cr_assert_eq(cli_shell("ln -s '%s' '%s/build' && ln -s '%s/examples' '%s/examples'", build,
                           folder, source, folder),
                 0, "cannot link the build tree and the examples into %s", folder);
    char *script = cli_path(folder, "block.sh");
    char *log = cli_path(folder, "block.log");
    size_t ran = 0;
    for (size_t k = 0; k < n; k++) {
        const char *why = why_not_here(blocks[k].text);
        if (why) {
            fprintf(stderr, "SKIP: README.md:%d: %s\n", blocks[k].line, why);
            continue;
        }
        cli_write_file(script, blocks[k].text, strlen(blocks[k].text));
        double began = clock_monotonic_s();
        /* An empty binary cache of the folder's own, as on a first day. */
        int rc = cli_shell("cd '%s' && SKYTUNE_CACHE_DIR='%s/cache' timeout %d sh -e block.sh "
                           ">'%s' 2>&1 </dev/null",
                           folder, folder, BLOCK_LIMIT_S, log);
        double took = clock_monotonic_s() - began;
        char *out = (char *)cli_read_file(log, &len);
        cr_assert_eq(rc, 0, "README.md:%d failed (exit %d after %.0f s):\n%s\nits output:\n%s",
                     blocks[k].line, rc, took, blocks[k].text, out ? out : "");
        fprintf(stderr, "README.md:%d ran in %.1f s\n", blocks[k].line, took);
        free(out);
        ran++;
    }
    cr_assert_geq(ran, 4, "only %zu of the README's %zu blocks ran here", ran, n);
    free(log);
    free(script);
    cli_remove_tree(folder);
    free(folder);
    for (size_t k = 0; k < n; k++) free(blocks[k].text);
    free(blocks);
    free(readme);
    free(readme_path);
}
