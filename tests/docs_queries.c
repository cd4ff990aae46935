#include "docs_queries.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_harness.h"

/* ------------------------------------------------------------ files */

typedef struct path_list {
    char **items;
    size_t n, capacity;
} path_list;

static void paths_add(path_list *l, char *path)
{
    if (l->n == l->capacity) {
        l->capacity = l->capacity ? 2 * l->capacity : 32;
        l->items = realloc(l->items, l->capacity * sizeof *l->items);
        cr_assert(l->items, "out of memory");
    }
    l->items[l->n++] = path;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The Markdown files under source/relative, as paths relative to source. */
static void walk(const char *source, const char *relative, path_list *out)
{
    char *full = cli_path(source, relative);
    struct stat info;
    if (stat(full, &info) != 0) {
        free(full);
        return;
    }
    if (S_ISREG(info.st_mode)) {
        if (ends_with(relative, ".md")) paths_add(out, strdup(relative));
        free(full);
        return;
    }
    DIR *dir = S_ISDIR(info.st_mode) ? opendir(full) : NULL;
    free(full);
    if (!dir) return;
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] == '.') continue;
        char *child = cli_path(relative, e->d_name);
        walk(source, child, out);
        free(child);
    }
    closedir(dir);
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ------------------------------------------------------------ parsing */

static char *dup_range(const char *start, size_t len)
{
    char *s = strndup(start, len);
    cr_assert(s, "out of memory");
    return s;
}

static const char *skip_spaces(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

static bool is_fence(const char *line)
{
    const char *p = skip_spaces(line);
    return strncmp(p, "```", 3) == 0 || strncmp(p, "~~~", 3) == 0;
}

/* A sqlite3 command line found in text: its options, and its quoted
 * argument (NULL when it has none). */
typedef struct command {
    char *options, *argument;
    const char *end;     /* where the command ends in the text */
} command;

static void command_free(command *c)
{
    free(c->options);
    free(c->argument);
}

/* The sqlite3 command at p (which points at "sqlite3 "), or false when the
 * words after it are not options, a file and perhaps a quoted argument. */
static bool parse_command(const char *p, command *out)
{
    *out = (command){0};
    p = skip_spaces(p + strlen("sqlite3"));
    const char *options = p;
    while (*p == '-') {
        while (*p && *p != ' ' && *p != '`') p++;
        p = skip_spaces(p);
    }
    size_t options_len = (size_t)(p - options);
    while (options_len > 0 && options[options_len - 1] == ' ') options_len--;
    if (!*p || *p == '\'' || *p == '"' || *p == '`') return false; /* no file */
    while (*p && *p != ' ' && *p != '`') p++;
    out->options = dup_range(options, options_len);
    p = skip_spaces(p);
    if (*p == '\'' || *p == '"') {
        const char *close = strchr(p + 1, *p);
        if (!close) {
            command_free(out);
            return false;
        }
        out->argument = dup_range(p + 1, (size_t)(close - p - 1));
        p = close + 1;
    }
    out->end = p;
    return true;
}

/* The next "sqlite3 " in line that begins a word, from p on. */
static const char *find_command(const char *line, const char *p)
{
    for (const char *at = strstr(p, "sqlite3 "); at; at = strstr(at + 1, "sqlite3 "))
        if (at == line || strchr(" `(", at[-1])) return at;
    return NULL;
}

typedef struct parser {
    docs_queries *out;
    const char *file;
    char *marker;        /* the reason of a marker not yet applied */
    int marker_line;
} parser;

static void add(parser *ps, int line, docs_query_kind kind, const char *options, char *text)
{
    docs_queries *q = ps->out;
    if (q->n == q->capacity) {
        q->capacity = q->capacity ? 2 * q->capacity : 32;
        q->items = realloc(q->items, q->capacity * sizeof *q->items);
        cr_assert(q->items, "out of memory");
    }
    q->items[q->n++] = (docs_query){.file = strdup(ps->file), .line = line, .kind = kind,
                                    .options = strdup(options), .text = text,
                                    .not_run = ps->marker};
    ps->marker = NULL;
}

/* Every command with an argument in one line. */
static void scan_line(parser *ps, const char *line, int number)
{
    for (const char *at = find_command(line, line); at; at = find_command(line, at + 1)) {
        command c;
        if (!parse_command(at, &c)) continue;
        if (c.argument) {
            bool dot = c.argument[0] == '.';
            add(ps, number, dot ? DOCS_DOT_COMMAND : DOCS_SQL, dot ? c.options : "",
                c.argument);
            c.argument = NULL;
        }
        at = c.end - 1;
        command_free(&c);
    }
}

/* A marker line: <!-- docs-query: not run: REASON --> */
static bool scan_marker(parser *ps, const char *line, int number)
{
    const char *p = skip_spaces(line);
    static const char open[] = "<!-- docs-query:";
    if (strncmp(p, open, strlen(open)) != 0) return false;
    p = skip_spaces(p + strlen(open));
    static const char not_run[] = "not run:";
    cr_assert(strncmp(p, not_run, strlen(not_run)) == 0,
              "%s:%d: a docs-query marker says `not run: REASON`", ps->file, number);
    p = skip_spaces(p + strlen(not_run));
    const char *end = strstr(p, "-->");
    cr_assert(end, "%s:%d: the docs-query marker is not closed on its line", ps->file, number);
    while (end > p && end[-1] == ' ') end--;
    cr_assert(end > p, "%s:%d: a query that is not run must say why", ps->file, number);
    cr_assert(!ps->marker, "%s:%d: two markers for one query", ps->file, number);
    ps->marker = dup_range(p, (size_t)(end - p));
    ps->marker_line = number;
    return true;
}

/* Lines [first, end) joined with newlines. */
static char *join(char **lines, size_t first, size_t end)
{
    size_t len = 1;
    for (size_t k = first; k < end; k++) len += strlen(lines[k]) + 1;
    char *text = malloc(len);
    cr_assert(text, "out of memory");
    text[0] = '\0';
    for (size_t k = first; k < end; k++) {
        strcat(text, lines[k]);
        strcat(text, "\n");
    }
    return text;
}

/* The fenced block of lines (first, close): sql, a session, or lines that
 * may hold commands. */
static void scan_block(parser *ps, char **lines, size_t open, size_t close)
{
    const char *info = skip_spaces(skip_spaces(lines[open]) + 3);
    if (strcmp(info, "sql") == 0) {
        add(ps, (int)open + 2, DOCS_SQL, "", join(lines, open + 1, close));
        return;
    }
    const char *first = open + 1 < close ? skip_spaces(lines[open + 1]) : "";
    command c;
    if (strncmp(first, "sqlite3 ", 8) == 0 && parse_command(first, &c)) {
        bool session = !c.argument && !*skip_spaces(c.end);
        if (session) add(ps, (int)open + 2, DOCS_SESSION, c.options, join(lines, open + 2, close));
        command_free(&c);
        if (session) return;
    }
    for (size_t k = open + 1; k < close; k++) scan_line(ps, lines[k], (int)k + 1);
}

static void scan_file(const char *source, const char *file, docs_queries *out)
{
    char *path = cli_path(source, file);
    size_t len;
    char *text = (char *)cli_read_file(path, &len);
    cr_assert(text, "cannot read %s", path);
    free(path);
    size_t n = 0, capacity = 64;
    char **lines = malloc(capacity * sizeof *lines);
    cr_assert(lines, "out of memory");
    for (char *p = text; *p;) {
        if (n == capacity) {
            capacity *= 2;
            lines = realloc(lines, capacity * sizeof *lines);
            cr_assert(lines, "out of memory");
        }
        lines[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
    parser ps = {.out = out, .file = file};
    for (size_t k = 0; k < n; k++) {
        if (scan_marker(&ps, lines[k], (int)k + 1)) continue;
        if (is_fence(lines[k])) {
            size_t close = k + 1;
            while (close < n && !is_fence(lines[close])) close++;
            scan_block(&ps, lines, k, close);
            k = close;
            continue;
        }
        scan_line(&ps, lines[k], (int)k + 1);
    }
    cr_assert(!ps.marker, "%s:%d: the docs-query marker is followed by no query", file,
              ps.marker_line);
    free(lines);
    free(text);
}

void docs_queries_find(const char *source_dir, docs_queries *out)
{
    *out = (docs_queries){0};
    path_list files = {0};
    static const char *const roots[] = {"README.md", "docs", "plugins", "contrib", "examples"};
    for (size_t k = 0; k < sizeof roots / sizeof roots[0]; k++) walk(source_dir, roots[k], &files);
    qsort(files.items, files.n, sizeof *files.items, compare_paths);
    for (size_t k = 0; k < files.n; k++) {
        scan_file(source_dir, files.items[k], out);
        free(files.items[k]);
    }
    free(files.items);
}

void docs_queries_free(docs_queries *q)
{
    for (size_t k = 0; k < q->n; k++) {
        free(q->items[k].file);
        free(q->items[k].options);
        free(q->items[k].text);
        free(q->items[k].not_run);
    }
    free(q->items);
    *q = (docs_queries){0};
}
