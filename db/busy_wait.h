/* How long a connection waits for a lock another connection holds on a
 * result database, and what it says when the wait runs out.
 *
 * Runs sharing a database hold its write lock for a transaction of
 * milliseconds each; a longer hold is another program at work on it (a
 * sqlite3 shell with a transaction open, a merge into it), which a campaign
 * should outwait rather than end on. When the wait does run out, the
 * message says so in words, with the wait, the option that sets it and the
 * process holding the lock (lock_holder.h), instead of SQLite's bare
 * "database is locked". */
#ifndef SKYTUNE_BUSY_WAIT_H
#define SKYTUNE_BUSY_WAIT_H

#include <stddef.h>

struct sqlite3;

/* Sets the connection's wait (SQLite's busy timeout) to seconds, rounded
 * to whole milliseconds; 0 waits not at all. */
void db_busy_wait_set(struct sqlite3 *db, double seconds);

/* The connection's wait as set, for a connection that goes with it to wait
 * as long; 0 when it cannot be read. */
double db_busy_wait_s(struct sqlite3 *db);

/* The connection's last error as a message: SQLite's own, or, when it is a
 * lock the wait ran out on (SQLITE_BUSY), "the database is locked: waited
 * 120 s for another process to release it (--busy-timeout sets how long);
 * the lock is held by process 4242 (sqlite3 results.db)". Call it before
 * anything else runs on the connection, as for sqlite3_errmsg. Returns
 * buf. */
const char *db_error_text(struct sqlite3 *db, char *buf, size_t len);

/* Room for db_error_text's message. */
#define DB_ERROR_TEXT 768

#endif
