#include "html_escape.h"

#include <stddef.h>

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Length of the well-formed UTF-8 sequence at p (1 to 4), or 0 when it is
 * not one: the report declares UTF-8, and an XML parser rejects anything
 * else (a driver string in Latin-1, a truncated build log). */
static size_t utf8_sequence(const unsigned char *p)
{
    size_t n;
    unsigned min;
    unsigned code;
    if (p[0] < 0x80) return 1;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        n = 2;
        code = p[0] & 0x1Fu;
        min = 0x80;
    } else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        n = 3;
        code = p[0] & 0x0Fu;
        min = 0x800;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        n = 4;
        code = p[0] & 0x07u;
        min = 0x10000;
    } else {
        return 0;
    }
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xC0) != 0x80) return 0; /* also stops at the terminating NUL */
        code = (code << 6) | (p[k] & 0x3Fu);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
    if (code == 0xFFFE || code == 0xFFFF) return 0; /* not XML characters */
    return n;
}

void html_escape_write(FILE *f, const char *text)
{
    if (!text) return;
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        switch (*p) {
        case '&': fputs("&amp;", f); p++; continue;
        case '<': fputs("&lt;", f); p++; continue;
        case '>': fputs("&gt;", f); p++; continue;
        case '"': fputs("&quot;", f); p++; continue;
        case '\'': fputs("&#39;", f); p++; continue;
        case '\t': case '\n': case '\r': fputc(*p, f); p++; continue;
        default: break;
        }
        if (*p < 0x20 || *p == 0x7F) {
            fputs(replacement, f);
            p++;
            continue;
        }
        size_t n = utf8_sequence(p);
        if (n == 0) {
            fputs(replacement, f);
            p++;
            continue;
        }
        fwrite(p, 1, n, f);
        p += n;
    }
}
