#include "quantity.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int quantity_duration(const char *text, double *seconds)
{
    double total = 0.0;
    const char *p = text;
    if (!*p) return -1;
    while (*p) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno != 0 || !(v >= 0) || !isfinite(v)) return -1;
        double unit = 1.0;
        switch (*end) {
        case 's': unit = 1.0; end++; break;
        case 'm': unit = 60.0; end++; break;
        case 'h': unit = 3600.0; end++; break;
        case 'd': unit = 86400.0; end++; break;
        case '\0': break;
        default: return -1;
        }
        total += v * unit;
        p = end;
    }
    if (!isfinite(total)) return -1; /* "1e308d" */
    *seconds = total;
    return 0;
}

int quantity_size(const char *text, uint64_t *bytes)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    uint64_t unit = 1;
    if (*end == 'K' || *end == 'k') unit = 1ull << 10;
    else if (*end == 'M' || *end == 'm') unit = 1ull << 20;
    else if (*end == 'G' || *end == 'g') unit = 1ull << 30;
    if (unit != 1) end++;
    if (end == text || *end || errno || text[0] == '-' || v == 0 || v > UINT64_MAX / unit)
        return -1;
    *bytes = (uint64_t)v * unit;
    return 0;
}

int quantity_target(const char *text, double *ns, double *gflops)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v > 0) || !isfinite(v)) return -1;
    if (strcmp(end, "gflops") == 0 || strcmp(end, "GFLOPS") == 0 || strcmp(end, "GFLOP/s") == 0)
        *gflops = v;
    else if (strcmp(end, "ns") == 0)
        *ns = v;
    else if (strcmp(end, "us") == 0 || strcmp(end, "µs") == 0)
        *ns = v * 1e3;
    else if (strcmp(end, "ms") == 0)
        *ns = v * 1e6;
    else if (strcmp(end, "s") == 0)
        *ns = v * 1e9;
    else
        return -1;
    return 0;
}

int quantity_fraction(const char *text, double *fraction)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (end != text && *end == '%' && end[1] == '\0') {
        value /= 100.0;
        end++;
    }
    if (end == text || *end != '\0' || errno != 0 || !(value > 0 && value < 1)) return -1;
    *fraction = value;
    return 0;
}

int quantity_count(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*text < '0' || *text > '9') return -1;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0') return -1;
    *out = v;
    return 0;
}
