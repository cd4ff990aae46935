/* The parts of a campaign's section that explain its space. */
#include "html_explain.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gain_estimate.h"
#include "html_parts.h"
#include "svg_chart.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ rejections */

void campaign_write_rejections(campaign_ctx *c)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_REJECTIONS);
    size_t first = c->first[REPORT_REJECTIONS], end = c->end[REPORT_REJECTIONS];
    campaign_heading(c, "rejections", "What the constraints removed");
    if (first == end) {
        html_paragraph(f, NULL,
                       "This campaign's space was not recorded: it was last run by a skytune "
                       "older than schema version 8, which did not keep what each constraint "
                       "removed. Running it again records it (skytune plugins show gives it "
                       "for the plugin's own constraints).");
        html_source_note(f, c->d->queries[REPORT_REJECTIONS]);
        return;
    }
    double cartesian = campaign_number(t, first, "cartesian", NAN);
    double valid = campaign_number(t, first, "valid", NAN);
    char text[512];
    snprintf(text, sizeof text,
             "The Cartesian product of the parameters' values holds %.0f combinations; the "
             "constraints let %.0f through (%.3g %%). Each combination ruled out is counted once, "
             "under the constraint that rejected it first in the order the space checks them, so "
             "the rows add up to everything removed.",
             cartesian, valid, cartesian > 0 ? 100 * valid / cartesian : 0.0);
    html_paragraph(f, NULL, text);
    if (!query_cell(t, first, "kind")) {
        html_paragraph(f, NULL, "No constraint removed anything: every combination is valid.");
    } else {
        static const html_column cols[] = {
            {"rule", "constraint", FORMAT_TEXT, true},
            {"kind", "kind", FORMAT_TEXT, false},
            {"ruled_out", "removed", FORMAT_INTEGER, false},
            {"share", "share of the product", FORMAT_RATIO, false},
        };
        html_table(f, t, first, end, cols, COUNT(cols));
    }
    html_source_note(f, c->d->queries[REPORT_REJECTIONS]);
}

/* ------------------------------------------------------------ importance */

static int importance_chart(campaign_ctx *c, const query_table *t, size_t first, size_t end,
                            skytune_error *err)
{
    size_t n = end - first;
    const char **names = calloc(n, sizeof *names);
    double *values = calloc(n, sizeof *values);
    if (!names || !values) {
        free(names);
        free(values);
        return err_set(err, "out of memory drawing the importance of campaign %lld", c->id);
    }
    for (size_t r = first; r < end; r++) {
        names[r - first] = query_cell(t, r, "parameter");
        values[r - first] = campaign_number(t, r, "share", NAN);
    }
    char title[128];
    snprintf(title, sizeof title, "Campaign %lld: share of the variance of log-time", c->id);
    svg_bar_chart chart = {.title = title, .value_label = "share explained by the parameter alone",
                           .categories = names, .n_categories = n, .n_series = 1,
                           .values = values, .max = 1.0};
    svg_write_bars(c->f, &chart);
    free(names);
    free(values);
    return 0;
}

int campaign_write_importance(campaign_ctx *c, skytune_error *err)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_IMPORTANCE);
    size_t first = c->first[REPORT_IMPORTANCE], end = c->end[REPORT_IMPORTANCE];
    campaign_heading(c, "importance", "Which parameters matter");
    if (first == end) {
        html_paragraph(f, NULL,
                       "Fewer than 3 configurations passed, or they all took the same time: "
                       "there is no spread of times for the parameters to explain.");
        html_source_note(f, c->d->queries[REPORT_IMPORTANCE]);
        return 0;
    }
    html_paragraph(f, NULL,
                   "Each parameter's share of the variance of the logarithm of the median time "
                   "over the configurations that passed (a one-way analysis of variance): 1 "
                   "when its value alone decides the time, 0 when it makes no difference. The "
                   "adjusted share takes away what a parameter of no effect gets by chance "
                   "with this many configurations. Where constraints tie parameters together "
                   "the shares overlap and may add up to more than 1.");
    if (importance_chart(c, t, first, end, err) != 0) return -1;
    static const html_column cols[] = {
        {"parameter", "parameter", FORMAT_TEXT, true},
        {"values", "values", FORMAT_INTEGER, false},
        {"configurations", "configurations", FORMAT_INTEGER, false},
        {"share", "share", FORMAT_RATIO, false},
        {"adjusted_share", "adjusted share", FORMAT_RATIO, false},
    };
    html_table(f, t, first, end, cols, COUNT(cols));
    html_source_note(f, c->d->queries[REPORT_IMPORTANCE]);

    const query_table *pairs = campaign_table(c, REPORT_INTERACTIONS);
    size_t pf = c->first[REPORT_INTERACTIONS], pe = c->end[REPORT_INTERACTIONS];
    campaign_heading(c, "interactions", "Pairs of parameters that act together");
    if (pf == pe) {
        html_paragraph(f, NULL,
                       "No pair of parameters to judge: the campaign has fewer than two "
                       "parameters, fewer than 3 configurations that passed, or more than "
                       "20,000 (too many to pair up here; skytune query interactions with "
                       "--campaign asks anyway).");
    } else {
        html_paragraph(f, NULL,
                       "The share of the variance of log-time that a pair of parameters explains "
                       "together beyond what each explains alone (a two-way interaction): where "
                       "it is large, the best value of one depends on the other, and the two are "
                       "best tuned together. Joint share is what the pair explains in all; a "
                       "pair with about as many cells as configurations explains them by "
                       "having one configuration per cell.");
        static const html_column pair_cols[] = {
            {"parameter", "parameter", FORMAT_TEXT, true},
            {"with", "with", FORMAT_TEXT, true},
            {"cells", "cells", FORMAT_INTEGER, false},
            {"configurations", "configurations", FORMAT_INTEGER, false},
            {"share", "interaction share", FORMAT_RATIO, false},
            {"joint_share", "joint share", FORMAT_RATIO, false},
        };
        html_table(f, pairs, pf, pe, pair_cols, COUNT(pair_cols));
    }
    html_source_note(f, c->d->queries[REPORT_INTERACTIONS]);
    return 0;
}

/* ------------------------------------------------------------ stop advice */

void campaign_write_stop_advice(campaign_ctx *c)
{
    FILE *f = c->f;
    const query_table *t = campaign_table(c, REPORT_STOP_ADVICE);
    size_t row = c->first[REPORT_STOP_ADVICE];
    campaign_heading(c, "stop-advice", "Would more evaluations help?");
    if (row == c->end[REPORT_STOP_ADVICE]) {
        html_source_note(f, c->d->queries[REPORT_STOP_ADVICE]);
        return;
    }
    double fastest[GAIN_SPACINGS + 1];
    size_t n = 0;
    for (size_t k = 0; k < GAIN_SPACINGS + 1; k++) {
        char column[16];
        snprintf(column, sizeof column, "fastest_%zu", k + 1);
        double v;
        if (query_number(t, row, column, &v)) fastest[n++] = v;
    }
    double evaluated = campaign_number(t, row, "evaluated", 0);
    double passed = campaign_number(t, row, "passed", 0);
    double remaining = campaign_number(t, row, "remaining", NAN);
    gain_estimate g;
    gain_estimate_set(&g, fastest, n, (uint64_t)passed, (uint64_t)evaluated);
    double gain;
    uint64_t more;
    char text[768];
    if (!gain_estimate_expected(&g, isfinite(remaining) ? (uint64_t)remaining : UINT64_MAX,
                                &gain, &more))
        snprintf(text, sizeof text,
                 "No estimate: %.0f configurations passed, and the estimate needs %d (it reads "
                 "the gaps between the fastest times measured).",
                 passed, GAIN_MIN_PASSED);
    else if (more == 0)
        snprintf(text, sizeof text,
                 "Nothing more to evaluate: the campaign measured every configuration of its "
                 "space, so its best is the space's.");
    else
        snprintf(text, sizeof text,
                 "A campaign twice as long (%llu more evaluations) is expected to lower the best "
                 "time by about %.2g %%. The estimate reads the campaign as draws in random "
                 "order, each as likely as any other to be the fastest of all, and takes the "
                 "margin by which a new best beats the old from the gaps between the fastest "
                 "times measured (docs/reports.md, stop advice). A strategy that homes in on the "
                 "fast region has less left to find than that, so for it the figure leans high.",
                 (unsigned long long)more, 100 * gain);
    html_paragraph(f, NULL, text);
    const char *ended = query_cell(t, row, "ended");
    double below;
    if (ended && strcmp(ended, "gain_below") == 0 && query_number(t, row, "gain_below", &below)) {
        snprintf(text, sizeof text,
                 "Its last run stopped there: --stop-when-gain-below %.3g asked it to end once "
                 "more evaluations were expected to gain less than %.3g %%.",
                 below, 100 * below);
        html_paragraph(f, NULL, text);
    }
    html_source_note(f, c->d->queries[REPORT_STOP_ADVICE]);
}
