/* Reading a result database in place, leaving it and its folder as they
 * were: the sources of `skytune merge` (store_merge.c), a database the
 * reading commands cannot write (store_open_for_reading), and a database
 * replayed as a recorded dataset (store_reader.c). */
#ifndef SKYTUNE_READ_IN_PLACE_H
#define SKYTUNE_READ_IN_PLACE_H

#include <stdbool.h>

#include "error.h"

struct sqlite3;

/* Whether PATH-wal exists and is not empty: a run killed, or running,
 * leaves committed transactions there. When in doubt, yes. */
bool db_wal_has_frames(const char *path);

/* Whether another connection may have PATH open or left work unfinished:
 * a -wal, -shm or -journal file lies beside it (a WAL connection keeps its
 * -wal and -shm while it is open; a rollback writer its -journal). */
bool db_may_change(const char *path);

/* "file:PATH?..." with PATH percent-encoded, for sqlite3_open_v2 with
 * SQLITE_OPEN_URI or ATTACH: read-only whatever the name holds. Where
 * nothing lies beside it (db_may_change false) the file cannot change
 * under the reader and is opened as immutable, which reads it alone and
 * creates no file beside it, on a read-only file system too; otherwise
 * read-only through its log and the -shm file already there. malloc'd;
 * NULL when out of memory. */
char *db_readonly_uri(const char *path);

/* A connection that only reads PATH and leaves no file beside it. A
 * connection opened read-only to a WAL database creates the -wal and -shm
 * files and, unable to checkpoint, leaves them behind; a read-write
 * connection that only reads removes them on close, and its checkpoint of
 * an empty WAL writes nothing. So: read-write (without creating) when the
 * WAL is absent or empty; read-only when it holds frames (a writer is at
 * work or was killed: checkpointing them would be writing, and the files
 * exist already), or when the file cannot be opened for writing at all.
 * The caller keeps it from writing (PRAGMA query_only). `name` is the file
 * as messages name it. */
int db_open_in_place(const char *path, const char *name, struct sqlite3 **out,
                     skytune_error *err);

#endif
