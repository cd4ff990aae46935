#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "median_interval.h"
#include "csv.h"
#include "db_open.h"
#include "progress.h"
#include "query.h"
#include "quote.h"
#include "terminal_text.h"
#include "winner_verdict.h"

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

/* ", 95 % interval 1.20 ms to 1.26 ms (10 runs)", saying so when the runs
 * are too few for 95 % (median_interval.h); "" without an interval. */
static void interval_text(const query_table *t, size_t r, char *buf, size_t len)
{
    const char *low = cell(t, r, "ci_low_ns"), *high = cell(t, r, "ci_high_ns");
    const char *coverage = cell(t, r, "ci_coverage"), *runs = cell(t, r, "n_samples");
    buf[0] = '\0';
    if (!low || !high || !coverage) return;
    char lo[32], hi[32];
    format_duration_ns(strtod(low, NULL), lo, sizeof lo);
    format_duration_ns(strtod(high, NULL), hi, sizeof hi);
    double level = strtod(coverage, NULL);
    if (level >= MEDIAN_INTERVAL_LEVEL)
        snprintf(buf, len, ", 95 %% interval %s to %s (%s runs)", lo, hi, runs ? runs : "?");
    else
        snprintf(buf, len, ", interval %s to %s holds it with only %.0f %% (%s runs: too few "
                           "for 95 %%)",
                 lo, hi, 100.0 * level, runs ? runs : "?");
}

/* Whether the runner-ups' runs tell them apart from the best's
 * (winner_verdict.h); nothing without runner-ups. */
static void print_verdict(void *db, const char *campaign)
{
    winner_verdict v;
    skytune_error err;
    if (winner_verdict_of(db, campaign, &v, &err) != 0) {
        printf("  runner-ups not tested: %s\n", err.message);
        return;
    }
    if (v.n == 0) return;
    char summary[128];
    winner_verdict_summary(&v, summary, sizeof summary);
    if (v.indistinguishable == 0) {
        printf("  verdict    %s (rank-sum test of the timed runs)\n", summary);
        return;
    }
    printf("  verdict    %s (rank-sum test of the timed runs, p >= 0.05):\n", summary);
    for (size_t k = 0; k < v.n; k++) {
        if (!v.runner_ups[k].indistinguishable) continue;
        char median[32];
        format_duration_ns(v.runner_ups[k].median_ns, median, sizeof median);
        terminal_printf("             #%zu %s  (median %s, p %.2f)\n", v.runner_ups[k].place,
                        v.runner_ups[k].configuration, median, v.runner_ups[k].p);
    }
}

/* The campaign's latest confirmation of its winner (confirmation.h). */
static void print_confirmation(const query_table *t, size_t r)
{
    if (!cell(t, r, "confirmation")) return;
    const char *winner = cell(t, r, "confirmed_winner");
    const char *changed = cell(t, r, "confirmation_changed");
    printf("  confirmed  the best %s timed again in %s interleaved rounds: ",
           cell(t, r, "confirmed_top"), cell(t, r, "confirmed_rounds"));
    if (!winner || !cell(t, r, "confirmed_median_ns")) {
        printf("none passed every visit, no winner\n");
        return;
    }
    char median[32];
    format_duration_ns(strtod(cell(t, r, "confirmed_median_ns"), NULL), median, sizeof median);
    if (!changed || strcmp(changed, "1") != 0) {
        printf("the winner stands (median %s)\n", median);
        return;
    }
    terminal_printf("a new winner, %s (median %s", winner, median);
    const char *before = cell(t, r, "best_confirmed_median_ns");
    if (before) {
        char was[32];
        format_duration_ns(strtod(before, NULL), was, sizeof was);
        printf("; the campaign's best confirmed at %s, %.3g× as slow)\n", was,
               strtod(before, NULL) / strtod(cell(t, r, "confirmed_median_ns"), NULL));
    } else
        printf("; the campaign's best failed a visit)\n");
}

/* What the database holds is shown escaped: a database may come from
 * anywhere (a merge, a colleague), its texts with any bytes. */
static void print_campaign(void *db, const query_table *t, size_t r)
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
    char median[32], min[32], sd[32], interval[160];
    format_duration_ns(strtod(cell(t, r, "median_ns"), NULL), median, sizeof median);
    format_duration_ns(strtod(cell(t, r, "min_ns"), NULL), min, sizeof min);
    format_duration_ns(cell(t, r, "stddev_ns") ? strtod(cell(t, r, "stddev_ns"), NULL) : 0.0, sd,
                       sizeof sd);
    interval_text(t, r, interval, sizeof interval);
    terminal_printf("  best       %s\n  time       median %s%s, min %s, sd %s\n", config, median,
                    interval, min, sd);
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
    print_verdict(db, cell(t, r, "campaign"));
    print_confirmation(t, r);
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
                       "configurations that passed verification), with its figures and the 95 % "
                       "interval of its median; whether the next 5 can be told apart from it "
                       "(a rank-sum test of their timed runs); its confirmation, if any (skytune "
                       "confirm). One whose timed runs spread widely (standard deviation above "
                       "10 % of the median) is marked noisy. The queries are "
                       "reports/sql/best.sql and top_samples.sql.",
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
            for (size_t r = 0; r < t.n_rows; r++) print_campaign(store_handle(st), &t, r);
        }
        rc = EXIT_OK;
    }
    query_table_free(&t);
    store_close(st);
    return rc;
}
