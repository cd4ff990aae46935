#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(skytune_error *err, const char *fmt, ...)
{
    if (!err) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

int err_prefix(skytune_error *err, const char *fmt, ...)
{
    if (!err) return -1;
    char prefix[512];
    char old[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof old);
    /* Join in a buffer large enough for both, then keep what fits. */
    char joined[sizeof prefix + sizeof old + 2];
    snprintf(joined, sizeof joined, "%s: %s", prefix, old);
    snprintf(err->message, sizeof err->message, "%.*s", (int)sizeof err->message - 1, joined);
    return -1;
}
