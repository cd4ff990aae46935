#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "db_open.h"
#include "quote.h"
#include "store_merge.h"

static const cli_option options[] = {
    {"quiet", NULL, false, "print nothing but errors"},
    BUSY_TIMEOUT_OPTION,
};

/* Whether two paths name one file (the same inode), where both exist. */
static bool same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int cmd_merge(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("merge",
                       "Merge result databases into OUT (created when missing): the shards of a "
                       "campaign run on a cluster, or databases of several machines. Devices, "
                       "plugin builds, problems, configurations and campaigns are recognised as "
                       "the same; a measurement OUT has already is not added again, and a "
                       "different measurement of the same configuration (same device, plugin "
                       "build and problem) is kept whole in duplicate_measurements while OUT's "
                       "stays (docs/campaigns.md). Merging a database twice adds nothing. Each "
                       "input is read-only and merged in one transaction.",
                       options, sizeof options / sizeof options[0], CLI_MAX_POSITIONAL,
                       "OUT.db IN.db...", argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    if (args.n_positional < 2) {
        cli_error("merge: give the database to merge into and at least one to merge, e.g. "
                  "skytune merge all.db shard-0.db shard-1.db");
        return EXIT_USAGE;
    }
    const char *out_path = args.positional[0];
    /* Every input is checked before the target is opened or created, so a
     * bad one leaves nothing behind. */
    for (size_t k = 1; k < args.n_positional; k++) {
        const char *in = args.positional[k];
        char shown[QUOTE_PATH];
        quote_text(in, shown, sizeof shown);
        struct stat info;
        if (stat(in, &info) != 0 || !S_ISREG(info.st_mode)) {
            cli_error("merge: %s is not a database file", shown);
            return EXIT_FAILED;
        }
        if (same_file(in, out_path)) {
            cli_error("merge: %s is the database merged into; a database is merged into another",
                      shown);
            return EXIT_FAILED;
        }
    }
    double busy_timeout_s;
    if (cli_busy_timeout(&args, &busy_timeout_s) != 0) return EXIT_USAGE;
    store *st;
    skytune_error err;
    if (store_open(out_path, true, busy_timeout_s, &st, &err) != 0) {
        cli_error("merge: %s", err.message);
        return EXIT_FAILED;
    }
    bool quiet = cli_flag(&args, "quiet");
    int status = EXIT_OK;
    for (size_t k = 1; k < args.n_positional; k++) {
        store_merge_counts c;
        if (store_merge(st, args.positional[k], &c, &err) != 0) {
            cli_error("merge: %s", err.message);
            status = EXIT_FAILED;
            continue;
        }
        char shown[QUOTE_PATH];
        if (!quiet)
            printf("%s: %lld campaign%s, %lld measurement%s, %lld duplicate%s, %lld "
                   "evaluation%s added\n",
                   quote_text(args.positional[k], shown, sizeof shown),
                   (long long)c.campaigns, c.campaigns == 1 ? "" : "s",
                   (long long)c.measurements, c.measurements == 1 ? "" : "s",
                   (long long)c.duplicates, c.duplicates == 1 ? "" : "s",
                   (long long)c.evaluations, c.evaluations == 1 ? "" : "s");
    }
    store_close(st);
    return status;
}
