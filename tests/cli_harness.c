/* posix_openpt, grantpt, unlockpt, ptsname: the pseudo-terminal of cli_run_terminal. */
#define _XOPEN_SOURCE 700
#include "clock.h"
#include "cli_harness.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

extern char **environ;

/* ------------------------------------------------------------ environment */

static const char *required_env(const char *name)
{
    const char *value = getenv(name);
    cr_assert(value && *value, "%s is not set: run the tests through `meson test`", name);
    return value;
}

const char *cli_exe(void)
{
    return required_env("SKYTUNE_EXE");
}

const char *cli_plugin_dir(void)
{
    return required_env("SKYTUNE_PLUGIN_DIR");
}

const char *cli_source_dir(void)
{
    return required_env("SKYTUNE_SOURCE_DIR");
}

/* ------------------------------------------------------------ processes */


static void sleep_s(double seconds)
{
    struct timespec ts = {.tv_sec = (time_t)seconds,
                          .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int decode_status(int raw)
{
    if (WIFEXITED(raw)) return WEXITSTATUS(raw);
    if (WIFSIGNALED(raw)) return CLI_SIGNALED(WTERMSIG(raw));
    return CLI_NOT_STARTED;
}

const char *cli_status_text(int status)
{
    static char text[128];
    if (status == CLI_TIMED_OUT)
        snprintf(text, sizeof text, "killed after %.0f s without finishing", CLI_TIMEOUT_S);
    else if (status == CLI_NOT_STARTED)
        snprintf(text, sizeof text, "not started");
    else if (status < 0)
        snprintf(text, sizeof text, "killed by signal %d (%s)", -status, strsignal(-status));
    else
        snprintf(text, sizeof text, "exit status %d", status);
    return text;
}

bool cli_poll_exit(pid_t pid, int *status)
{
    int raw;
    pid_t got;
    do
        got = waitpid(pid, &raw, WNOHANG);
    while (got < 0 && errno == EINTR);
    if (got != pid) return false;
    *status = decode_status(raw);
    return true;
}

int cli_wait(pid_t pid, double timeout_s)
{
    double deadline = clock_monotonic_s() + timeout_s;
    int status;
    /* Polling rather than a blocking wait, so that a hung skytune becomes a
     * test failure instead of a suite stopped by the runner's timeout. */
    while (!cli_poll_exit(pid, &status)) {
        if (clock_monotonic_s() > deadline) {
            kill(pid, SIGKILL);
            int raw;
            while (waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
            }
            return CLI_TIMED_OUT;
        }
        sleep_s(0.005);
    }
    return status;
}

double cli_timeout_s(void)
{
    const char *text = getenv("SKYTUNE_TEST_TIMEOUT_FACTOR");
    double factor = text && *text ? strtod(text, NULL) : 1.0;
    return 240.0 * (factor >= 1.0 ? factor : 1.0);
}

/* The program as a path execve takes: itself when it names a path, else
 * the first executable of that name on PATH. */
static char *program_path(const char *program)
{
    if (strchr(program, '/')) return strdup(program);
    const char *path = getenv("PATH");
    for (const char *dir = path ? path : "/usr/bin:/bin"; dir && *dir;) {
        size_t len = strcspn(dir, ":");
        char *candidate = malloc(len + strlen(program) + 2);
        cr_assert(candidate, "out of memory");
        snprintf(candidate, len + strlen(program) + 2, "%.*s/%s", (int)len, dir, program);
        if (len > 0 && access(candidate, X_OK) == 0) return candidate;
        free(candidate);
        dir = dir[len] ? dir + len + 1 : NULL;
    }
    cr_assert_fail("SKYTUNE_TEST_PREFIX names %s, which is not on PATH", program);
    return NULL;
}

/* The words of SKYTUNE_TEST_PREFIX, parsed once per test process; NULL
 * terminated, empty when it is not set. */
static char **command_prefix(size_t *count)
{
    static char **words;
    static char *copy; /* the words point into it; kept for the life of the process */
    static size_t n_words;
    static bool parsed;
    if (!parsed) {
        parsed = true;
        const char *prefix = getenv("SKYTUNE_TEST_PREFIX");
        copy = strdup(prefix ? prefix : "");
        cr_assert(copy, "out of memory");
        words = calloc(strlen(copy) / 2 + 2, sizeof *words);
        cr_assert(words, "out of memory");
        char *save = NULL;
        for (char *word = strtok_r(copy, " \t", &save); word; word = strtok_r(NULL, " \t", &save))
            words[n_words++] = word;
        if (n_words > 0) words[0] = program_path(words[0]);
    }
    *count = n_words;
    return words;
}

/* argv for execve: the prefix (SKYTUNE_TEST_PREFIX), the binary, then args. */
static char **build_argv(const char *const *args)
{
    size_t n = 0, n_prefix;
    char **prefix = command_prefix(&n_prefix);
    while (args[n]) n++;
    char **argv = calloc(n_prefix + n + 2, sizeof *argv);
    cr_assert(argv, "out of memory");
    for (size_t k = 0; k < n_prefix; k++) argv[k] = prefix[k];
    argv[n_prefix] = (char *)cli_exe();
    for (size_t k = 0; k < n; k++) argv[n_prefix + k + 1] = (char *)args[k];
    return argv;
}

static size_t name_length(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* The inherited environment with the changes applied. Built before fork:
 * the child may only call async-signal-safe functions until it execs. */
static char **build_envp(const char *const *changes)
{
    size_t n_env = 0, n_changes = 0;
    while (environ[n_env]) n_env++;
    while (changes && changes[n_changes]) n_changes++;
    char **envp = calloc(n_env + n_changes + 1, sizeof *envp);
    cr_assert(envp, "out of memory");
    size_t used = 0;
    for (size_t k = 0; k < n_env; k++) {
        bool replaced = false;
        for (size_t c = 0; c < n_changes; c++) {
            size_t len = name_length(changes[c]);
            if (name_length(environ[k]) == len && strncmp(environ[k], changes[c], len) == 0)
                replaced = true;
        }
        if (!replaced) envp[used++] = environ[k];
    }
    for (size_t c = 0; c < n_changes; c++)
        if (strchr(changes[c], '=')) envp[used++] = (char *)changes[c];
    envp[used] = NULL;
    return envp;
}

static char *read_all_fd(int fd)
{
    off_t size = lseek(fd, 0, SEEK_END);
    cr_assert(size >= 0, "cannot size captured output: %s", strerror(errno));
    char *text = malloc((size_t)size + 1);
    cr_assert(text, "out of memory");
    size_t done = 0;
    while (done < (size_t)size) {
        ssize_t got = pread(fd, text + done, (size_t)size - done, (off_t)done);
        if (got < 0 && errno == EINTR) continue;
        cr_assert(got > 0, "cannot read captured output: %s", strerror(errno));
        done += (size_t)got;
    }
    text[done] = '\0';
    return text;
}

cli_result cli_run_env(const char *const *env, const char *const *args)
{
    cli_result r = {.status = CLI_NOT_STARTED};
    /* Output goes to unnamed temporary files rather than pipes: the child can
     * write any amount to both streams without ever waiting for us. */
    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out && err, "cannot create temporary files: %s", strerror(errno));
    char **argv = build_argv(args);
    char **envp = build_envp(env);
    int out_fd = fileno(out), err_fd = fileno(err);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork failed: %s", strerror(errno));
    if (pid == 0) {
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
        dup2(out_fd, STDOUT_FILENO);
        dup2(err_fd, STDERR_FILENO);
        execve(argv[0], argv, envp);
        _exit(127);
    }
    free(argv);
    free(envp);
    r.status = cli_wait(pid, CLI_TIMEOUT_S);
    r.out = read_all_fd(out_fd);
    r.err = read_all_fd(err_fd);
    fclose(out);
    fclose(err);
    return r;
}

cli_result cli_run(const char *const *args)
{
    return cli_run_env(NULL, args);
}

void cli_result_free(cli_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* Append what the terminal has to the text; false once it has nothing more
 * to give (every writer closed it). */
static bool read_terminal(int master, char **text, size_t *len, size_t *cap, int wait_ms)
{
    struct pollfd p = {.fd = master, .events = POLLIN};
    int r = poll(&p, 1, wait_ms);
    if (r <= 0) return r == 0 || errno == EINTR;
    if (*len + 4096 + 1 > *cap) {
        *cap = 2 * (*len + 4096 + 1);
        *text = realloc(*text, *cap);
        cr_assert(*text, "out of memory");
    }
    ssize_t got = read(master, *text + *len, 4096);
    if (got < 0 && errno == EINTR) return true;
    if (got <= 0) return false; /* EIO: the last writer closed its side */
    *len += (size_t)got;
    (*text)[*len] = '\0';
    return true;
}

cli_result cli_run_terminal(const char *const *env, const char *const *args, int columns)
{
    return cli_run_terminal_watched(env, args, columns, NULL, NULL);
}

cli_result cli_run_terminal_watched(const char *const *env, const char *const *args, int columns,
                                    void (*watch)(void *ctx, const char *text, size_t len,
                                                  double now_s),
                                    void *watch_ctx)
{
    cli_result r = {.status = CLI_NOT_STARTED};
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    cr_assert(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0,
              "cannot open a pseudo-terminal: %s", strerror(errno));
    char *slave_name = strdup(ptsname(master));
    cr_assert(slave_name, "no name for the pseudo-terminal");
    struct winsize size = {.ws_row = 40, .ws_col = (unsigned short)columns};
    cr_assert_eq(ioctl(master, TIOCSWINSZ, &size), 0, "cannot size the terminal: %s",
                 strerror(errno));
    char **argv = build_argv(args);
    char **envp = build_envp(env);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork failed: %s", strerror(errno));
    if (pid == 0) {
        /* A session of its own, whose controlling terminal is the slave. */
        setsid();
        int slave = open(slave_name, O_RDWR);
        int null_fd = open("/dev/null", O_RDONLY);
        if (slave < 0 || null_fd < 0) _exit(127);
        dup2(null_fd, STDIN_FILENO);
        dup2(slave, STDOUT_FILENO);
        dup2(slave, STDERR_FILENO);
        execve(argv[0], argv, envp);
        _exit(127);
    }
    free(argv);
    free(envp);
    free(slave_name);
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    cr_assert(text, "out of memory");
    text[0] = '\0';
    double deadline = clock_monotonic_s() + CLI_TIMEOUT_S;
    int status;
    /* Read while it runs, or it would wait on a full terminal. */
    while (!cli_poll_exit(pid, &status)) {
        if (clock_monotonic_s() > deadline) {
            kill(pid, SIGKILL);
            status = cli_wait(pid, 10);
            status = CLI_TIMED_OUT;
            break;
        }
        size_t before = len;
        read_terminal(master, &text, &len, &cap, 50);
        if (watch && len > before) watch(watch_ctx, text, len, clock_monotonic_s());
    }
    while (read_terminal(master, &text, &len, &cap, 0) && len < (size_t)64 << 20) {
        struct pollfd p = {.fd = master, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0) break;
    }
    close(master);
    r.status = status;
    r.out = text;
    r.err = strdup("");
    cr_assert(r.err, "out of memory");
    return r;
}

pid_t cli_start(const char *const *args, const char *stdout_path, const char *stderr_path)
{
    char **argv = build_argv(args);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork failed: %s", strerror(errno));
    if (pid == 0) {
        int null_fd = open("/dev/null", O_RDONLY);
        int out_fd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err_fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (null_fd < 0 || out_fd < 0 || err_fd < 0) _exit(127);
        dup2(null_fd, STDIN_FILENO);
        dup2(out_fd, STDOUT_FILENO);
        dup2(err_fd, STDERR_FILENO);
        execve(argv[0], argv, environ);
        _exit(127);
    }
    free(argv);
    return pid;
}

/* ------------------------------------------------------------ files */

char *cli_make_temp_dir(void)
{
    char *path = strdup("/tmp/skytune-test-XXXXXX");
    cr_assert(path, "out of memory");
    cr_assert(mkdtemp(path), "mkdtemp failed: %s", strerror(errno));
    return path;
}

void cli_remove_tree(const char *path)
{
    if (!path) return;
    struct stat info;
    /* lstat: a link inside is removed, never followed. */
    if (lstat(path, &info) != 0) return;
    if (S_ISDIR(info.st_mode)) {
        DIR *dir = opendir(path);
        if (dir) {
            struct dirent *entry;
            while ((entry = readdir(dir)) != NULL) {
                if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
                char *child = cli_path(path, entry->d_name);
                cli_remove_tree(child);
                free(child);
            }
            closedir(dir);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

char *cli_path(const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    cr_assert(path, "out of memory");
    snprintf(path, len, "%s/%s", dir, name);
    return path;
}

bool cli_file_exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0;
}

bool cli_wal_exists(const char *db_path)
{
    char wal[4096];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    return cli_file_exists(wal);
}

unsigned char *cli_read_file(const char *path, size_t *len)
{
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat info;
    if (fstat(fd, &info) != 0) {
        close(fd);
        return NULL;
    }
    unsigned char *bytes = malloc((size_t)info.st_size + 1);
    cr_assert(bytes, "out of memory");
    size_t done = 0;
    while (done < (size_t)info.st_size) {
        ssize_t got = read(fd, bytes + done, (size_t)info.st_size - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        done += (size_t)got;
    }
    close(fd);
    bytes[done] = '\0';
    *len = done;
    return bytes;
}

void cli_write_file(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot create %s: %s", path, strerror(errno));
    size_t written = fwrite(bytes, 1, len, f);
    int closed = fclose(f);
    cr_assert(written == len && closed == 0, "cannot write %s", path);
}

cli_snapshot cli_snapshot_take(const char *path)
{
    cli_snapshot s = {.path = strdup(path)};
    cr_assert(s.path, "out of memory");
    s.existed = cli_file_exists(path);
    if (s.existed) {
        s.bytes = cli_read_file(path, &s.len);
        cr_assert(s.bytes, "cannot read %s", path);
    }
    return s;
}

const char *cli_snapshot_difference(const cli_snapshot *s)
{
    bool exists = cli_file_exists(s->path);
    if (!s->existed) return exists ? "the file was created" : NULL;
    if (!exists) return "the file was removed";
    size_t len;
    unsigned char *now = cli_read_file(s->path, &len);
    const char *difference = NULL;
    if (!now)
        difference = "the file can no longer be read";
    else if (len != s->len)
        difference = "the file's size changed";
    else if (memcmp(now, s->bytes, len) != 0)
        difference = "the file's bytes changed";
    free(now);
    return difference;
}

void cli_snapshot_free(cli_snapshot *s)
{
    free(s->path);
    free(s->bytes);
    s->path = NULL;
    s->bytes = NULL;
}

/* ------------------------------------------------------------ databases */

int cli_db_query(const char *db_path, const char *sql, char **text, char *err, size_t err_len)
{
    *text = NULL;
    sqlite3 *db = NULL;
    /* Read-only, so that looking at a database can never be what changed it;
     * no SQLITE_OPEN_CREATE, so a missing file stays missing. */
    int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, err_len, "cannot open %s: %s", db_path, db ? sqlite3_errmsg(db) : "?");
        sqlite3_close(db);
        return -1;
    }
    /* A running skytune holds its write lock only for one commit. */
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt *stmt = NULL;
    rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
    int result;
    if (rc == SQLITE_ROW) {
        const unsigned char *value = sqlite3_column_text(stmt, 0);
        if (value) {
            *text = strdup((const char *)value);
            cr_assert(*text, "out of memory");
        }
        result = 0;
    } else if (rc == SQLITE_DONE) {
        result = 1;
    } else {
        snprintf(err, err_len, "%s", sqlite3_errmsg(db));
        result = -1;
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return result;
}

static char *format_sql(const char *format, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int len = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    cr_assert(len >= 0, "bad SQL format %s", format);
    char *sql = malloc((size_t)len + 1);
    cr_assert(sql, "out of memory");
    vsnprintf(sql, (size_t)len + 1, format, ap);
    return sql;
}

static char *query_row(const char *db_path, const char *sql, bool *is_null)
{
    char *text, err[512] = "";
    int rc = cli_db_query(db_path, sql, &text, err, sizeof err);
    cr_assert(rc != -1, "query on %s failed: %s\n  %s", db_path, err, sql);
    cr_assert(rc != 1, "query on %s gave no row:\n  %s", db_path, sql);
    *is_null = text == NULL;
    return text;
}

char *cli_db_text(const char *db_path, const char *sql_format, ...)
{
    va_list ap;
    va_start(ap, sql_format);
    char *sql = format_sql(sql_format, ap);
    va_end(ap);
    bool is_null;
    char *text = query_row(db_path, sql, &is_null);
    free(sql);
    return text;
}

long long cli_db_int(const char *db_path, const char *sql_format, ...)
{
    va_list ap;
    va_start(ap, sql_format);
    char *sql = format_sql(sql_format, ap);
    va_end(ap);
    bool is_null;
    char *text = query_row(db_path, sql, &is_null);
    cr_assert(!is_null, "query on %s gave NULL, not an integer:\n  %s", db_path, sql);
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    cr_assert(errno == 0 && end != text && *end == '\0',
              "query on %s gave '%s', not an integer:\n  %s", db_path, text, sql);
    free(text);
    free(sql);
    return value;
}

/* ------------------------------------------------------------ compiling */

bool cli_have_compiler(void)
{
    return system("cc --version >/dev/null 2>&1") == 0;
}

void cli_compile_shared(const char *source, const char *so_path, const char *extra_flags)
{
    size_t len = strlen(so_path);
    char *c_path = malloc(len + 3);
    char *log_path = malloc(len + 5);
    cr_assert(c_path && log_path, "out of memory");
    snprintf(c_path, len + 3, "%s.c", so_path);
    snprintf(log_path, len + 5, "%s.log", so_path);
    cli_write_file(c_path, source, strlen(source));
    size_t cmd_len = 3 * len + (extra_flags ? strlen(extra_flags) : 0) + 128;
    char *command = malloc(cmd_len);
    cr_assert(command, "out of memory");
    snprintf(command, cmd_len, "cc -shared -fPIC -o '%s' '%s' %s >'%s' 2>&1", so_path, c_path,
             extra_flags ? extra_flags : "", log_path);
    int rc = system(command);
    if (rc != 0) {
        size_t log_len;
        char *log = (char *)cli_read_file(log_path, &log_len);
        cr_assert_fail("building a test plugin failed (%s):\n%s", command, log ? log : "");
    }
    free(command);
    free(c_path);
    free(log_path);
}

/* ------------------------------------------------------------ output */

char *cli_line_after(const char *text, const char *marker)
{
    const char *at = strstr(text, marker);
    if (!at) return NULL;
    at += strlen(marker);
    size_t len = strcspn(at, "\n");
    char *line = malloc(len + 1);
    cr_assert(line, "out of memory");
    memcpy(line, at, len);
    line[len] = '\0';
    return line;
}

/* ------------------------------------------------------------ CSV */

/* The field that starts at *p (RFC 4180: quoted or bare), malloc'd; *p moves
 * past it and its separator. *end_of_line tells whether it ended the line. */
static char *csv_field(const char **p, bool *end_of_line)
{
    size_t cap = strlen(*p) + 1, len = 0;
    char *out = malloc(cap);
    cr_assert(out, "out of memory");
    const char *s = *p;
    if (*s == '"') {
        for (s++; *s; s++) {
            if (*s == '"' && s[1] == '"') {
                out[len++] = '"';
                s++;
            } else if (*s == '"') {
                s++;
                break;
            } else {
                out[len++] = *s;
            }
        }
    } else {
        while (*s && *s != ',' && *s != '\n') out[len++] = *s++;
    }
    out[len] = '\0';
    *end_of_line = *s != ',';
    if (*s == ',' || *s == '\n') s++;
    *p = s;
    return out;
}

char *cli_csv_cell(const char *csv, size_t row, const char *column)
{
    const char *p = csv;
    bool eol = false;
    long index = -1;
    for (long k = 0; !eol && *p; k++) {
        char *name = csv_field(&p, &eol);
        if (strcmp(name, column) == 0) index = k;
        free(name);
    }
    cr_assert(index >= 0, "the CSV has no column %s: %.200s", column, csv);
    for (size_t r = 0; r <= row; r++) {
        cr_assert(*p, "the CSV has no row %zu", row);
        eol = false;
        for (long k = 0; !eol && *p; k++) {
            char *field = csv_field(&p, &eol);
            if (r == row && k == index) {
                /* the rest of the row is not needed */
                return field;
            }
            free(field);
        }
    }
    cr_assert_fail("row %zu of the CSV has no column %s", row, column);
    return NULL;
}

bool cli_csv_has_column(const char *csv, const char *column)
{
    const char *p = csv;
    bool eol = false, found = false;
    while (!eol && *p) {
        char *name = csv_field(&p, &eol);
        found = found || strcmp(name, column) == 0;
        free(name);
    }
    return found;
}

/* ------------------------------------------------------------ refusals */

#define MAX_ARGS 64

typedef struct arg_list {
    const char *items[MAX_ARGS + 1];
    size_t n;
} arg_list;

static void args_add(arg_list *a, const char *const *more)
{
    for (size_t k = 0; more && more[k]; k++) {
        cr_assert(a->n < MAX_ARGS, "too many arguments");
        a->items[a->n++] = more[k];
    }
    a->items[a->n] = NULL;
}

void cli_create_db(const char *path)
{
    store *st;
    skytune_error err;
    cr_assert_eq(store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    store_close(st);
}

pid_t cli_hold_db_lock(const char *db_path, const char *sql)
{
    int ready[2];
    cr_assert_eq(pipe(ready), 0, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* Never outlives the test, whatever the test does: a holder left
         * behind would keep the test runner's pipes open. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(ready[0]);
        sqlite3 *db = NULL;
        char held = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
                            sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
                        ? 'y'
                        : 'n';
        if (write(ready[1], &held, 1) != 1 || held != 'y') _exit(1);
        for (;;) pause();
    }
    close(ready[1]);
    char held = 'n';
    ssize_t n = read(ready[0], &held, 1);
    close(ready[0]);
    if (n != 1 || held != 'y') {
        cli_release_db_lock(pid);
        cr_assert_fail("cannot hold a lock on %s with %s", db_path, sql);
    }
    return pid;
}

void cli_release_db_lock(pid_t holder)
{
    kill(holder, SIGKILL);
    while (waitpid(holder, NULL, 0) < 0 && errno == EINTR) {
    }
}

void cli_assert_refusal(const cli_result *r, int want_status, const char *const *needles,
                        const cli_snapshot *db, const char *what)
{
    cr_assert_eq(r->status, want_status,
                 "%s: %s, expected exit status %d\nstdout:\n%s\nstderr:\n%s", what,
                 cli_status_text(r->status), want_status, r->out, r->err);
    for (size_t k = 0; needles && needles[k]; k++)
        cr_assert(strstr(r->err, needles[k]), "%s: stderr does not mention '%s':\n%s", what,
                  needles[k], r->err);
    const char *difference = cli_snapshot_difference(db);
    cr_assert(!difference, "%s: %s: %s", what, db->path, difference);
}

void cli_assert_run_refused(const char *dir, const char *const *env, const char *const *args,
                            int want_status, const char *const *needles)
{
    char *missing = cli_path(dir, "never-created.db");
    char *existing = cli_path(dir, "existing.db");
    cli_create_db(existing);
    const char *dbs[] = {missing, existing};
    for (size_t k = 0; k < 2; k++) {
        arg_list argv = {0};
        args_add(&argv, CLI_ARGS("run"));
        args_add(&argv, args);
        args_add(&argv, CLI_ARGS("--db", dbs[k]));
        cli_snapshot before = cli_snapshot_take(dbs[k]);
        cli_result r = cli_run_env(env, argv.items);
        cli_assert_refusal(&r, want_status, needles, &before,
                           k == 0 ? "without a database" : "with an existing database");
        /* Bad input is found before the database is opened, so no WAL file
         * appears beside it either. */
        cr_assert(!cli_wal_exists(dbs[k]), "%s was opened: its -wal file exists", dbs[k]);
        cli_snapshot_free(&before);
        cli_result_free(&r);
    }
    free(missing);
    free(existing);
}

int cli_shell(const char *fmt, ...)
{
    char command[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(command, sizeof command, fmt, ap);
    va_end(ap);
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const char cli_recorded_cache[] =
    "{\"device_name\": \"Recorded GPU\", \"tune_params_keys\": [\"wg\"],\n"
    "\"tune_params\": {\"wg\": [16, 32, 64]},\n"
    "\"objective\": \"time\",\n"
    "\"cache\": {\n"
    "\"16\": {\"wg\": 16, \"time\": 1.5},\n"
    "\"32\": {\"wg\": 32, \"time\": 0.75},\n"
    "\"64\": {\"wg\": 64, \"time\": 1.25}\n"
    "}}\n";
