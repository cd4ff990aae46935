/* One campaign's section of the HTML report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_escape.h"
#include "html_parts.h"
#include "html_campaign_ctx.h"
#include "html_convergence.h"
#include "html_explain.h"
#include "html_settings.h"
#include "html_roofline.h"
#include "html_sections.h"
#include "median_interval.h"
#include "param_columns.h"
#include "report_format.h"
#include "svg_chart.h"
#include "winner_verdict.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ what */

static void write_what(campaign_ctx *c)
{
    FILE *f = c->f;
    campaign_heading(c, "what", "What was tuned");
    char plugin[256], device[512], counts[256];
    snprintf(plugin, sizeof plugin, "%s %s (kernel source hash %s)", campaign_summary(c, "plugin"),
             campaign_summary(c, "plugin_version"), campaign_summary(c, "source_hash"));
    snprintf(device, sizeof device, "%s (platform %s, driver %s)", campaign_summary(c, "device"),
             campaign_summary(c, "platform"), campaign_summary(c, "driver_version"));
    snprintf(counts, sizeof counts,
             "%s evaluated: %s measured by this campaign, %s reused from earlier campaigns; "
             "%s passed, %s failed",
             campaign_summary(c, "evaluated"), campaign_summary(c, "measured"), campaign_summary(c, "reused"),
             campaign_summary(c, "ok"), campaign_summary(c, "failed"));
    html_kv_open(f);
    html_kv_row(f, "plugin", plugin, false);
    html_kv_row(f, "problem", campaign_summary(c, "problem"), true);
    html_kv_row(f, "device", device, false);
    html_kv_row(f, "strategy", campaign_summary(c, "strategy"), false);
    html_kv_row(f, "seed", campaign_summary(c, "seed"), false);
    html_settings_rows(f, campaign_summary(c, "settings"));
    /* The budget and limits are each run's, not the campaign's. */
    const char *runs = campaign_summary(c, "invocations");
    html_kv_row(f, "runs (budget and limits)", runs ? runs : "not recorded", true);
    html_kv_row(f, "status", campaign_summary(c, "status"), false);
    html_kv_row(f, "started", campaign_summary(c, "started_at"), false);
    html_kv_row(f, "ended", campaign_summary(c, "ended_at") ? campaign_summary(c, "ended_at") : "not ended (running, or killed)", false);
    html_kv_row(f, "host", campaign_summary(c, "host"), false);
    html_kv_row(f, "command", campaign_summary(c, "command"), true);
    const char *replayed = campaign_summary(c, "replayed");
    html_kv_row(f, "measured on", replayed && strcmp(replayed, "1") == 0
                                       ? "a recorded dataset (replay), not the device"
                                       : "the device", false);
    html_kv_row(f, "evaluations", counts, false);
    html_kv_close(f);
    html_source_note(f, c->d->queries[REPORT_CAMPAIGNS]);
}

/* ------------------------------------------------------------ status */

static int write_status(campaign_ctx *c, size_t first, size_t end, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_FAILURES);
    campaign_heading(c, "status", "Evaluations by status");
    if (first == end) {
        html_paragraph(f, NULL, "No evaluations yet.");
        return 0;
    }
    static const html_column cols[] = {
        {"status", "status", FORMAT_TEXT, false},
        {"evaluations", "evaluations", FORMAT_INTEGER, false},
        {"percent", "share", FORMAT_PERCENT, false},
        {"first_message", "first message", FORMAT_TEXT, true},
    };
    size_t n = end - first;
    const char **labels = calloc(n, sizeof *labels);
    double *values = campaign_numbers(n);
    if (!labels || !values) {
        free(labels);
        free(values);
        return err_set(err, "out of memory drawing campaign %lld's statuses", c->id);
    }
    for (size_t r = first; r < end; r++) {
        labels[r - first] = query_cell(t, r, "status");
        values[r - first] = campaign_number(t, r, "evaluations", NAN);
    }
    char title[96];
    snprintf(title, sizeof title, "Campaign %lld: evaluations by status", c->id);
    svg_bar_chart chart = {.title = title, .value_label = "evaluations", .categories = labels,
                           .n_categories = n, .n_series = 1, .values = values, .whole = true};
    svg_write_bars(f, &chart);
    free(labels);
    free(values);
    html_table(f, t, first, end, cols, COUNT(cols));
    html_source_note(f, c->d->queries[REPORT_FAILURES]);
    return 0;
}

/* ------------------------------------------------------------ time */

static void write_time(campaign_ctx *c, size_t first, size_t end)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_TIME_SPLIT);
    campaign_heading(c, "time", "Where the time went");
    if (first == end) return;
    size_t r = first;
    static const char *const phases[] = {"build (OpenCL compiler)", "verification",
                                         "timed runs (with warm-up)", "engine overhead"};
    static const char *const seconds[] = {"build_s", "verify_s", "bench_s", "overhead_s"};
    static const char *const percents[] = {"build_percent", "verify_percent", "bench_percent",
                                           "overhead_percent"};
    double values[4];
    for (size_t k = 0; k < 4; k++) values[k] = campaign_number(t, r, seconds[k], 0);
    char title[96];
    snprintf(title, sizeof title, "Campaign %lld: where the time went", c->id);
    svg_stacked_bar bar = {.title = title, .unit = "s", .labels = phases, .values = values, .n = 4};
    svg_write_stacked_bar(f, &bar);
    fputs("<table>\n<thead><tr><th>phase</th><th>seconds</th><th>share</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t k = 0; k < 4; k++) {
        char a[64], b[64];
        fputs("<tr><td>", f);
        html_escape_write(f, phases[k]);
        fputs("</td><td class=\"num\">", f);
        html_escape_write(f, report_format_cell(query_cell(t, r, seconds[k]), FORMAT_SECONDS, a, sizeof a));
        fputs("</td><td class=\"num\">", f);
        html_escape_write(f, report_format_cell(query_cell(t, r, percents[k]), FORMAT_PERCENT, b, sizeof b));
        fputs("</td></tr>\n", f);
    }
    char total[64], elapsed[64], measured[64];
    fputs("<tr><th>total of the measurements</th><td class=\"num\">", f);
    html_escape_write(f, report_format_cell(query_cell(t, r, "total_s"), FORMAT_SECONDS, total, sizeof total));
    fputs("</td><td class=\"num\">100 %</td></tr>\n", f);
    fputs("<tr><th>started to ended</th><td class=\"num\">", f);
    html_escape_write(f, report_format_cell(query_cell(t, r, "elapsed_s"), FORMAT_SECONDS, elapsed, sizeof elapsed));
    fputs("</td><td></td></tr>\n</tbody>\n</table>\n", f);
    char note[256];
    snprintf(note, sizeof note,
             "Summed over the %s configurations this campaign measured itself; evaluations reused "
             "from earlier campaigns cost it nothing. Started to ended also holds the set-up "
             "(plugin, buffers, CPU reference) and, for a resumed campaign, the pauses.",
             report_format_cell(query_cell(t, r, "measured"), FORMAT_INTEGER, measured, sizeof measured));
    html_paragraph(f, NULL, note);
    html_source_note(f, c->d->queries[REPORT_TIME_SPLIT]);
}

/* ------------------------------------------------------------ best, top */

/* "sd 1.3 % of the median", and for a noisy configuration what that means. */
static void describe_spread(const query_table *t, size_t r, char *buf, size_t len)
{
    double sd = campaign_number(t, r, "stddev_ns", NAN);
    double median = campaign_number(t, r, "median_ns", NAN);
    if (!(median > 0) || !isfinite(sd)) {
        snprintf(buf, len, "\xE2\x80\x93");
        return;
    }
    bool noisy = campaign_number(t, r, "noisy", 0) != 0;
    snprintf(buf, len, "sd %.3g %% of the median%s", 100.0 * sd / median,
             noisy ? ": noisy (more than 10 %), so its time and place are uncertain; measure it "
                     "again, with more --runs or on a quieter device"
                   : "");
}

/* "1.20 ms to 1.26 ms", saying so when the runs are too few for 95 %
 * (median_interval.h); a dash without an interval (fewer than 2 runs). */
static void describe_interval(const query_table *t, size_t r, char *buf, size_t len)
{
    char low[64], high[64];
    double coverage = campaign_number(t, r, "ci_coverage", NAN);
    if (!isfinite(coverage)) {
        snprintf(buf, len, "\xE2\x80\x93");
        return;
    }
    report_format_cell(query_cell(t, r, "ci_low_ns"), FORMAT_TIME_NS, low, sizeof low);
    report_format_cell(query_cell(t, r, "ci_high_ns"), FORMAT_TIME_NS, high, sizeof high);
    if (coverage >= MEDIAN_INTERVAL_LEVEL)
        snprintf(buf, len, "%s to %s", low, high);
    else
        snprintf(buf, len, "%s to %s, which holds the median with only %.0f %%: too few runs "
                           "for 95 %%", low, high, 100.0 * coverage);
}

/* The campaign's confirmations (confirmation.h): each confirmed
 * configuration's place in the campaign and on confirmation. */
static void write_confirmations(campaign_ctx *c, size_t first, size_t end)
{
    if (first == end) return;
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_CONFIRMATIONS);
    campaign_heading(c, "confirmation", "Confirmation of the winner");
    html_paragraph(f, NULL,
                   "The campaign's best configurations timed again, interleaved (A B C \xE2\x80\xA6 "
                   "A B C \xE2\x80\xA6) in one measuring worker, each visit with its own warm-up: "
                   "the confirmed median is the median of a configuration's visits, and the "
                   "winner is the fastest of those that passed every visit. A place that differs "
                   "from the campaign's is a ranking the campaign's single visit got wrong.");
    static const html_column cols[] = {
        {"confirmation", "confirmation", FORMAT_INTEGER, false},
        {"campaign_place", "campaign #", FORMAT_INTEGER, false},
        {"confirmed_place", "confirmed #", FORMAT_INTEGER, false},
        {"configuration", "configuration", FORMAT_TEXT, true},
        {"campaign_median_ns", "campaign median", FORMAT_TIME_NS, false},
        {"confirmed_median_ns", "confirmed median", FORMAT_TIME_NS, false},
        {"ci_low_ns", "interval low", FORMAT_TIME_NS, false},
        {"ci_high_ns", "interval high", FORMAT_TIME_NS, false},
        {"ok_visits", "ok visits", FORMAT_INTEGER, false},
        {"gain", "gain", FORMAT_RATIO, false},
    };
    html_table(f, t, first, end, cols, COUNT(cols));
    html_source_note(f, c->d->queries[REPORT_CONFIRMATIONS]);
}

/* Whether the runner-ups' runs tell them apart from the best's, as
 * `skytune best` says it (winner_verdict.h), each indistinguishable one on
 * a row of its own. */
static int write_verdict_rows(campaign_ctx *c, skytune_error *err)
{
    winner_verdict v;
    if (winner_verdict_from_runs(campaign_table(c, REPORT_TOP_SAMPLES),
                                 c->first[REPORT_TOP_SAMPLES], c->end[REPORT_TOP_SAMPLES], &v,
                                 err) != 0)
        return -1;
    if (v.n == 0) {
        html_kv_row(c->f, "runner-ups", "none: no other configuration passed", false);
        return 0;
    }
    char summary[128], text[256];
    winner_verdict_summary(&v, summary, sizeof summary);
    snprintf(text, sizeof text, "%s (rank-sum test of the timed runs%s)", summary,
             v.indistinguishable ? ", p \xE2\x89\xA5 0.05: their runs do not show which is faster"
                                 : "");
    html_kv_row(c->f, "runner-ups", text, false);
    for (size_t k = 0; k < v.n; k++) {
        const verdict_runner_up *u = &v.runner_ups[k];
        if (!u->indistinguishable) continue;
        char median[32], figures[96];
        report_format_duration_ns(u->median_ns, median, sizeof median);
        snprintf(figures, sizeof figures, " (median %s, %zu runs, p %.2f)", median, u->n_samples,
                 u->p);
        fprintf(c->f, "<tr><th>indistinguishable #%zu</th><td><code>", u->place);
        html_escape_write(c->f, u->configuration);
        fputs("</code>", c->f);
        html_escape_write(c->f, figures);
        fputs("</td></tr>\n", c->f);
    }
    return 0;
}

static int write_best(campaign_ctx *c, size_t first, size_t end, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_TOP);
    campaign_heading(c, "best", "Best configuration");
    if (first == end) {
        html_paragraph(f, NULL, "None: no configuration passed verification.");
        html_source_note(f, c->d->queries[REPORT_TOP]);
        return 0;
    }
    size_t r = first;
    char a[64], b[64], s[64], x[64], g[64], bw[64], n[64], at[128];
    snprintf(at, sizeof at, "evaluation %s%s", query_cell(t, r, "evaluation"),
             strcmp(query_cell(t, r, "cached") ? query_cell(t, r, "cached") : "0", "1") == 0
                 ? " (measured by an earlier campaign)" : "");
    html_kv_open(f);
    html_kv_row(f, "configuration", query_cell(t, r, "configuration"), true);
    html_kv_row(f, "median time", report_format_cell(query_cell(t, r, "median_ns"), FORMAT_TIME_NS, a, sizeof a), false);
    html_kv_row(f, "fastest run", report_format_cell(query_cell(t, r, "min_ns"), FORMAT_TIME_NS, b, sizeof b), false);
    html_kv_row(f, "slowest run", report_format_cell(query_cell(t, r, "max_ns"), FORMAT_TIME_NS, x, sizeof x), false);
    char interval[256];
    describe_interval(t, r, interval, sizeof interval);
    html_kv_row(f, "95 % interval of the median", interval, false);
    html_kv_row(f, "standard deviation", report_format_cell(query_cell(t, r, "stddev_ns"), FORMAT_TIME_NS, s, sizeof s), false);
    html_kv_row(f, "timed runs", report_format_cell(query_cell(t, r, "n_samples"), FORMAT_INTEGER, n, sizeof n), false);
    char spread[256];
    describe_spread(t, r, spread, sizeof spread);
    html_kv_row(f, "spread of the runs", spread, false);
    html_kv_row(f, "GFLOP/s", report_format_cell(query_cell(t, r, "gflops"), FORMAT_NUMBER, g, sizeof g), false);
    html_kv_row(f, "GB/s", report_format_cell(query_cell(t, r, "gbs"), FORMAT_NUMBER, bw, sizeof bw), false);
    html_kv_row(f, "found at", at, false);
    if (write_verdict_rows(c, err) != 0) return -1;
    html_kv_close(f);
    html_source_note(f, c->d->queries[REPORT_TOP_SAMPLES]);
    return 0;
}

/* Where the best configuration's run goes, kernel by kernel (the parts
 * query): a pipeline's stages and transpositions, a plugin's several
 * kernels. Plugins that label no parts get no section. */
static void write_parts(campaign_ctx *c, size_t first, size_t end)
{
    if (first == end) return;
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_PARTS);
    campaign_heading(c, "parts", "Where the best configuration's run goes");
    html_paragraph(f, NULL,
                   "Each kernel the plugin enqueues in one run, by the label it gave it, with the "
                   "median of its time over the timed runs and its share of the parts' sum. The "
                   "medians are taken part by part, so their sum is close to the whole run's "
                   "median, not equal to it.");
    static const html_column cols[] = {
        {"part", "part", FORMAT_INTEGER, false},
        {"label", "label", FORMAT_TEXT, true},
        {"median_ns", "median", FORMAT_TIME_NS, false},
        {"percent", "share", FORMAT_PERCENT, false},
    };
    html_table(f, t, first, end, cols, COUNT(cols));
    html_source_note(f, c->d->queries[REPORT_PARTS]);
}

/* The top table: one column per tuning parameter (a campaign has one
 * problem), then the figures. */
static int write_top(campaign_ctx *c, size_t first, size_t end, skytune_error *err)
{
    FILE *f = c->f;
    char title[64];
    snprintf(title, sizeof title, "Top %u configurations", c->d->options.top);
    campaign_heading(c, "top", title);
    if (first == end) {
        html_source_note(f, c->d->queries[REPORT_TOP]);
        return 0;
    }
    static const html_column figures[] = {
        {"median_ns", "median", FORMAT_TIME_NS, false},
        {"min_ns", "min", FORMAT_TIME_NS, false},
        {"ci_low_ns", "95 % low", FORMAT_TIME_NS, false},
        {"ci_high_ns", "95 % high", FORMAT_TIME_NS, false},
        {"stddev_ns", "sd", FORMAT_TIME_NS, false},
        {"noisy", "noisy", FORMAT_FLAG, false},
        {"gflops", "GFLOP/s", FORMAT_NUMBER, false},
        {"gbs", "GB/s", FORMAT_NUMBER, false},
        {"relative", "best / this", FORMAT_RATIO, false},
        {"evaluation", "evaluation", FORMAT_INTEGER, false},
    };
    param_spread spread = {.column = "configuration"};
    query_table t;
    if (param_columns_spread(campaign_table(c, REPORT_TOP), first, end, &spread, 1, &t, err) != 0)
        return err_prefix(err, "campaign %lld's top table", c->id);
    html_column *cols = calloc(1 + spread.count + COUNT(figures), sizeof *cols);
    if (!cols) {
        query_table_free(&t);
        return err_set(err, "out of memory writing campaign %lld's top table", c->id);
    }
    size_t n = 0;
    cols[n++] = (html_column){"place", "#", FORMAT_INTEGER, false};
    for (size_t k = 0; k < spread.count; k++) {
        const char *name = t.cols[spread.first + k];
        cols[n++] = (html_column){name, name, FORMAT_TEXT, true};
    }
    for (size_t k = 0; k < COUNT(figures); k++) cols[n++] = figures[k];
    html_table(f, &t, 0, t.n_rows, cols, n);
    free(cols);
    query_table_free(&t);
    html_paragraph(f, NULL,
                   "noisy: the timed runs' standard deviation is more than 10 % of their median, "
                   "so the configuration's place is uncertain.");
    html_source_note(f, c->d->queries[REPORT_TOP]);
    return 0;
}

/* ------------------------------------------------------------ distribution */

static int write_distribution(campaign_ctx *c, size_t first, size_t end, size_t snr_first,
                              size_t snr_end, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_DISTRIBUTION);
    const query_table *s = campaign_table(c, REPORT_SNR);
    campaign_heading(c, "distribution", "Distribution of performance");
    if (first == end) {
        html_paragraph(f, NULL, "No configuration passed verification.");
        return 0;
    }
    size_t n = end - first;
    double *low = campaign_numbers(n), *high = campaign_numbers(n), *count = campaign_numbers(n);
    if (!low || !high || !count) {
        free(low);
        free(high);
        free(count);
        return err_set(err, "out of memory drawing campaign %lld's distribution", c->id);
    }
    for (size_t r = first; r < end; r++) {
        low[r - first] = campaign_number(t, r, "bin_low", NAN);
        high[r - first] = campaign_number(t, r, "bin_high", NAN);
        count[r - first] = campaign_number(t, r, "configurations", 0);
    }
    const char *metric = query_cell(t, first, "metric");
    double mean = NAN, optimum = NAN;
    bool have_snr = snr_first < snr_end;
    if (have_snr) {
        mean = campaign_number(s, snr_first, "mean", NAN);
        optimum = campaign_number(s, snr_first, "optimum", NAN);
    }
    char optimum_label[96], mean_label[96], num[32], x_label[64], title[96];
    svg_format_number(optimum, num, sizeof num);
    snprintf(optimum_label, sizeof optimum_label, "optimum %s", num);
    svg_format_number(mean, num, sizeof num);
    snprintf(mean_label, sizeof mean_label, "mean %s", num);
    svg_marker markers[2] = {
        {.vertical = true, .at = optimum, .label = optimum_label, .color = 1},
        {.vertical = true, .at = mean, .label = mean_label, .color = 7},
    };
    snprintf(x_label, sizeof x_label, "performance (%s)", metric ? metric : "");
    snprintf(title, sizeof title, "Campaign %lld: distribution of performance", c->id);
    svg_histogram h = {.title = title, .x_label = x_label, .y_label = "configurations",
                       .low = low, .high = high, .count = count, .n = n,
                       .markers = markers, .n_markers = have_snr ? 2 : 0};
    svg_write_histogram(f, &h);
    free(low);
    free(high);
    free(count);
    if (have_snr) {
        char text[768], sd[32], k[32], bound[32], share[32], nconf[32];
        const char *snr = query_cell(s, snr_first, "snr");
        svg_format_number(campaign_number(s, snr_first, "sd", NAN), sd, sizeof sd);
        svg_format_number(campaign_number(s, snr_first, "mean", NAN), num, sizeof num);
        report_format_cell(query_cell(s, snr_first, "configurations"), FORMAT_INTEGER, nconf, sizeof nconf);
        if (snr) {
            snprintf(k, sizeof k, "%.2f", strtod(snr, NULL));
            snprintf(bound, sizeof bound, "%.1f %%", 100.0 * campaign_number(s, snr_first, "chebyshev_bound", NAN));
            snprintf(share, sizeof share, "%.1f %%", 100.0 * campaign_number(s, snr_first, "observed_share", NAN));
            snprintf(text, sizeof text,
                     "Signal-to-noise ratio of the optimum: it lies k = %s standard deviations above "
                     "the mean (mean %s, standard deviation %s %s over %s configurations). By "
                     "Chebyshev's inequality at most 1/k\xC2\xB2 = %s of configurations lie that "
                     "far from the mean, which bounds the chance of finding one as good by "
                     "guessing; here %s do.",
                     k, num, sd, metric ? metric : "", nconf, bound, share);
        } else {
            snprintf(text, sizeof text,
                     "All %s configurations perform alike (standard deviation 0), so the optimum "
                     "has no distance from the mean to speak of.", nconf);
        }
        html_paragraph(f, "snr", text);
    }
    html_source_note(f, c->d->queries[REPORT_DISTRIBUTION]);
    html_source_note(f, c->d->queries[REPORT_SNR]);
    return 0;
}

/* ------------------------------------------------------------ parameters */

/* Rows [first, end) hold one parameter's values from `first` on: where it ends. */
static size_t parameter_end(const query_table *t, size_t first, size_t end)
{
    const char *name = query_cell(t, first, "parameter");
    size_t r = first;
    while (r < end && name && query_cell(t, r, "parameter") &&
           strcmp(query_cell(t, r, "parameter"), name) == 0)
        r++;
    return r;
}

static int write_parameters(campaign_ctx *c, size_t first, size_t end, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_BY_PARAM);
    campaign_heading(c, "parameters", "Tuning parameters");
    if (first == end) {
        html_paragraph(f, NULL, "No evaluations yet.");
        return 0;
    }
    html_paragraph(f, NULL,
                   "Per value of each tuning parameter: the best time and the typical time "
                   "(geometric mean) of the configurations with that value that passed, as the "
                   "campaign's optimum divided by them (1: the value reaches the optimum). Values "
                   "whose bars differ widely mark a parameter that matters.");
    static const char *const series[] = {"best: optimum / best time",
                                         "typical: optimum / geometric mean time"};
    fputs("<div class=\"charts\">\n", f);
    for (size_t a = first; a < end;) {
        size_t b = parameter_end(t, a, end);
        size_t n = b - a;
        const char **labels = calloc(n, sizeof *labels);
        double *values = campaign_numbers(2 * n);
        if (!labels || !values) {
            free(labels);
            free(values);
            return err_set(err, "out of memory drawing campaign %lld's parameters", c->id);
        }
        for (size_t r = a; r < b; r++) {
            labels[r - a] = query_cell(t, r, "value");
            values[r - a] = campaign_number(t, r, "best_relative", NAN);
            values[n + r - a] = campaign_number(t, r, "geomean_relative", NAN);
        }
        char title[160], label[128];
        snprintf(title, sizeof title, "Campaign %lld: parameter %s", c->id,
                 query_cell(t, a, "parameter") ? query_cell(t, a, "parameter") : "");
        snprintf(label, sizeof label, "%s: optimum time / time", query_cell(t, a, "parameter"));
        svg_bar_chart chart = {.title = title, .value_label = label, .categories = labels,
                               .n_categories = n, .series_names = series, .n_series = 2,
                               .values = values, .max = 1.0};
        svg_write_bars(f, &chart);
        free(labels);
        free(values);
        a = b;
    }
    fputs("</div>\n", f);
    static const html_column cols[] = {
        {"parameter", "parameter", FORMAT_TEXT, true},
        {"value", "value", FORMAT_TEXT, true},
        {"evaluated", "evaluated", FORMAT_INTEGER, false},
        {"ok", "passed", FORMAT_INTEGER, false},
        {"best_median_ns", "best", FORMAT_TIME_NS, false},
        {"geomean_median_ns", "geometric mean", FORMAT_TIME_NS, false},
        {"best_relative", "optimum / best", FORMAT_RATIO, false},
        {"geomean_relative", "optimum / geometric mean", FORMAT_RATIO, false},
    };
    html_table(f, t, first, end, cols, COUNT(cols));
    html_source_note(f, c->d->queries[REPORT_BY_PARAM]);
    return 0;
}

/* Whether any value of the parameter in rows [a, b) failed. */
static bool parameter_failed(const query_table *t, size_t a, size_t b)
{
    for (size_t r = a; r < b; r++)
        if (campaign_number(t, r, "failed", 0) > 0) return true;
    return false;
}

static int write_failures_by_param(campaign_ctx *c, size_t first, size_t end, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_BY_PARAM);
    campaign_heading(c, "failures", "Failures by parameter value");
    size_t failing = 0;
    for (size_t a = first; a < end;) {
        size_t b = parameter_end(t, a, end);
        if (parameter_failed(t, a, b)) failing++;
        a = b;
    }
    if (failing == 0) {
        html_paragraph(f, NULL, "No configuration failed.");
        html_source_note(f, c->d->queries[REPORT_BY_PARAM]);
        return 0;
    }
    html_paragraph(f, NULL,
                   "For each parameter under which some configuration failed: the share of the "
                   "configurations with each value that failed, and the failures by status.");
    fputs("<div class=\"charts\">\n", f);
    for (size_t a = first; a < end;) {
        size_t b = parameter_end(t, a, end);
        if (!parameter_failed(t, a, b)) {
            a = b;
            continue;
        }
        size_t n = b - a;
        const char **labels = calloc(n, sizeof *labels);
        double *values = campaign_numbers(n);
        if (!labels || !values) {
            free(labels);
            free(values);
            return err_set(err, "out of memory drawing campaign %lld's failures", c->id);
        }
        for (size_t r = a; r < b; r++) {
            labels[r - a] = query_cell(t, r, "value");
            values[r - a] = campaign_number(t, r, "failed_percent", NAN);
        }
        char title[160], label[128];
        snprintf(title, sizeof title, "Campaign %lld: failures by %s", c->id,
                 query_cell(t, a, "parameter") ? query_cell(t, a, "parameter") : "");
        snprintf(label, sizeof label, "%s: configurations failed (%%)", query_cell(t, a, "parameter"));
        svg_bar_chart chart = {.title = title, .value_label = label, .categories = labels,
                               .n_categories = n, .n_series = 1, .values = values, .max = 100.0};
        svg_write_bars(f, &chart);
        free(labels);
        free(values);
        a = b;
    }
    fputs("</div>\n", f);
    static const html_column cols[] = {
        {"parameter", "parameter", FORMAT_TEXT, true},
        {"value", "value", FORMAT_TEXT, true},
        {"evaluated", "evaluated", FORMAT_INTEGER, false},
        {"failed", "failed", FORMAT_INTEGER, false},
        {"failed_percent", "failed share", FORMAT_PERCENT, false},
        {"compile", "compile", FORMAT_INTEGER, false},
        {"launch", "launch", FORMAT_INTEGER, false},
        {"wrong_result", "wrong result", FORMAT_INTEGER, false},
        {"timeout", "timeout", FORMAT_INTEGER, false},
        {"crash", "crash", FORMAT_INTEGER, false},
    };
    html_table_open(f, cols, COUNT(cols));
    for (size_t a = first; a < end;) {
        size_t b = parameter_end(t, a, end);
        if (parameter_failed(t, a, b)) html_table_rows(f, t, a, b, cols, COUNT(cols));
        a = b;
    }
    html_table_close(f);
    html_source_note(f, c->d->queries[REPORT_BY_PARAM]);
    return 0;
}

/* ------------------------------------------------------------ independence */

/* Whether the order of one parameter's values holds whatever another's
 * value is (the independence query): the thesis's read-write independence,
 * which says when a pipeline's parts may be tuned apart. */
static void write_independence(campaign_ctx *c, size_t first, size_t end)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_INDEPENDENCE);
    campaign_heading(c, "independence", "Independence of parameters");
    if (first == end) {
        const char *ok = campaign_summary(c, "ok");
        if (ok && strtoll(ok, NULL, 10) > 10000)
            html_paragraph(f, NULL,
                           "Not compared: this campaign has more than 10,000 configurations that "
                           "passed, and comparing every pair of them would take minutes. A "
                           "campaign over the two parameters in question, the others fixed, "
                           "answers it sooner.");
        else
            html_paragraph(f, NULL,
                           "Empty, because this campaign has no pair of configurations to compare: "
                           "judging a pair of parameters needs two values of each, measured in "
                           "configurations whose other parameters agree (four configurations "
                           "that differ in those two parameters only). A small or sampled "
                           "campaign rarely holds such sets; an exhaustive one over the "
                           "parameters in question does.");
        html_source_note(f, c->d->queries[REPORT_INDEPENDENCE]);
        return;
    }
    size_t independent = 0, judged = 0;
    for (size_t r = first; r < end; r++) {
        const char *v = query_cell(t, r, "independent");
        if (!v) continue;
        judged++;
        if (strcmp(v, "1") == 0) independent++;
    }
    char text[640];
    snprintf(text, sizeof text,
             "For each pair of parameters: does the ranking of the first one's values stay the "
             "same whatever the second one's value, the other parameters fixed? Agreement is the "
             "share of comparisons (two values of the first, under two values of the second) "
             "whose order holds; decisive ones differ by more than 5 %% both times, beyond "
             "run-to-run noise. A pair is independent when no decisive comparison flips: the "
             "first parameter may then be tuned with the second fixed at any value, and a "
             "pipeline joined by them tuned in parts. %zu of the %zu pairs judged are.",
             independent, judged);
    html_paragraph(f, NULL, text);
    static const html_column cols[] = {
        {"ranked", "ranked", FORMAT_TEXT, true},
        {"across", "across", FORMAT_TEXT, true},
        {"comparisons", "comparisons", FORMAT_INTEGER, false},
        {"agreement", "agreement", FORMAT_RATIO, false},
        {"decisive", "decisive", FORMAT_INTEGER, false},
        {"decisive_flips", "decisive flips", FORMAT_INTEGER, false},
        {"decisive_agreement", "decisive agreement", FORMAT_RATIO, false},
        {"independent", "independent", FORMAT_TEXT, false},
    };
    html_table(f, t, first, end, cols, COUNT(cols));
    html_source_note(f, c->d->queries[REPORT_INDEPENDENCE]);
}

/* ------------------------------------------------------------ section */

int html_campaign_write(FILE *f, const report_data *d, size_t row, size_t *cursors,
                        skytune_error *err)
{
    campaign_ctx c = {.f = f, .d = d, .row = row};
    const char *id_text = query_cell(&d->tables[REPORT_CAMPAIGNS], row, "campaign");
    c.id = id_text ? strtoll(id_text, NULL, 10) : 0;
    snprintf(c.anchor, sizeof c.anchor, "campaign-%lld", c.id);
    size_t *first = c.first, *end = c.end;
    for (size_t q = 0; q < REPORT_N_QUERIES; q++) {
        first[q] = end[q] = cursors[q];
        if (q == REPORT_CAMPAIGNS || !d->tables[q].n_cols) continue;
        report_campaign_rows(&d->tables[q], c.id, &first[q], &end[q]);
        cursors[q] = end[q];
    }
    fprintf(f, "<section class=\"campaign\" id=\"%s\">\n", c.anchor);
    char title[512];
    snprintf(title, sizeof title, "Campaign %lld: %s on %s", c.id, campaign_summary(&c, "plugin"),
             campaign_summary(&c, "device"));
    html_heading(f, 2, NULL, title);
    write_what(&c);
    if (write_status(&c, first[REPORT_FAILURES], end[REPORT_FAILURES], err) != 0) return -1;
    write_time(&c, first[REPORT_TIME_SPLIT], end[REPORT_TIME_SPLIT]);
    if (write_best(&c, first[REPORT_TOP], end[REPORT_TOP], err) != 0) return -1;
    write_confirmations(&c, first[REPORT_CONFIRMATIONS], end[REPORT_CONFIRMATIONS]);
    write_parts(&c, first[REPORT_PARTS], end[REPORT_PARTS]);
    if (write_top(&c, first[REPORT_TOP], end[REPORT_TOP], err) != 0 ||
        campaign_write_convergence(&c, err) != 0 ||
        write_distribution(&c, first[REPORT_DISTRIBUTION], end[REPORT_DISTRIBUTION],
                           first[REPORT_SNR], end[REPORT_SNR], err) != 0 ||
        write_parameters(&c, first[REPORT_BY_PARAM], end[REPORT_BY_PARAM], err) != 0 ||
        write_failures_by_param(&c, first[REPORT_BY_PARAM], end[REPORT_BY_PARAM], err) != 0)
        return -1;
    if (campaign_write_importance(&c, err) != 0) return -1;
    write_independence(&c, first[REPORT_INDEPENDENCE], end[REPORT_INDEPENDENCE]);
    campaign_write_rejections(&c);
    campaign_write_stop_advice(&c);
    if (campaign_write_roofline(&c, err) != 0) return -1;
    fputs("</section>\n", f);
    return 0;
}
