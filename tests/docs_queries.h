/* The queries the documentation shows, found in its Markdown files so that
 * a test can run every one of them against a real result database.
 *
 * What counts as a query:
 *   - a fenced block whose info string is `sql`: its statements;
 *   - a `sqlite3 [OPTIONS] FILE 'ARGUMENT'` command line (in a code span or
 *     in any fenced block; the argument in single or double quotes): SQL,
 *     or a dot command of the sqlite3 shell when it starts with '.';
 *   - a fenced block whose first line is `sqlite3 [OPTIONS] FILE` alone: a
 *     session, whose other lines are typed into the sqlite3 shell.
 * A query the test cannot run is marked on a line of its own before it:
 *     <!-- docs-query: not run: REASON -->
 * The reason is required; the test reports every such query with it. */
#ifndef SKYTUNE_TESTS_DOCS_QUERIES_H
#define SKYTUNE_TESTS_DOCS_QUERIES_H

#include <stddef.h>

typedef enum docs_query_kind {
    DOCS_SQL,            /* text: SQL statements */
    DOCS_DOT_COMMAND,    /* text: one dot command, for the sqlite3 program */
    DOCS_SESSION         /* text: the lines typed into the sqlite3 program */
} docs_query_kind;

typedef struct docs_query {
    char *file;          /* relative to the source tree */
    int line;            /* where the query starts, from 1 */
    docs_query_kind kind;
    char *options;       /* the sqlite3 options before FILE ("-header -column"); "" for SQL */
    char *text;
    char *not_run;       /* the marker's reason, or NULL */
} docs_query;

typedef struct docs_queries {
    docs_query *items;
    size_t n, capacity;
} docs_queries;

/* Every query in README.md and the Markdown files under docs/, plugins/,
 * contrib/ and examples/ of the source tree, in file and line order. Fails
 * the running test when a file cannot be read or a marker has no reason. */
void docs_queries_find(const char *source_dir, docs_queries *out);
void docs_queries_free(docs_queries *q);

#endif
