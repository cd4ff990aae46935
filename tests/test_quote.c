/* Quoting input in messages (framework/core/quote.c): control characters
 * and bytes that are not UTF-8 are escaped, other UTF-8 is kept, and a text
 * too long for its buffer is cut at a character with "...". */
#include <criterion/criterion.h>

#include <string.h>

#include "quote.h"

static const char *quoted(const char *text, size_t len)
{
    static char buf[128];
    cr_assert_leq(len, sizeof buf);
    return quote_text(text, buf, len);
}

Test(quote, printable_ascii_is_kept)
{
    cr_assert_str_eq(quoted("wg_x * wg_y <= 256 'a' \"b\" \\", 128), "wg_x * wg_y <= 256 'a' \"b\" \\");
    cr_assert_str_eq(quoted(NULL, 128), "");
}

Test(quote, control_characters_are_escaped)
{
    cr_assert_str_eq(quoted("a\x1b[2Jb", 128), "a\\x1b[2Jb");
    cr_assert_str_eq(quoted("line\nnext\ttab\rcr\x7f\x01", 128),
                     "line\\nnext\\ttab\\rcr\\x7f\\x01");
}

Test(quote, utf8_is_kept_but_not_c1_controls_or_broken_sequences)
{
    cr_assert_str_eq(quoted("812 \xc2\xb5s \xe2\x86\x92 \xf0\x9f\x98\x80", 128),
                     "812 \xc2\xb5s \xe2\x86\x92 \xf0\x9f\x98\x80");
    /* U+009B is CSI, an escape sequence's start on some terminals. */
    cr_assert_str_eq(quoted("a\xc2\x9b" "31m", 128), "a\\xc2\\x9b31m");
    /* A lone continuation byte, a truncated sequence, an overlong '/' and a
     * surrogate. */
    cr_assert_str_eq(quoted("\x80|\xe2\x86|\xc0\xaf|\xed\xa0\x80", 128),
                     "\\x80|\\xe2\\x86|\\xc0\\xaf|\\xed\\xa0\\x80");
}

Test(quote, long_text_is_cut_at_a_character_with_an_ellipsis)
{
    cr_assert_str_eq(quoted("abcdefghij", 8), "abcd...");
    cr_assert_str_eq(quoted("abcdefg", 8), "abcdefg", "a text that fits exactly is not cut");
    /* An escape is never cut in two. */
    cr_assert_str_eq(quoted("ab\x1b" "cdefgh", 9), "ab...");
    cr_assert_str_eq(quoted("anything", 1), "");
    char span[16];
    cr_assert_str_eq(quote_span("abc\0def", 7, span, sizeof span), "abc\\x00def");
}
