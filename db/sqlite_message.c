#include "sqlite_message.h"

#include <sqlite3.h>

#include "quote.h"

const char *db_message(struct sqlite3 *db)
{
    static _Thread_local char shown[2 * QUOTE_TEXT];
    return quote_text(sqlite3_errmsg(db), shown, sizeof shown);
}
