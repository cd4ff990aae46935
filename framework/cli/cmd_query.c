#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "db_open.h"
#include "nearest.h"
#include "query.h"
#include "query_json.h"
#include "quote.h"
#include "terminal_text.h"

static const cli_option options[] = {
    {"db", "FILE", false, "result database (required)"},
    {"campaign", "ID", false, "only this campaign (required by t4)"},
    {"plugin", "NAME", false, "only this plugin's campaigns"},
    {"limit", "N", false, "rows per campaign where the query ranks (top; default 20)"},
    {"format", "FORMAT", false, "table (default), csv or json"},
    {"list", NULL, false, "list the queries and what each returns"},
    BUSY_TIMEOUT_OPTION,
};

/* Display width of UTF-8 text: one column per character. */
static size_t text_width(const char *text)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if ((*p & 0xC0) != 0x80) n++;
    return n;
}

#define MAX_COLUMN 60

static void print_cell(const char *text, size_t width, bool last)
{
    size_t w = text_width(text);
    if (w > MAX_COLUMN) {
        /* Cut at a character boundary and mark the cut. */
        size_t chars = 0;
        const unsigned char *p = (const unsigned char *)text;
        while (*p && chars < MAX_COLUMN - 1) {
            p++;
            while ((*p & 0xC0) == 0x80) p++;
            chars++;
        }
        fwrite(text, 1, (size_t)(p - (const unsigned char *)text), stdout);
        fputs("\xE2\x80\xA6", stdout);
        w = MAX_COLUMN;
    } else {
        fputs(text, stdout);
    }
    if (!last)
        for (size_t k = w; k < width + 2; k++) putchar(' ');
}

/* A cell as the table shows it: what the database holds, escaped (its
 * texts may hold any bytes), NULL as "NULL". Cut at MAX_COLUMN anyway, so
 * a cell longer than the room here loses nothing shown. */
static const char *shown_cell(const char *text, char *buf, size_t len)
{
    return quote_text(text ? text : "NULL", buf, len);
}

static void print_table(const query_table *t)
{
    size_t *widths = calloc(t->n_cols ? t->n_cols : 1, sizeof *widths);
    if (!widths) {
        terminal_data data;
        csv_write_table(terminal_data_begin(&data), t);
        terminal_data_end(&data);
        return;
    }
    char shown[QUOTE_TEXT];
    for (size_t c = 0; c < t->n_cols; c++) {
        widths[c] = text_width(shown_cell(t->cols[c], shown, sizeof shown));
        for (size_t r = 0; r < t->n_rows; r++) {
            size_t w = text_width(shown_cell(t->cells[r * t->n_cols + c], shown, sizeof shown));
            if (w > widths[c]) widths[c] = w;
        }
        if (widths[c] > MAX_COLUMN) widths[c] = MAX_COLUMN;
    }
    for (size_t c = 0; c < t->n_cols; c++)
        print_cell(shown_cell(t->cols[c], shown, sizeof shown), widths[c], c + 1 == t->n_cols);
    putchar('\n');
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_cols; c++)
            print_cell(shown_cell(t->cells[r * t->n_cols + c], shown, sizeof shown), widths[c],
                       c + 1 == t->n_cols);
        putchar('\n');
    }
    free(widths);
}

static void print_list(void)
{
    printf("queries (reports/sql/FILE; parameters ?1 campaign, ?2 plugin, ?3 limit):\n");
    for (size_t k = 0; k < query_count(); k++) {
        const query_def *q = query_at(k);
        printf("  %-16s %s (%s)\n", q->name, q->summary, q->file);
    }
}

int cmd_query(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("query",
                       "Run one of the named queries the report is made of, for scripts: the "
                       "SQL is reports/sql/<name>.sql, the same numbers the report shows. "
                       "--list names them.",
                       options, sizeof options / sizeof options[0], 1, "NAME", argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    if (cli_flag(&args, "list")) {
        print_list();
        return EXIT_OK;
    }
    const char *path = cli_get(&args, "db");
    const char *campaign = cli_get(&args, "campaign");
    const char *plugin = cli_get(&args, "plugin");
    const char *limit = cli_get(&args, "limit");
    const char *format = cli_get(&args, "format") ? cli_get(&args, "format") : "table";
    if (!path || args.n_positional != 1) {
        cli_error("query: --db FILE and a query NAME are required (skytune query --list)");
        return EXIT_USAGE;
    }
    const char *name = args.positional[0];
    const query_def *q = query_find(name);
    if (!q) {
        char names[512];
        query_names(names, sizeof names);
        const char *known[64];
        size_t n_known = 0;
        for (; n_known < query_count() && n_known < 64; n_known++)
            known[n_known] = query_at(n_known)->name;
        char shown[QUOTE_TEXT], hint[96];
        cli_error("query: no query named '%s'%s; the queries are: %s",
                  quote_text(name, shown, sizeof shown),
                  nearest_hint(name, known, n_known, NULL, hint, sizeof hint), names);
        return EXIT_USAGE;
    }
    static const char *const formats[] = {"table", "csv", "json"};
    if (cli_check_choice("query: --format", format, formats, 3) != 0) return EXIT_USAGE;
    if (cli_campaign_arg(campaign) != 0) return EXIT_USAGE;
    if (strcmp(name, "t4") == 0 && !campaign) {
        cli_error("query: t4 is about one campaign: give --campaign ID");
        return EXIT_USAGE;
    }
    unsigned long long n = 0;
    if (limit) {
        if (cli_parse_u64("limit", limit, &n) != 0) return EXIT_USAGE;
        if (n == 0) {
            cli_error("query: --limit takes a number of rows from 1 on");
            return EXIT_USAGE;
        }
    }
    double busy_timeout_s;
    if (cli_busy_timeout(&args, &busy_timeout_s) != 0) return EXIT_USAGE;
    store *st = cli_open_existing_db(path, busy_timeout_s);
    if (!st) return EXIT_FAILED;
    const char *params[QUERY_N_PARAMS] = {campaign, plugin, limit};
    query_table t;
    skytune_error err = {0};
    if (query_run_named(store_handle(st), name, params, QUERY_N_PARAMS, &t, &err) != 0) {
        char shown[QUOTE_PATH];
        cli_error("%s: %s", quote_text(path, shown, sizeof shown), err.message);
        store_close(st);
        return EXIT_FAILED;
    }
    store_close(st);
    rc = EXIT_OK;
    if (strcmp(format, "csv") == 0) {
        terminal_data data;
        if (csv_write_table(terminal_data_begin(&data), &t) != 0) rc = EXIT_FAILED;
        if (terminal_data_end(&data) != 0) rc = EXIT_FAILED;
    } else if (strcmp(format, "json") == 0) {
        json_t *rows = query_table_to_json(&t);
        if (!rows || json_dumpf(rows, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                                  JSON_REAL_PRECISION(15)) != 0) {
            cli_error("query: out of memory writing JSON");
            rc = EXIT_FAILED;
        } else {
            putchar('\n');
        }
        json_decref(rows);
    } else {
        print_table(&t);
    }
    query_table_free(&t);
    return rc;
}
