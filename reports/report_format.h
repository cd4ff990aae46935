/* How reports write numbers: kernel times with a unit that suits them,
 * seconds of engine work, throughput and shares, always from the text a
 * query returned (NULL shows as an en dash). */
#ifndef SKYTUNE_REPORT_FORMAT_H
#define SKYTUNE_REPORT_FORMAT_H

#include <stddef.h>

typedef enum report_format {
    FORMAT_TEXT = 0,     /* as it is */
    FORMAT_INTEGER,      /* whole number */
    FORMAT_NUMBER,       /* 4 significant digits */
    FORMAT_TIME_NS,      /* nanoseconds shown as ns, µs, ms or s */
    FORMAT_SECONDS,      /* seconds, 3 significant digits */
    FORMAT_PERCENT,      /* a percentage: "12.5 %" */
    FORMAT_RATIO,        /* a relative figure or speedup: 3 decimals */
    FORMAT_FLAG          /* 0/1: "yes" for 1, nothing for 0 */
} report_format;

/* The cell text formatted; buf receives it. NULL text gives "–". */
const char *report_format_cell(const char *text, report_format format, char *buf, size_t len);

/* Nanoseconds with a suitable unit: "512 ns", "1.25 ms". */
void report_format_duration_ns(double ns, char *buf, size_t len);

/* The unit to plot a set of nanosecond times in: divisor and name, chosen
 * so that `typical` reads between 1 and 1000. */
void report_time_unit(double typical_ns, double *divisor, const char **name);

#endif
