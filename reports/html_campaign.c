/* One campaign's section of the HTML report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_escape.h"
#include "html_parts.h"
#include "html_sections.h"
#include "report_format.h"
#include "svg_chart.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct campaign_ctx {
    FILE *f;
    const report_data *d;
    size_t row;                 /* in the campaigns table */
    long long id;
    char anchor[48];            /* id prefix of the section's headings */
} campaign_ctx;

static const query_table *table(const campaign_ctx *c, report_query q)
{
    return &c->d->tables[q];
}

static const char *summary(const campaign_ctx *c, const char *column)
{
    return query_cell(table(c, REPORT_CAMPAIGNS), c->row, column);
}

static double cell_number(const query_table *t, size_t r, const char *column, double fallback)
{
    double v;
    return query_number(t, r, column, &v) ? v : fallback;
}

static void heading(const campaign_ctx *c, const char *slug, const char *text)
{
    char id[96];
    snprintf(id, sizeof id, "%s-%s", c->anchor, slug);
    html_heading(c->f, 3, id, text);
}

/* Doubles for chart series, freed by the caller; NULL when out of memory. */
static double *numbers(size_t n)
{
    return calloc(n ? n : 1, sizeof(double));
}

/* ------------------------------------------------------------ what */

static void write_what(campaign_ctx *c)
{
    FILE *f = c->f;
    heading(c, "what", "What was tuned");
    char plugin[256], device[512], counts[256], settings[2048];
    snprintf(plugin, sizeof plugin, "%s %s (kernel source hash %s)", summary(c, "plugin"),
             summary(c, "plugin_version"), summary(c, "source_hash"));
    snprintf(device, sizeof device, "%s (platform %s, driver %s)", summary(c, "device"),
             summary(c, "platform"), summary(c, "driver_version"));
    snprintf(counts, sizeof counts,
             "%s evaluated: %s measured by this campaign, %s reused from earlier campaigns; "
             "%s passed, %s failed",
             summary(c, "evaluated"), summary(c, "measured"), summary(c, "reused"),
             summary(c, "ok"), summary(c, "failed"));
    html_kv_open(f);
    html_kv_row(f, "plugin", plugin, false);
    html_kv_row(f, "problem", summary(c, "problem"), true);
    html_kv_row(f, "device", device, false);
    html_kv_row(f, "strategy", summary(c, "strategy"), false);
    html_kv_row(f, "seed", summary(c, "seed"), false);
    /* The budget and limits are each run's, not the campaign's. */
    const char *runs = summary(c, "invocations");
    snprintf(settings, sizeof settings, "%s; runs: %s", summary(c, "settings"),
             runs ? runs : "not recorded");
    html_kv_row(f, "settings and budget", settings, true);
    html_kv_row(f, "status", summary(c, "status"), false);
    html_kv_row(f, "started", summary(c, "started_at"), false);
    html_kv_row(f, "ended", summary(c, "ended_at") ? summary(c, "ended_at") : "not ended (running, or killed)", false);
    html_kv_row(f, "host", summary(c, "host"), false);
    html_kv_row(f, "command", summary(c, "command"), true);
    const char *replayed = summary(c, "replayed");
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
    const query_table *t = table(c, REPORT_FAILURES);
    heading(c, "status", "Evaluations by status");
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
    double *values = numbers(n);
    if (!labels || !values) {
        free(labels);
        free(values);
        return err_set(err, "out of memory drawing campaign %lld's statuses", c->id);
    }
    for (size_t r = first; r < end; r++) {
        labels[r - first] = query_cell(t, r, "status");
        values[r - first] = cell_number(t, r, "evaluations", NAN);
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
    const query_table *t = table(c, REPORT_TIME_SPLIT);
    heading(c, "time", "Where the time went");
    if (first == end) return;
    size_t r = first;
    static const char *const phases[] = {"build (OpenCL compiler)", "verification",
                                         "timed runs (with warm-up)", "engine overhead"};
    static const char *const seconds[] = {"build_s", "verify_s", "bench_s", "overhead_s"};
    static const char *const percents[] = {"build_percent", "verify_percent", "bench_percent",
                                           "overhead_percent"};
    double values[4];
    for (size_t k = 0; k < 4; k++) values[k] = cell_number(t, r, seconds[k], 0);
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

static void write_best(campaign_ctx *c, size_t first, size_t end)
{
    FILE *f = c->f;
    const query_table *t = table(c, REPORT_TOP);
    heading(c, "best", "Best configuration");
    if (first == end) {
        html_paragraph(f, NULL, "None: no configuration passed verification.");
        html_source_note(f, c->d->queries[REPORT_TOP]);
        return;
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
    html_kv_row(f, "standard deviation", report_format_cell(query_cell(t, r, "stddev_ns"), FORMAT_TIME_NS, s, sizeof s), false);
    html_kv_row(f, "timed runs", report_format_cell(query_cell(t, r, "n_samples"), FORMAT_INTEGER, n, sizeof n), false);
    html_kv_row(f, "GFLOP/s", report_format_cell(query_cell(t, r, "gflops"), FORMAT_NUMBER, g, sizeof g), false);
    html_kv_row(f, "GB/s", report_format_cell(query_cell(t, r, "gbs"), FORMAT_NUMBER, bw, sizeof bw), false);
    html_kv_row(f, "found at", at, false);
    html_kv_close(f);
}

static void write_top(campaign_ctx *c, size_t first, size_t end)
{
    FILE *f = c->f;
    char title[64];
    snprintf(title, sizeof title, "Top %u configurations", c->d->options.top);
    heading(c, "top", title);
    if (first == end) {
        html_source_note(f, c->d->queries[REPORT_TOP]);
        return;
    }
    static const html_column cols[] = {
        {"place", "#", FORMAT_INTEGER, false},
        {"configuration", "configuration", FORMAT_TEXT, true},
        {"median_ns", "median", FORMAT_TIME_NS, false},
        {"min_ns", "min", FORMAT_TIME_NS, false},
        {"stddev_ns", "sd", FORMAT_TIME_NS, false},
        {"gflops", "GFLOP/s", FORMAT_NUMBER, false},
        {"gbs", "GB/s", FORMAT_NUMBER, false},
        {"relative", "best / this", FORMAT_RATIO, false},
        {"evaluation", "evaluation", FORMAT_INTEGER, false},
    };
    html_table(f, table(c, REPORT_TOP), first, end, cols, COUNT(cols));
    html_source_note(f, c->d->queries[REPORT_TOP]);
}

/* ------------------------------------------------------------ convergence */

static int write_convergence(campaign_ctx *c, size_t first, size_t end, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = table(c, REPORT_BEST_SO_FAR);
    heading(c, "convergence", "Convergence");
    size_t n = end - first;
    double *evaluation = numbers(n), *wall = numbers(n), *best = numbers(n);
    if (!evaluation || !wall || !best) {
        free(evaluation);
        free(wall);
        free(best);
        return err_set(err, "out of memory drawing campaign %lld's convergence", c->id);
    }
    double last_best = NAN;
    for (size_t r = first; r < end; r++) {
        evaluation[r - first] = cell_number(t, r, "evaluation", NAN);
        wall[r - first] = cell_number(t, r, "wall_s", NAN);
        best[r - first] = cell_number(t, r, "best_median_ns", NAN);
        if (isfinite(best[r - first])) last_best = best[r - first];
    }
    double divisor;
    const char *unit;
    report_time_unit(isfinite(last_best) ? last_best : 1.0, &divisor, &unit);
    for (size_t k = 0; k < n; k++) best[k] /= divisor;
    char y_label[64], title1[96], title2[96];
    snprintf(y_label, sizeof y_label, "best median time so far (%s)", unit);
    snprintf(title1, sizeof title1, "Campaign %lld: best so far against evaluations", c->id);
    snprintf(title2, sizeof title2, "Campaign %lld: best so far against wall time", c->id);
    svg_series by_evaluation = {.name = NULL, .style = SVG_STEP, .x = evaluation, .y = best, .n = n};
    svg_xy_chart chart = {.title = title1, .x_label = "evaluation", .y_label = y_label,
                          .x_scale = SVG_LINEAR, .y_scale = SVG_LINEAR, .series = &by_evaluation,
                          .n_series = 1};
    fputs("<div class=\"charts\">\n", f);
    svg_write_xy(f, &chart);
    svg_series by_wall = by_evaluation;
    by_wall.x = wall;
    chart.series = &by_wall;
    chart.title = title2;
    chart.x_label = "cumulative wall time of the measurements (s)";
    svg_write_xy(f, &chart);
    fputs("</div>\n", f);
    free(evaluation);
    free(wall);
    free(best);
    html_paragraph(f, NULL,
                   "Each step is an evaluation that improved on the best median time before it; "
                   "wall time adds up build, verification, timed runs and engine overhead in "
                   "evaluation order (reused evaluations add nothing).");
    static const html_column cols[] = {
        {"evaluation", "evaluation", FORMAT_INTEGER, false},
        {"wall_s", "wall time", FORMAT_SECONDS, false},
        {"best_median_ns", "best so far", FORMAT_TIME_NS, false},
        {"configuration", "new best", FORMAT_TEXT, true},
    };
    html_table(f, t, first, end, cols, COUNT(cols));
    html_source_note(f, c->d->queries[REPORT_BEST_SO_FAR]);
    return 0;
}

/* ------------------------------------------------------------ distribution */

static int write_distribution(campaign_ctx *c, size_t first, size_t end, size_t snr_first,
                              size_t snr_end, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = table(c, REPORT_DISTRIBUTION);
    const query_table *s = table(c, REPORT_SNR);
    heading(c, "distribution", "Distribution of performance");
    if (first == end) {
        html_paragraph(f, NULL, "No configuration passed verification.");
        return 0;
    }
    size_t n = end - first;
    double *low = numbers(n), *high = numbers(n), *count = numbers(n);
    if (!low || !high || !count) {
        free(low);
        free(high);
        free(count);
        return err_set(err, "out of memory drawing campaign %lld's distribution", c->id);
    }
    for (size_t r = first; r < end; r++) {
        low[r - first] = cell_number(t, r, "bin_low", NAN);
        high[r - first] = cell_number(t, r, "bin_high", NAN);
        count[r - first] = cell_number(t, r, "configurations", 0);
    }
    const char *metric = query_cell(t, first, "metric");
    double mean = NAN, optimum = NAN;
    bool have_snr = snr_first < snr_end;
    if (have_snr) {
        mean = cell_number(s, snr_first, "mean", NAN);
        optimum = cell_number(s, snr_first, "optimum", NAN);
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
        svg_format_number(cell_number(s, snr_first, "sd", NAN), sd, sizeof sd);
        svg_format_number(cell_number(s, snr_first, "mean", NAN), num, sizeof num);
        report_format_cell(query_cell(s, snr_first, "configurations"), FORMAT_INTEGER, nconf, sizeof nconf);
        if (snr) {
            snprintf(k, sizeof k, "%.2f", strtod(snr, NULL));
            snprintf(bound, sizeof bound, "%.1f %%", 100.0 * cell_number(s, snr_first, "chebyshev_bound", NAN));
            snprintf(share, sizeof share, "%.1f %%", 100.0 * cell_number(s, snr_first, "observed_share", NAN));
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
    const query_table *t = table(c, REPORT_BY_PARAM);
    heading(c, "parameters", "Tuning parameters");
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
        double *values = numbers(2 * n);
        if (!labels || !values) {
            free(labels);
            free(values);
            return err_set(err, "out of memory drawing campaign %lld's parameters", c->id);
        }
        for (size_t r = a; r < b; r++) {
            labels[r - a] = query_cell(t, r, "value");
            values[r - a] = cell_number(t, r, "best_relative", NAN);
            values[n + r - a] = cell_number(t, r, "geomean_relative", NAN);
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
        if (cell_number(t, r, "failed", 0) > 0) return true;
    return false;
}

static int write_failures_by_param(campaign_ctx *c, size_t first, size_t end, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = table(c, REPORT_BY_PARAM);
    heading(c, "failures", "Failures by parameter value");
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
        double *values = numbers(n);
        if (!labels || !values) {
            free(labels);
            free(values);
            return err_set(err, "out of memory drawing campaign %lld's failures", c->id);
        }
        for (size_t r = a; r < b; r++) {
            labels[r - a] = query_cell(t, r, "value");
            values[r - a] = cell_number(t, r, "failed_percent", NAN);
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

/* ------------------------------------------------------------ roofline */

static int write_roofline(campaign_ctx *c, size_t first, size_t end, size_t top_first,
                          size_t top_end, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = table(c, REPORT_ROOFLINE);
    heading(c, "roofline", "Roofline");
    double peak_gflops = NAN, peak_gbs = NAN;
    bool peaks = query_number(table(c, REPORT_CAMPAIGNS), c->row, "peak_gflops", &peak_gflops) &&
                 query_number(table(c, REPORT_CAMPAIGNS), c->row, "peak_gbs", &peak_gbs) &&
                 peak_gflops > 0 && peak_gbs > 0;
    if (!peaks)
        html_paragraph(f, "warn",
                       "Device peaks unknown: run skytune devices --probe --db FILE (or "
                       "skytune devices --set-peaks GFLOPS,GBS --db FILE) to draw the roofs.");
    if (first == end) {
        html_paragraph(f, NULL,
                       "No configuration that passed has both a FLOP and a byte count (the plugin "
                       "does not count them), so there is nothing to place on a roofline.");
        html_source_note(f, c->d->queries[REPORT_ROOFLINE]);
        return 0;
    }
    size_t n = end - first;
    double *x = numbers(n), *y = numbers(n), *w = numbers(n);
    if (!x || !y || !w) {
        free(x);
        free(y);
        free(w);
        return err_set(err, "out of memory drawing campaign %lld's roofline", c->id);
    }
    double lo = INFINITY, hi = 0;
    for (size_t r = first; r < end; r++) {
        x[r - first] = cell_number(t, r, "intensity", NAN);
        y[r - first] = cell_number(t, r, "gflops", NAN);
        w[r - first] = cell_number(t, r, "configurations", 1);
        if (x[r - first] < lo) lo = x[r - first];
        if (x[r - first] > hi) hi = x[r - first];
    }
    svg_series series[3];
    size_t n_series = 0;
    series[n_series++] = (svg_series){.name = "configurations",
                                      .style = SVG_POINTS, .x = x, .y = y, .weight = w, .n = n,
                                      .color = 0};
    double roof_x[3], roof_y[3];
    if (peaks) {
        /* The roof spans the decades the chart's axis will show. */
        double ridge = peak_gflops / peak_gbs;
        double x0 = pow(10.0, floor(log10(ridge < lo ? ridge : lo)));
        double x1 = pow(10.0, ceil(log10(ridge > hi ? ridge : hi)));
        if (!(x1 > x0)) x1 = x0 * 10;
        roof_x[0] = x0, roof_y[0] = x0 * peak_gbs;
        roof_x[1] = ridge, roof_y[1] = peak_gflops;
        roof_x[2] = x1, roof_y[2] = peak_gflops;
        series[n_series++] = (svg_series){.name = "device peaks", .style = SVG_LINE, .x = roof_x,
                                          .y = roof_y, .n = 3, .color = 7};
    }
    double best_x, best_y;
    const query_table *top = table(c, REPORT_TOP);
    double g, b;
    if (top_first < top_end && query_number(top, top_first, "gflops", &g) &&
        query_number(top, top_first, "gbs", &b) && g > 0 && b > 0) {
        best_x = g / b;
        best_y = g;
        series[n_series++] = (svg_series){.name = "best configuration", .style = SVG_POINTS,
                                          .x = &best_x, .y = &best_y, .n = 1, .color = 1};
    }
    char title[96];
    snprintf(title, sizeof title, "Campaign %lld: roofline", c->id);
    svg_xy_chart chart = {.title = title, .x_label = "arithmetic intensity (FLOP/byte)",
                          .y_label = "GFLOP/s", .x_scale = SVG_LOG, .y_scale = SVG_LOG,
                          .series = series, .n_series = n_series};
    svg_write_xy(f, &chart);
    free(x);
    free(y);
    free(w);
    html_paragraph(f, NULL,
                   "Configurations that land close together are drawn as one circle, bigger "
                   "for more of them.");
    if (peaks) {
        char text[256], pg[32], pb[32], ridge[32];
        svg_format_number(peak_gflops, pg, sizeof pg);
        svg_format_number(peak_gbs, pb, sizeof pb);
        svg_format_number(peak_gflops / peak_gbs, ridge, sizeof ridge);
        snprintf(text, sizeof text,
                 "Roofs: %s GB/s times intensity up to the ridge at %s FLOP/byte, then %s GFLOP/s.",
                 pb, ridge, pg);
        html_paragraph(f, NULL, text);
    }
    html_source_note(f, c->d->queries[REPORT_ROOFLINE]);
    return 0;
}

/* ------------------------------------------------------------ section */

int html_campaign_write(FILE *f, const report_data *d, size_t row, size_t *cursors,
                        skytune_error *err)
{
    campaign_ctx c = {.f = f, .d = d, .row = row};
    const char *id_text = query_cell(&d->tables[REPORT_CAMPAIGNS], row, "campaign");
    c.id = id_text ? strtoll(id_text, NULL, 10) : 0;
    snprintf(c.anchor, sizeof c.anchor, "campaign-%lld", c.id);
    size_t first[REPORT_N_QUERIES], end[REPORT_N_QUERIES];
    for (size_t q = 0; q < REPORT_N_QUERIES; q++) {
        first[q] = end[q] = cursors[q];
        if (q == REPORT_CAMPAIGNS || !d->tables[q].n_cols) continue;
        report_campaign_rows(&d->tables[q], c.id, &first[q], &end[q]);
        cursors[q] = end[q];
    }
    fprintf(f, "<section class=\"campaign\" id=\"%s\">\n", c.anchor);
    char title[512];
    snprintf(title, sizeof title, "Campaign %lld: %s on %s", c.id, summary(&c, "plugin"),
             summary(&c, "device"));
    html_heading(f, 2, NULL, title);
    write_what(&c);
    if (write_status(&c, first[REPORT_FAILURES], end[REPORT_FAILURES], err) != 0) return -1;
    write_time(&c, first[REPORT_TIME_SPLIT], end[REPORT_TIME_SPLIT]);
    write_best(&c, first[REPORT_TOP], end[REPORT_TOP]);
    write_top(&c, first[REPORT_TOP], end[REPORT_TOP]);
    if (write_convergence(&c, first[REPORT_BEST_SO_FAR], end[REPORT_BEST_SO_FAR], err) != 0 ||
        write_distribution(&c, first[REPORT_DISTRIBUTION], end[REPORT_DISTRIBUTION],
                           first[REPORT_SNR], end[REPORT_SNR], err) != 0 ||
        write_parameters(&c, first[REPORT_BY_PARAM], end[REPORT_BY_PARAM], err) != 0 ||
        write_failures_by_param(&c, first[REPORT_BY_PARAM], end[REPORT_BY_PARAM], err) != 0 ||
        write_roofline(&c, first[REPORT_ROOFLINE], end[REPORT_ROOFLINE], first[REPORT_TOP],
                       end[REPORT_TOP], err) != 0)
        return -1;
    fputs("</section>\n", f);
    return 0;
}
