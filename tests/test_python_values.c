/* The Python subset T1 files write tuning parameter values in
 * (python_values.h): every form the benchmark hub uses gives the list
 * Python gives (the expected lists were printed by python3 from the same
 * texts), and everything outside the subset is refused naming the
 * construct and its column. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python_values.h"
#include "value.h"

/* The list as "v1 v2 ..." in canonical value text. */
static char *evaluate(const char *text)
{
    skytune_value *values;
    size_t count;
    skytune_error err = {0};
    cr_assert_eq(python_values_eval(text, &values, &count, &err), 0, "%s: %s", text, err.message);
    static char shown[8192];
    size_t used = 0;
    shown[0] = '\0';
    for (size_t k = 0; k < count && used < sizeof shown; k++) {
        char v[64];
        value_format(&values[k], v, sizeof v);
        used += (size_t)snprintf(shown + used, sizeof shown - used, "%s%s", k ? " " : "", v);
    }
    python_values_free(values, count);
    return shown;
}

static void expect(const char *text, const char *python_result)
{
    cr_assert_str_eq(evaluate(text), python_result, "%s", text);
}

/* The message of a refusal, which must name `construct` at `column`. */
static void refused(const char *text, const char *column, const char *construct)
{
    skytune_value *values = NULL;
    size_t count = 0;
    skytune_error err = {0};
    cr_assert_neq(python_values_eval(text, &values, &count, &err), 0, "%s was accepted", text);
    cr_assert_null(values);
    cr_assert(strstr(err.message, column) && strstr(err.message, construct),
              "%s: expected %s and %s in: %s", text, column, construct, err.message);
}

Test(python_values, the_hub_forms)
{
    /* pnpoly */
    expect("[32 * i for i in range(1, 32)]",
           "32 64 96 128 160 192 224 256 288 320 352 384 416 448 480 512 544 576 608 640 672 "
           "704 736 768 800 832 864 896 928 960 992");
    expect("[1] + [2 * i for i in range(1, 11)]", "1 2 4 6 8 10 12 14 16 18 20");
    /* hotspot */
    expect("[1, 2, 4, 8, 16] + list(range(32, 1024+1, 32))",
           "1 2 4 8 16 32 64 96 128 160 192 224 256 288 320 352 384 416 448 480 512 544 576 "
           "608 640 672 704 736 768 800 832 864 896 928 960 992 1024");
    expect("[2**i for i in range(0, 6)]", "1 2 4 8 16 32");
    expect("[i for i in range(1, 10+1)]", "1 2 3 4 5 6 7 8 9 10");
    /* literals, as every hub file writes most of its values */
    expect("[16, 32, 48]", "16 32 48");
    expect("[0.25, 0.5, 0.75]", "0.25 0.5 0.75");
    expect("['naive', \"tiled\"]", "naive tiled");
    expect("[True, False]", "1 0");
    expect("[-3, 1e-3, 7,]", "-3 0.001 7");
    expect("(1, 2)", "1 2");
    expect("[]", "");
}

Test(python_values, comprehensions_over_two_ranges_with_conditions)
{
    expect("[i * j for i in range(1, 4) for j in range(i, 4) if (i + j) % 2 == 0]", "1 3 4 9");
    expect("[x for x in [1, 2, 3, 4] if x > 1 and not x == 3]", "2 4");
    expect("[i for i in range(2) for i in range(3)]", "0 1 2 0 1 2");
    expect("[i // 2 - i % 3 for i in range(-3, 4)]", "-2 -2 -3 0 -1 -1 1");
    expect("[i / 4 for i in range(3)]", "0 0.25 0.5");
    expect("range(10, 0, -3)", "10 7 4 1");
    expect("[0] * 3 + [1]", "0 0 0 1");
    expect("([1] + [2]) + list([3])", "1 2 3");
}

Test(python_values, outside_the_subset_is_refused_by_name)
{
    refused("sorted([3, 1])", "column 1", "'sorted' does not make a list");
    refused("[abs(i) for i in range(3)]", "column 2", "a call of 'abs()'");
    refused("[np.int32(1)]", "column 2", "attribute access ('np.')");
    refused("[x[0] for x in range(3)]", "column 3", "an index");
    refused("[i for i in range(5) if i in [1, 2]]", "column 27", "membership");
    refused("[i if i else 0 for i in range(3)]", "column 9", "'else'");
    refused("[lambda: 1]", "column 2", "'lambda'");
    refused("{1: 2}", "column 1", "a dict or set");
    refused("[i for i, j in range(3)]", "column 9", "unpacking");
    refused("[*range(3)]", "column 2", "unpacking");
    refused("[a for i in range(3)]", "column 2", "unknown name 'a'");
    refused("[1, 2", "column 6", "expected ',' or ']'");
    refused("[1] [2]", "column 5", "unexpected text after the list");
    refused("16", "column 1", "expected a list");
}

Test(python_values, evaluation_is_checked_and_bounded)
{
    refused("[1 / 0]", "column 4", "division by zero");
    refused("range(1.5)", "column 7", "not an integer");
    refused("range(0, 10, 0)", "column 1", "must not be zero");
    refused("range(10**9)", "column 1", "a list holds at most");
    refused("[1 for i in range(10**6) for j in range(10) if j > 100]", "column 1", "steps");
    refused("[0] * 2000000", "column", "more than");
}

/* A long literal list costs its length, not its length squared: each item
 * is parsed, and kept, as its own text (a list of 30,000 values once kept
 * a copy of the whole list in every item, 7 GB), and a message still gives
 * the column in the whole list. */
Test(python_values, a_long_list_keeps_each_item_alone)
{
    enum { N = 30000 };
    size_t cap = (size_t)N * 8 + 16, used = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    text[used++] = '[';
    for (int k = 0; k < N; k++)
        used += (size_t)snprintf(text + used, cap - used, "%s%d", k ? ", " : "", k);
    snprintf(text + used, cap - used, "]");
    skytune_value *values;
    size_t count;
    skytune_error err = {0};
    cr_assert_eq(python_values_eval(text, &values, &count, &err), 0, "%s", err.message);
    cr_assert_eq(count, (size_t)N);
    cr_assert_eq(values[N - 1].i, N - 1);
    python_values_free(values, count);

    /* The last item divides by zero: the column is the item's in the list. */
    snprintf(text + used, cap - used, ", 1 / 0]");
    char column[32];
    snprintf(column, sizeof column, "column %zu:", used + 5);
    refused(text, column, "division by zero");
    free(text);
}
