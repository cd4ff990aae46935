/* Errors inside the engine: every library function that can fail returns 0
 * on success or -1 on failure and fills a skytune_error (from
 * skytune/plugin_types.h) with a message that names the input at fault and
 * what would be valid. Only the CLI prints messages and chooses exit codes. */
#ifndef SKYTUNE_ERROR_H
#define SKYTUNE_ERROR_H

#include <skytune/plugin_types.h>

#if defined(__GNUC__)
#define SKYTUNE_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SKYTUNE_PRINTF(a, b)
#endif

/* Fill err with a formatted message and return -1. err may be NULL. */
int err_set(skytune_error *err, const char *fmt, ...) SKYTUNE_PRINTF(2, 3);

/* Prefix an existing message: "context: <old message>". Returns -1. */
int err_prefix(skytune_error *err, const char *fmt, ...) SKYTUNE_PRINTF(2, 3);

#endif
