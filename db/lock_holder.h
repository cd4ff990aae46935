/* Who holds a lock on a result database: when a connection's wait for a
 * lock runs out, the message names the process in the way, so that the user
 * knows what to end or to wait for instead of guessing.
 *
 * SQLite locks with POSIX record locks (fcntl), which Linux lists in
 * /proc/locks by the inode of the locked file: the database file itself (a
 * rollback-journal writer, and every reader of one), its -shm file (a WAL
 * writer takes byte 120 of it) and, for completeness, its -wal and
 * -journal. Elsewhere, or when nothing is found, the text is empty. */
#ifndef SKYTUNE_LOCK_HOLDER_H
#define SKYTUNE_LOCK_HOLDER_H

#include <stddef.h>

/* Into buf, e.g. "process 4242 (sqlite3 results.db)": each process but
 * this one holding a write lock on the database's files or, when none
 * does, a read lock on the database file itself (readers of a rollback
 * journal keep a writer from committing; in WAL mode every open connection
 * holds read locks on -shm, which block nobody, so those are not named).
 * Several are joined by ", "; a command line is quoted (quote.h), and left
 * out where it cannot be read. Returns the number of processes named; buf
 * is "" when none is. */
size_t lock_holder_text(const char *db_path, char *buf, size_t len);

#endif
