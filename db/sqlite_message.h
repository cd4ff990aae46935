/* SQLite's messages as skytune's messages show them. SQLite quotes a
 * database file's own text in some of its messages (a malformed schema's
 * table names and SQL: "malformed database schema (NAME) - unrecognized
 * token: ..."), so a message about a database someone else wrote can hold
 * any byte the file does; this escapes it as quote.h escapes every text. */
#ifndef SKYTUNE_SQLITE_MESSAGE_H
#define SKYTUNE_SQLITE_MESSAGE_H

struct sqlite3;

/* db_error_text(db) (busy_wait.h: SQLite's message escaped and cut as
 * quote_text does, or the lock the wait ran out on) in a buffer of this
 * thread's. The text is valid until the next call on the same thread: one
 * use per message. */
const char *db_message(struct sqlite3 *db);

#endif
