/* Charts as inline SVG, written straight into a report: line and step
 * charts, scatter plots (log or linear axes, reference lines), horizontal
 * bar charts, histograms and a stacked bar. No script, no external fonts
 * or links; every label goes through html_escape_write, so text from a
 * database or plugin cannot change the markup. The writers allocate
 * nothing; write errors show in ferror(f). Points that cannot be drawn
 * (NaN, infinite, or not positive on a logarithmic axis) are left out. */
#ifndef SKYTUNE_SVG_CHART_H
#define SKYTUNE_SVG_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum svg_scale { SVG_LINEAR = 0, SVG_LOG = 1 } svg_scale;

typedef enum svg_style {
    SVG_STEP = 0,        /* best-so-far: horizontal, then vertical to each next point */
    SVG_LINE = 1,        /* straight segments */
    SVG_POINTS = 2,      /* circles */
    SVG_LINE_POINTS = 3  /* both */
} svg_style;

/* Palette indexes: 0-7 are colours, SVG_INK a near-black for a line drawn
 * over points of every colour. */
enum { SVG_INK = 8 };

typedef struct svg_series {
    const char *name;    /* legend entry; NULL for none */
    svg_style style;
    const double *x, *y;
    const double *weight; /* POINTS: how many items a point stands for (bigger circle); may be NULL */
    size_t n;
    int color;           /* palette index */
    bool dashed;
    /* POINTS that have no y value (a failed evaluation has no time): drawn
     * at their x in a band above the plot, named by the chart's band_label.
     * y is not read and may be NULL. */
    bool band;
} svg_series;

/* A reference line across the plot: vertical at x = at, or horizontal at y = at. */
typedef struct svg_marker {
    bool vertical;
    double at;
    const char *label;
    int color;
} svg_marker;

typedef struct svg_xy_chart {
    const char *title;   /* the SVG's accessible title */
    const char *x_label, *y_label;
    svg_scale x_scale, y_scale;
    bool y_from_zero;    /* linear y axis: include 0 */
    const svg_series *series;
    size_t n_series;
    const svg_marker *markers;
    size_t n_markers;
    const char *band_label; /* names the band of the band series, e.g. "failed" */
} svg_xy_chart;

/* An xy chart is drawn with a margin on both axes: every point that can be
 * drawn lies inside the axes, never on their edge. Legends wrap onto more
 * lines where they do not fit one. */

void svg_write_xy(FILE *f, const svg_xy_chart *c);

/* Horizontal bars: one row per category, one bar per series in it.
 * values[s * n_categories + c]; NaN for none. Bars start at 0. */
typedef struct svg_bar_chart {
    const char *title, *value_label;
    const char *const *categories;
    size_t n_categories;
    const char *const *series_names; /* legend; NULL names for one unnamed series */
    size_t n_series;
    const double *values;
    double max;          /* end of the value axis; 0 for the largest value */
    bool whole;          /* values are counts: ticks on whole numbers */
    const svg_marker *markers; /* vertical lines at a value (e.g. speedup 1) */
    size_t n_markers;
} svg_bar_chart;

void svg_write_bars(FILE *f, const svg_bar_chart *c);

/* Bins [low[k], high[k]) with count[k] items each, with vertical markers. */
typedef struct svg_histogram {
    const char *title, *x_label, *y_label;
    const double *low, *high, *count;
    size_t n;
    const svg_marker *markers;
    size_t n_markers;
} svg_histogram;

void svg_write_histogram(FILE *f, const svg_histogram *h);

/* One bar split into parts (e.g. where the time went), with a legend of
 * each part's value and share. */
typedef struct svg_stacked_bar {
    const char *title, *unit;
    const char *const *labels;
    const double *values;
    size_t n;
} svg_stacked_bar;

void svg_write_stacked_bar(FILE *f, const svg_stacked_bar *b);

/* A number as chart labels show it: up to 4 significant digits, with a
 * k/M/G/T suffix from 10^4 on. */
void svg_format_number(double v, char *buf, size_t len);

#endif
