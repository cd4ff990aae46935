/* The report's comparison of a plugin's campaigns: the best configuration
 * per problem instance, performance against problem size, and what tuning
 * each instance gains over the best fixed configuration. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_escape.h"
#include "html_parts.h"
#include "html_portability.h"
#include "html_sections.h"
#include "report_format.h"
#include "svg_chart.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_SERIES 8

static bool same_text(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Rows [*first, *end) of t whose `column` equals value, for tables ordered by it. */
static void rows_where(const query_table *t, const char *column, const char *value, size_t *first,
                       size_t *end)
{
    size_t r = 0;
    while (r < t->n_rows && !same_text(query_cell(t, r, column), value)) r++;
    *first = r;
    while (r < t->n_rows && same_text(query_cell(t, r, column), value)) r++;
    *end = r;
}

static size_t campaigns_of(const report_data *d, const char *plugin)
{
    const query_table *t = &d->tables[REPORT_CAMPAIGNS];
    size_t n = 0;
    for (size_t r = 0; r < t->n_rows; r++)
        if (same_text(query_cell(t, r, "plugin"), plugin)) n++;
    return n;
}

static void write_instances(FILE *f, const report_data *d, const char *anchor, size_t first,
                            size_t end)
{
    char id[96];
    snprintf(id, sizeof id, "%s-instances", anchor);
    html_heading(f, 3, id, "Best configuration per instance");
    static const html_column cols[] = {
        {"plugin_version", "version", FORMAT_TEXT, false},
        {"device", "device", FORMAT_TEXT, false},
        {"problem", "problem", FORMAT_TEXT, true},
        {"configuration", "best configuration", FORMAT_TEXT, true},
        {"median_ns", "median", FORMAT_TIME_NS, false},
        {"min_ns", "min", FORMAT_TIME_NS, false},
        {"stddev_ns", "sd", FORMAT_TIME_NS, false},
        {"noisy", "noisy", FORMAT_FLAG, false},
        {"gflops", "GFLOP/s", FORMAT_NUMBER, false},
        {"gbs", "GB/s", FORMAT_NUMBER, false},
        {"measured", "measured", FORMAT_INTEGER, false},
        {"ok", "passed", FORMAT_INTEGER, false},
        {"campaigns", "campaigns", FORMAT_TEXT, false},
    };
    html_table(f, &d->tables[REPORT_INSTANCES], first, end, cols, COUNT(cols));
    html_source_note(f, d->queries[REPORT_INSTANCES]);
}

/* Problem sizes grow by factors (256, 512, 1024 stations or samples): on a
 * linear axis the small ones crowd into the left edge. A logarithmic axis
 * where every size is positive and the largest is 8 times the smallest or
 * more; a linear one where they are closer, or where one is 0 or below. */
static svg_scale size_scale(const double *x, size_t n)
{
    double low = INFINITY, high = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        if (!isfinite(x[k])) continue;
        if (x[k] <= 0) return SVG_LINEAR;
        if (x[k] < low) low = x[k];
        if (x[k] > high) high = x[k];
    }
    return isfinite(low) && high >= 8 * low ? SVG_LOG : SVG_LINEAR;
}

/* One chart for the parameter whose rows are [a, b): a series per device. */
static int scaling_chart(FILE *f, const query_table *t, const char *plugin, size_t a, size_t b,
                         skytune_error *err)
{
    size_t n = b - a;
    double *x = calloc(n, sizeof *x), *y = calloc(n, sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return err_set(err, "out of memory drawing the scaling of plugin %s", plugin);
    }
    bool by_gflops = true;
    double typical = NAN;
    for (size_t r = a; r < b; r++) {
        double v;
        if (!query_number(t, r, "gflops", &v)) by_gflops = false;
        if (query_number(t, r, "median_ns", &v)) typical = v;
    }
    double divisor = 1;
    const char *unit = "ns";
    if (!by_gflops) report_time_unit(isfinite(typical) ? typical : 1, &divisor, &unit);
    svg_series series[MAX_SERIES];
    size_t n_series = 0, r = a;
    while (r < b) {
        const char *device = query_cell(t, r, "device");
        size_t s = r;
        while (r < b && same_text(query_cell(t, r, "device"), device)) {
            double v;
            x[r - a] = query_number(t, r, "x", &v) ? v : NAN;
            y[r - a] = by_gflops ? (query_number(t, r, "gflops", &v) ? v : NAN)
                                 : (query_number(t, r, "median_ns", &v) ? v / divisor : NAN);
            r++;
        }
        if (n_series < MAX_SERIES)
            series[n_series] = (svg_series){.name = device, .style = SVG_LINE_POINTS, .x = x + (s - a),
                                            .y = y + (s - a), .n = r - s, .color = (int)n_series};
        n_series++;
    }
    const char *parameter = query_cell(t, a, "parameter");
    char title[256], y_label[64], x_label[128];
    snprintf(title, sizeof title, "Plugin %s: performance against %s", plugin,
             parameter ? parameter : "");
    snprintf(x_label, sizeof x_label, "problem parameter %s", parameter ? parameter : "");
    if (by_gflops)
        snprintf(y_label, sizeof y_label, "best GFLOP/s");
    else
        snprintf(y_label, sizeof y_label, "best median time (%s)", unit);
    svg_xy_chart chart = {.title = title, .x_label = x_label, .y_label = y_label,
                          .x_scale = size_scale(x, n), .y_scale = SVG_LINEAR, .y_from_zero = true,
                          .series = series, .n_series = n_series < MAX_SERIES ? n_series : MAX_SERIES};
    svg_write_xy(f, &chart);
    if (n_series > MAX_SERIES) {
        char text[128];
        snprintf(text, sizeof text, "The chart shows the first %d of %zu devices; the table has all.",
                 MAX_SERIES, n_series);
        html_paragraph(f, NULL, text);
    }
    free(x);
    free(y);
    return 0;
}

static int write_scaling(FILE *f, const report_data *d, const char *anchor, const char *plugin,
                         skytune_error *err)
{
    const query_table *t = &d->tables[REPORT_SCALING];
    char id[96];
    snprintf(id, sizeof id, "%s-scaling", anchor);
    html_heading(f, 3, id, "Performance against problem size");
    size_t first, end;
    rows_where(t, "plugin", plugin, &first, &end);
    if (first == end) {
        html_paragraph(f, NULL,
                       "Every instance has the same problem parameters (or only one instance has "
                       "a configuration that passed), so there is no problem size to plot against.");
        html_source_note(f, d->queries[REPORT_SCALING]);
        return 0;
    }
    size_t parameters = 0;
    for (size_t a = first; a < end;) {
        size_t b = a;
        const char *parameter = query_cell(t, a, "parameter");
        while (b < end && same_text(query_cell(t, b, "parameter"), parameter)) b++;
        if (scaling_chart(f, t, plugin, a, b, err) != 0) return -1;
        parameters++;
        a = b;
    }
    if (parameters > 1)
        html_paragraph(f, NULL,
                       "More than one problem parameter varies between instances; each chart "
                       "follows one of them while the others vary too (see the table).");
    static const html_column cols[] = {
        {"parameter", "parameter", FORMAT_TEXT, true},
        {"device", "device", FORMAT_TEXT, false},
        {"value", "value", FORMAT_TEXT, false},
        {"problem", "problem", FORMAT_TEXT, true},
        {"gflops", "GFLOP/s", FORMAT_NUMBER, false},
        {"median_ns", "median", FORMAT_TIME_NS, false},
        {"configuration", "best configuration", FORMAT_TEXT, true},
    };
    html_table(f, t, first, end, cols, COUNT(cols));
    html_source_note(f, d->queries[REPORT_SCALING]);
    return 0;
}

static int write_fixed(FILE *f, const report_data *d, const char *anchor, const char *plugin,
                       skytune_error *err)
{
    const query_table *t = &d->tables[REPORT_FIXED_VS_TUNED];
    char id[96];
    snprintf(id, sizeof id, "%s-fixed", anchor);
    html_heading(f, 3, id, "Tuned against the best fixed configuration");
    size_t first, end;
    rows_where(t, "plugin", plugin, &first, &end);
    html_paragraph(f, NULL,
                   "Per device, the best fixed configuration is the one that, among those that "
                   "passed on every instance, gives the largest summed performance over the "
                   "instances: summed GFLOP/s where the plugin counts FLOPs (basis gflops), "
                   "otherwise the summed ratio of each instance's best time to its time (basis "
                   "relative, so every instance weighs the same). Speedup is the fixed "
                   "configuration's median time over the instance's tuned optimum.");
    if (first == end) {
        html_paragraph(f, NULL, "No instance has a configuration that passed.");
        html_source_note(f, d->queries[REPORT_FIXED_VS_TUNED]);
        return 0;
    }
    size_t n = end - first;
    char **labels = calloc(n, sizeof *labels);
    double *values = calloc(n, sizeof *values);
    if (!labels || !values) {
        free(labels);
        free(values);
        return err_set(err, "out of memory drawing the speedups of plugin %s", plugin);
    }
    int rc = 0;
    for (size_t r = first; r < end && rc == 0; r++) {
        const char *device = query_cell(t, r, "device"), *problem = query_cell(t, r, "problem");
        size_t len = strlen(device ? device : "") + strlen(problem ? problem : "") + 8;
        labels[r - first] = malloc(len);
        if (!labels[r - first]) {
            rc = err_set(err, "out of memory drawing the speedups of plugin %s", plugin);
            break;
        }
        snprintf(labels[r - first], len, "%s: %s", device ? device : "", problem ? problem : "");
        double v;
        values[r - first] = query_number(t, r, "speedup", &v) ? v : NAN;
    }
    if (rc == 0) {
        char title[256];
        snprintf(title, sizeof title, "Plugin %s: speedup of the tuned optimum over the best fixed configuration", plugin);
        svg_marker one = {.vertical = true, .at = 1.0, .label = "1", .color = 7};
        svg_bar_chart chart = {.title = title, .value_label = "speedup (fixed time / tuned time)",
                               .categories = (const char *const *)labels, .n_categories = n,
                               .n_series = 1, .values = values, .markers = &one, .n_markers = 1};
        svg_write_bars(f, &chart);
        static const html_column cols[] = {
            {"device", "device", FORMAT_TEXT, false},
            {"problem", "problem", FORMAT_TEXT, true},
            {"tuned_configuration", "tuned optimum", FORMAT_TEXT, true},
            {"tuned_median_ns", "tuned median", FORMAT_TIME_NS, false},
            {"tuned_gflops", "tuned GFLOP/s", FORMAT_NUMBER, false},
            {"fixed_configuration", "best fixed configuration", FORMAT_TEXT, true},
            {"fixed_median_ns", "fixed median", FORMAT_TIME_NS, false},
            {"fixed_gflops", "fixed GFLOP/s", FORMAT_NUMBER, false},
            {"speedup", "speedup", FORMAT_RATIO, false},
            {"basis", "basis", FORMAT_TEXT, false},
            {"instances", "instances", FORMAT_INTEGER, false},
            {"candidates", "candidates", FORMAT_INTEGER, false},
        };
        html_table(f, t, first, end, cols, COUNT(cols));
        html_source_note(f, d->queries[REPORT_FIXED_VS_TUNED]);
    }
    for (size_t k = 0; k < n; k++) free(labels[k]);
    free(labels);
    free(values);
    return rc;
}

int html_across_write(FILE *f, const report_data *d, html_toc_entry toc, void *toc_ctx,
                      skytune_error *err)
{
    if (!d->across) return 0;
    const query_table *inst = &d->tables[REPORT_INSTANCES];
    size_t group = 0;
    for (size_t a = 0; a < inst->n_rows;) {
        const char *plugin = query_cell(inst, a, "plugin");
        size_t b = a;
        while (b < inst->n_rows && same_text(query_cell(inst, b, "plugin"), plugin)) b++;
        bool worth = d->options.plugin != NULL || b - a >= 2 || campaigns_of(d, plugin) >= 2;
        if (worth && plugin) {
            char anchor[48], title[256];
            snprintf(anchor, sizeof anchor, "plugin-%zu", ++group);
            snprintf(title, sizeof title, "Plugin %s across campaigns", plugin);
            if (!f) {
                if (toc) toc(toc_ctx, anchor, title);
            } else {
                fprintf(f, "<section class=\"plugin\" id=\"%s\">\n", anchor);
                html_heading(f, 2, NULL, title);
                write_instances(f, d, anchor, a, b);
                if (write_scaling(f, d, anchor, plugin, err) != 0 ||
                    write_fixed(f, d, anchor, plugin, err) != 0)
                    return -1;
                html_portability_write(f, d, anchor, plugin);
                fputs("</section>\n", f);
            }
        }
        a = b;
    }
    return 0;
}
