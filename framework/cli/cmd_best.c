#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "db_open.h"
#include "progress.h"
#include "query.h"
#include "quote.h"
#include "terminal_text.h"

static const cli_option options[] = {
    {"db", "FILE", false, "result database (required)"},
    {"campaign", "ID", false, "only this campaign"},
    {"format", "FORMAT", false, "text (default) or csv"},
    BUSY_TIMEOUT_OPTION,
};

static const char *cell(const query_table *t, size_t row, const char *column)
{
    for (size_t k = 0; k < t->n_cols; k++)
        if (strcmp(t->cols[k], column) == 0) return t->cells[row * t->n_cols + k];
    return NULL;
}

/* What the database holds is shown escaped: a database may come from
 * anywhere (a merge, a colleague), its texts with any bytes. */
static void print_campaign(const query_table *t, size_t r)
{
    terminal_printf("campaign %s: %s on %s, strategy %s, %s\n", cell(t, r, "campaign"),
                    cell(t, r, "plugin"), cell(t, r, "device"), cell(t, r, "strategy"),
                    cell(t, r, "status"));
    terminal_printf("  problem    %s\n", cell(t, r, "problem"));
    printf("  evaluated  %s (%s ok, %s failed)\n", cell(t, r, "evaluated"), cell(t, r, "ok"),
           cell(t, r, "failed"));
    const char *config = cell(t, r, "configuration");
    if (!config) {
        printf("  best       none: no configuration passed verification\n\n");
        return;
    }
    char median[32], min[32], sd[32];
    format_duration_ns(strtod(cell(t, r, "median_ns"), NULL), median, sizeof median);
    format_duration_ns(strtod(cell(t, r, "min_ns"), NULL), min, sizeof min);
    format_duration_ns(cell(t, r, "stddev_ns") ? strtod(cell(t, r, "stddev_ns"), NULL) : 0.0, sd,
                       sizeof sd);
    terminal_printf("  best       %s\n  time       median %s, min %s, sd %s\n", config, median, min,
                    sd);
    const char *noisy = cell(t, r, "noisy");
    if (noisy && strcmp(noisy, "1") == 0)
        printf("  noisy      sd %.2g %% of the median: the timed runs spread widely, so this time "
               "and the ranking are uncertain; measure again with more --runs\n",
               100.0 * strtod(cell(t, r, "stddev_ns"), NULL) / strtod(cell(t, r, "median_ns"), NULL));
    const char *gflops = cell(t, r, "gflops"), *gbs = cell(t, r, "gbs");
    /* Only what the plugin counts: a transposition has bytes but no flops. */
    if (gflops && gbs)
        printf("  throughput %.2f GFLOP/s, %.2f GB/s\n", strtod(gflops, NULL), strtod(gbs, NULL));
    else if (gflops)
        printf("  throughput %.2f GFLOP/s\n", strtod(gflops, NULL));
    else if (gbs)
        printf("  throughput %.2f GB/s\n", strtod(gbs, NULL));
    printf("\n");
}

/* "its campaigns are 1, 2, 5" or "it has no campaigns". */
static void campaign_ids(store *st, char *buf, size_t len)
{
    query_table t;
    skytune_error err;
    const char *params[2] = {NULL, NULL};
    snprintf(buf, len, "it has no campaigns");
    if (query_run_named(store_handle(st), "campaigns", params, 2, &t, &err) != 0) return;
    size_t col = query_column(&t, "campaign"), used = 0;
    for (size_t r = 0; r < t.n_rows && col < t.n_cols && used < len; r++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", r ? ", " : "its campaigns are ",
                                 t.cells[r * t.n_cols + col]);
    query_table_free(&t);
}

int cmd_best(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("best",
                       "The best configuration of every campaign (lowest median time among "
                       "configurations that passed verification), with its figures; one whose "
                       "timed runs spread widely (standard deviation above 10 % of the median) "
                       "is marked noisy. The query is reports/sql/best.sql.",
                       options, sizeof options / sizeof options[0], 0, NULL, argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *path = cli_get(&args, "db");
    const char *format = cli_get(&args, "format") ? cli_get(&args, "format") : "text";
    const char *campaign = cli_get(&args, "campaign");
    if (!path) {
        cli_error("best: --db FILE is required");
        return EXIT_USAGE;
    }
    static const char *const formats[] = {"text", "csv"};
    if (cli_check_choice("best: --format", format, formats, 2) != 0) return EXIT_USAGE;
    double busy_timeout_s;
    if (cli_campaign_arg(campaign) != 0 || cli_busy_timeout(&args, &busy_timeout_s) != 0)
        return EXIT_USAGE;
    store *st = cli_open_existing_db(path, busy_timeout_s);
    if (!st) return EXIT_FAILED;
    query_table t;
    skytune_error err;
    char shown[QUOTE_PATH];
    const char *params[1] = {campaign};
    if (query_run(store_handle(st), query_sql("best"), params, 1, &t, &err) != 0) {
        cli_error("%s: %s", quote_text(path, shown, sizeof shown), err.message);
        store_close(st);
        return EXIT_FAILED;
    }
    if (campaign && t.n_rows == 0) {
        /* An id that is not there is an error, on standard error, naming
         * the ids that are. */
        char ids[256];
        campaign_ids(st, ids, sizeof ids);
        cli_error("best: %s has no campaign %s; %s", quote_text(path, shown, sizeof shown),
                  campaign, ids);
        rc = EXIT_FAILED;
    } else {
        if (strcmp(format, "csv") == 0) {
            terminal_data data;
            csv_write_table(terminal_data_begin(&data), &t);
            terminal_data_end(&data);
        } else if (t.n_rows == 0) {
            printf("%s has no campaigns\n", quote_text(path, shown, sizeof shown));
        } else {
            for (size_t r = 0; r < t.n_rows; r++) print_campaign(&t, r);
        }
        rc = EXIT_OK;
    }
    query_table_free(&t);
    store_close(st);
    return rc;
}
