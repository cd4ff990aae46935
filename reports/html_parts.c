#include "html_parts.h"

#include "html_escape.h"

void html_table_open(FILE *f, const html_column *cols, size_t n_cols)
{
    fputs("<table>\n<thead><tr>", f);
    for (size_t c = 0; c < n_cols; c++) {
        fputs("<th>", f);
        html_escape_write(f, cols[c].header);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
}

void html_table_rows(FILE *f, const query_table *t, size_t first, size_t end,
                     const html_column *cols, size_t n_cols)
{
    for (size_t r = first; r < end && r < t->n_rows; r++) {
        fputs("<tr>", f);
        for (size_t c = 0; c < n_cols; c++) {
            char buf[64];
            const char *text =
                report_format_cell(query_cell(t, r, cols[c].column), cols[c].format, buf, sizeof buf);
            bool number = cols[c].format != FORMAT_TEXT && cols[c].format != FORMAT_FLAG;
            fputs(number ? "<td class=\"num\">"
                  : cols[c].format == FORMAT_FLAG ? "<td class=\"flag\">"
                                                  : "<td>",
                  f);
            if (cols[c].code) fputs("<code>", f);
            html_escape_write(f, text);
            if (cols[c].code) fputs("</code>", f);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
}

void html_table_close(FILE *f)
{
    fputs("</tbody>\n</table>\n", f);
}

void html_table(FILE *f, const query_table *t, size_t first, size_t end, const html_column *cols,
                size_t n_cols)
{
    html_table_open(f, cols, n_cols);
    html_table_rows(f, t, first, end, cols, n_cols);
    html_table_close(f);
}

void html_source_note(FILE *f, const query_def *q)
{
    fputs("<p class=\"src\">From <code>reports/sql/", f);
    html_escape_write(f, q->file);
    fputs("</code> (<code>skytune query ", f);
    html_escape_write(f, q->name);
    fputs("</code>).</p>\n", f);
}

void html_kv_open(FILE *f)
{
    fputs("<table class=\"kv\">\n<tbody>\n", f);
}

void html_kv_row(FILE *f, const char *key, const char *value, bool code)
{
    fputs("<tr><th>", f);
    html_escape_write(f, key);
    fputs("</th><td>", f);
    if (code) fputs("<code>", f);
    html_escape_write(f, value ? value : "\xE2\x80\x93");
    if (code) fputs("</code>", f);
    fputs("</td></tr>\n", f);
}

void html_kv_close(FILE *f)
{
    fputs("</tbody>\n</table>\n", f);
}

void html_heading(FILE *f, int level, const char *id, const char *text)
{
    fprintf(f, "<h%d", level);
    if (id) {
        fputs(" id=\"", f);
        html_escape_write(f, id);
        fputs("\"", f);
    }
    fputs(">", f);
    html_escape_write(f, text);
    fprintf(f, "</h%d>\n", level);
}

void html_paragraph(FILE *f, const char *css_class, const char *text)
{
    if (css_class) {
        fputs("<p class=\"", f);
        html_escape_write(f, css_class);
        fputs("\">", f);
    } else {
        fputs("<p>", f);
    }
    html_escape_write(f, text);
    fputs("</p>\n", f);
}
