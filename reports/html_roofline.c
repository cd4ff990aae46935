/* A campaign's roofline: achieved GFLOP/s against arithmetic intensity on
 * log-log axes, under the device's roofs (peak GB/s times intensity up to
 * the ridge, then peak GFLOP/s). Where the peaks are unknown the roofs are
 * the campaign's own best measured GB/s and GFLOP/s, dashed: a chart of the
 * data alone still shows how far each configuration is from the best that
 * was reached on each side of the ridge. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "html_roofline.h"
#include "html_parts.h"
#include "svg_chart.h"

/* The roof: GB/s times intensity up to the ridge, then GFLOP/s. */
typedef struct roof {
    double gflops, gbs;
    bool measured;       /* the campaign's best, not the device's peaks */
} roof;

static bool device_roof(const campaign_ctx *c, roof *r)
{
    const query_table *t = campaign_table(c, REPORT_CAMPAIGNS);
    return query_number(t, c->row, "peak_gflops", &r->gflops) &&
           query_number(t, c->row, "peak_gbs", &r->gbs) && r->gflops > 0 && r->gbs > 0;
}

static void write_roof_note(FILE *f, const roof *r)
{
    char text[512], gflops[32], gbs[32], ridge[32];
    svg_format_number(r->gflops, gflops, sizeof gflops);
    svg_format_number(r->gbs, gbs, sizeof gbs);
    svg_format_number(r->gflops / r->gbs, ridge, sizeof ridge);
    if (r->measured)
        snprintf(text, sizeof text,
                 "Dashed: the best GB/s any configuration of this campaign reached (%s) times "
                 "intensity up to %s FLOP/byte, then the best GFLOP/s it reached (%s). They are "
                 "the campaign's own ceilings, not the device's.",
                 gbs, ridge, gflops);
    else
        snprintf(text, sizeof text,
                 "Roofs: %s GB/s times intensity up to the ridge at %s FLOP/byte, then %s GFLOP/s.",
                 gbs, ridge, gflops);
    html_paragraph(f, NULL, text);
}

/* Said plainly: the drivers report no peaks, so a device has them only once
 * they were probed or given. A CPU device's are as unknown as a GPU's;
 * its probe shares the cores with whatever else runs, hence the advice. */
static void write_unknown_peaks(const campaign_ctx *c)
{
    const char *is_gpu = campaign_summary(c, "is_gpu");
    if (is_gpu && strcmp(is_gpu, "0") == 0)
        html_paragraph(c->f, "warn",
                       "This CPU device's peaks are unknown: OpenCL drivers do not report them, "
                       "and none were recorded for it. skytune devices --probe --db FILE "
                       "measures them (a streaming triad and multiply-add chains, a few seconds; "
                       "on a CPU run it with the cores as free as the campaign had them), or "
                       "skytune devices --set-peaks GFLOPS,GBS --db FILE records the processor's "
                       "data-sheet figures. Roofs drawn below are the campaign's best measured "
                       "figures, not the device's.");
    else
        html_paragraph(c->f, "warn",
                       "Device peaks unknown: OpenCL drivers do not report them, and none were "
                       "recorded for this device. Run skytune devices --probe --db FILE (or "
                       "skytune devices --set-peaks GFLOPS,GBS --db FILE) to draw its roofs; "
                       "roofs drawn below are the campaign's best measured figures.");
}

int campaign_write_roofline(campaign_ctx *c, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_ROOFLINE);
    size_t first = c->first[REPORT_ROOFLINE], end = c->end[REPORT_ROOFLINE];
    campaign_heading(c, "roofline", "Roofline");
    roof r = {0};
    bool peaks = device_roof(c, &r);
    if (!peaks) write_unknown_peaks(c);
    if (first == end) {
        html_paragraph(f, NULL,
                       "No configuration that passed has both a FLOP and a byte count (the plugin "
                       "does not count them), so there is nothing to place on a roofline.");
        html_source_note(f, c->d->queries[REPORT_ROOFLINE]);
        return 0;
    }
    size_t n = end - first;
    double *x = campaign_numbers(n), *y = campaign_numbers(n), *w = campaign_numbers(n);
    if (!x || !y || !w) {
        free(x);
        free(y);
        free(w);
        return err_set(err, "out of memory drawing campaign %lld's roofline", c->id);
    }
    double lo = INFINITY, hi = 0, best_gflops = 0, best_gbs = 0;
    for (size_t k = 0; k < n; k++) {
        x[k] = campaign_number(t, first + k, "intensity", NAN);
        y[k] = campaign_number(t, first + k, "gflops", NAN);
        w[k] = campaign_number(t, first + k, "configurations", 1);
        lo = fmin(lo, x[k]);
        hi = fmax(hi, x[k]);
        best_gflops = fmax(best_gflops, campaign_number(t, first + k, "best_gflops", 0));
        best_gbs = fmax(best_gbs, campaign_number(t, first + k, "best_gbs", 0));
    }
    if (!peaks) r = (roof){.gflops = best_gflops, .gbs = best_gbs, .measured = true};
    svg_series series[3];
    size_t n_series = 0;
    series[n_series++] = (svg_series){.name = "configurations", .style = SVG_POINTS, .x = x,
                                      .y = y, .weight = w, .n = n, .color = 0};
    /* The roof reaches a factor 4 past the points and the ridge on both
     * sides, so that the chart shows on which side of the ridge they lie
     * even when they all share one intensity. */
    double roof_x[3], roof_y[3];
    bool have_roof = r.gflops > 0 && r.gbs > 0;
    if (have_roof) {
        double ridge = r.gflops / r.gbs;
        roof_x[0] = fmin(lo, ridge) / 4, roof_y[0] = roof_x[0] * r.gbs;
        roof_x[1] = ridge, roof_y[1] = r.gflops;
        roof_x[2] = fmax(hi, ridge) * 4, roof_y[2] = r.gflops;
        series[n_series++] = (svg_series){.name = r.measured ? "best measured" : "device peaks",
                                          .style = SVG_LINE, .x = roof_x, .y = roof_y, .n = 3,
                                          .color = 7, .dashed = r.measured};
    }
    double best_x, best_y, g, b;
    const query_table *top = campaign_table(c, REPORT_TOP);
    size_t top_first = c->first[REPORT_TOP];
    if (top_first < c->end[REPORT_TOP] && query_number(top, top_first, "gflops", &g) &&
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
    if (have_roof) write_roof_note(f, &r);
    html_source_note(f, c->d->queries[REPORT_ROOFLINE]);
    return 0;
}
