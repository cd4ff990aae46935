/* Helpers for the end-to-end tests that drive the skytune binary: run it and
 * capture what it prints, start it in the background, make and remove
 * scratch folders, read a result database without writing to it, and
 * compare a file's bytes before and after a command.
 *
 * Helpers whose failure means the test cannot go on (a query that fails, a
 * file that cannot be written) fail the running Criterion test themselves,
 * so that the tests read as the behaviour they check. */
#ifndef SKYTUNE_TESTS_CLI_HARNESS_H
#define SKYTUNE_TESTS_CLI_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How a child process ended. Exit statuses are 0..255; a process ended by a
 * signal reads as minus the signal number, so that exit(130) and death by
 * SIGINT (which a shell would both show as 130) stay apart. */
#define CLI_SIGNALED(signo) (-(signo))
#define CLI_TIMED_OUT (-1000)
#define CLI_NOT_STARTED (-1001)

/* Longest a foreground command may take before it is killed and reported as
 * CLI_TIMED_OUT; well under the test runner's own limit, so a hang shows up
 * as a failed assertion with the output so far instead of a killed suite.
 * 240 s, times SKYTUNE_TEST_TIMEOUT_FACTOR when that is set (a run under
 * valgrind is many times slower). */
#define CLI_TIMEOUT_S (cli_timeout_s())
double cli_timeout_s(void);

/* Every command the harness starts is the skytune binary and its arguments,
 * after the words of SKYTUNE_TEST_PREFIX when that is set: e.g.
 * "valgrind --error-exitcode=9" runs skytune under valgrind (`make
 * test-valgrind`). The words are separated by spaces; the first names a
 * program, looked up on PATH unless it contains '/'. */

/* "exit status 1", "killed by signal 11 (Segmentation fault)", ... */
const char *cli_status_text(int status);

typedef struct cli_result {
    int status;  /* see CLI_SIGNALED */
    char *out;   /* everything written to stdout, NUL-terminated, never NULL */
    char *err;   /* everything written to stderr, NUL-terminated, never NULL */
} cli_result;

/* A NULL-terminated argument list, e.g. CLI_ARGS("run", "--help"). */
#define CLI_ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A number macro as an argument's text: CLI_TEXT(RUNS) with RUNS 3 is "3". */
#define CLI_TEXT_(x) #x
#define CLI_TEXT(x) CLI_TEXT_(x)

/* The built binary, plugins folder and source tree, from the environment the
 * test runner sets (SKYTUNE_EXE, SKYTUNE_PLUGIN_DIR, SKYTUNE_SOURCE_DIR). */
const char *cli_exe(void);
const char *cli_plugin_dir(void);
const char *cli_source_dir(void);

/* Run skytune with args (after the program name; NULL-terminated) and wait
 * for it. env lists changes to the inherited environment: "NAME=VALUE" sets,
 * a bare "NAME" removes; NULL for none. */
cli_result cli_run_env(const char *const *env, const char *const *args);
cli_result cli_run(const char *const *args);
void cli_result_free(cli_result *r);

/* Run skytune as at a terminal: its standard output and standard error
 * both on a pseudo-terminal `columns` wide (standard input /dev/null), and
 * what the terminal received in r.out (r.err is empty). Lines end in
 * "\r\n", as a terminal turns them. */
cli_result cli_run_terminal(const char *const *env, const char *const *args, int columns);
/* The same, calling watch with all the terminal has received so far and
 * the monotonic clock (clock.h) each time more arrives while it runs. */
cli_result cli_run_terminal_watched(const char *const *env, const char *const *args, int columns,
                                    void (*watch)(void *ctx, const char *text, size_t len,
                                                  double now_s),
                                    void *watch_ctx);

/* Start skytune in the background with stdout and stderr going to the given
 * files; returns its pid. */
pid_t cli_start(const char *const *args, const char *stdout_path, const char *stderr_path);

/* Wait for a process started by cli_start; its status as in cli_result, or
 * CLI_TIMED_OUT (the process is then killed) after timeout_s. */
int cli_wait(pid_t pid, double timeout_s);

/* Whether the process has ended; if it has, *status is set as by cli_wait. */
bool cli_poll_exit(pid_t pid, int *status);

/* A new empty folder under /tmp, and removing a folder with all it holds. */
char *cli_make_temp_dir(void);
void cli_remove_tree(const char *path);

/* dir + "/" + name, malloc'd. */
char *cli_path(const char *dir, const char *name);

bool cli_file_exists(const char *path);

/* Whether the database's -wal file exists: a connection has opened it since
 * (bad input must be refused before the database is opened). */
bool cli_wal_exists(const char *db_path);

/* The whole file; NULL when it cannot be read. *len gets its size. */
unsigned char *cli_read_file(const char *path, size_t *len);
void cli_write_file(const char *path, const void *bytes, size_t len);

/* A file's bytes at one moment, to show later that a command left it as it
 * was (or, for a file that did not exist, that it still does not). */
typedef struct cli_snapshot {
    char *path;
    bool existed;
    unsigned char *bytes;
    size_t len;
} cli_snapshot;

cli_snapshot cli_snapshot_take(const char *path);
/* NULL when the file is as it was; otherwise a static text saying how it
 * differs. */
const char *cli_snapshot_difference(const cli_snapshot *s);
void cli_snapshot_free(cli_snapshot *s);

/* One query on a database opened read-only. Returns 0 with the first column
 * of the first row in *text (malloc'd; NULL for SQL NULL), 1 when the query
 * gives no row, -1 on error with the message in err. */
int cli_db_query(const char *db_path, const char *sql, char **text, char *err, size_t err_len);

/* The same, failing the test unless there is a row. The SQL is a printf
 * format (write %% for a literal %). */
char *cli_db_text(const char *db_path, const char *sql_format, ...)
    __attribute__((format(printf, 2, 3)));
long long cli_db_int(const char *db_path, const char *sql_format, ...)
    __attribute__((format(printf, 2, 3)));

/* A shell command (a printf format), run with this process's environment;
 * its exit status, or -1 when it did not exit. */
int cli_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether a C compiler is available as `cc`. */
bool cli_have_compiler(void);

/* Write source to a .c file beside so_path and build it as a shared object
 * with `cc -shared -fPIC` plus extra_flags (may be NULL). Fails the test
 * with the compiler's output when the build fails. */
void cli_compile_shared(const char *source, const char *so_path, const char *extra_flags);

/* Text that follows the first occurrence of marker up to the end of its
 * line, malloc'd; NULL when marker does not occur. */
char *cli_line_after(const char *text, const char *marker);

/* A cell of CSV text (RFC 4180, header line first): data row `row` (from
 * 0) of the named column, unquoted and malloc'd. Fails the test when there
 * is no such column or row. */
char *cli_csv_cell(const char *csv, size_t row, const char *column);
/* Whether the CSV's header names the column. */
bool cli_csv_has_column(const char *csv, const char *column);
/* A Kernel Tuner cache of three configurations (wg = 16, 32, 64) with
 * recorded times (1.5, 0.75, 1.25 ms) and nothing else: no work model. */
extern const char cli_recorded_cache[];

/* A result database as skytune creates it, with no campaign yet. */
void cli_create_db(const char *path);

/* Another program at work on a database: a child process that opens
 * db_path with SQLite, runs sql (e.g. "BEGIN IMMEDIATE", which takes the
 * write lock and keeps it) and holds on until cli_release_db_lock. Returns
 * its pid once sql has run; fails the test when it cannot. */
pid_t cli_hold_db_lock(const char *db_path, const char *sql);
/* Kills it, which drops its locks, and waits for it. */
void cli_release_db_lock(pid_t holder);

/* A refused command: exit status want_status, every needle on stderr, and
 * the database file of the snapshot exactly as it was. `what` names the
 * case in failure messages. */
void cli_assert_refusal(const cli_result *r, int want_status, const char *const *needles,
                        const cli_snapshot *db, const char *what);

/* `skytune run` with args and --db FILE, twice, FILE in dir: where FILE does
 * not exist (it must not be created) and where it is a skytune database (its
 * bytes must not change, and no -wal file appears beside it). Both times the
 * command must exit with want_status and name every needle on stderr. env:
 * as for cli_run_env. */
void cli_assert_run_refused(const char *dir, const char *const *env, const char *const *args,
                            int want_status, const char *const *needles);

#endif
