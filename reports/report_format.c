#include "report_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void report_time_unit(double typical_ns, double *divisor, const char **name)
{
    double a = fabs(typical_ns);
    if (a >= 1e9) {
        *divisor = 1e9;
        *name = "s";
    } else if (a >= 1e6) {
        *divisor = 1e6;
        *name = "ms";
    } else if (a >= 1e3) {
        *divisor = 1e3;
        *name = "\xC2\xB5s"; /* µs */
    } else {
        *divisor = 1.0;
        *name = "ns";
    }
}

void report_format_duration_ns(double ns, char *buf, size_t len)
{
    double divisor;
    const char *unit;
    report_time_unit(ns, &divisor, &unit);
    snprintf(buf, len, "%.4g %s", ns / divisor, unit);
}

const char *report_format_cell(const char *text, report_format format, char *buf, size_t len)
{
    if (!text) {
        snprintf(buf, len, "\xE2\x80\x93"); /* – */
        return buf;
    }
    if (format == FORMAT_TEXT) return text;
    char *end;
    double v = strtod(text, &end);
    if (end == text) return text; /* not a number after all: show it as it is */
    switch (format) {
    case FORMAT_INTEGER: snprintf(buf, len, "%.0f", v); break;
    case FORMAT_NUMBER: snprintf(buf, len, "%.4g", v); break;
    case FORMAT_TIME_NS: report_format_duration_ns(v, buf, len); break;
    case FORMAT_SECONDS: snprintf(buf, len, "%.3g s", v); break;
    case FORMAT_PERCENT: snprintf(buf, len, "%.1f %%", v); break;
    case FORMAT_RATIO: snprintf(buf, len, "%.3f", v); break;
    case FORMAT_FLAG: snprintf(buf, len, "%s", v != 0 ? "yes" : ""); break;
    case FORMAT_TEXT: return text;
    }
    return buf;
}
