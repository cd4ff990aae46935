#include "cache_entries.h"

#include <stdio.h>

#include "quote.h"

bool cache_entries_count(cache_entries *e, cache_entry_outcome outcome, const char *reason)
{
    if (outcome == CACHE_ENTRY_FOUND) e->found++;
    if (outcome == CACHE_ENTRY_STORED) e->stored++;
    if (outcome != CACHE_ENTRY_NOT_STORED) return false;
    if (e->not_stored++ > 0) return false;
    snprintf(e->first_reason, sizeof e->first_reason, "%s",
             reason && *reason ? reason : "no reason given");
    return true;
}

void cache_entries_unwritable_notice(const char *dir, const char *reason, char *buf, size_t len)
{
    char shown[QUOTE_PATH];
    snprintf(buf, len,
             "the binary cache %s cannot be written (%s): the programs built now are not kept, "
             "and the next run compiles them again",
             quote_text(dir, shown, sizeof shown), reason);
}
