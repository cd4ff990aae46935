#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binary_cache.h"
#include "cli.h"
#include "quote.h"

static const cli_option options[] = {
    {"dir", "DIR", false,
     "the cache folder (default: $SKYTUNE_CACHE_DIR, else $XDG_CACHE_HOME/skytune/binaries, "
     "else ~/.cache/skytune/binaries)"},
};

/* "812 B", "96.3 KiB", "1.2 GiB" */
static void format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = (double)bytes;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        unit++;
    }
    if (unit == 0)
        snprintf(buf, len, "%" PRIu64 " B", bytes);
    else
        snprintf(buf, len, "%.1f %s", value, units[unit]);
}

static int show_cache(const char *dir)
{
    skytune_error err = {0};
    binary_cache_folder_usage usage;
    if (binary_cache_usage(dir, &usage, &err) != 0) {
        cli_error("cache: %s", err.message);
        return EXIT_FAILED;
    }
    struct stat st;
    bool exists = stat(dir, &st) == 0;
    char size[32], shown[QUOTE_PATH];
    format_bytes(usage.bytes, size, sizeof size);
    printf("directory  %s%s\n", quote_text(dir, shown, sizeof shown),
           exists ? "" : " (not created yet)");
    printf("entries    %" PRIu64 "\n", usage.entries);
    printf("size       %s (%" PRIu64 " bytes)\n", size, usage.bytes);
    if (usage.others)
        printf("other      %" PRIu64 " %s at entries' names that %s no entry (FIFO, link, "
               "socket): never read, removed by `skytune cache clear`\n",
               usage.others, usage.others == 1 ? "file" : "files", usage.others == 1 ? "is" : "are");
    char why[QUOTE_PATH + 96];
    if (exists && !binary_cache_folder_trusted(dir, why, sizeof why))
        printf("not used   %s: runs compile from source\n", why);
    return EXIT_OK;
}

static int clear_cache(const char *dir)
{
    skytune_error err = {0};
    binary_cache_folder_usage removed;
    if (binary_cache_clear(dir, &removed, &err) != 0) {
        cli_error("cache: %s", err.message);
        return EXIT_FAILED;
    }
    char size[32], shown[QUOTE_PATH];
    format_bytes(removed.bytes, size, sizeof size);
    printf("removed %" PRIu64 " %s (%s) from %s", removed.entries,
           removed.entries == 1 ? "entry" : "entries", size, quote_text(dir, shown, sizeof shown));
    if (removed.others)
        printf(", and %" PRIu64 " other %s at entries' names", removed.others,
               removed.others == 1 ? "file" : "files");
    printf("\n");
    return EXIT_OK;
}

int cmd_cache(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("cache",
                       "The on-disk cache of compiled OpenCL programs (docs/cache.md): `skytune "
                       "cache` or `skytune cache show` prints its folder, its number of entries "
                       "and their size; `skytune cache clear` removes the entries, and nothing "
                       "else in the folder.",
                       options, sizeof options / sizeof options[0], 1, "[show|clear]", argc,
                       argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *action = args.n_positional ? args.positional[0] : "show";
    static const char *const actions[] = {"show", "clear"};
    if (cli_check_choice("cache:", action, actions, 2) != 0) return EXIT_USAGE;
    const char *given = cli_get(&args, "dir");
    if (given && !*given) {
        cli_error("cache: --dir needs a folder, got an empty path");
        return EXIT_USAGE;
    }
    char *dir = NULL;
    skytune_error err = {0};
    if (given) {
        dir = strdup(given);
        if (!dir) {
            cli_error("cache: out of memory");
            return EXIT_FAILED;
        }
    } else if (binary_cache_default_dir(&dir, &err) != 0) {
        cli_error("cache: %s", err.message);
        return EXIT_FAILED;
    }
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        char shown[QUOTE_PATH];
        cli_error("cache: %s is not a folder", quote_text(dir, shown, sizeof shown));
        free(dir);
        return EXIT_FAILED;
    }
    rc = strcmp(action, "show") == 0 ? show_cache(dir) : clear_cache(dir);
    free(dir);
    return rc;
}
