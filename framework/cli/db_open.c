#include "db_open.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "query.h"

store *cli_open_existing_db(const char *path)
{
    store *st;
    skytune_error err;
    if (store_open(path, false, &st, &err) != 0) {
        cli_error("%s", err.message);
        return NULL;
    }
    return st;
}

int cli_campaign_arg(const char *text)
{
    unsigned long long id = 0;
    if (!text) return 0;
    if (cli_parse_u64("campaign", text, &id) != 0) return -1;
    if (id == 0) {
        cli_error("--campaign takes a campaign id (1, 2, ...), see skytune best");
        return -1;
    }
    return 0;
}

int cli_only_campaign(void *db, const char *what, char *buf, size_t len)
{
    query_table t;
    skytune_error err = {0};
    if (query_run(db, "SELECT id FROM campaigns ORDER BY id LIMIT 2", NULL, 0, &t, &err) != 0) {
        cli_error("%s: %s", what, err.message);
        return -1;
    }
    int rc = 0;
    if (t.n_rows != 1) {
        if (t.n_rows == 0)
            cli_error("%s: the database holds no campaign", what);
        else
            cli_error("%s: the database holds several campaigns: give --campaign ID (see "
                      "skytune best)",
                      what);
        rc = -1;
    } else {
        snprintf(buf, len, "%s", t.cells[0]);
    }
    query_table_free(&t);
    return rc;
}
