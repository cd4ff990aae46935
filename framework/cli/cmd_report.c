#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db_open.h"
#include "html_report.h"
#include "quote.h"
#include "report.h"
#include "report_csv.h"

static const cli_option options[] = {
    {"db", "FILE", false, "result database (required)"},
    {"campaign", "ID", false, "only this campaign"},
    {"plugin", "NAME", false, "only this plugin's campaigns, compared across instances"},
    {"html", "OUT.html", false, "write the report here (required)"},
    {"csv", "DIR", false, "also write each table's and chart's data as CSV files into DIR"},
    {"top", "N", false, "configurations in each campaign's top table (default 20)"},
    BUSY_TIMEOUT_OPTION,
};

int cmd_report(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("report",
                       "Write an HTML report of a result database: per campaign what was tuned, "
                       "counts by status, where the time went, the best configurations "
                       "(kernel by kernel for a pipeline), convergence, the distribution of "
                       "performance with the optimum's signal-to-noise ratio, parameter effects "
                       "and independence, failures and a roofline; per plugin the best "
                       "configuration of each problem instance, performance "
                       "against problem size and the speedup over the best fixed configuration. "
                       "One self-contained file; every figure comes from a query in reports/sql/ "
                       "(see skytune query).",
                       options, sizeof options / sizeof options[0], 0, NULL, argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *path = cli_get(&args, "db");
    const char *html = cli_get(&args, "html");
    const char *csv_dir = cli_get(&args, "csv");
    const char *campaign = cli_get(&args, "campaign");
    const char *plugin = cli_get(&args, "plugin");
    const char *top_text = cli_get(&args, "top");
    if (!path || !html) {
        cli_error("report: --db FILE and --html OUT.html are required");
        return EXIT_USAGE;
    }
    if (cli_campaign_arg(campaign) != 0) return EXIT_USAGE;
    unsigned long long top = 20;
    if (top_text && cli_parse_u64("top", top_text, &top) != 0) return EXIT_USAGE;
    if (top == 0 || top > 100000) {
        cli_error("report: --top takes a number of configurations from 1 to 100000");
        return EXIT_USAGE;
    }
    double busy_timeout_s;
    if (cli_busy_timeout(&args, &busy_timeout_s) != 0) return EXIT_USAGE;
    store *st = cli_open_existing_db(path, busy_timeout_s);
    if (!st) return EXIT_FAILED;
    report_options opts = {.campaign = campaign, .plugin = plugin, .top = (unsigned)top,
                           .source = path};
    report_data data;
    skytune_error err = {0};
    if (report_load(store_handle(st), &opts, &data, &err) != 0) {
        char shown[QUOTE_PATH];
        cli_error("%s: %s", quote_text(path, shown, sizeof shown), err.message);
        store_close(st);
        return EXIT_FAILED;
    }
    store_close(st);
    rc = EXIT_OK;
    if (html_report_save(&data, html, &err) != 0) {
        cli_error("report: %s", err.message);
        rc = EXIT_FAILED;
    } else if (csv_dir && report_csv_save(&data, csv_dir, &err) != 0) {
        cli_error("report: %s", err.message);
        rc = EXIT_FAILED;
    } else {
        char shown[QUOTE_PATH];
        printf("wrote %s (%zu campaign%s)", quote_text(html, shown, sizeof shown),
               data.tables[REPORT_CAMPAIGNS].n_rows,
               data.tables[REPORT_CAMPAIGNS].n_rows == 1 ? "" : "s");
        if (csv_dir)
            printf(" and the CSV files of its tables into %s",
                   quote_text(csv_dir, shown, sizeof shown));
        printf("\n");
    }
    report_free(&data);
    return rc;
}
