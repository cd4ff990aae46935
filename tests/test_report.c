/* skytune report, query and export end to end on the fixture database
 * (report_fixture.h): the HTML is well-formed with well-formed SVG, has
 * every section, escapes what plugins and the database provide, renders
 * in a headless browser without console errors, and is written whole or
 * not at all; the exports parse, compile and read back. Checks that need
 * python3, chromium or a C compiler say so and skip when it is missing. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_harness.h"
#include "replay_load.h"
#include "report_fixture.h"

static char *scratch;
static char *db;

static void setup(void)
{
    scratch = cli_make_temp_dir();
    db = cli_path(scratch, "fixture.db");
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create(db, true, &err), 0, "%s", err.message);
}

static void teardown(void)
{
    cli_remove_tree(scratch);
    free(scratch);
    free(db);
}

TestSuite(report, .init = setup, .fini = teardown, .timeout = 180);

static bool have(const char *program)
{
    char command[128];
    snprintf(command, sizeof command, "command -v %s >/dev/null 2>&1", program);
    return system(command) == 0;
}

static char *read_text(const char *path)
{
    size_t len;
    char *text = (char *)cli_read_file(path, &len);
    cr_assert(text, "cannot read %s", path);
    return text;
}

/* Make the report (plus CSV into DIR/csv); returns the HTML, malloc'd. */
static char *make_report(const char *html_path, const char *const *extra)
{
    const char *args[16] = {"report", "--db", db, "--html", html_path};
    size_t n = 5;
    for (size_t k = 0; extra && extra[k] && n < 15; k++) args[n++] = extra[k];
    args[n] = NULL;
    cli_result r = cli_run(args);
    cr_assert_eq(r.status, 0, "skytune report: %s\n%s", cli_status_text(r.status), r.err);
    cli_result_free(&r);
    return read_text(html_path);
}

/* ------------------------------------------------------------ content */

Test(report, has_every_section)
{
    char *html_path = cli_path(scratch, "report.html");
    char *html = make_report(html_path, NULL);
    static const char *const headings[] = {
        "What was tuned", "Evaluations by status", "Where the time went", "Best configuration",
        "Top 20 configurations", "Convergence", "Distribution of performance",
        "Tuning parameters", "Failures by parameter value", "Roofline",
        "Plugin toy across campaigns", "Best configuration per instance",
        "Performance against problem size", "Tuned against the best fixed configuration",
    };
    for (size_t k = 0; k < sizeof headings / sizeof headings[0]; k++)
        cr_expect(strstr(html, headings[k]), "no section \"%s\"", headings[k]);
    cr_expect(strstr(html, "<section class=\"campaign\" id=\"campaign-3\">"), "no campaign 3");
    /* Figures computed by hand from the fixture (see test_queries.c). */
    cr_expect(strstr(html, "k = 1.50 standard deviations"), "campaign 1's SNR is missing");
    cr_expect(strstr(html, "<td class=\"num\">1.250</td>"), "B's speedup 1.25 is missing");
    cr_expect(strstr(html, "From <code>reports/sql/fixed_vs_tuned.sql</code>"),
              "figures do not name their SQL");
    cr_expect(!strstr(html, "Device peaks unknown"), "the fixture has peaks");
    /* The budget is each run's: a row of its own lists the runs. */
    cr_expect(strstr(html, "<th>runs (budget and limits)</th><td><code>20"),
              "no row lists the runs");
    cr_expect(strstr(html, "Z: --budget 6, 0 → 6 evaluations (budget)"),
              "the settings row does not give the run's budget");
    free(html);
    free(html_path);
}

Test(report, escapes_every_string_from_the_database)
{
    char *html_path = cli_path(scratch, "report.html");
    char *html = make_report(html_path, NULL);
    cr_assert(!strstr(html, "<script"), "a <script> from the database reached the HTML");
    cr_assert(!strstr(html, "<b>wg</b>"), "markup from a build log reached the HTML");
    cr_assert(strstr(html, "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;"),
              "the hostile configuration value is not shown escaped");
    cr_assert(strstr(html, "error: &lt;b&gt;wg&lt;/b&gt; too large &amp; unsupported"),
              "the build log is not shown escaped");
    free(html);
    free(html_path);
}

Test(report, is_self_contained)
{
    char *html_path = cli_path(scratch, "report.html");
    char *html = make_report(html_path, NULL);
    static const char *const outside[] = {"<script", "<link", "<img", "@import", "url(", "src=",
                                          "<iframe"};
    for (size_t k = 0; k < sizeof outside / sizeof outside[0]; k++)
        cr_expect(!strstr(html, outside[k]), "the report contains %s", outside[k]);
    /* The only address is the SVG namespace, which is a name, not a fetch. */
    for (const char *p = strstr(html, "http"); p; p = strstr(p + 1, "http"))
        cr_expect(strncmp(p, "http://www.w3.org/2000/svg", 26) == 0, "an address: %.40s", p);
    free(html);
    free(html_path);
}

Test(report, says_when_the_device_peaks_are_unknown)
{
    char *bare = cli_path(scratch, "bare.db");
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create(bare, false, &err), 0, "%s", err.message);
    free(db);
    db = bare;
    char *html_path = cli_path(scratch, "report.html");
    char *html = make_report(html_path, NULL);
    cr_expect(strstr(html, "Device peaks unknown") &&
                  strstr(html, "skytune devices --probe --db FILE"),
              "no hint to probe the device");
    free(html);
    free(html_path);
}

Test(report, one_campaign_has_no_comparison_across_campaigns)
{
    char *html_path = cli_path(scratch, "one.html");
    char *html = make_report(html_path, CLI_ARGS("--campaign", "2"));
    cr_expect(strstr(html, "Campaign 2: toy"));
    cr_expect(!strstr(html, "Campaign 1: toy"));
    cr_expect(!strstr(html, "across campaigns"));
    free(html);
    free(html_path);
}

Test(report, writes_the_data_of_every_table_as_csv)
{
    char *html_path = cli_path(scratch, "report.html");
    char *csv_dir = cli_path(scratch, "csv");
    free(make_report(html_path, CLI_ARGS("--csv", csv_dir)));
    static const char *const names[] = {"campaigns",    "top",         "time-split",
                                        "failures",     "by-param",    "best-so-far",
                                        "evaluations",  "distribution", "snr",
                                        "roofline",     "instances",   "scaling",
                                        "fixed-vs-tuned"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char file[64];
        snprintf(file, sizeof file, "%s.csv", names[k]);
        char *path = cli_path(csv_dir, file);
        cr_expect(cli_file_exists(path), "no %s", path);
        free(path);
    }
    char *top = cli_path(csv_dir, "top.csv");
    char *text = read_text(top);
    cr_expect(strncmp(text, "campaign,place,configuration,median_ns", 38) == 0, "%.80s", text);
    free(text);
    free(top);
    free(csv_dir);
    free(html_path);
}

Test(report, a_failed_report_leaves_the_previous_file_alone)
{
    char *html_path = cli_path(scratch, "report.html");
    cli_write_file(html_path, "previous", 8);
    cli_result r = cli_run(CLI_ARGS("report", "--db", db, "--html", html_path, "--campaign", "99"));
    cr_assert_eq(r.status, 1, "%s", cli_status_text(r.status));
    cr_assert(strstr(r.err, "no campaign 99"), "%s", r.err);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("report", "--db", db, "--html", html_path, "--plugin", "nosuch"));
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "nosuch") && strstr(r.err, "toy"), "%s", r.err);
    cli_result_free(&r);
    char *text = read_text(html_path);
    cr_assert_str_eq(text, "previous");
    free(text);
    /* Nothing else was left in the folder (no temporary file). */
    char command[512];
    snprintf(command, sizeof command, "test $(ls -A '%s' | grep -c tmp) -eq 0", scratch);
    cr_assert_eq(system(command), 0, "a temporary file was left in %s", scratch);
    free(html_path);
}

/* ------------------------------------------------------------ charts */

/* The <svg> element of the chart titled `title`, malloc'd. */
static char *chart_svg(const char *html, const char *title)
{
    char label[256];
    snprintf(label, sizeof label, "aria-label=\"%s\"", title);
    const char *at = strstr(html, label);
    cr_assert(at, "no chart \"%s\"", title);
    const char *start = at;
    while (start > html && strncmp(start, "<svg", 4) != 0) start--;
    const char *end = strstr(at, "</svg>");
    cr_assert(end, "chart \"%s\" is not closed", title);
    return strndup(start, (size_t)(end + 6 - start));
}

/* The legend, cut out of a chart's SVG (malloc'd); what remains is what the
 * plot draws. */
static char *cut_legend(char *svg)
{
    char *g = strstr(svg, "<g class=\"legend\">");
    cr_assert(g, "the chart has no legend");
    char *end = strstr(g, "</g>");
    cr_assert(end);
    char *legend = strndup(g, (size_t)(end + 4 - g));
    memmove(g, end + 4, strlen(end + 4) + 1);
    return legend;
}

/* The plot's box: the x axis is the first long horizontal dark line, the y
 * axis the first long vertical one. */
typedef struct plot_box {
    double left, right, top, bottom;
} plot_box;

static plot_box axes_of(const char *svg)
{
    plot_box b = {0};
    bool have_x = false, have_y = false;
    for (const char *p = strstr(svg, "<line "); p; p = strstr(p + 1, "<line ")) {
        double x1, y1, x2, y2;
        char stroke[16];
        if (sscanf(p, "<line x1=\"%lf\" y1=\"%lf\" x2=\"%lf\" y2=\"%lf\" stroke=\"%15[^\"]\"", &x1,
                   &y1, &x2, &y2, stroke) != 5 ||
            strcmp(stroke, "#333333") != 0)
            continue;
        if (!have_x && y1 == y2 && x2 - x1 > 100) {
            b.left = x1, b.right = x2, b.bottom = y1;
            have_x = true;
        } else if (!have_y && x1 == x2 && fabs(y2 - y1) > 100) {
            b.top = fmin(y1, y2);
            have_y = true;
        }
    }
    cr_assert(have_x && have_y, "no axes in the chart");
    return b;
}

typedef struct circle {
    double cx, cy, r;
    char fill[16];
} circle;

static size_t circles_of(const char *svg, circle *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = strstr(svg, "<circle "); p; p = strstr(p + 1, "<circle ")) {
        cr_assert_lt(n, cap, "more than %zu circles", cap);
        cr_assert_eq(sscanf(p, "<circle cx=\"%lf\" cy=\"%lf\" r=\"%lf\" fill=\"%15[^\"]\"", &out[n].cx,
                            &out[n].cy, &out[n].r, out[n].fill),
                     4, "%.80s", p);
        n++;
    }
    return n;
}

static bool inside(const circle *c, const plot_box *b)
{
    return c->cx - c->r >= b->left && c->cx + c->r <= b->right && c->cy - c->r >= b->top &&
           c->cy + c->r <= b->bottom;
}

/* Every point of the roofline chart lies inside its axes, circle and all. */
static void assert_roofline_points_inside(const char *html, const char *what)
{
    char *svg = chart_svg(html, "Campaign 1: roofline");
    free(cut_legend(svg));
    plot_box b = axes_of(svg);
    circle c[32];
    size_t n = circles_of(svg, c, 32);
    /* Campaign 1's four configurations that passed, and the best marked. */
    cr_assert_eq(n, 5, "%s: %zu points", what, n);
    for (size_t k = 0; k < n; k++)
        cr_expect(inside(&c[k], &b), "%s: point (%.1f, %.1f) r %.1f is outside the axes x %.1f..%.1f, "
                  "y %.1f..%.1f", what, c[k].cx, c[k].cy, c[k].r, b.left, b.right, b.top, b.bottom);
    free(svg);
}

/* Campaign 1's configurations all at an intensity of exactly 10 FLOP/byte,
 * a decade's edge, past the fixture's ridge (10000 / 5000 = 2). */
static void move_to_intensity_ten(const char *path)
{
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    char *message = NULL;
    cr_assert_eq(sqlite3_exec(h, "UPDATE measurements SET gbs = gflops / 10 WHERE campaign_id = 1",
                              NULL, NULL, &message),
                 SQLITE_OK, "%s", message ? message : "");
    sqlite3_close(h);
}

Test(report, roofline_points_lie_inside_its_axes_with_and_without_peaks)
{
    move_to_intensity_ten(db);
    char *html_path = cli_path(scratch, "report.html");
    char *html = make_report(html_path, NULL);
    assert_roofline_points_inside(html, "with peaks");
    free(html);

    char *bare = cli_path(scratch, "bare.db");
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create(bare, false, &err), 0, "%s", err.message);
    move_to_intensity_ten(bare);
    free(db);
    db = bare;
    html = make_report(html_path, NULL);
    assert_roofline_points_inside(html, "without peaks");
    /* Without peaks the roofs are the campaign's best, dashed. */
    char *svg = chart_svg(html, "Campaign 1: roofline");
    char *legend = cut_legend(svg);
    cr_expect(strstr(legend, ">best measured<"), "no best measured roof in the legend");
    cr_expect(strstr(svg, "stroke=\"#7f7f7f\" stroke-width=\"1.8\" stroke-dasharray"),
              "the best measured roof is not drawn dashed");
    cr_expect(strstr(html, "the best GB/s any configuration of this campaign reached (400) times intensity up "
                     "to 10 FLOP/byte, then the best GFLOP/s it reached (4000)"),
              "the roof's figures are not given");
    free(legend);
    free(svg);
    free(html);
    free(html_path);
}

Test(report, convergence_shows_every_evaluation_by_status_under_the_best_so_far_line)
{
    char *html_path = cli_path(scratch, "report.html");
    char *html = make_report(html_path, NULL);
    char *svg = chart_svg(html, "Campaign 1: evaluations and best so far");
    char *legend = cut_legend(svg);
    static const char *const entries[] = {">ok<", ">compile<", ">wrong_result<", ">best so far<"};
    for (size_t k = 0; k < sizeof entries / sizeof entries[0]; k++)
        cr_expect(strstr(legend, entries[k]), "the legend lacks %s", entries[k]);
    cr_expect(!strstr(legend, ">crash<"), "a status that did not occur is in the legend");
    cr_expect(strstr(svg, ">failed</text>"), "the failures' band is not named");
    plot_box b = axes_of(svg);
    circle c[32];
    size_t n = circles_of(svg, c, 32);
    /* Campaign 1 evaluated c1 c4 c5 c2 c6 c3: four passed, c5 failed to
     * compile, c6 gave a wrong result. */
    cr_assert_eq(n, 6, "%zu points for 6 evaluations", n);
    size_t ok = 0, compile = 0, wrong = 0;
    for (size_t k = 0; k < n; k++) {
        if (strcmp(c[k].fill, "#1f77b4") == 0) {
            ok++;
            cr_expect(inside(&c[k], &b), "a passed evaluation outside the plot");
        } else {
            compile += strcmp(c[k].fill, "#ff7f0e") == 0;
            wrong += strcmp(c[k].fill, "#d62728") == 0;
            cr_expect(c[k].cy < b.top, "a failed evaluation is not in the band above the plot");
        }
    }
    cr_expect_eq(ok, 4);
    cr_expect_eq(compile, 1);
    cr_expect_eq(wrong, 1);
    /* The failures sit at their evaluation numbers: compile 3rd, wrong 5th. */
    double x_compile = 0, x_wrong = 0;
    for (size_t k = 0; k < n; k++) {
        if (strcmp(c[k].fill, "#ff7f0e") == 0) x_compile = c[k].cx;
        if (strcmp(c[k].fill, "#d62728") == 0) x_wrong = c[k].cx;
    }
    cr_expect_gt(x_wrong, x_compile);
    cr_expect(strstr(svg, "<path fill=\"none\" stroke=\"#222222\""), "no best-so-far line");
    free(legend);
    free(svg);
    free(html);
    free(html_path);
}

/* ------------------------------------------------------------ noisy */

/* The HTML from `from` up to the end of the first table after it. */
static char *table_after(const char *html, const char *from)
{
    const char *start = strstr(html, from);
    cr_assert(start, "no %s", from);
    const char *end = strstr(start, "</table>");
    cr_assert(end);
    return strndup(start, (size_t)(end - start));
}

static size_t occurrences(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

Test(report, top_table_has_a_column_per_parameter_and_flags_noisy_configurations)
{
    char *noisy = cli_path(scratch, "noisy.db");
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create_noisy(noisy, &err), 0, "%s", err.message);
    free(db);
    db = noisy;
    char *html_path = cli_path(scratch, "report.html");
    char *html = make_report(html_path, NULL);
    char *top = table_after(html, "id=\"campaign-1-top\"");
    cr_expect(strstr(top, "<th>#</th><th>wg</th><th>mode</th><th>median</th>"),
              "the top table has no column per parameter: %.300s", top);
    cr_expect(!strstr(top, "<th>configuration</th>"), "the top table still has the text column");
    cr_expect(strstr(top, "<td><code>32</code></td><td><code>plain</code></td>"),
              "the best configuration's values are not in their columns");
    /* wg=32,plain (sd 58.8 % of the median) and wg=32,hostile (10.5 %), not
     * wg=128,plain (9.5 %) or wg=64,plain (0.9 %). */
    cr_expect_eq(occurrences(top, "<td class=\"flag\">yes</td>"), 2, "%s", top);
    cr_expect_eq(occurrences(top, "<td class=\"flag\"></td>"), 2, "%s", top);
    char *best = table_after(html, "id=\"campaign-1-best\"");
    cr_expect(strstr(best, "sd 58.8 % of the median: noisy"), "%s", best);
    free(best);
    free(top);
    free(html);

    /* The fixture's configurations are steady: nothing is flagged. */
    char *steady = cli_path(scratch, "steady.db");
    cr_assert_eq(report_fixture_create(steady, true, &err), 0, "%s", err.message);
    free(db);
    db = steady;
    html = make_report(html_path, NULL);
    cr_expect(!strstr(html, "<td class=\"flag\">yes</td>"), "a steady configuration is flagged");
    cr_expect(!strstr(html, ": noisy"), "a steady best configuration is called noisy");
    free(html);
    free(html_path);
}

Test(report, best_flags_a_noisy_best_configuration)
{
    char *noisy = cli_path(scratch, "noisy.db");
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create_noisy(noisy, &err), 0, "%s", err.message);
    cli_result r = cli_run(CLI_ARGS("best", "--db", noisy));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "best       " REPORT_FIXTURE_NOISY_BEST), "%s", r.out);
    cr_expect(strstr(r.out, "noisy      sd 59 % of the median"), "%s", r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("best", "--db", noisy, "--format", "csv"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *flag = cli_csv_cell(r.out, 0, "noisy");
    cr_expect_str_eq(flag, "1");
    free(flag);
    cli_result_free(&r);
    /* A steady best configuration is not flagged. */
    r = cli_run(CLI_ARGS("best", "--db", db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.out, "noisy"), "%s", r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("best", "--db", db, "--format", "csv"));
    flag = cli_csv_cell(r.out, 0, "noisy");
    cr_expect_str_eq(flag, "0");
    free(flag);
    cli_result_free(&r);
    free(noisy);
}

/* The verdict line `skytune best` prints for the database, from "verdict"
 * to its parenthesis: "indistinguishable from all 3 of the next 3 at 95 %". */
static char *best_verdict(const char *database)
{
    cli_result r = cli_run(CLI_ARGS("best", "--db", database));
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *line = strstr(r.out, "  verdict    ");
    cr_assert(line, "skytune best gives no verdict: %s", r.out);
    line += strlen("  verdict    ");
    char *verdict = strndup(line, strcspn(line, "(\n"));
    while (*verdict && verdict[strlen(verdict) - 1] == ' ') verdict[strlen(verdict) - 1] = '\0';
    cli_result_free(&r);
    return verdict;
}

Test(report, best_says_whether_the_runner_ups_can_be_told_apart)
{
    /* The noisy best's runs (1.2 to 6.0 ms) straddle every runner-up's:
     * none is told apart, and each is listed with its p-value. */
    char *noisy = cli_path(scratch, "noisy.db");
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create_noisy(noisy, &err), 0, "%s", err.message);
    char *said = best_verdict(noisy);
    cr_expect_str_eq(said, "indistinguishable from all 3 of the next 3 at 95 %");
    free(db);
    db = noisy;
    char *html_path = cli_path(scratch, "report.html");
    char *html = make_report(html_path, NULL);
    char *best = table_after(html, "id=\"campaign-1-best\"");
    char row[256];
    snprintf(row, sizeof row, "<th>runner-ups</th><td>%s (rank-sum test", said);
    cr_expect(strstr(best, row), "the report's verdict differs from best's (%s): %s", said, best);
    cr_expect(strstr(best, "<th>indistinguishable #2</th><td><code>wg=64,mode=plain</code> "
                           "(median 3.5 ms, 7 runs, p 0."),
              "%s", best);
    cr_expect(strstr(best, "<th>indistinguishable #4</th>"), "%s", best);
    cr_expect(strstr(html, "From <code>reports/sql/top_samples.sql</code>"),
              "the verdict does not name its SQL");
    free(said);
    free(best);
    free(html);

    /* The steady fixture's best (c2, 490 to 520 ns) lies below every
     * runner-up's runs in campaign 1: each is told apart, none listed. */
    char *steady = cli_path(scratch, "steady.db");
    cr_assert_eq(report_fixture_create(steady, true, &err), 0, "%s", err.message);
    said = best_verdict(steady);
    cr_expect_str_eq(said, "faster than the next 3 at 95 %");
    free(db);
    db = steady;
    html = make_report(html_path, NULL);
    best = table_after(html, "id=\"campaign-1-best\"");
    snprintf(row, sizeof row, "<th>runner-ups</th><td>%s (rank-sum test", said);
    cr_expect(strstr(best, row), "the report's verdict differs from best's (%s): %s", said, best);
    cr_expect(!strstr(best, "indistinguishable #"), "%s", best);
    free(said);
    free(best);
    free(html);
    free(html_path);
}

/* ------------------------------------------------------------ python checks */

/* Balanced non-void elements for html.parser; each <svg> parsed as XML. */
static const char well_formed_py[] =
    "import sys, re, html.parser, xml.etree.ElementTree as ET\n"
    "VOID = {'area','base','br','col','embed','hr','img','input','link','meta','source',\n"
    "        'track','wbr'}\n"
    "class Check(html.parser.HTMLParser):\n"
    "    def __init__(self):\n"
    "        super().__init__(convert_charrefs=True)\n"
    "        self.stack = []\n"
    "    def handle_starttag(self, tag, attrs):\n"
    "        if tag not in VOID: self.stack.append((tag, self.getpos()))\n"
    "    def handle_startendtag(self, tag, attrs):\n"
    "        pass\n"
    "    def handle_endtag(self, tag):\n"
    "        if tag in VOID: return\n"
    "        if not self.stack: sys.exit('closing </%s> at %s with nothing open' % (tag, self.getpos()))\n"
    "        open_tag, pos = self.stack.pop()\n"
    "        if open_tag != tag: sys.exit('</%s> at %s closes <%s> from %s' % (tag, self.getpos(), open_tag, pos))\n"
    "text = open(sys.argv[1], encoding='utf-8').read()\n"
    "if not text.startswith('<!DOCTYPE html>'): sys.exit('no doctype')\n"
    "c = Check(); c.feed(text); c.close()\n"
    "if c.stack: sys.exit('left open: %s' % c.stack)\n"
    "svgs = re.findall(r'<svg\\b.*?</svg>', text, re.S)\n"
    "if not svgs: sys.exit('no svg')\n"
    "for k, s in enumerate(svgs):\n"
    "    try: ET.fromstring(s)\n"
    "    except ET.ParseError as e: sys.exit('svg %d: %s' % (k, e))\n"
    "print('%d svg' % len(svgs))\n";

/* Required fields and values of T4 results schema 1.0.0. */
static const char t4_schema_py[] =
    "import sys, json, re\n"
    "d = json.load(open(sys.argv[1]))\n"
    "assert re.match(r'^[0-9]+\\.[0-9]+\\.[0-9]+$', d['schema_version']), 'schema_version'\n"
    "assert isinstance(d['results'], list) and d['results'], 'results'\n"
    "ok = {'timeout','compile','runtime','correctness','constraints','correct'}\n"
    "for k, r in enumerate(d['results']):\n"
    "    for f in ('configuration','times','invalidity','correctness'):\n"
    "        assert f in r, 'result %d has no %s' % (k, f)\n"
    "    assert isinstance(r['configuration'], dict), 'configuration'\n"
    "    assert isinstance(r['times'], dict), 'times'\n"
    "    assert r['invalidity'] in ok, r['invalidity']\n"
    "    assert isinstance(r['correctness'], (int, float)), 'correctness'\n"
    "    assert isinstance(r['times'].get('runtimes', []), list), 'runtimes'\n"
    "    for m in r.get('measurements', []):\n"
    "        assert isinstance(m['name'], str) and isinstance(m['value'], (int, float)), m\n"
    "print(len(d['results']))\n";

/* Run python3 on script with one argument; false (after a visible skip)
 * when python3 is missing. */
static bool run_python(const char *script, const char *arg, const char *what)
{
    if (!have("python3")) {
        cr_log_warn("python3 is not on PATH: %s not checked", what);
        fprintf(stderr, "SKIP: python3 is not on PATH: %s not checked\n", what);
        return false;
    }
    char *py = cli_path(scratch, "check.py");
    cli_write_file(py, script, strlen(script));
    char *log = cli_path(scratch, "check.log");
    char command[1024];
    snprintf(command, sizeof command, "python3 '%s' '%s' >'%s' 2>&1", py, arg, log);
    int rc = system(command);
    char *out = read_text(log);
    cr_assert_eq(rc, 0, "%s: %s", what, out);
    free(out);
    free(log);
    free(py);
    return true;
}

Test(report, html_is_well_formed_and_each_svg_is_xml)
{
    char *html_path = cli_path(scratch, "report.html");
    free(make_report(html_path, NULL));
    if (!run_python(well_formed_py, html_path, "well-formedness of the HTML"))
        cr_skip_test("python3 is not on PATH");
    free(html_path);
}

/* ------------------------------------------------------------ browser */

Test(report, renders_in_headless_chromium_without_console_errors)
{
    if (!have("chromium")) {
        fprintf(stderr, "SKIP: chromium is not on PATH: the report was not rendered\n");
        cr_skip_test("chromium is not on PATH (apt-get install chromium)");
    }
    char *html_path = cli_path(scratch, "report.html");
    free(make_report(html_path, NULL));
    char *png = cli_path(scratch, "report.png");
    char *log = cli_path(scratch, "chromium.log");
    char *profile = cli_path(scratch, "profile");
    char command[2048];
    snprintf(command, sizeof command,
             "timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run "
             "--user-data-dir='%s' --window-size=1280,4000 --screenshot='%s' "
             "--enable-logging=stderr --v=0 'file://%s' >'%s' 2>&1",
             profile, png, html_path, log);
    int rc = system(command);
    char *out = read_text(log);
    cr_assert_eq(rc, 0, "chromium failed:\n%s", out);
    /* The report has no script, so any console line at all is an error. */
    cr_assert(!strstr(out, "Uncaught") && !strstr(out, "ERROR:CONSOLE") && !strstr(out, ":CONSOLE"),
              "console errors:\n%s", out);
    struct stat info;
    cr_assert(stat(png, &info) == 0 && info.st_size > 10000, "no screenshot:\n%s", out);
    free(out);
    free(profile);
    free(log);
    free(png);
    free(html_path);
}

/* ------------------------------------------------------------ exports */

Test(report, wisdom_json_lists_the_best_configuration_per_problem)
{
    char *path = cli_path(scratch, "wisdom.json");
    cli_result r = cli_run(CLI_ARGS("export", "--db", db, "--format", "json", "--out", path));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "wrote 2 entries"), "%s", r.out);
    cli_result_free(&r);
    json_error_t error;
    json_t *root = json_load_file(path, 0, &error);
    cr_assert(json_is_array(root), "%s: %s", path, error.text);
    cr_assert_eq(json_array_size(root), 2);
    json_t *b = json_array_get(root, 1);
    cr_assert_str_eq(json_string_value(json_object_get(b, "plugin")), "toy");
    cr_assert_str_eq(json_string_value(json_object_get(b, "device")), REPORT_FIXTURE_DEVICE);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(b, "problem"), "n")), 4000);
    json_t *config = json_object_get(b, "configuration");
    cr_assert_eq(json_integer_value(json_object_get(config, "wg")), 128);
    cr_assert_str_eq(json_string_value(json_object_get(config, "mode")), "plain");
    cr_assert_float_eq(json_number_value(json_object_get(b, "median_ns")), 2000.0, 1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(b, "gflops")), 4000.0, 1e-9);
    json_decref(root);
    free(path);
}

static const char header_main[] =
    "#include <stdio.h>\n#include <string.h>\n#include \"wisdom.h\"\n"
    "int main(void)\n{\n"
    "    const double a[2] = {1000, 2}, near_b[2] = {3000, 2}, zero[2] = {1000, 0};\n"
    "    const skytune_toy_entry *e = skytune_toy_lookup(\"Fixture GPU 9000\", a);\n"
    "    if (!e || e->config.wg != 64 || strcmp(e->config.mode, \"plain\") != 0) return 1;\n"
    "    e = skytune_toy_lookup(\"Fixture GPU 9000\", near_b);\n"
    "    if (!e || e->config.wg != 128 || strcmp(e->problem, \"n=4000,batch=2\") != 0) return 2;\n"
    "    if (skytune_toy_lookup(\"Other GPU\", a) != NULL) return 3;\n"
    "    if (skytune_toy_lookup(\"Fixture GPU 9000\", zero) != NULL) return 4;\n"
    "    if (SKYTUNE_TOY_N_ENTRIES != 2 || SKYTUNE_TOY_N_PROBLEM_VALUES != 2) return 5;\n"
    "    if (strcmp(skytune_toy_problem_names[0], \"n\") != 0) return 6;\n"
    "    return 0;\n}\n";

Test(report, header_compiles_and_its_lookup_follows_the_rule)
{
    if (!cli_have_compiler()) {
        fprintf(stderr, "SKIP: no C compiler (cc): the header was not compiled\n");
        cr_skip_test("no C compiler");
    }
    char *header = cli_path(scratch, "wisdom.h");
    cli_result r = cli_run(CLI_ARGS("export", "--db", db, "--format", "header", "--out", header));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    char *main_c = cli_path(scratch, "main.c");
    char *exe = cli_path(scratch, "lookup");
    char *log = cli_path(scratch, "cc.log");
    cli_write_file(main_c, header_main, strlen(header_main));
    char command[1024];
    snprintf(command, sizeof command,
             "cc -std=c11 -Wall -Wextra -Werror -pedantic -I'%s' '%s' -o '%s' -lm >'%s' 2>&1 && '%s'",
             scratch, main_c, exe, log, exe);
    int rc = system(command);
    char *out = read_text(log);
    cr_assert_eq(rc, 0, "the header does not compile, or its lookup broke the rule (%d):\n%s", rc,
                 out);
    free(out);
    /* The header compiles in a file that does not use it, without warnings. */
    snprintf(command, sizeof command,
             "echo '#include \"wisdom.h\"' | cc -std=c11 -Wall -Wextra -Werror -fsyntax-only "
             "-I'%s' -x c - >'%s' 2>&1",
             scratch, log);
    rc = system(command);
    out = read_text(log);
    cr_assert_eq(rc, 0, "including the header alone warns:\n%s", out);
    free(out);
    free(log);
    free(exe);
    free(main_c);
    free(header);
}

Test(report, t4_export_meets_the_schema_and_reads_back_through_replay)
{
    char *path = cli_path(scratch, "campaign1.t4.json");
    cli_result r = cli_run(CLI_ARGS("export", "--db", db, "--format", "t4", "--campaign", "1",
                                    "--out", path));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "wrote 6 results"), "%s", r.out);
    cli_result_free(&r);
    run_python(t4_schema_py, path, "the T4 schema's required fields");

    replay_dataset *d = NULL;
    skytune_error err = {0};
    cr_assert_eq(replay_load(path, 0, &d, &err), 0, "replay_load: %s", err.message);
    cr_assert_eq(d->format, REPLAY_T4);
    cr_assert_eq(d->n_entries, 6);
    cr_assert_eq(d->n_params, 2);
    int wg = strcmp(d->params[0].name, "wg") == 0 ? 0 : 1;
    cr_assert_str_eq(d->params[wg].name, "wg");
    cr_assert_str_eq(d->params[1 - wg].name, "mode");
    /* Campaign 1's evaluations in order: c1 c4 c5 c2 c6 c3. */
    static const long long wgs[] = {32, 32, 64, 64, 128, 128};
    static const bool hostile[] = {false, true, true, false, true, false};
    static const measurement_status statuses[] = {MEAS_OK, MEAS_OK, MEAS_COMPILE,
                                                  MEAS_OK, MEAS_WRONG_RESULT, MEAS_OK};
    static const double times[] = {1000, 2000, 0, 500, 0, 800};
    for (size_t k = 0; k < 6; k++) {
        const replay_entry *e = &d->entries[k];
        cr_assert_eq(e->values[wg].i, wgs[k], "entry %zu: wg %lld", k, (long long)e->values[wg].i);
        cr_assert_str_eq(e->values[1 - wg].s, hostile[k] ? REPORT_FIXTURE_HOSTILE : "plain");
        cr_assert_eq(e->status, statuses[k], "entry %zu: status %d", k, (int)e->status);
        if (statuses[k] == MEAS_OK)
            cr_assert(fabs(e->time_ns - times[k]) <= 1e-6 * times[k], "entry %zu: %.9g ns", k,
                      e->time_ns);
        cr_assert(fabs(e->compile_s - 1.0) < 1e-9, "entry %zu: compile %.9g s", k, e->compile_s);
    }
    replay_free(d);
    free(path);
}

Test(report, t4_export_needs_a_campaign_when_there_are_several)
{
    cli_result r = cli_run(CLI_ARGS("export", "--db", db, "--format", "t4"));
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "--campaign"), "%s", r.err);
    cli_result_free(&r);
}

/* ------------------------------------------------------------ query */

Test(report, query_prints_json_with_numbers_as_numbers)
{
    cli_result r = cli_run(CLI_ARGS("query", "--db", db, "snr", "--campaign", "1", "--format",
                                    "json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_error_t error;
    json_t *rows = json_loads(r.out, 0, &error);
    cr_assert(json_is_array(rows), "not JSON: %s\n%s", error.text, r.out);
    cr_assert_eq(json_array_size(rows), 1);
    json_t *row = json_array_get(rows, 0);
    cr_assert(json_is_integer(json_object_get(row, "campaign")));
    cr_assert(json_is_real(json_object_get(row, "snr")));
    cr_assert_float_eq(json_real_value(json_object_get(row, "snr")), 1625 / sqrt(1171875.0), 1e-9);
    cr_assert_str_eq(json_string_value(json_object_get(row, "metric")), "GFLOP/s");
    json_decref(rows);
    cli_result_free(&r);

    r = cli_run(CLI_ARGS("query", "--db", db, "top", "--campaign", "1", "--limit", "1",
                         "--format", "csv"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "1,1,\"wg=64,mode=plain\",500.0"), "%s", r.out);
    cli_result_free(&r);

    r = cli_run(CLI_ARGS("query", "--db", db, "nosuch"));
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "by-param"), "the error lists the queries: %s", r.err);
    cli_result_free(&r);
}

/* ------------------------------------------------------------ peaks */

Test(report, set_peaks_records_the_roofline_ceilings)
{
    char *bare = cli_path(scratch, "bare.db");
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create(bare, false, &err), 0, "%s", err.message);
    cli_result r = cli_run(CLI_ARGS("devices", "--set-peaks", "1500,250.5", "--db", bare));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    char *gflops = cli_db_text(bare, "SELECT peak_gflops FROM devices");
    char *gbs = cli_db_text(bare, "SELECT peak_gbs FROM devices");
    cr_assert_float_eq(strtod(gflops, NULL), 1500.0, 1e-9);
    cr_assert_float_eq(strtod(gbs, NULL), 250.5, 1e-9);
    free(gflops);
    free(gbs);
    r = cli_run(CLI_ARGS("devices", "--set-peaks", "1500", "--db", bare));
    cr_assert_eq(r.status, 2, "a malformed value is a usage error");
    cli_result_free(&r);
    free(bare);
}
