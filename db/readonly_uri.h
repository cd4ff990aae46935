/* Opening a result database only to read it, leaving its folder as it was:
 * the sources of `skytune merge` (store_merge.c), and a database the reading
 * commands cannot write (store_open_for_reading). */
#ifndef SKYTUNE_READONLY_URI_H
#define SKYTUNE_READONLY_URI_H

#include <stdbool.h>

/* Whether PATH-wal holds anything: a run killed, or running, leaves
 * committed transactions there. */
bool db_wal_in_use(const char *path);

/* "file:PATH?..." with PATH percent-encoded, for sqlite3_open_v2 with
 * SQLITE_OPEN_URI or ATTACH: read-only whatever the name holds. With an
 * empty log the file is opened as immutable, which reads it alone and
 * creates no -wal or -shm file beside it; otherwise read-only through its
 * log, which SQLite can only do with a -shm file (left empty if it made
 * one). malloc'd; NULL when out of memory. */
char *db_readonly_uri(const char *path);

#endif
