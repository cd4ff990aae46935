#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "cli.h"
#include "db_open.h"
#include "export.h"
#include "quote.h"
#include "terminal_text.h"

static const cli_option options[] = {
    {"db", "FILE", false, "result database (required)"},
    {"format", "FORMAT", false,
     "csv (default): every evaluation, a column per parameter; json: the best configuration "
     "per plugin, device and "
     "problem (wisdom); header: the same as a C header with a lookup function; t4: a "
     "campaign's evaluations in the T4 results format; kernel_tuner: the same as a Kernel Tuner "
     "cache file (Kernel Tuner's simulation mode and skytune run --replay read it)"},
    {"campaign", "ID", false,
     "only this campaign (csv; t4, kernel_tuner: required unless there is one)"},
    {"plugin", "NAME", false, "only this plugin (json, header)"},
    {"out", "FILE", false, "write here instead of standard output"},
    BUSY_TIMEOUT_OPTION,
};

/* Write one export to f; the count of rows or entries in *count. */
static int write_export(void *db, const char *format, const char *campaign, const char *plugin,
                        const char *source, FILE *f, size_t *count, skytune_error *err)
{
    if (strcmp(format, "json") == 0) return export_wisdom_json(db, plugin, f, count, err);
    if (strcmp(format, "header") == 0) return export_wisdom_header(db, plugin, source, f, count, err);
    if (strcmp(format, "t4") == 0) return export_t4(db, campaign, f, count, err);
    if (strcmp(format, "kernel_tuner") == 0) return export_kernel_tuner(db, campaign, f, count, err);
    return export_csv(db, campaign, plugin, f, count, err);
}

int cmd_export(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("export",
                       "Write a database for other programs. csv: every evaluation of every "
                       "campaign (or one), one row per configuration with its status, statistics, "
                       "throughput and phase times (reports/sql/measurements.sql), one column per "
                       "tuning parameter and, where the rows span problems, per problem "
                       "parameter. json: the best "
                       "configuration per (plugin, device, problem) as wisdom an application can "
                       "read; header: the same as a C header with skytune_<plugin>_lookup() "
                       "(reports/sql/wisdom.sql). t4: one campaign in the T4 results format "
                       "(reports/sql/t4.sql). kernel_tuner: one campaign as a Kernel Tuner cache file, "
                       "failures as Kernel Tuner records them. See docs/reports.md.",
                       options, sizeof options / sizeof options[0], 0, NULL, argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *path = cli_get(&args, "db");
    const char *format = cli_get(&args, "format") ? cli_get(&args, "format") : "csv";
    const char *campaign = cli_get(&args, "campaign");
    const char *plugin = cli_get(&args, "plugin");
    const char *out_path = cli_get(&args, "out");
    if (!path) {
        cli_error("export: --db FILE is required");
        return EXIT_USAGE;
    }
    static const char *const formats[] = {"csv", "json", "header", "t4", "kernel_tuner"};
    if (cli_check_choice("export: --format", format, formats, 5) != 0) return EXIT_USAGE;
    double busy_timeout_s;
    if (cli_campaign_arg(campaign) != 0 || cli_busy_timeout(&args, &busy_timeout_s) != 0)
        return EXIT_USAGE;
    store *st = cli_open_existing_db(path, busy_timeout_s);
    if (!st) return EXIT_FAILED;
    void *db = store_handle(st);
    char only[32];
    bool one_campaign = strcmp(format, "t4") == 0 || strcmp(format, "kernel_tuner") == 0;
    if (one_campaign && !campaign) {
        char what[64];
        snprintf(what, sizeof what, "export: %s", format);
        if (cli_only_campaign(st, what, only, sizeof only) != 0) {
            store_close(st);
            return EXIT_FAILED;
        }
        campaign = only;
    }
    skytune_error err = {0};
    size_t count = 0;
    char shown[QUOTE_PATH];
    quote_text(path, shown, sizeof shown);
    if (!out_path) {
        /* CSV cells are the database's texts as they are; JSON, the header
         * and T4 escape every text themselves. */
        bool csv = strcmp(format, "csv") == 0;
        terminal_data data;
        rc = write_export(db, format, campaign, plugin, path,
                          csv ? terminal_data_begin(&data) : stdout, &count, &err);
        if (csv) terminal_data_end(&data);
        store_close(st);
        if (rc != 0) {
            cli_error("export: %s: %s", shown, err.message);
            return EXIT_FAILED;
        }
        return EXIT_OK;
    }
    /* Write beside the target and rename, so a failed export never leaves a
     * truncated file where a good one was. */
    atomic_file af;
    if (atomic_file_open(&af, out_path, &err) != 0) {
        store_close(st);
        cli_error("export: %s", err.message);
        return EXIT_FAILED;
    }
    rc = write_export(db, format, campaign, plugin, path, af.f, &count, &err);
    store_close(st);
    if (rc != 0) {
        atomic_file_abort(&af);
        cli_error("export: %s: %s", shown, err.message);
        return EXIT_FAILED;
    }
    if (atomic_file_commit(&af, &err) != 0) {
        cli_error("export: %s", err.message);
        return EXIT_FAILED;
    }
    const char *what = strcmp(format, "csv") == 0 ? "rows"
                       : strcmp(format, "t4") == 0 ? "results"
                       : strcmp(format, "kernel_tuner") == 0 ? "configurations"
                                                   : "entries";
    printf("wrote %zu %s to %s\n", count, what, quote_text(out_path, shown, sizeof shown));
    return EXIT_OK;
}
