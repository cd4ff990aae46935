#include "quote.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p encoding a printable character
 * (U+00A0 and up, no surrogates), or 0. C1 controls (U+0080..U+009F) are
 * control characters to a terminal, so they do not count as printable. */
static size_t printable_utf8_length(const unsigned char *p)
{
    size_t n;
    uint32_t code;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        n = 2;
        code = p[0] & 0x1Fu;
    } else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        n = 3;
        code = p[0] & 0x0Fu;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        n = 4;
        code = p[0] & 0x07u;
    } else {
        return 0;
    }
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xC0) != 0x80) return 0; /* also stops at the terminating NUL */
        code = (code << 6) | (p[k] & 0x3Fu);
    }
    static const uint32_t smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[n] || code < 0xA0 || code > 0x10FFFF) return 0; /* overlong, C1 */
    if (code >= 0xD800 && code <= 0xDFFF) return 0;                      /* surrogate */
    return n;
}

/* One character of the text at p as it is shown: its escaped form in out
 * (NUL-terminated, at most 4 bytes plus the NUL, or a UTF-8 sequence), and
 * how many bytes of the text it took. */
static size_t next_unit(const unsigned char *p, char out[8])
{
    unsigned char c = p[0];
    const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r"
                        : c == '\\' ? "\\\\" : c == '\'' ? "\\'" : NULL;
    if (named) {
        snprintf(out, 8, "%s", named);
        return 1;
    }
    if (c >= 0x20 && c < 0x7F) {
        out[0] = (char)c;
        out[1] = '\0';
        return 1;
    }
    size_t n = c >= 0x80 ? printable_utf8_length(p) : 0;
    if (n) {
        memcpy(out, p, n);
        out[n] = '\0';
        return n;
    }
    snprintf(out, 8, "\\x%02x", c);
    return 1;
}

/* Shown length of the text from p to its end. */
static size_t shown_length(const unsigned char *p)
{
    size_t total = 0;
    char unit[8];
    while (*p) {
        p += next_unit(p, unit);
        total += strlen(unit);
    }
    return total;
}

/* Append the shown form of [p, end) to buf at *used, as long as it fits in
 * `limit` bytes (never cutting an escape or a character in half). Returns
 * where it stopped. */
static const unsigned char *append_shown(const unsigned char *p, const unsigned char *end,
                                         char *buf, size_t *used, size_t limit)
{
    char unit[8];
    while (p < end && *p) {
        size_t taken = next_unit(p, unit);
        size_t n = strlen(unit);
        if (*used + n > limit) break;
        memcpy(buf + *used, unit, n);
        *used += n;
        p += taken;
    }
    buf[*used] = '\0';
    return p;
}

const char *quote_text(const char *text, char *buf, size_t len)
{
    if (!buf || len == 0) return "";
    buf[0] = '\0';
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    const unsigned char *end = p + strlen((const char *)p);
    size_t total = shown_length(p);
    size_t used = 0;
    if (total < len) {
        append_shown(p, end, buf, &used, len - 1);
        return buf;
    }
    /* Too long: the beginning, "...", and as much of the end as fits. */
    static const char gap[] = "...";
    size_t room = len - 1 - (sizeof gap - 1);
    size_t head = room / 2, tail = room - head;
    append_shown(p, end, buf, &used, head);
    memcpy(buf + used, gap, sizeof gap);
    used += sizeof gap - 1;
    /* The tail starts at the first character from which the rest fits. */
    const unsigned char *start = p;
    size_t rest = total;
    char unit[8];
    while (*start && rest > tail) {
        size_t taken = next_unit(start, unit);
        rest -= strlen(unit);
        start += taken;
    }
    append_shown(start, end, buf, &used, len - 1);
    return buf;
}
