/* Every query the documentation shows (docs_queries.h says what counts as
 * one) runs against a real result database without an error and returns at
 * least one row, so that the docs cannot show a query that fails or a
 * filter that matches nothing.
 *
 * The database is made here by real campaigns on the OpenCL device (PoCL
 * on a machine without a GPU), one of each kind the docs speak of:
 *   1  dedispersion, preset small (dms=8)
 *   2  dedispersion, preset small with dms=16: a problem parameter varies
 *   3  vector_add, preset small, every configuration of two work-group sizes
 *   4  gridding, preset small, the tiled variant: several kernels per run,
 *      so measurement_parts has rows (labels clear, sort, grid)
 *   5  the hostile test plugin, where one configuration crashes the worker
 *      in verification: failed measurements
 *   6  transpose, preset small, the direct kernel from SCTP to every layout:
 *      derived values (the layout distance) of every distance
 *   7  lofar_pipeline, preset small, Pipeline 1 with the FFT, two FIR, FFT
 *      and beam former layouts each: a pipeline's parts, both schemes
 * and then a second database with campaign 3 run again is merged in, so
 * that duplicate_measurements has rows.
 *
 * SQL runs through the SQLite library, each block in a transaction that is
 * rolled back: a statement that returns columns must return a row, one
 * that writes (the docs' DELETE) must change one. Dot commands and shell
 * sessions run in the sqlite3 program on a copy of the database, from a
 * folder that sees the source tree's files (`.read reports/sql/top.sql`);
 * they must exit with status 0 and write nothing to standard error, and a
 * session must print rows. */
#include <criterion/criterion.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_harness.h"
#include "docs_queries.h"
#include "hostile_harness.h"

static char *scratch;

static void setup(void)
{
    scratch = hostile_scratch_open();
}

static void teardown(void)
{
    hostile_scratch_close(scratch);
}

TestSuite(docs_queries, .init = setup, .fini = teardown, .timeout = 900);

/* ------------------------------------------------------------ the database */

static void run_ok(const char *const *args, const char *what)
{
    cli_result r = cli_run(args);
    cr_assert_eq(r.status, 0, "%s: %s\n%s\n%s", what, cli_status_text(r.status), r.out, r.err);
    cli_result_free(&r);
}

static char *make_database(void)
{
    char *db = cli_path(scratch, "docs.db");
    run_ok(CLI_ARGS("run", "--plugin", "dedispersion", "--preset", "small", "--strategy", "random",
                    "--budget", "6", "--runs", "3", "--seed", "7", "--db", db, "--quiet"),
           "campaign 1: dedispersion");
    run_ok(CLI_ARGS("run", "--plugin", "dedispersion", "--preset", "small", "--set", "dms=16",
                    "--strategy", "random", "--budget", "6", "--runs", "3", "--seed", "7", "--db",
                    db, "--quiet"),
           "campaign 2: dedispersion, 16 DMs");
    /* The work-group sizes the docs' queries name, each with every
     * per_item: every configuration is a build of its own on a fresh
     * machine, so the campaign holds no more than the queries need. */
    const char *const vector_add[] = {"run", "--plugin", "vector_add", "--preset", "small",
                                      "--only", "wg_size=32,256", "--strategy", "exhaustive",
                                      "--runs", "3", "--seed", "7", "--quiet", "--db", NULL, NULL};
    const char *args[17];
    memcpy(args, vector_add, sizeof vector_add);
    args[15] = db;
    run_ok(args, "campaign 3: vector_add");
    run_ok(CLI_ARGS("run", "--plugin", "gridding", "--preset", "small", "--only", "variant=tiled",
                    "--strategy", "random", "--budget", "4", "--runs", "3", "--seed", "7", "--db",
                    db, "--quiet"),
           "campaign 4: gridding");
    run_ok(CLI_ARGS("run", "--plugin", hostile_plugin_path(), "--set", "fault=abort", "--set",
                    "where=verify", "--set", "bad=1", "--set", "values=4", "--strategy",
                    "exhaustive", "--runs", "3", "--seed", "1", "--db", db, "--quiet"),
           "campaign 5: failures");
    run_ok(CLI_ARGS("run", "--plugin", "transpose", "--preset", "small", "--only", "in_layout=SCTP",
                    "--only", "variant=direct", "--only", "wg_x=2", "--only", "wg_y=4",
                    "--strategy", "exhaustive", "--runs", "3", "--seed", "7", "--db", db,
                    "--quiet"),
           "campaign 6: transpose");
    run_ok(CLI_ARGS("run", "--plugin", "lofar_pipeline", "--preset", "small", "--set",
                    "pipeline=1", "--only", "fir_layout=TPSC,SPTC", "--only",
                    "fft_layout=TPSC,SPTC", "--only", "bf_in_layout=CSTP,SCTP", "--strategy",
                    "exhaustive", "--runs", "3", "--seed", "7", "--db", db, "--quiet"),
           "campaign 7: lofar_pipeline");
    char *shard = cli_path(scratch, "shard.db");
    args[15] = shard;
    run_ok(args, "campaign 3 again, in another database");
    run_ok(CLI_ARGS("merge", db, shard), "merging it in");
    free(shard);
    return db;
}

/* ------------------------------------------------------------ SQL */

/* The statement's first word, upper-cased, past white space and comments. */
static void first_word(const char *sql, char *word, size_t len)
{
    const char *p = sql;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (strncmp(p, "--", 2) != 0) break;
        p += strcspn(p, "\n");
    }
    size_t n = 0;
    while (n + 1 < len && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))) word[n++] = *p++;
    word[n] = '\0';
}

static bool writes_rows(const char *sql)
{
    char word[16];
    first_word(sql, word, sizeof word);
    return strcasecmp(word, "INSERT") == 0 || strcasecmp(word, "UPDATE") == 0 ||
           strcasecmp(word, "DELETE") == 0 || strcasecmp(word, "REPLACE") == 0;
}

static void exec_or_fail(sqlite3 *h, const char *sql)
{
    char *message = NULL;
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &message), SQLITE_OK, "%s: %s", sql,
                 message ? message : "");
}

/* Each statement of the query, in a transaction rolled back afterwards. */
static void run_sql(sqlite3 *h, const docs_query *q)
{
    exec_or_fail(h, "BEGIN");
    const char *sql = q->text;
    while (*sql) {
        sqlite3_stmt *s = NULL;
        const char *tail = NULL;
        if (sqlite3_prepare_v2(h, sql, -1, &s, &tail) != SQLITE_OK) {
            cr_expect_fail("%s:%d: %s\n%s", q->file, q->line, sqlite3_errmsg(h), q->text);
            break;
        }
        if (!s) break; /* only white space and comments were left */
        size_t rows = 0;
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) rows++;
        if (rc != SQLITE_DONE)
            cr_expect_fail("%s:%d: %s\n%s", q->file, q->line, sqlite3_errmsg(h), sqlite3_sql(s));
        else if (sqlite3_column_count(s) > 0 && rows == 0)
            cr_expect_fail("%s:%d: returns no row\n%s", q->file, q->line, sqlite3_sql(s));
        else if (writes_rows(sqlite3_sql(s)) && sqlite3_changes(h) == 0)
            cr_expect_fail("%s:%d: changes no row\n%s", q->file, q->line, sqlite3_sql(s));
        sqlite3_finalize(s);
        sql = tail;
    }
    exec_or_fail(h, "ROLLBACK");
}

/* ------------------------------------------------------------ the sqlite3 program */

/* A folder in which every entry of the source tree is a link, so that the
 * docs' relative paths (reports/sql/top.sql) work and what a dot command
 * writes (.backup copy.db) lands in the scratch folder. */
static char *make_work_dir(void)
{
    char *work = cli_path(scratch, "work");
    cr_assert_eq(mkdir(work, 0700), 0, "cannot create %s", work);
    cr_assert_eq(cli_shell("cd '%s' && for e in '%s'/*; do ln -s \"$e\" .; done", work,
                           cli_source_dir()),
                 0, "cannot link the source tree into %s", work);
    return work;
}

static void run_program(const char *db, const char *work, const docs_query *q)
{
    char *copy = cli_path(work, "query.db");
    size_t len;
    unsigned char *bytes = cli_read_file(db, &len);
    cr_assert(bytes, "cannot read %s", db);
    cli_write_file(copy, bytes, len);
    free(bytes);
    char *input = cli_path(work, "input.txt");
    char *out = cli_path(work, "out.txt");
    char *err = cli_path(work, "err.txt");
    /* A dot command found on a line has no line end of its own. */
    size_t text_len = strlen(q->text);
    char *lines = malloc(text_len + 2);
    cr_assert(lines, "out of memory");
    snprintf(lines, text_len + 2, "%s%s", q->text,
             text_len && q->text[text_len - 1] == '\n' ? "" : "\n");
    cli_write_file(input, lines, strlen(lines));
    free(lines);
    int status = cli_shell("cd '%s' && sqlite3 -bail %s query.db <'%s' >'%s' 2>'%s'", work,
                           q->options, input, out, err);
    char *printed = (char *)cli_read_file(out, &len);
    char *errors = (char *)cli_read_file(err, &len);
    cr_assert(printed && errors, "the sqlite3 program's output was not captured");
    cr_expect(status == 0 && !*errors, "%s:%d: sqlite3 %s: exit status %d\n%s\n%s", q->file,
              q->line, q->options, status, errors, q->text);
    if (q->kind == DOCS_SESSION)
        cr_expect(*printed, "%s:%d: the session prints no row\n%s", q->file, q->line, q->text);
    free(printed);
    free(errors);
    free(err);
    free(out);
    free(input);
    unlink(copy);
    free(copy);
}

/* ------------------------------------------------------------ the test */

Test(docs_queries, every_query_in_the_docs_runs_and_returns_rows)
{
    cr_assert_eq(cli_shell("command -v sqlite3 >/dev/null"), 0,
                 "the sqlite3 program is not on PATH (tools/install-deps.sh installs it)");
    docs_queries q;
    docs_queries_find(cli_source_dir(), &q);
    char *db = make_database();
    char *work = make_work_dir();
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    exec_or_fail(h, "PRAGMA foreign_keys = ON");
    size_t ran = 0, not_run = 0;
    for (size_t k = 0; k < q.n; k++) {
        const docs_query *d = &q.items[k];
        if (d->not_run) {
            cr_log_warn("%s:%d: not run: %s", d->file, d->line, d->not_run);
            not_run++;
            continue;
        }
        if (d->kind == DOCS_SQL)
            run_sql(h, d);
        else
            run_program(db, work, d);
        ran++;
    }
    sqlite3_close(h);
    /* What the docs hold today: a change that loses queries (an extractor
     * that no longer finds them) must show here. */
    cr_expect_geq(ran, 16, "only %zu queries found in the docs", ran);
    cr_log_info("%zu queries of the docs ran, %zu marked not run", ran, not_run);
    docs_queries_free(&q);
    free(work);
    free(db);
}
