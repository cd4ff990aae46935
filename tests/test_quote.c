/* Text quoted in messages (quote.h): nothing that reaches a terminal can
 * act on it, and a long text keeps its beginning, its end and room for the
 * rest of the message. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "pcg32.h"
#include "quote.h"

Test(quote, control_characters_quotes_and_backslashes_are_escaped)
{
    char buf[QUOTE_EXCERPT];
    cr_assert_str_eq(quote_text("\x1b[31mred\x1b[0m", buf, sizeof buf), "\\x1b[31mred\\x1b[0m");
    cr_assert_str_eq(quote_text("a\nb\tc\rd\x7f", buf, sizeof buf), "a\\nb\\tc\\rd\\x7f");
    cr_assert_str_eq(quote_text("it's a\\b", buf, sizeof buf), "it\\'s a\\\\b");
    cr_assert_str_eq(quote_text(NULL, buf, sizeof buf), "");
}

Test(quote, utf8_text_stays_and_broken_or_c1_bytes_are_escaped)
{
    char buf[QUOTE_EXCERPT];
    cr_assert_str_eq(quote_text("2.5µs café", buf, sizeof buf), "2.5µs café");
    /* A lone continuation byte, a truncated sequence, an overlong '/', and
     * U+009B (a C1 control, CSI to some terminals). */
    cr_assert_str_eq(quote_text("\x80|\xc3|\xc0\xaf|\xc2\x9b", buf, sizeof buf),
                     "\\x80|\\xc3|\\xc0\\xaf|\\xc2\\x9b");
}

Test(quote, a_long_text_keeps_its_beginning_and_end)
{
    char text[5000];
    memset(text, 'x', sizeof text - 1);
    memcpy(text, "BEGIN", 5);
    memcpy(text + sizeof text - 4, "END", 3);
    text[sizeof text - 1] = '\0';
    char buf[64];
    const char *shown = quote_text(text, buf, sizeof buf);
    cr_assert_lt(strlen(shown), sizeof buf);
    cr_assert(strncmp(shown, "BEGIN", 5) == 0, "%s", shown);
    cr_assert(strstr(shown, "..."), "%s", shown);
    size_t n = strlen(shown);
    cr_assert(n >= 3 && strcmp(shown + n - 3, "END") == 0, "%s", shown);
    cr_assert_eq(n, sizeof buf - 1, "the room is used: %s", shown);
}

/* Random bytes into buffers of every size: never past the buffer, never a
 * raw control byte, never an escape cut in half. */
Test(quote, random_bytes_never_overflow_or_leak_control_bytes)
{
    pcg32 rng;
    pcg32_seed(&rng, 11, 0);
    char text[300], buf[200];
    for (int round = 0; round < 20000; round++) {
        size_t length = pcg32_bounded(&rng, sizeof text);
        for (size_t k = 0; k < length; k++) text[k] = (char)(1 + pcg32_bounded(&rng, 255));
        text[length] = '\0';
        size_t len = 16 + pcg32_bounded(&rng, sizeof buf - 16);
        memset(buf, 'Z', sizeof buf);
        const char *shown = quote_text(text, buf, len);
        cr_assert_lt(strlen(shown), len);
        for (size_t k = len; k < sizeof buf; k++) cr_assert_eq(buf[k], 'Z', "wrote past %zu", len);
        for (const unsigned char *c = (const unsigned char *)shown; *c; c++) {
            cr_assert(*c >= 0x20 && *c != 0x7f, "raw byte 0x%02x in '%s'", *c, shown);
            if (*c == '\\') {
                cr_assert(c[1] == 'n' || c[1] == 't' || c[1] == 'r' || c[1] == '\\' ||
                              c[1] == '\'' || (c[1] == 'x' && c[2] && c[3]),
                          "a cut escape in '%s'", shown);
                c += c[1] == 'x' ? 3 : 1;
            }
        }
    }
}
