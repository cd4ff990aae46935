/* Tuning parameters: expansion of every kind of value description, the
 * errors for bad descriptions, lookups and --only restriction. */
#include <criterion/criterion.h>

#include <string.h>

#include "params.h"
#include "value.h"

static skytune_tuning_param list_spec(const char *name, skytune_values_kind kind, const char *list)
{
    skytune_tuning_param spec;
    memset(&spec, 0, sizeof spec);
    spec.name = name;
    spec.kind = kind;
    spec.list = list;
    return spec;
}

static skytune_tuning_param range_spec(const char *name, skytune_values_kind kind, int64_t from,
                                       int64_t to, int64_t step)
{
    skytune_tuning_param spec;
    memset(&spec, 0, sizeof spec);
    spec.name = name;
    spec.kind = kind;
    spec.from = from;
    spec.to = to;
    spec.step = step;
    return spec;
}

static void assert_ints(const param_def *p, const int64_t *want, size_t n)
{
    cr_assert_eq(p->type, SKYTUNE_INT);
    cr_assert_eq(p->count, n, "expected %zu values, got %zu", n, p->count);
    for (size_t k = 0; k < n; k++) {
        cr_assert_eq(p->values[k].type, SKYTUNE_INT);
        cr_assert_eq(p->values[k].i, want[k], "value %zu: expected %lld, got %lld", k,
                     (long long)want[k], (long long)p->values[k].i);
    }
}

static void assert_strings(const param_def *p, const char *const *want, size_t n)
{
    cr_assert_eq(p->type, SKYTUNE_STRING);
    cr_assert_eq(p->count, n, "expected %zu values, got %zu", n, p->count);
    for (size_t k = 0; k < n; k++) {
        cr_assert_eq(p->values[k].type, SKYTUNE_STRING);
        cr_assert_str_eq(p->values[k].s, want[k], "value %zu", k);
    }
}

/* Expansion must fail, and the message must contain every fragment. */
static void assert_expand_fails(const skytune_tuning_param *spec, const char *fragment_a,
                                const char *fragment_b)
{
    param_def p;
    skytune_error err;
    memset(&err, 0, sizeof err);
    cr_assert_neq(param_expand(spec, &p, &err), 0, "expansion of '%s' should fail", spec->name);
    cr_assert(strstr(err.message, fragment_a), "message '%s' lacks '%s'", err.message, fragment_a);
    if (fragment_b)
        cr_assert(strstr(err.message, fragment_b), "message '%s' lacks '%s'", err.message,
                  fragment_b);
}

static param_def expand_ok(const skytune_tuning_param *spec)
{
    param_def p;
    skytune_error err;
    memset(&err, 0, sizeof err);
    cr_assert_eq(param_expand(spec, &p, &err), 0, "expansion failed: %s", err.message);
    cr_assert_str_eq(p.name, spec->name);
    return p;
}

Test(params, list_tolerates_whitespace)
{
    skytune_tuning_param spec = list_spec("unroll", SKYTUNE_LIST, " 1,2 , 4,\t8 ");
    param_def p = expand_ok(&spec);
    const int64_t want[] = {1, 2, 4, 8};
    assert_ints(&p, want, 4);
    param_free(&p);
}

Test(params, list_keeps_given_order_and_accepts_hex_and_negatives)
{
    skytune_tuning_param spec = list_spec("offset", SKYTUNE_LIST, "3,-1,0x10,0");
    param_def p = expand_ok(&spec);
    const int64_t want[] = {3, -1, 16, 0};
    assert_ints(&p, want, 4);
    param_free(&p);
}

Test(params, list_errors_name_the_parameter)
{
    skytune_tuning_param empty = list_spec("unroll", SKYTUNE_LIST, "  ");
    assert_expand_fails(&empty, "unroll", "empty");
    skytune_tuning_param hole = list_spec("unroll", SKYTUNE_LIST, "1,,2");
    assert_expand_fails(&hole, "unroll", "empty");
    skytune_tuning_param word = list_spec("unroll", SKYTUNE_LIST, "1,two");
    assert_expand_fails(&word, "unroll", "'two'");
    skytune_tuning_param dup = list_spec("unroll", SKYTUNE_LIST, "1,2,0x1");
    assert_expand_fails(&dup, "unroll", "more than once");
    skytune_tuning_param missing = list_spec("unroll", SKYTUNE_LIST, NULL);
    assert_expand_fails(&missing, "unroll", NULL);
    skytune_tuning_param real = list_spec("unroll", SKYTUNE_LIST, "1,2.5");
    assert_expand_fails(&real, "unroll", "'2.5'");
}

Test(params, range_with_step)
{
    skytune_tuning_param spec = range_spec("wg", SKYTUNE_RANGE, 0, 10, 3);
    param_def p = expand_ok(&spec);
    const int64_t want[] = {0, 3, 6, 9};
    assert_ints(&p, want, 4);
    param_free(&p);

    skytune_tuning_param single = range_spec("wg", SKYTUNE_RANGE, -5, -5, 7);
    p = expand_ok(&single);
    const int64_t one[] = {-5};
    assert_ints(&p, one, 1);
    param_free(&p);
}

Test(params, range_errors)
{
    skytune_tuning_param zero_step = range_spec("wg", SKYTUNE_RANGE, 1, 10, 0);
    assert_expand_fails(&zero_step, "wg", "step");
    skytune_tuning_param negative_step = range_spec("wg", SKYTUNE_RANGE, 1, 10, -1);
    assert_expand_fails(&negative_step, "wg", "step");
    skytune_tuning_param backwards = range_spec("wg", SKYTUNE_RANGE, 10, 1, 1);
    assert_expand_fails(&backwards, "wg", "greater");
    skytune_tuning_param huge = range_spec("wg", SKYTUNE_RANGE, 0, 100000, 1);
    assert_expand_fails(&huge, "wg", "65535");
    skytune_tuning_param extreme = range_spec("wg", SKYTUNE_RANGE, INT64_MIN, INT64_MAX, 1);
    assert_expand_fails(&extreme, "wg", NULL);
}

Test(params, range_of_the_maximum_size_is_accepted)
{
    skytune_tuning_param spec = range_spec("wg", SKYTUNE_RANGE, 1, PARAM_MAX_VALUES, 1);
    param_def p = expand_ok(&spec);
    cr_assert_eq(p.count, PARAM_MAX_VALUES);
    cr_assert_eq(p.values[PARAM_MAX_VALUES - 1].i, PARAM_MAX_VALUES);
    param_free(&p);
}

Test(params, powers_of_two)
{
    skytune_tuning_param spec = range_spec("tile", SKYTUNE_POW2, 3, 100, 0);
    param_def p = expand_ok(&spec);
    const int64_t want[] = {4, 8, 16, 32, 64};
    assert_ints(&p, want, 5);
    param_free(&p);

    skytune_tuning_param from_zero = range_spec("tile", SKYTUNE_POW2, -8, 4, 0);
    p = expand_ok(&from_zero);
    const int64_t small[] = {1, 2, 4};
    assert_ints(&p, small, 3);
    param_free(&p);

    skytune_tuning_param top = range_spec("tile", SKYTUNE_POW2, (int64_t)1 << 62, INT64_MAX, 0);
    p = expand_ok(&top);
    const int64_t largest[] = {(int64_t)1 << 62};
    assert_ints(&p, largest, 1);
    param_free(&p);
}

Test(params, powers_of_two_errors)
{
    skytune_tuning_param none = range_spec("tile", SKYTUNE_POW2, 5, 7, 0);
    assert_expand_fails(&none, "tile", "power of two");
    skytune_tuning_param backwards = range_spec("tile", SKYTUNE_POW2, 8, 1, 0);
    assert_expand_fails(&backwards, "tile", "greater");
}

Test(params, boolean_is_zero_and_one_as_integers)
{
    skytune_tuning_param spec = list_spec("use_local", SKYTUNE_BOOLEAN, NULL);
    param_def p = expand_ok(&spec);
    const int64_t want[] = {0, 1};
    assert_ints(&p, want, 2);
    param_free(&p);
}

Test(params, enum_strings)
{
    skytune_tuning_param spec = list_spec("variant", SKYTUNE_ENUM, " naive, tiled ,vec4");
    param_def p = expand_ok(&spec);
    const char *const want[] = {"naive", "tiled", "vec4"};
    assert_strings(&p, want, 3);
    param_free(&p);
}

Test(params, enum_errors)
{
    skytune_tuning_param inner_space = list_spec("variant", SKYTUNE_ENUM, "naive,very tiled");
    assert_expand_fails(&inner_space, "variant", "holds a space");
    skytune_tuning_param equals = list_spec("variant", SKYTUNE_ENUM, "a=b");
    assert_expand_fails(&equals, "variant", "'='");
    skytune_tuning_param dup = list_spec("variant", SKYTUNE_ENUM, "naive,tiled,naive");
    assert_expand_fails(&dup, "variant", "'naive'");
    skytune_tuning_param empty = list_spec("variant", SKYTUNE_ENUM, "");
    assert_expand_fails(&empty, "variant", "empty");
}

/* An enum value becomes -D variant=VALUE in the kernel build, unquoted: a
 * quote, a backslash, a tab or a newline could end that option or start
 * another, so the plugin declaring one is refused when it is loaded, with
 * the parameter, the value (escaped) and what a valid value is. */
Test(params, enum_values_that_could_break_the_build_options_are_refused)
{
    static const struct {
        const char *list;
        const char *shown;   /* how the message quotes the value */
        const char *reason;
    } cases[] = {
        {"plain,say\"hi", "say\"hi", "quote"},
        {"plain,it's", "it's", "quote"},
        {"plain,back\\slash", "back\\slash", "backslash"},
        {"plain,tab\tbed", "tab\\tbed", "control character"},
        {"plain,new\nline", "new\\nline", "control character"},
        {"plain,caf\xc3\xa9", "caf\xc3\xa9", "not ASCII"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        skytune_tuning_param spec = list_spec("variant", SKYTUNE_ENUM, cases[k].list);
        param_def p;
        skytune_error err = {0};
        cr_assert_neq(param_expand(&spec, &p, &err), 0, "'%s' was accepted", cases[k].list);
        cr_expect(strstr(err.message, "tuning parameter 'variant'") &&
                      strstr(err.message, cases[k].shown) && strstr(err.message, cases[k].reason) &&
                      strstr(err.message, "printable ASCII characters with no space, quote"),
                  "case %zu: %s", k, err.message);
        for (const char *c = err.message; *c; c++)
            cr_expect((unsigned char)*c >= 0x20, "case %zu: a raw control character in: %s", k,
                      err.message);
    }
    /* What a kernel can take as a macro value stays valid. */
    skytune_tuning_param fine = list_spec("variant", SKYTUNE_ENUM, "naive,tiled_2x,float4,-1.5e3,a+b");
    param_def p = expand_ok(&fine);
    param_free(&p);
}

Test(params, permutation_of_two_and_three_letters)
{
    skytune_tuning_param two = list_spec("layout", SKYTUNE_PERMUTATION, "ab");
    param_def p = expand_ok(&two);
    const char *const want_two[] = {"ab", "ba"};
    assert_strings(&p, want_two, 2);
    param_free(&p);

    /* Lexicographic in the letters' given order, not in alphabetical order. */
    skytune_tuning_param three = list_spec("layout", SKYTUNE_PERMUTATION, "cab");
    p = expand_ok(&three);
    const char *const want_three[] = {"cab", "cba", "acb", "abc", "bca", "bac"};
    assert_strings(&p, want_three, 6);
    param_free(&p);
}

Test(params, permutation_of_four_letters)
{
    skytune_tuning_param spec = list_spec("layout", SKYTUNE_PERMUTATION, "TCSP");
    param_def p = expand_ok(&spec);
    cr_assert_eq(p.count, 24);
    cr_assert_str_eq(p.values[0].s, "TCSP");
    cr_assert_str_eq(p.values[1].s, "TCPS");
    cr_assert_str_eq(p.values[2].s, "TSCP");
    cr_assert_str_eq(p.values[6].s, "CTSP");
    cr_assert_str_eq(p.values[23].s, "PSCT");
    /* Every value is a distinct arrangement of the same four letters, and
     * consecutive values increase in the letters' given order. */
    const char *alphabet = "TCSP";
    for (size_t k = 0; k < p.count; k++) {
        cr_assert_eq(strlen(p.values[k].s), 4);
        for (const char *c = alphabet; *c; c++) cr_assert(strchr(p.values[k].s, *c));
        if (k == 0) continue;
        const char *prev = p.values[k - 1].s, *cur = p.values[k].s;
        size_t j = 0;
        while (prev[j] == cur[j]) j++;
        cr_assert_lt(strchr(alphabet, prev[j]) - alphabet, strchr(alphabet, cur[j]) - alphabet,
                     "%s should come before %s", prev, cur);
    }
    param_free(&p);
}

Test(params, permutation_limits)
{
    skytune_tuning_param eight = list_spec("layout", SKYTUNE_PERMUTATION, "abcdefgh");
    param_def p = expand_ok(&eight);
    cr_assert_eq(p.count, 40320);
    cr_assert_str_eq(p.values[40319].s, "hgfedcba");
    param_free(&p);

    skytune_tuning_param nine = list_spec("layout", SKYTUNE_PERMUTATION, "abcdefghi");
    assert_expand_fails(&nine, "layout", "8");
    skytune_tuning_param repeated = list_spec("layout", SKYTUNE_PERMUTATION, "TCST");
    assert_expand_fails(&repeated, "layout", "'T'");
    skytune_tuning_param empty = list_spec("layout", SKYTUNE_PERMUTATION, "");
    assert_expand_fails(&empty, "layout", NULL);
    skytune_tuning_param comma = list_spec("layout", SKYTUNE_PERMUTATION, "a,b");
    assert_expand_fails(&comma, "layout", NULL);
}

Test(params, float_list)
{
    skytune_tuning_param spec = list_spec("alpha", SKYTUNE_FLOAT_LIST, "0.5, 1e-3,2");
    param_def p = expand_ok(&spec);
    cr_assert_eq(p.type, SKYTUNE_FLOAT);
    cr_assert_eq(p.count, 3);
    cr_assert_float_eq(p.values[0].f, 0.5, 1e-15);
    cr_assert_float_eq(p.values[1].f, 1e-3, 1e-18);
    cr_assert_float_eq(p.values[2].f, 2.0, 1e-15);
    for (size_t k = 0; k < 3; k++) cr_assert_eq(p.values[k].type, SKYTUNE_FLOAT);
    param_free(&p);

    skytune_tuning_param dup = list_spec("alpha", SKYTUNE_FLOAT_LIST, "0.5,0.50");
    assert_expand_fails(&dup, "alpha", "more than once");
    skytune_tuning_param bad = list_spec("alpha", SKYTUNE_FLOAT_LIST, "0.5,inf");
    assert_expand_fails(&bad, "alpha", "'inf'");
}

Test(params, names_must_be_identifiers)
{
    skytune_tuning_param digit = list_spec("9lives", SKYTUNE_LIST, "1");
    assert_expand_fails(&digit, "9lives", "identifier");
    skytune_tuning_param dotted = list_spec("device.x", SKYTUNE_LIST, "1");
    assert_expand_fails(&dotted, "device.x", "identifier");
}

Test(params, unknown_kind)
{
    skytune_tuning_param spec = list_spec("odd", SKYTUNE_LIST, "1");
    spec.kind = (skytune_values_kind)42;
    assert_expand_fails(&spec, "odd", "kind");
}

Test(params, index_of_parses_in_the_parameters_type)
{
    skytune_tuning_param ints = list_spec("wg", SKYTUNE_LIST, "1,2,4,16");
    param_def p = expand_ok(&ints);
    cr_assert_eq(param_index_of(&p, "4"), 2);
    cr_assert_eq(param_index_of(&p, " 4 "), 2);
    cr_assert_eq(param_index_of(&p, "0x10"), 3);
    cr_assert_eq(param_index_of(&p, "+1"), 0);
    cr_assert_eq(param_index_of(&p, "3"), -1);
    cr_assert_eq(param_index_of(&p, "4.0"), -1);
    cr_assert_eq(param_index_of(&p, "four"), -1);
    cr_assert_eq(param_index_of(&p, ""), -1);
    param_free(&p);

    skytune_tuning_param reals = list_spec("alpha", SKYTUNE_FLOAT_LIST, "0.5,2,1e-3");
    p = expand_ok(&reals);
    cr_assert_eq(param_index_of(&p, "0.50"), 0);
    cr_assert_eq(param_index_of(&p, "2.0"), 1);
    cr_assert_eq(param_index_of(&p, "0.001"), 2);
    cr_assert_eq(param_index_of(&p, "0.25"), -1);
    param_free(&p);

    skytune_tuning_param words = list_spec("variant", SKYTUNE_ENUM, "naive,tiled");
    p = expand_ok(&words);
    cr_assert_eq(param_index_of(&p, "tiled"), 1);
    cr_assert_eq(param_index_of(&p, "Tiled"), -1);
    cr_assert_eq(param_index_of(&p, "tile"), -1);
    param_free(&p);
}

Test(params, restrict_keeps_the_parameters_order)
{
    skytune_tuning_param spec = list_spec("wg", SKYTUNE_LIST, "1,2,4,8,16");
    param_def p = expand_ok(&spec);
    skytune_error err;
    memset(&err, 0, sizeof err);
    cr_assert_eq(param_restrict(&p, "16, 2,8,2", &err), 0, "%s", err.message);
    const int64_t want[] = {2, 8, 16};
    assert_ints(&p, want, 3);
    param_free(&p);
}

Test(params, restrict_strings)
{
    skytune_tuning_param spec = list_spec("layout", SKYTUNE_PERMUTATION, "abc");
    param_def p = expand_ok(&spec);
    skytune_error err;
    memset(&err, 0, sizeof err);
    cr_assert_eq(param_restrict(&p, "cba,abc", &err), 0, "%s", err.message);
    const char *const want[] = {"abc", "cba"};
    assert_strings(&p, want, 2);
    param_free(&p);
}

Test(params, restrict_rejects_values_not_in_the_list)
{
    skytune_tuning_param spec = list_spec("wg", SKYTUNE_LIST, "1,2,4,8");
    param_def p = expand_ok(&spec);
    skytune_error err;
    memset(&err, 0, sizeof err);
    cr_assert_neq(param_restrict(&p, "2,3", &err), 0);
    cr_assert(strstr(err.message, "'wg'"), "%s", err.message);
    cr_assert(strstr(err.message, "'3'"), "%s", err.message);
    cr_assert(strstr(err.message, "1, 2, 4, 8"), "%s", err.message);
    /* A failed restriction leaves the parameter as it was. */
    const int64_t all[] = {1, 2, 4, 8};
    assert_ints(&p, all, 4);

    cr_assert_neq(param_restrict(&p, "", &err), 0);
    cr_assert(strstr(err.message, "'wg'"), "%s", err.message);
    cr_assert_neq(param_restrict(&p, "2,", &err), 0);
    cr_assert_neq(param_restrict(&p, "two", &err), 0);
    cr_assert(strstr(err.message, "'two'"), "%s", err.message);
    assert_ints(&p, all, 4);
    param_free(&p);
}

Test(params, describe_values_truncates_with_an_ellipsis)
{
    skytune_tuning_param spec = range_spec("wg", SKYTUNE_RANGE, 1, 1000, 1);
    param_def p = expand_ok(&spec);
    char buf[32];
    param_describe_values(&p, buf, sizeof buf);
    cr_assert_lt(strlen(buf), sizeof buf);
    cr_assert_eq(strncmp(buf, "1, 2, 3, ", 9), 0, "%s", buf);
    cr_assert_str_eq(buf + strlen(buf) - 5, ", ...", "%s", buf);

    char tiny[3];
    param_describe_values(&p, tiny, sizeof tiny);
    cr_assert_lt(strlen(tiny), sizeof tiny);
    param_free(&p);

    skytune_tuning_param few = list_spec("wg", SKYTUNE_LIST, "1,2,4,8");
    p = expand_ok(&few);
    char exact[11]; /* "1, 2, 4, 8" and its terminator */
    param_describe_values(&p, exact, sizeof exact);
    cr_assert_str_eq(exact, "1, 2, 4, 8");
    param_free(&p);
}

Test(params, from_values_copies_and_checks)
{
    skytune_value values[3];
    memset(values, 0, sizeof values);
    values[0].type = SKYTUNE_STRING;
    values[0].s = "x";
    values[1].type = SKYTUNE_STRING;
    values[1].s = "y";
    param_def p;
    skytune_error err;
    memset(&err, 0, sizeof err);
    cr_assert_eq(param_from_values("mode", SKYTUNE_STRING, values, 2, &p, &err), 0, "%s",
                 err.message);
    cr_assert_neq(p.values[0].s, values[0].s, "strings must be copied");
    const char *const want[] = {"x", "y"};
    assert_strings(&p, want, 2);
    param_free(&p);

    values[2].type = SKYTUNE_INT;
    values[2].i = 3;
    cr_assert_neq(param_from_values("mode", SKYTUNE_STRING, values, 3, &p, &err), 0);
    cr_assert(strstr(err.message, "mode"), "%s", err.message);

    values[1].s = "x";
    cr_assert_neq(param_from_values("mode", SKYTUNE_STRING, values, 2, &p, &err), 0);
    cr_assert(strstr(err.message, "more than once"), "%s", err.message);

    cr_assert_neq(param_from_values("mode", SKYTUNE_STRING, values, 0, &p, &err), 0);
    cr_assert_neq(param_from_values("not an identifier", SKYTUNE_STRING, values, 1, &p, &err), 0);
}
