/* Opening a result database from the command line: how long to wait for
 * a lock on it (--busy-timeout), and an existing one for the read-only
 * commands. */
#ifndef SKYTUNE_CLI_DB_OPEN_H
#define SKYTUNE_CLI_DB_OPEN_H

#include <stddef.h>

#include "cli.h"
#include "store.h"

#define CLI_DB_TEXT(x) #x
#define CLI_DB_NUMBER_TEXT(x) CLI_DB_TEXT(x)

/* The option, for the table of every command that opens a database; its
 * help gives the default, STORE_BUSY_TIMEOUT_S. */
#define BUSY_TIMEOUT_OPTION                                                                        \
    {"busy-timeout", "DURATION", false,                                                            \
     "how long to wait for a lock another process holds on the database before giving up, "       \
     "naming the process, e.g. 10m (default " CLI_DB_NUMBER_TEXT(STORE_BUSY_TIMEOUT_S) "s)"}

/* --busy-timeout (a duration above 0), or STORE_BUSY_TIMEOUT_S without it.
 * Prints the problem and returns -1 on a bad value. */
int cli_busy_timeout(const cli_args *args, double *seconds);

/* Prints the error; returns NULL when the file is missing or not a skytune
 * database. A database this user cannot write is read where it is
 * (store_open_for_reading). */
store *cli_open_existing_db(const char *path, double busy_timeout_s);

/* Validate a --campaign value (a positive whole number); NULL means all. */
int cli_campaign_arg(const char *text);

/* The id of the database's only campaign, for commands that write one
 * campaign when none is named; prints why not (none, or several) with
 * `what` as the prefix. */
int cli_only_campaign(store *st, const char *what, char *buf, size_t len);

#endif
