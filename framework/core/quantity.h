/* Quantities written as text: durations ("90s", "15m", "1h30m"), sizes
 * ("500M", "4G") and performance targets ("2.5ms", "150gflops"). One reader
 * each, shared by the command line and campaign files, so both accept the
 * same spellings. Each returns 0, or -1 when the text is not one (the caller
 * names the option or key in its message, with quantity_*_help). */
#ifndef SKYTUNE_QUANTITY_H
#define SKYTUNE_QUANTITY_H

#include <stdint.h>

/* "90", "90s", "15m", "8h", "1d", "1h30m": seconds, >= 0. */
int quantity_duration(const char *text, double *seconds);
#define QUANTITY_DURATION_HELP "a duration such as 90s, 15m, 8h or 1h30m"

/* Bytes with an optional K, M or G (powers of 1024); > 0. */
int quantity_size(const char *text, uint64_t *bytes);
#define QUANTITY_SIZE_HELP "a size (a positive number of bytes, or with K, M or G)"

/* A time ("2.5ms", "800us", "120ns", "1s") into *ns, or a throughput
 * ("150gflops") into *gflops; the other is left alone. > 0. */
int quantity_target(const char *text, double *ns, double *gflops);
#define QUANTITY_TARGET_HELP "a time (e.g. 2.5ms, 800us) or a throughput (e.g. 150gflops)"

/* A fraction above 0 and below 1, as a number ("0.01") or a percentage
 * ("1%"): --stop-when-gain-below and the campaign file's
 * stop_when_gain_below. */
int quantity_fraction(const char *text, double *fraction);
#define QUANTITY_FRACTION_HELP "a fraction between 0 and 1 (e.g. 0.01, or 1%)"

/* A whole number >= 0 in decimal, nothing else. */
int quantity_count(const char *text, uint64_t *out);

#endif
