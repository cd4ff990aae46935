#include "quote.h"

#include <stdio.h>
#include <string.h>

/* Length of the UTF-8 character at s (n bytes left) that may be printed as
 * it is, or 0 when the byte must be escaped: invalid or overlong sequences,
 * surrogates, and the C1 controls. */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t need;
    unsigned int code;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
        code = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        code = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        code = c & 0x07;
    } else {
        return 0;
    }
    if (n < need) return 0;
    for (size_t k = 1; k < need; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        code = (code << 6) | (s[k] & 0x3F);
    }
    if ((need == 3 && code < 0x800) || (need == 4 && (code < 0x10000 || code > 0x10FFFF)) ||
        (code >= 0xD800 && code <= 0xDFFF) || (code >= 0x80 && code <= 0x9F))
        return 0;
    return need;
}

/* The printed form of the character at s[0] (n bytes left) into piece
 * (room for 8); returns its length and sets *advance to the bytes it took. */
static size_t quote_piece(const unsigned char *s, size_t n, char *piece, size_t *advance)
{
    unsigned char c = s[0];
    size_t utf8 = c >= 0x80 ? printable_utf8(s, n) : 0;
    *advance = 1;
    if (c >= 0x20 && c < 0x7F) {
        piece[0] = (char)c;
        return 1;
    }
    if (utf8) {
        memcpy(piece, s, utf8);
        *advance = utf8;
        return utf8;
    }
    const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
    if (named) {
        memcpy(piece, named, 2);
        return 2;
    }
    return (size_t)snprintf(piece, 8, "\\x%02x", c);
}

const char *quote_span(const char *text, size_t n, char *buf, size_t len)
{
    static const char ellipsis[] = "...";
    if (len == 0) return buf;
    if (!text) n = 0;
    const unsigned char *s = (const unsigned char *)text;
    char piece[8];
    size_t advance, total = 0;
    for (size_t k = 0; k < n && total < len; k += advance)
        total += quote_piece(s + k, n - k, piece, &advance);
    /* A text that does not fit is cut with room left for "..." after it. */
    size_t room = total < len ? len - 1 : len > sizeof ellipsis ? len - sizeof ellipsis : 0;
    size_t used = 0;
    for (size_t k = 0; k < n; k += advance) {
        size_t piece_len = quote_piece(s + k, n - k, piece, &advance);
        if (used + piece_len > room) break;
        memcpy(buf + used, piece, piece_len);
        used += piece_len;
    }
    if (total >= len) {
        size_t shown = len - 1 - used < sizeof ellipsis - 1 ? len - 1 - used : sizeof ellipsis - 1;
        memcpy(buf + used, ellipsis, shown);
        used += shown;
    }
    buf[used] = '\0';
    return buf;
}

const char *quote_text(const char *text, char *buf, size_t len)
{
    return quote_span(text, text ? strlen(text) : 0, buf, len);
}
