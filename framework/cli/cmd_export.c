#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "db_open.h"
#include "query.h"

static const cli_option options[] = {
    {"db", "FILE", false, "result database (required)"},
    {"format", "FORMAT", false, "csv (default)"},
    {"campaign", "ID", false, "only this campaign"},
    {"out", "FILE", false, "write here instead of standard output"},
};

int cmd_export(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("export",
                       "Write every evaluation of every campaign (or one) as CSV: one row per "
                       "configuration with its status, statistics, throughput and phase times. "
                       "The query is reports/sql/measurements.sql.",
                       options, sizeof options / sizeof options[0], 0, NULL, argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *path = cli_get(&args, "db");
    const char *format = cli_get(&args, "format") ? cli_get(&args, "format") : "csv";
    const char *campaign = cli_get(&args, "campaign");
    const char *out_path = cli_get(&args, "out");
    if (!path) {
        cli_error("export: --db FILE is required");
        return EXIT_USAGE;
    }
    if (strcmp(format, "csv") != 0) {
        cli_error("export: --format '%s' is not one of: csv", format);
        return EXIT_USAGE;
    }
    if (cli_campaign_arg(campaign) != 0) return EXIT_USAGE;
    store *st = cli_open_existing_db(path);
    if (!st) return EXIT_FAILED;
    query_table t;
    skytune_error err;
    const char *params[1] = {campaign};
    rc = query_run(store_handle(st), query_sql("measurements"), params, 1, &t, &err);
    store_close(st);
    if (rc != 0) {
        cli_error("%s: %s", path, err.message);
        return EXIT_FAILED;
    }
    if (!out_path) {
        rc = csv_write_table(stdout, &t) == 0 ? EXIT_OK : EXIT_FAILED;
        query_table_free(&t);
        return rc;
    }
    /* Write beside the target and rename, so a failed export never leaves a
     * truncated file where a good one was. */
    size_t len = strlen(out_path) + 16;
    char *tmp = malloc(len);
    FILE *f = tmp ? (snprintf(tmp, len, "%s.tmp%ld", out_path, (long)getpid()), fopen(tmp, "w"))
                  : NULL;
    if (!f) {
        cli_error("export: cannot write %s", out_path);
        free(tmp);
        query_table_free(&t);
        return EXIT_FAILED;
    }
    int bad = csv_write_table(f, &t) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, out_path) != 0) {
        unlink(tmp);
        cli_error("export: writing %s failed", out_path);
        rc = EXIT_FAILED;
    } else {
        printf("wrote %zu rows to %s\n", t.n_rows, out_path);
        rc = EXIT_OK;
    }
    free(tmp);
    query_table_free(&t);
    return rc;
}
