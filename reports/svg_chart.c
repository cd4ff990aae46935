#include "svg_chart.h"

#include <math.h>
#include <string.h>

#include "html_escape.h"

/* Colour-blind-friendly enough, and distinct in print. */
static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#222222" /* SVG_INK */};

static const char *colour(int index)
{
    size_t n = sizeof palette / sizeof palette[0];
    return palette[(size_t)(index < 0 ? -index : index) % n];
}

enum { WIDTH = 570, HEIGHT = 330, LEFT = 78, RIGHT = 24, TOP = 34, BOTTOM = 52 };
enum { LEGEND_LINE = 14, BAND = 18, BAND_GAP = 8 };
#define CHAR_PX 6.4 /* average advance of an 11 px sans-serif character */

void svg_format_number(double v, char *buf, size_t len)
{
    static const struct {
        double scale;
        const char *suffix;
    } steps[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e4, "k"}};
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf"));
        return;
    }
    double a = fabs(v);
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
        if (a >= steps[k].scale) {
            double scale = steps[k].scale == 1e4 ? 1e3 : steps[k].scale;
            snprintf(buf, len, "%.4g%s", v / scale, steps[k].suffix);
            return;
        }
    if (a != 0 && a < 1e-3)
        snprintf(buf, len, "%.2e", v);
    else
        snprintf(buf, len, "%.4g", v);
}

static bool drawable(double v, svg_scale scale)
{
    return isfinite(v) && (scale == SVG_LINEAR || v > 0);
}

/* ------------------------------------------------------------ axes */

typedef struct axis {
    svg_scale scale;
    double lo, hi;       /* data range shown */
    double px0, px1;     /* pixels of lo and hi */
    bool empty;
    bool whole;          /* ticks on whole numbers only */
} axis;

typedef struct extent {
    double min, max;
    bool any;
} extent;

static void extent_add(extent *e, double v, svg_scale scale)
{
    if (!drawable(v, scale)) return;
    if (!e->any || v < e->min) e->min = v;
    if (!e->any || v > e->max) e->max = v;
    e->any = true;
}

static double nice_step(double raw)
{
    if (!(raw > 0) || !isfinite(raw)) return 1.0;
    double decade = pow(10.0, floor(log10(raw)));
    double f = raw / decade;
    double nice = f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0;
    return nice * decade;
}

/* whole: the values are counts, so ticks fall on whole numbers. margin:
 * the axis reaches past its extreme values, so that a point drawn there
 * lies inside the plot rather than on its edge (a linear axis whose values
 * are not negative still starts at zero). */
static axis make_axis(extent e, svg_scale scale, bool from_zero, bool whole, bool margin,
                      double px0, double px1)
{
    axis a = {.scale = scale, .px0 = px0, .px1 = px1, .lo = 0, .hi = 1};
    if (!e.any) {
        a.empty = true;
        if (scale == SVG_LOG) a.lo = 1, a.hi = 10;
        return a;
    }
    if (scale == SVG_LOG) {
        /* A tenth of a decade and a twentieth of the span at each end,
         * then out to whole decades: a value of exactly 10^k is not on
         * the edge. */
        double t0 = log10(e.min), t1 = log10(e.max);
        double pad = margin ? 0.1 + 0.05 * (t1 - t0) : 0.0;
        a.lo = pow(10.0, floor(t0 - pad));
        a.hi = pow(10.0, ceil(t1 + pad));
        if (!(a.hi > a.lo)) a.hi = a.lo * 10.0;
        return a;
    }
    double lo = e.min, hi = e.max;
    if (from_zero) {
        if (lo > 0) lo = 0;
        if (hi < 0) hi = 0;
    }
    if (hi == lo) {
        double pad = lo == 0 ? 1.0 : fabs(lo) * 0.1;
        lo -= pad;
        hi += pad;
    }
    double step = nice_step((hi - lo) / 6.0);
    if (whole && step < 1) step = 1;
    a.whole = whole;
    a.lo = floor(lo / step) * step;
    a.hi = ceil(hi / step) * step;
    if (!(a.hi > a.lo)) a.hi = a.lo + step;
    if (margin && a.hi - e.max < 0.02 * step) a.hi += step;
    /* An axis that starts at zero with nothing below it keeps zero: an
     * evaluation number or a time is never negative. */
    if (margin && !(a.lo == 0 && e.min >= 0) && e.min - a.lo < 0.02 * step) a.lo -= step;
    return a;
}

static double axis_t(const axis *a, double v)
{
    return a->scale == SVG_LOG ? log10(v) : v;
}

static double axis_px(const axis *a, double v)
{
    double t0 = axis_t(a, a->lo), t1 = axis_t(a, a->hi);
    double t = axis_t(a, v);
    return a->px0 + (t - t0) / (t1 - t0) * (a->px1 - a->px0);
}

/* Tick values of an axis, at most cap. */
static size_t axis_ticks(const axis *a, double *ticks, size_t cap)
{
    size_t n = 0;
    if (a->scale == SVG_LOG) {
        int k0 = (int)floor(log10(a->lo) + 1e-9), k1 = (int)ceil(log10(a->hi) - 1e-9);
        int decades = k1 - k0;
        int every = decades > 10 ? (decades + 9) / 10 : 1;
        for (int k = k0; k <= k1 && n < cap; k += every) {
            double d = pow(10.0, k);
            ticks[n++] = d;
            if (decades <= 2 && k < k1) {
                if (n < cap) ticks[n++] = 2 * d;
                if (n < cap) ticks[n++] = 5 * d;
            }
        }
        return n;
    }
    double step = nice_step((a->hi - a->lo) / 6.0);
    if (a->whole && step < 1) step = 1;
    for (double v = a->lo; v <= a->hi + step * 1e-6 && n < cap; v += step)
        ticks[n++] = fabs(v) < step * 1e-9 ? 0.0 : v;
    return n;
}

/* ------------------------------------------------------------ pieces */

static void open_svg(FILE *f, int width, int height, const char *title)
{
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
            width, height, width, height);
    html_escape_write(f, title);
    fputs("\" font-family=\"sans-serif\" font-size=\"11\">\n<title>", f);
    html_escape_write(f, title);
    fputs("</title>\n", f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width,
            height);
}

static void text_at(FILE *f, double x, double y, const char *anchor, const char *extra,
                    const char *text)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y, anchor,
            extra ? " " : "", extra ? extra : "");
    html_escape_write(f, text);
    fputs("</text>\n", f);
}

static void no_data(FILE *f, int width, int height)
{
    text_at(f, width / 2.0, height / 2.0, "middle", "fill=\"#666666\"", "no data to show");
}

/* Copy text cut to at most max_chars characters (UTF-8 aware), with an
 * ellipsis when cut. */
static void shorten(const char *text, size_t max_chars, char *buf, size_t len)
{
    size_t chars = 0, used = 0;
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    while (*p && chars < max_chars) {
        size_t n = 1;
        while ((p[n] & 0xC0) == 0x80) n++;
        if (used + n + 4 > len) break;
        memcpy(buf + used, p, n);
        used += n;
        p += n;
        chars++;
    }
    if (*p && used + 4 <= len) {
        memcpy(buf + used, "\xE2\x80\xA6", 3); /* … */
        used += 3;
    }
    buf[used] = '\0';
}

static size_t text_chars(const char *text)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++)
        if ((*p & 0xC0) != 0x80) n++;
    return n;
}

typedef enum swatch { SWATCH_BOX, SWATCH_DOT, SWATCH_LINE, SWATCH_DASH } swatch;

typedef struct legend_entry {
    const char *name;
    int colour;
    swatch shape;
} legend_entry;

/* Entries left to right from (x, y), a line further down whenever the next
 * would pass `right`. Returns the number of lines; with f NULL it only
 * counts them, so that a chart can make room before drawing. */
static int legend(FILE *f, double x, double y, double right, const legend_entry *e, size_t n)
{
    double at = x;
    int lines = n ? 1 : 0;
    if (f && n) fputs("<g class=\"legend\">\n", f);
    for (size_t k = 0; k < n; k++) {
        double width = 24 + CHAR_PX * (double)text_chars(e[k].name);
        if (at > x && at + width - 10 > right) {
            at = x;
            y += LEGEND_LINE;
            lines++;
        }
        if (f) {
            const char *c = colour(e[k].colour);
            switch (e[k].shape) {
            case SWATCH_DOT:
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", at + 5, y - 4,
                        c);
                break;
            case SWATCH_LINE:
            case SWATCH_DASH:
                fprintf(f,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                        "stroke-width=\"2\"%s/>\n",
                        at, y - 4, at + 11, y - 4, c,
                        e[k].shape == SWATCH_DASH ? " stroke-dasharray=\"4 2\"" : "");
                break;
            case SWATCH_BOX:
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
                        at, y - 9, c);
                break;
            }
            text_at(f, at + 14, y, "start", NULL, e[k].name);
        }
        at += width;
    }
    if (f && n) fputs("</g>\n", f);
    return lines;
}

static void x_axis(FILE *f, const axis *a, double y, double top, const char *label, double mid)
{
    double ticks[48];
    size_t n = axis_ticks(a, ticks, sizeof ticks / sizeof ticks[0]);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
            a->px0, y, a->px1, y);
    for (size_t k = 0; k < n; k++) {
        double px = axis_px(a, ticks[k]);
        char buf[32];
        svg_format_number(ticks[k], buf, sizeof buf);
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
                px, top, px, y, px, y, px, y + 4);
        text_at(f, px, y + 16, "middle", NULL, buf);
    }
    text_at(f, mid, y + 36, "middle", NULL, label);
}

static void y_axis(FILE *f, const axis *a, double x, double right, const char *label)
{
    double ticks[48];
    size_t n = axis_ticks(a, ticks, sizeof ticks / sizeof ticks[0]);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", x,
            a->px0, x, a->px1);
    for (size_t k = 0; k < n; k++) {
        double py = axis_px(a, ticks[k]);
        char buf[32];
        svg_format_number(ticks[k], buf, sizeof buf);
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
                x, py, right, py, x - 4, py, x, py);
        text_at(f, x - 7, py + 4, "end", NULL, buf);
    }
    double mid = (a->px0 + a->px1) / 2;
    char rotate[64];
    snprintf(rotate, sizeof rotate, "transform=\"rotate(-90 %.1f %.1f)\"", 16.0, mid);
    text_at(f, 16, mid, "middle", rotate, label);
}

static void marker_lines(FILE *f, const svg_marker *m, size_t n, const axis *x, const axis *y)
{
    for (size_t k = 0; k < n; k++) {
        const axis *a = m[k].vertical ? x : y;
        if (!a || !drawable(m[k].at, a->scale)) continue;
        double p = axis_px(a, m[k].at);
        const char *c = colour(m[k].color);
        if (m[k].vertical) {
            double top = y ? y->px1 : TOP;
            double bottom = y ? y->px0 : HEIGHT - BOTTOM;
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n",
                    p, top, p, bottom, c);
            char fill[32];
            snprintf(fill, sizeof fill, "fill=\"%s\"", c);
            /* Labels alternate in height so that neighbouring markers stay
             * legible, and turn left near the right edge. */
            bool left = p > x->px1 - 110;
            text_at(f, left ? p - 3 : p + 3, top + 11 + 12.0 * (double)(k % 3),
                    left ? "end" : "start", fill, m[k].label);
        } else {
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n",
                    x->px0, p, x->px1, p, c);
            char fill[32];
            snprintf(fill, sizeof fill, "fill=\"%s\"", c);
            text_at(f, x->px1 - 3, p - 4, "end", fill, m[k].label);
        }
    }
}

/* ------------------------------------------------------------ xy */

static void series_path(FILE *f, const svg_series *s, const axis *x, const axis *y)
{
    bool started = false;
    fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s d=\"", colour(s->color),
            s->dashed ? " stroke-dasharray=\"6 3\"" : "");
    for (size_t k = 0; k < s->n; k++) {
        if (!drawable(s->x[k], x->scale) || !drawable(s->y[k], y->scale)) continue;
        double px = axis_px(x, s->x[k]), py = axis_px(y, s->y[k]);
        if (!started)
            fprintf(f, "M%.1f %.1f", px, py);
        else if (s->style == SVG_STEP)
            fprintf(f, " H%.1f V%.1f", px, py);
        else
            fprintf(f, " L%.1f %.1f", px, py);
        started = true;
    }
    fputs("\"/>\n", f);
}

/* Points of a band series sit at y_px; the others at their y. */
static void series_points(FILE *f, const svg_series *s, const axis *x, const axis *y, double y_px)
{
    for (size_t k = 0; k < s->n; k++) {
        if (!drawable(s->x[k], x->scale) || (!s->band && !drawable(s->y[k], y->scale))) continue;
        double r = 3.0;
        if (s->weight && s->weight[k] > 1) r += 1.5 * log10(s->weight[k]);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" fill-opacity=\"0.7\"/>\n",
                axis_px(x, s->x[k]), s->band ? y_px : axis_px(y, s->y[k]), r, colour(s->color));
    }
}

static swatch series_swatch(const svg_series *s)
{
    if (s->style == SVG_POINTS) return SWATCH_DOT;
    return s->dashed ? SWATCH_DASH : SWATCH_LINE;
}

void svg_write_xy(FILE *f, const svg_xy_chart *c)
{
    open_svg(f, WIDTH, HEIGHT, c->title);
    extent ex = {0}, ey = {0};
    bool band = false;
    for (size_t s = 0; s < c->n_series; s++) {
        const svg_series *se = &c->series[s];
        for (size_t k = 0; k < se->n; k++) {
            if (!drawable(se->x[k], c->x_scale)) continue;
            if (se->band) {
                extent_add(&ex, se->x[k], c->x_scale);
                band = true;
            } else if (drawable(se->y[k], c->y_scale)) {
                extent_add(&ex, se->x[k], c->x_scale);
                extent_add(&ey, se->y[k], c->y_scale);
            }
        }
    }
    if (!ex.any) {
        no_data(f, WIDTH, HEIGHT);
        fputs("</svg>\n", f);
        return;
    }
    for (size_t k = 0; k < c->n_markers; k++)
        extent_add(c->markers[k].vertical ? &ex : &ey, c->markers[k].at,
                   c->markers[k].vertical ? c->x_scale : c->y_scale);
    legend_entry entries[16];
    size_t n = 0;
    for (size_t s = 0; s < c->n_series && n < 16; s++)
        if (c->series[s].name)
            entries[n++] = (legend_entry){c->series[s].name, c->series[s].color,
                                          series_swatch(&c->series[s])};
    int legend_lines = legend(NULL, LEFT, 18, WIDTH - RIGHT, entries, n);
    double top = TOP + LEGEND_LINE * (legend_lines > 1 ? legend_lines - 1 : 0) +
                 (band ? BAND + BAND_GAP : 0);
    axis x = make_axis(ex, c->x_scale, false, false, true, LEFT, WIDTH - RIGHT);
    axis y = make_axis(ey, c->y_scale, c->y_from_zero, false, true, HEIGHT - BOTTOM, top);
    x_axis(f, &x, HEIGHT - BOTTOM, top, c->x_label, (LEFT + WIDTH - RIGHT) / 2.0);
    y_axis(f, &y, LEFT, WIDTH - RIGHT, c->y_label);
    double band_y = top - BAND_GAP - BAND / 2.0;
    if (band) {
        fprintf(f,
                "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#f3f3f3\"/>\n",
                LEFT, top - BAND_GAP - BAND, WIDTH - RIGHT - LEFT, BAND);
        text_at(f, LEFT - 7, band_y + 4, "end", NULL, c->band_label ? c->band_label : "");
    }
    /* Points first, lines over them. */
    for (size_t s = 0; s < c->n_series; s++) {
        const svg_series *se = &c->series[s];
        if (se->style == SVG_POINTS || se->style == SVG_LINE_POINTS)
            series_points(f, se, &x, &y, band_y);
    }
    for (size_t s = 0; s < c->n_series; s++) {
        const svg_series *se = &c->series[s];
        if (se->style != SVG_POINTS && !se->band) series_path(f, se, &x, &y);
    }
    marker_lines(f, c->markers, c->n_markers, &x, &y);
    legend(f, LEFT, 18, WIDTH - RIGHT, entries, n);
    fputs("</svg>\n", f);
}

/* ------------------------------------------------------------ bars */

void svg_write_bars(FILE *f, const svg_bar_chart *c)
{
    enum { BAR = 12, GAP = 8, MAX_LABEL = 48 };
    size_t label_chars = 4;
    for (size_t k = 0; k < c->n_categories; k++) {
        size_t n = text_chars(c->categories[k]);
        if (n > label_chars) label_chars = n;
    }
    if (label_chars > MAX_LABEL) label_chars = MAX_LABEL + 1;
    double left = 16 + CHAR_PX * (double)label_chars;
    double row = (double)(c->n_series ? c->n_series : 1) * BAR + GAP;
    double top = TOP, plot_height = row * (double)c->n_categories;
    int height = (int)(top + plot_height + BOTTOM);
    int width = (int)(left + 420 + RIGHT);
    open_svg(f, width, height < 120 ? 120 : height, c->title);
    extent e = {.min = 0, .max = 0, .any = true};
    for (size_t k = 0; k < c->n_series * c->n_categories; k++) extent_add(&e, c->values[k], SVG_LINEAR);
    for (size_t k = 0; k < c->n_markers; k++) extent_add(&e, c->markers[k].at, SVG_LINEAR);
    if (c->max > 0) e.max = c->max;
    if (c->n_categories == 0) {
        no_data(f, width, 120);
        fputs("</svg>\n", f);
        return;
    }
    axis x = make_axis(e, SVG_LINEAR, true, c->whole, false, left, width - RIGHT);
    if (c->max > 0) x.hi = c->max;
    double bottom = top + plot_height;
    x_axis(f, &x, bottom, top, c->value_label, (left + width - RIGHT) / 2.0);
    for (size_t k = 0; k < c->n_categories; k++) {
        double y0 = top + row * (double)k + GAP / 2.0;
        char label[256];
        shorten(c->categories[k], MAX_LABEL, label, sizeof label);
        fputs("<g><title>", f);
        html_escape_write(f, c->categories[k]);
        fputs("</title>\n", f);
        text_at(f, left - 6, y0 + row / 2.0, "end", NULL, label);
        for (size_t s = 0; s < c->n_series; s++) {
            double v = c->values[s * c->n_categories + k];
            if (!isfinite(v)) continue;
            double x0 = axis_px(&x, 0), x1 = axis_px(&x, v);
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                    x1 < x0 ? x1 : x0, y0 + (double)s * BAR, fabs(x1 - x0), BAR - 2,
                    colour((int)s));
        }
        fputs("</g>\n", f);
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
            axis_px(&x, 0), top, axis_px(&x, 0), bottom);
    axis y_rows = {.scale = SVG_LINEAR, .lo = 0, .hi = 1, .px0 = bottom, .px1 = top};
    marker_lines(f, c->markers, c->n_markers, &x, &y_rows);
    if (c->series_names && c->n_series > 1) {
        legend_entry entries[8];
        size_t n = 0;
        for (size_t s = 0; s < c->n_series && n < 8; s++)
            if (c->series_names[s])
                entries[n++] = (legend_entry){c->series_names[s], (int)s, SWATCH_BOX};
        legend(f, left, 18, width - RIGHT, entries, n);
    }
    fputs("</svg>\n", f);
}

/* ------------------------------------------------------------ histogram */

void svg_write_histogram(FILE *f, const svg_histogram *h)
{
    open_svg(f, WIDTH, HEIGHT, h->title);
    extent ex = {0}, ey = {.min = 0, .max = 0, .any = true};
    for (size_t k = 0; k < h->n; k++) {
        extent_add(&ex, h->low[k], SVG_LINEAR);
        extent_add(&ex, h->high[k], SVG_LINEAR);
        extent_add(&ey, h->count[k], SVG_LINEAR);
    }
    if (!ex.any) {
        no_data(f, WIDTH, HEIGHT);
        fputs("</svg>\n", f);
        return;
    }
    for (size_t k = 0; k < h->n_markers; k++)
        if (h->markers[k].vertical) extent_add(&ex, h->markers[k].at, SVG_LINEAR);
    axis x = make_axis(ex, SVG_LINEAR, false, false, false, LEFT, WIDTH - RIGHT);
    axis y = make_axis(ey, SVG_LINEAR, true, true, false, HEIGHT - BOTTOM, TOP);
    x_axis(f, &x, HEIGHT - BOTTOM, TOP, h->x_label, (LEFT + WIDTH - RIGHT) / 2.0);
    y_axis(f, &y, LEFT, WIDTH - RIGHT, h->y_label);
    for (size_t k = 0; k < h->n; k++) {
        if (!(h->count[k] > 0) || !isfinite(h->low[k]) || !isfinite(h->high[k])) continue;
        double x0 = axis_px(&x, h->low[k]), x1 = axis_px(&x, h->high[k]);
        if (x1 - x0 < 2) x1 = x0 + 2; /* a bin of equal values still shows */
        double y0 = axis_px(&y, 0), y1 = axis_px(&y, h->count[k]);
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                "stroke=\"#ffffff\" stroke-width=\"0.5\"/>\n",
                x0, y1, x1 - x0, y0 - y1, colour(0));
    }
    marker_lines(f, h->markers, h->n_markers, &x, &y);
    fputs("</svg>\n", f);
}

/* ------------------------------------------------------------ stacked */

void svg_write_stacked_bar(FILE *f, const svg_stacked_bar *b)
{
    enum { BAR_HEIGHT = 28 };
    int height = 54 + 18 * (int)b->n;
    open_svg(f, WIDTH, height, b->title);
    double total = 0;
    for (size_t k = 0; k < b->n; k++)
        if (isfinite(b->values[k]) && b->values[k] > 0) total += b->values[k];
    if (!(total > 0)) {
        no_data(f, WIDTH, height);
        fputs("</svg>\n", f);
        return;
    }
    double x = LEFT, span = WIDTH - LEFT - RIGHT;
    for (size_t k = 0; k < b->n; k++) {
        if (!isfinite(b->values[k]) || b->values[k] <= 0) continue;
        double w = span * b->values[k] / total;
        fprintf(f, "<rect x=\"%.1f\" y=\"10\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", x, w,
                BAR_HEIGHT, colour((int)k));
        x += w;
    }
    for (size_t k = 0; k < b->n; k++) {
        double v = isfinite(b->values[k]) ? b->values[k] : 0;
        double y = 10 + BAR_HEIGHT + 18 * (double)(k + 1);
        char value[32], line[192];
        svg_format_number(v, value, sizeof value);
        snprintf(line, sizeof line, "%s %s (%.1f%%)", value, b->unit ? b->unit : "",
                 100.0 * v / total);
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n", LEFT,
                y - 9, colour((int)k));
        text_at(f, LEFT + 14, y, "start", NULL, b->labels[k]);
        text_at(f, LEFT + 200, y, "start", NULL, line);
    }
    fputs("</svg>\n", f);
}
