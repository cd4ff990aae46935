#include "db_open.h"

#include <stdlib.h>

#include "cli.h"

store *cli_open_existing_db(const char *path)
{
    store *st;
    skytune_error err;
    if (store_open_for_reading(path, &st, &err) != 0) {
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
