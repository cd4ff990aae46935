/* Canonical texts of named values (canonical.h): two different sets of
 * values never share a text, every text reads back as the values it was
 * made of, and texts of ordinary values are what they always were. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "canonical.h"
#include "pcg32.h"

static skytune_named_value text_value(const char *name, const char *s)
{
    return (skytune_named_value){.name = name, .value = {.type = SKYTUNE_STRING, .s = s}};
}

static skytune_named_value int_value(const char *name, int64_t i)
{
    return (skytune_named_value){.name = name, .value = {.type = SKYTUNE_INT, .i = i}};
}

/* The text of items, read back: the same names and values in order. */
static void assert_reads_back(const skytune_named_value *items, size_t n)
{
    char *text = canonical_of_values(items, n);
    cr_assert_not_null(text);
    canonical_pair *pairs;
    size_t n_pairs;
    skytune_error err = {0};
    cr_assert_eq(canonical_split(text, &pairs, &n_pairs, &err), 0, "%s: %s", text, err.message);
    cr_assert_eq(n_pairs, n, "%s", text);
    for (size_t k = 0; k < n; k++) {
        cr_assert_str_eq(pairs[k].name, items[k].name, "%s", text);
        if (items[k].value.type == SKYTUNE_STRING)
            cr_assert_str_eq(pairs[k].value, items[k].value.s, "%s", text);
    }
    canonical_pairs_free(pairs, n_pairs);
    free(text);
}

Test(canonical, plain_values_are_written_as_they_always_were)
{
    const skytune_named_value items[] = {int_value("channels", 1536), text_value("mode", "tiled"),
                                         text_value("layout", "TCSP"), int_value("dms", -4)};
    char *text = canonical_of_values(items, 4);
    cr_assert_str_eq(text, "channels=1536,mode=tiled,layout=TCSP,dms=-4");
    free(text);
    char *empty = canonical_of_values(NULL, 0);
    cr_assert_str_eq(empty, "");
    free(empty);
}

/* The two problems of the report: a = "1,b=2", b = 3 and a = 1, b = "2,b=3"
 * were one text, "a=1,b=2,b=3", and so one database row. */
Test(canonical, values_holding_separators_are_quoted_so_problems_stay_apart)
{
    const skytune_named_value first[] = {text_value("a", "1,b=2"), text_value("b", "3")};
    const skytune_named_value second[] = {text_value("a", "1"), text_value("b", "2,b=3")};
    char *one = canonical_of_values(first, 2), *two = canonical_of_values(second, 2);
    cr_assert_str_eq(one, "a='1,b=2',b=3");
    cr_assert_str_eq(two, "a=1,b='2,b=3'");
    assert_reads_back(first, 2);
    assert_reads_back(second, 2);
    free(one);
    free(two);

    /* Only a leading quote starts a quoted value: quotes and backslashes
     * inside a value, and spaces between its characters, leave it bare. */
    const skytune_named_value quotes[] = {text_value("q", "it's"), text_value("b", "back\\slash"),
                                          text_value("d", "say \"hi\""), text_value("s", " pad "),
                                          text_value("l", "'x'")};
    char *text = canonical_of_values(quotes, 5);
    cr_assert_str_eq(text, "q=it's,b=back\\slash,d=say \"hi\",s=' pad ',l='\\'x\\''");
    assert_reads_back(quotes, 5);
    free(text);
}

/* Random values over an alphabet rich in separators, quotes and spaces: the
 * text always reads back exactly, and different values give different
 * texts. */
Test(canonical, random_values_read_back_and_never_collide)
{
    static const char alphabet[] = "ab,='\"\\ 1";
    pcg32 rng;
    pcg32_seed(&rng, 7, 0);
    enum { ROUNDS = 3000, WIDTH = 6 };
    char **texts = calloc(ROUNDS, sizeof *texts);
    char values[ROUNDS][2][WIDTH + 1];
    for (size_t r = 0; r < ROUNDS; r++) {
        for (size_t v = 0; v < 2; v++) {
            size_t length = pcg32_bounded(&rng, WIDTH + 1);
            for (size_t c = 0; c < length; c++)
                values[r][v][c] = alphabet[pcg32_bounded(&rng, sizeof alphabet - 1)];
            values[r][v][length] = '\0';
        }
        const skytune_named_value items[] = {text_value("a", values[r][0]),
                                             text_value("b", values[r][1])};
        assert_reads_back(items, 2);
        texts[r] = canonical_of_values(items, 2);
        for (size_t o = 0; o < r; o++) {
            bool same_values = strcmp(values[o][0], values[r][0]) == 0 &&
                               strcmp(values[o][1], values[r][1]) == 0;
            cr_assert_eq(strcmp(texts[o], texts[r]) == 0, same_values,
                         "a='%s',b='%s' and a='%s',b='%s' share the text %s", values[o][0],
                         values[o][1], values[r][0], values[r][1], texts[r]);
        }
    }
    for (size_t r = 0; r < ROUNDS; r++) free(texts[r]);
    free(texts);
}

Test(canonical, hand_written_texts_read_with_spaces_around_pairs)
{
    canonical_pair *pairs;
    size_t n;
    skytune_error err = {0};
    cr_assert_eq(canonical_split(" wg = 32 , mode = 'a, b' ", &pairs, &n, &err), 0, "%s",
                 err.message);
    cr_assert_eq(n, 2);
    cr_expect_str_eq(pairs[0].name, "wg");
    cr_expect_str_eq(pairs[0].value, "32");
    cr_expect_str_eq(pairs[1].name, "mode");
    cr_expect_str_eq(pairs[1].value, "a, b");
    canonical_pairs_free(pairs, n);
    cr_assert_eq(canonical_split("   ", &pairs, &n, &err), 0);
    cr_assert_eq(n, 0);
}

Test(canonical, malformed_texts_are_refused_with_the_reason)
{
    static const struct {
        const char *text, *reason;
    } cases[] = {
        {"a=1,b", "no '='"},
        {"a=1,=2", "no name"},
        {"a='open", "no closing quote"},
        {"a='x'y,b=1", "text follows a closing quote"},
        {"a=1,", "no '='"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        canonical_pair *pairs = NULL;
        size_t n = 0;
        skytune_error err = {0};
        cr_assert_neq(canonical_split(cases[k].text, &pairs, &n, &err), 0, "%s was read",
                      cases[k].text);
        cr_expect(strstr(err.message, cases[k].reason), "%s: %s", cases[k].text, err.message);
        cr_expect_null(pairs);
    }
}
