/* The skytune command line: subcommands, option parsing, exit codes.
 *
 * Exit codes (documented in `skytune --help`):
 *   0    success
 *   1    the command failed: bad input (unknown plugin, malformed
 *        constraint, unknown parameter, foreign database, ...) or a runtime
 *        error (no OpenCL platform, database error); the message says which
 *   2    usage error: unknown option, missing argument
 *   130  interrupted by Ctrl-C after the configuration in flight; the
 *        database is consistent and the same command continues the run
 *   143, 138  the same after SIGTERM or SIGUSR1: a command stopped by a
 *        signal exits 128 + its number (stop_signals.h) */
#ifndef SKYTUNE_CLI_H
#define SKYTUNE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXIT_OK 0
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130

typedef struct cli_option {
    const char *name;      /* long name without "--" */
    const char *metavar;   /* NULL for a flag */
    bool repeatable;
    const char *help;
} cli_option;

#define CLI_MAX_VALUES 64
#define CLI_MAX_OPTIONS 64
#define CLI_MAX_POSITIONAL 1024

typedef struct cli_args {
    const cli_option *options;
    size_t n_options;
    size_t counts[CLI_MAX_OPTIONS];
    const char *values[CLI_MAX_OPTIONS][CLI_MAX_VALUES];
    const char *positional[CLI_MAX_POSITIONAL];
    size_t n_positional;
} cli_args;

/* Parse argv (after the subcommand). Prints the problem and returns
 * EXIT_USAGE on bad usage, or -1 when --help was asked (help printed). */
int cli_parse(const char *command, const char *summary, const cli_option *options, size_t n,
              size_t max_positional, const char *positional_help, int argc, char **argv,
              cli_args *out);

const char *cli_get(const cli_args *a, const char *name);   /* last value or NULL */
bool cli_flag(const cli_args *a, const char *name);
size_t cli_all(const cli_args *a, const char *name, const char *const **values);

/* Number parsing for option values; print a message naming the option. */
int cli_parse_u64(const char *option, const char *text, unsigned long long *out);
int cli_parse_duration(const char *option, const char *text, double *seconds);
/* A size in bytes with an optional K, M or G (powers of 1024), above 0. */
int cli_parse_size(const char *option, const char *text, uint64_t *out);
/* That a file named by an option can be read; prints "--OPTION PATH: why
 * (give WHAT)" when not. */
int cli_check_readable(const char *option, const char *path, const char *what);

/* That text is one of choices[0..n); prints "WHAT 'TEXT' is not one of:
 * a, b, c (did you mean 'b'?)" and returns -1 when not. what names the
 * input, e.g. "export: --format". */
int cli_check_choice(const char *what, const char *text, const char *const *choices, size_t n);

void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cmd_devices(int argc, char **argv);
int cmd_plugins(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_worker(int argc, char **argv);
int cmd_best(int argc, char **argv);
int cmd_confirm(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_bench_strategies(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_campaign(int argc, char **argv);
int cmd_publish(int argc, char **argv);

#endif
