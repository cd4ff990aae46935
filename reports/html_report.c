#include "html_report.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "html_escape.h"
#include "html_parts.h"
#include "html_sections.h"

static const char style[] =
    "body{font-family:sans-serif;font-size:14px;line-height:1.4;color:#1a1a1a;"
    "max-width:1180px;margin:0 auto;padding:0 16px 48px}\n"
    "h1{font-size:24px;margin:24px 0 4px}h2{font-size:20px;margin:40px 0 8px;"
    "border-bottom:2px solid #1f77b4;padding-bottom:4px}h3{font-size:16px;margin:24px 0 6px}\n"
    "table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}\n"
    "th,td{border:1px solid #d0d0d0;padding:3px 7px;text-align:left;vertical-align:top}\n"
    "thead th{background:#f0f3f7}td.num{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}td.flag{color:#8a4b00;font-weight:bold}\n"
    "table.kv th{background:#f7f7f7;font-weight:normal;color:#444;white-space:nowrap}\n"
    "code{font-family:monospace;font-size:12px;overflow-wrap:anywhere;white-space:pre-wrap}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:12px}svg.chart{border:1px solid #e4e4e4;"
    "margin:6px 0;max-width:100%;height:auto}\n"
    "p.src{color:#666;font-size:12px;margin:2px 0 8px}p.warn{color:#8a4b00;"
    "background:#fff4e0;padding:6px 8px;border-left:3px solid #ff7f0e}\n"
    "p.snr{background:#f0f6fb;padding:6px 8px;border-left:3px solid #1f77b4}\n"
    "nav ul{padding-left:20px}nav li{margin:2px 0}\n";

typedef struct toc_writer {
    FILE *f;
} toc_writer;

static void toc_line(void *ctx, const char *anchor, const char *title)
{
    FILE *f = ((toc_writer *)ctx)->f;
    fputs("<li><a href=\"#", f);
    html_escape_write(f, anchor);
    fputs("\">", f);
    html_escape_write(f, title);
    fputs("</a></li>\n", f);
}

static void write_header(FILE *f, const report_data *d)
{
    const report_options *o = &d->options;
    char scope[512], generated[64];
    if (o->campaign)
        snprintf(scope, sizeof scope, "campaign %s", o->campaign);
    else if (o->plugin)
        snprintf(scope, sizeof scope, "every campaign of plugin %s", o->plugin);
    else
        snprintf(scope, sizeof scope, "every campaign");
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(generated, sizeof generated, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        snprintf(generated, sizeof generated, "unknown");
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    fputs("skytune report: ", f);
    html_escape_write(f, o->source ? o->source : "database");
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
    html_heading(f, 1, NULL, "skytune report");
    html_kv_open(f);
    html_kv_row(f, "database", o->source, true);
    html_kv_row(f, "scope", scope, false);
    html_kv_row(f, "generated", generated, false);
    html_kv_close(f);
    html_paragraph(f, NULL,
                   "Every figure below comes from one of the SQL files in reports/sql/, named under "
                   "it; run it yourself with skytune query NAME --db FILE, or in the sqlite3 "
                   "shell. Times are medians of the timed runs unless said otherwise.");
}

static void write_contents(FILE *f, const report_data *d)
{
    const query_table *t = &d->tables[REPORT_CAMPAIGNS];
    fputs("<nav>\n", f);
    html_heading(f, 2, "contents", "Contents");
    fputs("<ul>\n", f);
    for (size_t r = 0; r < t->n_rows; r++) {
        char anchor[64], title[512];
        snprintf(anchor, sizeof anchor, "campaign-%s", query_cell(t, r, "campaign"));
        snprintf(title, sizeof title, "Campaign %s: %s on %s, %s, %s", query_cell(t, r, "campaign"),
                 query_cell(t, r, "plugin"), query_cell(t, r, "device"),
                 query_cell(t, r, "problem"), query_cell(t, r, "strategy"));
        toc_writer w = {f};
        toc_line(&w, anchor, title);
    }
    toc_writer w = {f};
    html_across_write(NULL, d, toc_line, &w, NULL);
    fputs("</ul>\n</nav>\n", f);
}

int html_report_write(FILE *f, const report_data *d, skytune_error *err)
{
    write_header(f, d);
    write_contents(f, d);
    size_t cursors[REPORT_N_QUERIES] = {0};
    const query_table *t = &d->tables[REPORT_CAMPAIGNS];
    for (size_t r = 0; r < t->n_rows; r++)
        if (html_campaign_write(f, d, r, cursors, err) != 0) return -1;
    if (html_across_write(f, d, NULL, NULL, err) != 0) return -1;
    fputs("</body>\n</html>\n", f);
    if (ferror(f)) return err_set(err, "writing the report failed");
    return 0;
}

int html_report_save(const report_data *d, const char *path, skytune_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err) != 0) return -1;
    if (html_report_write(af.f, d, err) != 0) {
        atomic_file_abort(&af);
        return err_prefix(err, "%s", path);
    }
    return atomic_file_commit(&af, err);
}
