/* A campaign's convergence: every evaluation as a point (its median time
 * when it passed; a band above the plot, by status, when it failed), with
 * the best median time found so far as a line over them, against the
 * evaluation number and against the campaign's cumulative wall time. */
#include <math.h>
#include <stdlib.h>

#include "html_convergence.h"
#include "html_parts.h"
#include "measurement.h"
#include "report_format.h"
#include "svg_chart.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The colour of each status's points, by measurement_status: passes in the
 * line charts' blue, failures in colours of their own. */
static const int status_colours[MEAS_STATUS_COUNT] = {
    [MEAS_OK] = 0,      [MEAS_COMPILE] = 3, [MEAS_LAUNCH] = 4,
    [MEAS_WRONG_RESULT] = 1, [MEAS_TIMEOUT] = 5, [MEAS_CRASH] = 6,
};

/* The points of one chart: per status a run of rows of the evaluations
 * table, each with x (evaluation or wall time), y (time, in the chart's
 * unit) and weight (evaluations a point stands for). */
typedef struct points {
    double *evaluation, *wall, *time, *weight;
    size_t start[MEAS_STATUS_COUNT], count[MEAS_STATUS_COUNT];
} points;

static void points_free(points *p)
{
    free(p->evaluation);
    free(p->wall);
    free(p->time);
    free(p->weight);
}

/* Rows [first, end) of the evaluations table, grouped by status. A status
 * skytune does not know (a newer database's) counts as a crash: it failed. */
static int points_load(const query_table *t, size_t first, size_t end, double divisor,
                       points *p)
{
    size_t n = end - first;
    *p = (points){.evaluation = campaign_numbers(n), .wall = campaign_numbers(n),
                  .time = campaign_numbers(n), .weight = campaign_numbers(n)};
    if (!p->evaluation || !p->wall || !p->time || !p->weight) return -1;
    int *status = calloc(n ? n : 1, sizeof *status);
    if (!status) return -1;
    for (size_t r = first; r < end; r++) {
        const char *name = query_cell(t, r, "status");
        int s = name ? measurement_status_parse(name) : -1;
        status[r - first] = s < 0 ? MEAS_CRASH : s;
        p->count[status[r - first]]++;
    }
    for (size_t s = 1; s < MEAS_STATUS_COUNT; s++) p->start[s] = p->start[s - 1] + p->count[s - 1];
    size_t filled[MEAS_STATUS_COUNT] = {0};
    for (size_t r = first; r < end; r++) {
        int s = status[r - first];
        size_t k = p->start[s] + filled[s]++;
        p->evaluation[k] = campaign_number(t, r, "evaluation", NAN);
        p->wall[k] = campaign_number(t, r, "wall_s", NAN);
        p->time[k] = campaign_number(t, r, "median_ns", NAN) / divisor;
        p->weight[k] = campaign_number(t, r, "evaluations", 1);
    }
    free(status);
    return 0;
}

/* The best-so-far line, in the chart's unit. */
typedef struct line {
    double *evaluation, *wall, *best;
    size_t n;
} line;

static void line_free(line *l)
{
    free(l->evaluation);
    free(l->wall);
    free(l->best);
}

static int line_load(const query_table *t, size_t first, size_t end, double divisor, line *l)
{
    l->n = end - first;
    l->evaluation = campaign_numbers(l->n);
    l->wall = campaign_numbers(l->n);
    l->best = campaign_numbers(l->n);
    if (!l->evaluation || !l->wall || !l->best) return -1;
    for (size_t r = first; r < end; r++) {
        l->evaluation[r - first] = campaign_number(t, r, "evaluation", NAN);
        l->wall[r - first] = campaign_number(t, r, "wall_s", NAN);
        l->best[r - first] = campaign_number(t, r, "best_median_ns", NAN) / divisor;
    }
    return 0;
}

/* The campaign's best time, to choose the charts' unit. */
static double last_best(const query_table *t, size_t first, size_t end)
{
    double best = NAN;
    for (size_t r = first; r < end; r++) {
        double v = campaign_number(t, r, "best_median_ns", NAN);
        if (isfinite(v)) best = v;
    }
    return best;
}

static void write_chart(FILE *f, const char *title, const char *x_label, const char *y_label,
                        const points *p, const double *point_x, const line *l,
                        const double *line_x)
{
    svg_series series[MEAS_STATUS_COUNT + 1];
    size_t n = 0;
    for (size_t s = 0; s < MEAS_STATUS_COUNT; s++) {
        if (p->count[s] == 0) continue;
        series[n++] = (svg_series){.name = measurement_status_name((measurement_status)s),
                                   .style = SVG_POINTS, .x = point_x + p->start[s],
                                   .y = p->time + p->start[s], .weight = p->weight + p->start[s],
                                   .n = p->count[s], .color = status_colours[s],
                                   .band = s != MEAS_OK};
    }
    series[n++] = (svg_series){.name = "best so far", .style = SVG_STEP, .x = line_x,
                               .y = l->best, .n = l->n, .color = SVG_INK};
    svg_xy_chart chart = {.title = title, .x_label = x_label, .y_label = y_label,
                          .x_scale = SVG_LINEAR, .y_scale = SVG_LOG, .series = series,
                          .n_series = n, .band_label = "failed"};
    svg_write_xy(f, &chart);
}

int campaign_write_convergence(campaign_ctx *c, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *steps = campaign_table(c, REPORT_BEST_SO_FAR);
    const query_table *evaluations = campaign_table(c, REPORT_EVALUATIONS);
    size_t first = c->first[REPORT_BEST_SO_FAR], end = c->end[REPORT_BEST_SO_FAR];
    campaign_heading(c, "convergence", "Convergence");
    double best = last_best(steps, first, end);
    double divisor;
    const char *unit;
    report_time_unit(isfinite(best) ? best : 1.0, &divisor, &unit);
    points p;
    line l = {0};
    if (points_load(evaluations, c->first[REPORT_EVALUATIONS], c->end[REPORT_EVALUATIONS],
                    divisor, &p) != 0 ||
        line_load(steps, first, end, divisor, &l) != 0) {
        points_free(&p);
        line_free(&l);
        return err_set(err, "out of memory drawing campaign %lld's convergence", c->id);
    }
    char y_label[64], title1[96], title2[96];
    snprintf(y_label, sizeof y_label, "median time (%s)", unit);
    snprintf(title1, sizeof title1, "Campaign %lld: evaluations and best so far", c->id);
    snprintf(title2, sizeof title2, "Campaign %lld: evaluations and best so far against wall time",
             c->id);
    fputs("<div class=\"charts\">\n", f);
    write_chart(f, title1, "evaluation", y_label, &p, p.evaluation, &l, l.evaluation);
    write_chart(f, title2, "cumulative wall time of the measurements (s)", y_label, &p, p.wall, &l,
                l.wall);
    fputs("</div>\n", f);
    points_free(&p);
    line_free(&l);
    html_paragraph(f, NULL,
                   "Every evaluation is a point: its median time when it passed, or a point in "
                   "the band above the plot, coloured by status, when it failed. The line is the "
                   "best median time so far; each of its steps is an evaluation that improved on "
                   "the best before it. Wall time adds up build, verification, timed runs and "
                   "engine overhead in evaluation order (reused evaluations add nothing). A "
                   "campaign of more than 1000 evaluations shows them merged: a bigger point "
                   "stands for more evaluations.");
    static const html_column cols[] = {
        {"evaluation", "evaluation", FORMAT_INTEGER, false},
        {"wall_s", "wall time", FORMAT_SECONDS, false},
        {"best_median_ns", "best so far", FORMAT_TIME_NS, false},
        {"configuration", "new best", FORMAT_TEXT, true},
    };
    html_table(f, steps, first, end, cols, COUNT(cols));
    html_source_note(f, c->d->queries[REPORT_BEST_SO_FAR]);
    html_source_note(f, c->d->queries[REPORT_EVALUATIONS]);
    return 0;
}
