#include "db_open.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "run_common.h"
#include "store_campaigns.h"

int cli_busy_timeout(const cli_args *args, double *seconds)
{
    const char *text = cli_get(args, "busy-timeout");
    *seconds = STORE_BUSY_TIMEOUT_S;
    /* Above 0: no wait at all would end a campaign on another run's
     * transaction of a millisecond. */
    return text ? run_parse_positive_duration("busy-timeout", text, seconds) : 0;
}

store *cli_open_existing_db(const char *path, double busy_timeout_s)
{
    store *st;
    skytune_error err;
    if (store_open_for_reading(path, busy_timeout_s, &st, &err) != 0) {
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

int cli_only_campaign(store *st, const char *what, char *buf, size_t len)
{
    int64_t id = 0;
    int count = 0;
    skytune_error err = {0};
    if (store_campaign_only(st, &id, &count, &err) != 0) {
        cli_error("%s: %s", what, err.message);
        return -1;
    }
    if (count == 0) {
        cli_error("%s: the database holds no campaign", what);
        return -1;
    }
    if (count > 1) {
        cli_error("%s: the database holds several campaigns: give --campaign ID (see "
                  "skytune best)",
                  what);
        return -1;
    }
    snprintf(buf, len, "%lld", (long long)id);
    return 0;
}
