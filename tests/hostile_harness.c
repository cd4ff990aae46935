#include "clock.h"
#include "hostile_harness.h"

#include <criterion/criterion.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *hostile_plugin_path(void)
{
    const char *path = getenv("SKYTUNE_HOSTILE_PLUGIN");
    cr_assert(path && *path, "SKYTUNE_HOSTILE_PLUGIN is not set: run the tests through `meson test`");
    cr_assert(cli_file_exists(path), "the hostile plugin %s is not built", path);
    return path;
}

char *hostile_scratch_open(void)
{
    char *scratch = cli_make_temp_dir();
    char *cache = cli_path(scratch, "cache");
    cr_assert(mkdir(cache, 0700) == 0, "cannot create %s: %s", cache, strerror(errno));
    cr_assert(setenv("SKYTUNE_CACHE_DIR", cache, 1) == 0, "cannot set SKYTUNE_CACHE_DIR");
    free(cache);
    /* PoCL's own kernel cache: the one meson gives every test (in the build
     * folder, shared by the suites, so that a kernel another test already
     * built is not compiled again: PoCL keys its entries by source, options
     * and device, and writes them atomically), else one in the scratch
     * folder. Either way the tests leave nothing in the user's ~/.cache/pocl.
     * What skytune caches itself stays per test (SKYTUNE_CACHE_DIR above). */
    const char *shared_pocl = getenv("SKYTUNE_TEST_POCL_CACHE");
    char *pocl_cache = shared_pocl && *shared_pocl ? strdup(shared_pocl)
                                                   : cli_path(scratch, "pocl-cache");
    cr_assert(pocl_cache && setenv("POCL_CACHE_DIR", pocl_cache, 1) == 0,
              "cannot set POCL_CACHE_DIR");
    free(pocl_cache);
    /* In the sanitizer build AddressSanitizer catches SIGSEGV and SIGBUS,
     * reports and exits with status 1, so a plugin's segfault would reach
     * the engine as "exit status 1". Leaving those signals alone lets the
     * faults end the process as they do in any other build; leak checking
     * and the rest of the options stay as the caller set them. Ignored when
     * nothing is instrumented. */
    const char *asan = getenv("ASAN_OPTIONS");
    const char *signals_alone = "handle_segv=0:handle_sigbus=0:handle_abort=0";
    size_t len = (asan ? strlen(asan) + 1 : 0) + strlen(signals_alone) + 1;
    char *options = malloc(len);
    cr_assert(options, "out of memory");
    snprintf(options, len, "%s%s%s", asan && *asan ? asan : "", asan && *asan ? ":" : "",
             signals_alone);
    cr_assert(setenv("ASAN_OPTIONS", options, 1) == 0, "cannot set ASAN_OPTIONS");
    free(options);
    return scratch;
}

void hostile_scratch_close(char *scratch)
{
    cli_remove_tree(scratch);
    free(scratch);
}

char *hostile_suite_scratch;

void hostile_suite_open(void)
{
    hostile_suite_scratch = hostile_scratch_open();
}

void hostile_suite_close(void)
{
    hostile_scratch_close(hostile_suite_scratch);
    hostile_suite_scratch = NULL;
}

/* ------------------------------------------------------------ arguments */

void hostile_args_add(hostile_args *a, const char *const *more)
{
    for (size_t k = 0; more && more[k]; k++) {
        cr_assert(a->n < HOSTILE_MAX_ARGS, "too many arguments");
        a->items[a->n++] = more[k];
    }
    a->items[a->n] = NULL;
}

hostile_args hostile_run_args(const char *strategy, const char *db)
{
    hostile_args a = {.n = 0};
    /* The campaigns of these tests are about faults, not about their
     * winners: no confirmation at the end (tests/test_confirm.c has it). */
    hostile_args_add(&a, CLI_ARGS("run", "--plugin", hostile_plugin_path(), "--strategy", strategy,
                                  "--db", db, "--quiet", "--no-confirm"));
    return a;
}

static char *joined(const hostile_args *a)
{
    size_t len = 1;
    for (size_t k = 0; k < a->n; k++) len += strlen(a->items[k]) + 1;
    char *text = malloc(len);
    cr_assert(text, "out of memory");
    text[0] = '\0';
    for (size_t k = 0; k < a->n; k++) {
        strcat(text, a->items[k]);
        if (k + 1 < a->n) strcat(text, " ");
    }
    return text;
}

cli_result hostile_run_ok(const hostile_args *a, const char *what)
{
    cli_result r = cli_run(a->items);
    if (r.status != 0) {
        char *command = joined(a);
        cr_assert_fail("%s: skytune %s\nended with %s, expected exit status 0\nstdout:\n%s\n"
                       "stderr:\n%s",
                       what, command, cli_status_text(r.status), r.out, r.err);
    }
    return r;
}

hostile_summary hostile_parse_summary(const char *out)
{
    hostile_summary s = {0};
    for (const char *line = out; line && *line;) {
        const char *end = strchr(line, '\n');
        const char *after = strstr(line, " after ");
        if (strncmp(line, "campaign ", 9) == 0 && after && (!end || after < end)) {
            cr_assert_eq(sscanf(line, "campaign %lld:", &s.campaign), 1,
                         "unexpected summary line in:\n%s", out);
            /* "after 6 configurations (", "after 1 configuration (" */
            const char *counts = strchr(after, '(');
            cr_assert(counts && sscanf(after, " after %lld configuration", &s.evaluated) == 1 &&
                          sscanf(counts, "(%lld measured, %lld from the database)", &s.measured,
                                 &s.reused) == 2,
                      "unexpected summary line in:\n%s", out);
            return s;
        }
        line = end ? end + 1 : NULL;
    }
    cr_assert_fail("no summary line in the output of skytune run:\n%s", out);
    return s;
}

/* ------------------------------------------------------------ the database */

/* One column of the row of x = X; NULL for SQL NULL or no row. */
static char *column_of(const char *db, const char *column, long long x)
{
    char sql[512], message[512] = "", *text = NULL;
    snprintf(sql, sizeof sql,
             "SELECT m.%s FROM measurements m JOIN config_params p"
             " ON p.configuration_id = m.configuration_id"
             " WHERE p.name = 'x' AND p.value = '%lld'",
             column, x);
    int rc = cli_db_query(db, sql, &text, message, sizeof message);
    cr_assert(rc != -1, "query on %s failed: %s\n  %s", db, message, sql);
    return text;
}

hostile_row hostile_row_of(const char *db, long long x)
{
    hostile_row r = {
        .status = column_of(db, "status", x),
        .stage = column_of(db, "stage", x),
        .message = column_of(db, "message", x),
    };
    return r;
}

void hostile_row_free(hostile_row *r)
{
    free(r->status);
    free(r->stage);
    free(r->message);
    r->status = r->stage = r->message = NULL;
}

long long hostile_rows_of(const char *db, long long x)
{
    return cli_db_int(db,
                      "SELECT COUNT(*) FROM measurements m JOIN config_params p"
                      " ON p.configuration_id = m.configuration_id"
                      " WHERE p.name = 'x' AND p.value = '%lld'",
                      x);
}

char *hostile_measurements_text(const char *db, long long except_x)
{
    char *text = cli_db_text(
        db,
        "SELECT COALESCE(group_concat(line, char(10)), '') FROM ("
        " SELECT id || ' ' || configuration_id || ' ' || status || ' '"
        "  || COALESCE(stage, '-') || ' ' || degraded || ' '"
        "  || COALESCE(median_ns, '-') || ' ' || n_samples || ' ' || measured_at || ' '"
        "  || COALESCE(message, '-') AS line"
        " FROM measurements WHERE configuration_id NOT IN"
        "  (SELECT configuration_id FROM config_params WHERE name = 'x' AND value = '%lld')"
        " ORDER BY id)",
        except_x);
    return text ? text : strdup("");
}

void hostile_assert_database_sound(const char *db)
{
    char *integrity = cli_db_text(db, "PRAGMA integrity_check");
    cr_assert_str_eq(integrity, "ok", "integrity_check of %s: %s", db, integrity);
    free(integrity);
    char *violation = NULL, message[256] = "";
    int rc = cli_db_query(db, "PRAGMA foreign_key_check", &violation, message, sizeof message);
    cr_assert_eq(rc, 1, "foreign_key_check of %s: %s%s", db, rc == 0 ? "violation in table " : "",
                 rc == 0 ? (violation ? violation : "?") : message);
    free(violation);
}

void hostile_assert_each_measured_once(const char *db, long long campaign, long long total)
{
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), total,
                 "expected one measurement per configuration of the %lld", total);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(DISTINCT configuration_id) FROM measurements"),
                 total, "a configuration was measured twice");
    cr_assert_eq(cli_db_int(db,
                            "SELECT COUNT(DISTINCT p.value) FROM measurements m"
                            " JOIN config_params p ON p.configuration_id = m.configuration_id"
                            " WHERE p.name = 'x' AND CAST(p.value AS INTEGER) BETWEEN 0 AND %lld",
                            total - 1),
                 total, "the measured configurations are not x = 0 .. %lld", total - 1);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations WHERE campaign_id = %lld",
                            campaign),
                 total, "campaign %lld does not have one evaluation per configuration", campaign);
    cr_assert_eq(cli_db_int(db,
                            "SELECT COUNT(*) FROM measurements m WHERE"
                            " (SELECT COUNT(*) FROM evaluations e"
                            "  WHERE e.measurement_id = m.id AND e.campaign_id = %lld) != 1",
                            campaign),
                 0, "a measurement does not have exactly one evaluation in campaign %lld",
                 campaign);
}

long long hostile_count_measurements(const char *db)
{
    char *text = NULL, message[256];
    /* Errors are expected while a run is still creating the schema. */
    if (cli_db_query(db, "SELECT COUNT(*) FROM measurements", &text, message, sizeof message) != 0 ||
        !text) {
        free(text);
        return -1;
    }
    long long count = strtoll(text, NULL, 10);
    free(text);
    return count;
}

long long hostile_wait_for_measurements(pid_t pid, const char *db, long long want,
                                        const char *stdout_path, const char *stderr_path)
{
    /* The database is only looked at once its WAL file exists: before that
     * the store is still setting the file up, and even a reader's shared
     * lock could get in the way of that. */
    char wal[4096];
    snprintf(wal, sizeof wal, "%s-wal", db);
    double deadline = hostile_now_s() + 120.0;
    while (hostile_now_s() < deadline) {
        int status;
        if (cli_poll_exit(pid, &status)) {
            char *out = hostile_read_text(stdout_path), *err = hostile_read_text(stderr_path);
            cr_assert_fail("the run ended (%s) before %lld measurements were recorded\n"
                           "stdout:\n%s\nstderr:\n%s",
                           cli_status_text(status), want, out, err);
        }
        if (cli_file_exists(wal)) {
            long long count = hostile_count_measurements(db);
            if (count >= want) return count;
        }
        hostile_sleep_ms(10);
    }
    kill(pid, SIGKILL);
    cli_wait(pid, 30);
    cr_assert_fail("no %lld measurements in %s after two minutes", want, db);
    return 0;
}

/* ------------------------------------------------------------ processes */

/* State, parent and start time from /proc/PID/stat. The command name in
 * parentheses may itself hold spaces and parentheses, so the fields are
 * read after its last ')'. */
static bool read_stat(pid_t pid, char *state, pid_t *parent, unsigned long long *start_time)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return false;
    ssize_t len = read(fd, text, sizeof text - 1);
    close(fd);
    if (len <= 0) return false;
    text[len] = '\0';
    char *after_name = strrchr(text, ')');
    if (!after_name) return false;
    /* Fields from the third on: state ppid pgrp session tty_nr tpgid flags
     * minflt cminflt majflt cmajflt utime stime cutime cstime priority nice
     * num_threads itrealvalue starttime. */
    int ppid;
    unsigned long long start;
    if (sscanf(after_name + 1,
               " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
               state, &ppid, &start) != 3)
        return false;
    *parent = (pid_t)ppid;
    *start_time = start;
    return true;
}

/* argv[2] when argv[1] is "worker", else "". */
static void read_worker_role(pid_t pid, char *role, size_t len)
{
    role[0] = '\0';
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return;
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) return;
    text[got] = '\0';
    /* NUL-separated: argv[0] \0 argv[1] \0 argv[2] \0 ... */
    const char *end = text + got;
    const char *arg1 = text + strlen(text) + 1;
    if (arg1 >= end || strcmp(arg1, "worker") != 0) return;
    const char *arg2 = arg1 + strlen(arg1) + 1;
    if (arg2 >= end) return;
    snprintf(role, len, "%s", arg2);
}

size_t hostile_children(pid_t parent, hostile_process *out, size_t max)
{
    /* Every process's parent, from /proc: children of any of the parent's
     * threads are found, whichever thread started them. */
    DIR *proc = opendir("/proc");
    cr_assert(proc, "cannot read /proc: %s", strerror(errno));
    size_t n = 0;
    struct dirent *entry;
    while ((entry = readdir(proc)) != NULL && n < max) {
        if (!isdigit((unsigned char)entry->d_name[0])) continue;
        pid_t pid = (pid_t)strtol(entry->d_name, NULL, 10);
        char state;
        pid_t ppid;
        unsigned long long start;
        if (!read_stat(pid, &state, &ppid, &start) || ppid != parent || state == 'Z') continue;
        out[n].pid = pid;
        out[n].start_time = start;
        read_worker_role(pid, out[n].role, sizeof out[n].role);
        n++;
    }
    closedir(proc);
    return n;
}

bool hostile_process_running(const hostile_process *p)
{
    char state;
    pid_t ppid;
    unsigned long long start;
    if (!read_stat(p->pid, &state, &ppid, &start)) return false;
    return start == p->start_time && state != 'Z' && state != 'X';
}

long hostile_wait_until_gone(const hostile_process *procs, size_t n, double timeout_s)
{
    double deadline = hostile_now_s() + timeout_s;
    for (;;) {
        long running = -1;
        for (size_t k = 0; k < n && running < 0; k++)
            if (hostile_process_running(&procs[k])) running = (long)k;
        if (running < 0 || hostile_now_s() > deadline) return running;
        hostile_sleep_ms(20);
    }
}

bool hostile_signal_if_running(const hostile_process *p, int sig)
{
    if (!hostile_process_running(p)) return false;
    return kill(p->pid, sig) == 0;
}

/* ------------------------------------------------------------ small things */

char *hostile_read_text(const char *path)
{
    size_t len;
    char *text = (char *)cli_read_file(path, &len);
    cr_assert(text, "cannot read %s", path);
    return text;
}

void hostile_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

double hostile_now_s(void)
{
    return clock_monotonic_s();
}
