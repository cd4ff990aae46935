/* What `skytune run` and `skytune campaign run` share: the isolation and
 * compiling options, and how a run's start and outcome are printed. Their
 * stop signals are in stop_signals.h. */
#ifndef SKYTUNE_CLI_RUN_COMMON_H
#define SKYTUNE_CLI_RUN_COMMON_H

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

/* --confirm, --confirm-rounds and --no-confirm into the request (also
 * called by run_parse_supervision). Prints the problem and returns -1 on
 * bad input. */
int run_parse_confirmation(const cli_args *args, tuning_request *rq);

/* The confirmation's lines of a run's summary. */
void run_print_confirmation(const confirmation_outcome *c);

/* A duration longer than 0 for --OPTION (prints the problem and returns -1
 * otherwise): a limit of 0 would mean no limit, which is leaving the option
 * out. */
int run_parse_positive_duration(const char *option, const char *text, double *out);

/* The skytune executable, for workers (malloc'd); NULL when unknown. */
char *run_own_executable(void);

/* path made absolute (malloc'd): its folder resolved, the file's name
 * kept, so that a file that is not there yet has one too; NULL when the
 * folder cannot be resolved. */
char *run_absolute_path(const char *path);

/* tuning_run's on_start: ctx is a progress. */
void run_print_start(void *ctx, const tuning_started *s);
/* A campaign's summary, with the database it is in (db_path as given;
 * NULL: not said); returns its exit status (EXIT_OK, or EXIT_INTERRUPTED
 * for a stopped one). label may be NULL. */
int run_print_outcome(const tuning_outcome *out, const char *label, const char *db_path);

/* "skytune COMMAND arg arg ..." as typed, quoted where a space needs it,
 * with a --notify URL cut to its origin ("https://hooks.example.org/…"): a
 * webhook's path is often its key, and the command is recorded with the
 * campaign in a database that may be shared. */
char *run_join_command(const char *command, int argc, char **argv);

#endif
