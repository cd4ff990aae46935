#include "busy_wait.h"

#include <limits.h>
#include <stdio.h>

#include <sqlite3.h>

#include "lock_holder.h"
#include "quote.h"

void db_busy_wait_set(sqlite3 *db, double seconds)
{
    double ms = seconds * 1000.0 + 0.5;
    sqlite3_busy_timeout(db, !(ms >= 1) ? 0 : ms >= (double)INT_MAX ? INT_MAX : (int)ms);
}

/* SQLite keeps the wait it was given; the pragma reads it back. */
double db_busy_wait_s(sqlite3 *db)
{
    sqlite3_stmt *s = NULL;
    double seconds = 0;
    if (sqlite3_prepare_v2(db, "PRAGMA busy_timeout", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        seconds = (double)sqlite3_column_int64(s, 0) / 1000.0;
    sqlite3_finalize(s);
    return seconds;
}

const char *db_error_text(sqlite3 *db, char *buf, size_t len)
{
    int code = sqlite3_extended_errcode(db);
    /* SQLITE_BUSY_SNAPSHOT is a read transaction that cannot become a
     * write one, which no wait would mend: SQLite's words say it. */
    if ((code & 0xff) != SQLITE_BUSY || code == SQLITE_BUSY_SNAPSHOT)
        return quote_text(sqlite3_errmsg(db), buf, len);
    char holders[512];
    size_t n_holders = lock_holder_text(sqlite3_db_filename(db, "main"), holders, sizeof holders);
    snprintf(buf, len,
             "the database is locked: waited %g s for another process to release it "
             "(--busy-timeout sets how long to wait)%s%s",
             db_busy_wait_s(db), n_holders ? "; the lock is held by " : "", holders);
    return buf;
}
