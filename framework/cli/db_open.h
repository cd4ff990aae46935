/* Opening an existing result database for the read-only commands. */
#ifndef SKYTUNE_CLI_DB_OPEN_H
#define SKYTUNE_CLI_DB_OPEN_H

#include <stddef.h>

#include "store.h"

/* Prints the error; returns NULL when the file is missing or not a skytune
 * database. A database this user cannot write is read where it is
 * (store_open_for_reading). */
store *cli_open_existing_db(const char *path);

/* Validate a --campaign value (a positive whole number); NULL means all. */
int cli_campaign_arg(const char *text);

/* The id of the database's only campaign, for commands that write one
 * campaign when none is named; prints why not (none, or several) with
 * `what` as the prefix. */
int cli_only_campaign(store *st, const char *what, char *buf, size_t len);

#endif
