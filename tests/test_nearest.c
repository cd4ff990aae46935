/* The distance behind every "did you mean": swaps, insertions, deletions
 * and substitutions, any case, and the threshold that keeps a guess to a
 * slip of the name. */
#include <criterion/criterion.h>

#include "nearest.h"

Test(nearest, distance_counts_each_edit_and_a_swap_as_one)
{
    cr_expect_eq(nearest_distance("run", "run"), 0);
    cr_expect_eq(nearest_distance("RUN", "run"), 0, "case is no edit");
    cr_expect_eq(nearest_distance("rnu", "run"), 1, "a swap of neighbours");
    cr_expect_eq(nearest_distance("budgt", "budget"), 1);
    cr_expect_eq(nearest_distance("jsn", "json"), 1);
    cr_expect_eq(nearest_distance("baeys", "bayes"), 1);
    cr_expect_eq(nearest_distance("kitten", "sitting"), 3);
    cr_expect_eq(nearest_distance("", "abc"), 3);
    cr_expect_eq(nearest_distance("ca", "abc"), 3, "no substring is edited twice");
}

Test(nearest, a_name_is_suggested_only_when_near_enough)
{
    const char *const formats[] = {"csv", "json", "header", "t4"};
    cr_expect_str_eq(nearest_name("jsn", formats, 4), "json");
    cr_expect_str_eq(nearest_name("JSON", formats, 4), "json");
    cr_expect_str_eq(nearest_name("haeder", formats, 4), "header");
    cr_expect_null(nearest_name("yaml", formats, 4));
    cr_expect_null(nearest_name("x", formats, 4), "one letter is no slip of any name");
    cr_expect_null(nearest_name("frobnicate", formats, 4));
    const char *const strategies[] = {"random", "exhaustive", NULL, "annealing", "bayes"};
    cr_expect_str_eq(nearest_name("anealing", strategies, 5), "annealing");
    cr_expect_str_eq(nearest_name("exhaustiv", strategies, 5), "exhaustive");
}

Test(nearest, the_hint_reads_as_a_question_or_is_empty)
{
    const char *const options[] = {"budget", "db"};
    char hint[64];
    cr_expect_str_eq(nearest_hint("budgt", options, 2, "--", hint, sizeof hint),
                     " (did you mean '--budget'?)");
    cr_expect_str_eq(nearest_hint("seed", options, 2, "--", hint, sizeof hint), "");
}
