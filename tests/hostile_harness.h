/* Helpers shared by the tests that drive campaigns of the hostile test plugin
 * (tests/hostile_plugin.c) through the skytune binary: a scratch folder with
 * its own binary cache, argument lists, the run's closing line, per-
 * configuration rows of the result database, and the engine's worker
 * processes as /proc shows them.
 *
 * Like cli_harness, helpers whose failure means the test cannot go on fail
 * the running Criterion test themselves. */
#ifndef SKYTUNE_TESTS_HOSTILE_HARNESS_H
#define SKYTUNE_TESTS_HOSTILE_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli_harness.h"

/* The hostile plugin's .so, from SKYTUNE_HOSTILE_PLUGIN (set by meson). */
const char *hostile_plugin_path(void);

/* A new temporary folder holding an empty cache/ folder that
 * SKYTUNE_CACHE_DIR is set to, so that no run of the test reads or fills
 * the user's binary cache; POCL_CACHE_DIR points at the suites' shared PoCL
 * cache in the build folder (inside the folder when meson set none), and
 * ASAN_OPTIONS leaves fatal signals to the kernel (see the .c). Criterion
 * runs each test in a process of its own, so the variables change only that
 * test's environment (and the runs it starts). */
char *hostile_scratch_open(void);
void hostile_scratch_close(char *scratch);

/* The same as a suite's .init and .fini: the folder is hostile_suite_scratch. */
extern char *hostile_suite_scratch;
void hostile_suite_open(void);
void hostile_suite_close(void);

/* ------------------------------------------------------------ arguments */

#define HOSTILE_MAX_ARGS 96

typedef struct hostile_args {
    const char *items[HOSTILE_MAX_ARGS + 1]; /* NULL-terminated */
    size_t n;
} hostile_args;

/* Append every argument of a NULL-terminated list. */
void hostile_args_add(hostile_args *a, const char *const *more);

/* "run --plugin <hostile.so> --strategy STRATEGY --db DB --quiet
 * --no-confirm". */
hostile_args hostile_run_args(const char *strategy, const char *db);

/* Run to the end and require exit status 0; prints the output otherwise. */
cli_result hostile_run_ok(const hostile_args *a, const char *what);

/* The closing line of `skytune run`:
 *   campaign 1: search complete after 6 configurations (6 measured, 0 from
 *   the database) in 1.2 s */
typedef struct hostile_summary {
    long long campaign, evaluated, measured, reused;
} hostile_summary;

hostile_summary hostile_parse_summary(const char *out);

/* ------------------------------------------------------------ the database */

/* What the database holds for the configuration x = X (one measurement row
 * per configuration: each test's database holds one plugin build, device
 * and problem). Fields are malloc'd; stage and message may be NULL. */
typedef struct hostile_row {
    char *status, *stage, *message;
} hostile_row;

hostile_row hostile_row_of(const char *db, long long x);
void hostile_row_free(hostile_row *r);

/* How many measurement rows hold the configuration x = X (0 or 1 when
 * nothing was measured twice). */
long long hostile_rows_of(const char *db, long long x);

/* Every measurement row, one line each in id order, with everything that
 * measuring again would change: to show that a run left them as they were.
 * The row of x = except_x is left out (-1 leaves none out). */
char *hostile_measurements_text(const char *db, long long except_x);

/* PRAGMA integrity_check is ok and foreign_key_check finds nothing. */
void hostile_assert_database_sound(const char *db);

/* Every configuration 0 .. total-1 has exactly one measurement row, the
 * rows are exactly those, and campaign `campaign` has exactly one evaluation
 * of each. */
void hostile_assert_each_measured_once(const char *db, long long campaign, long long total);

/* Count measurements; -1 while the database cannot be read yet (a run is
 * still creating it). */
long long hostile_count_measurements(const char *db);

/* Wait until the database holds at least `want` measurements, failing the
 * test (with the run's output) if the run ends first or two minutes pass. */
long long hostile_wait_for_measurements(pid_t pid, const char *db, long long want,
                                        const char *stdout_path, const char *stderr_path);

/* ------------------------------------------------------------ processes */

/* A process seen at one moment. start_time (clock ticks since boot, from
 * /proc/PID/stat) tells it apart from a later process given the same pid. */
typedef struct hostile_process {
    pid_t pid;
    unsigned long long start_time;
    char role[16]; /* argv[2] of "skytune worker ROLE ...": "measure", "compile"; "" if
                      the child is no worker */
} hostile_process;

/* The children of `parent` now, up to max of them; returns how many. */
size_t hostile_children(pid_t parent, hostile_process *out, size_t max);

/* Whether the process still runs: it exists, is the same process (same
 * start time), and is not a zombie (dead, waiting to be reaped). */
bool hostile_process_running(const hostile_process *p);

/* Wait until none of the processes runs; the index of one still running
 * after timeout_s, or -1. */
long hostile_wait_until_gone(const hostile_process *procs, size_t n, double timeout_s);

/* Send sig if the process is still the one seen; whether it was sent. */
bool hostile_signal_if_running(const hostile_process *p, int sig);

/* The whole of a file the test wrote, NUL-terminated. */
char *hostile_read_text(const char *path);

void hostile_sleep_ms(long ms);
double hostile_now_s(void);

#endif
