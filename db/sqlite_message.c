#include "sqlite_message.h"

#include "busy_wait.h"

const char *db_message(struct sqlite3 *db)
{
    static _Thread_local char shown[DB_ERROR_TEXT];
    return db_error_text(db, shown, sizeof shown);
}
