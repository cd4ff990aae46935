/* What `skytune run` and `skytune campaign run` share: Ctrl-C handling,
 * the isolation and compiling options, and how a run's start and outcome
 * are printed. */
#ifndef SKYTUNE_CLI_RUN_COMMON_H
#define SKYTUNE_CLI_RUN_COMMON_H

#include <signal.h>

#include "cli.h"
#include "tuning_run.h"

/* The options parse_supervision reads, for each command's option table. */
extern const cli_option run_supervision_options[];
extern const size_t run_supervision_option_count;

/* options (n) followed by the supervision options into out (CLI_MAX_OPTIONS
 * entries); returns how many. */
size_t run_options_with_supervision(const cli_option *options, size_t n, cli_option *out);

/* The isolation and compiling options, and --busy-timeout, into the
 * request. Prints the problem and returns -1 on bad input. */
int run_parse_supervision(const cli_args *args, tuning_request *rq);

/* A duration longer than 0 for --OPTION (prints the problem and returns -1
 * otherwise): a limit of 0 would mean no limit, which is leaving the option
 * out. */
int run_parse_positive_duration(const char *option, const char *text, double *out);

/* The skytune executable, for workers (malloc'd); NULL when unknown. */
char *run_own_executable(void);

/* Block SIGINT and SIGTERM in every thread and receive them on one of its
 * own: the first sets the returned flag (stop after the configuration in
 * flight, which has stop_grace_s to finish) and says so at once, a second
 * ends the process at once. Returns NULL (message printed) when it
 * cannot. */
volatile sig_atomic_t *run_catch_stop_signals(const char *command, double stop_grace_s);
/* At the end of the command: ends and joins the receiving thread. */
void run_release_stop_signals(void);

/* tuning_run's on_start: ctx is a progress. */
void run_print_start(void *ctx, const tuning_started *s);
/* A campaign's summary; returns its exit status (EXIT_OK, or
 * EXIT_INTERRUPTED for a stopped one). label may be NULL. */
int run_print_outcome(const tuning_outcome *out, const char *label);

/* "skytune COMMAND arg arg ..." as typed, quoted where a space needs it,
 * with a --notify URL cut to its origin ("https://hooks.example.org/…"): a
 * webhook's path is often its key, and the command is recorded with the
 * campaign in a database that may be shared. */
char *run_join_command(const char *command, int argc, char **argv);

#endif
