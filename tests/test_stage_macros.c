/* The stage macro lists (plugins/stage/stage_macros.h): what a list takes
 * and refuses, strides computed as the layout library computes them, the
 * build options and the program section written from one list, and
 * refusals that leave the list or the buffer as they were. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "stage_macros.h"

Test(stage_macros, integers_and_strides_are_listed_in_order)
{
    stage_macros m;
    stage_macros_init(&m);
    cr_assert_eq(stage_macros_add_int(&m, "stations", 64, false), 0);
    cr_assert_eq(stage_macros_add_int(&m, "offset", -3, false), 0);
    const int64_t sizes[] = {2, 3, 4, 5};
    cr_assert_eq(stage_macros_add_strides(&m, "IN", "TCSP", "SCTP", sizes), 0);
    cr_assert_eq(m.count, 6);
    cr_expect_str_eq(m.items[0].name, "stations");
    cr_expect_str_eq(m.items[0].value, "64");
    cr_expect_eq(m.items[0].derived, false);
    cr_expect_str_eq(stage_macros_find(&m, "offset"), "-3");
    /* The layout library's strides, letter by letter. */
    int64_t strides[4];
    cr_assert_eq(layout_strides("TCSP", "SCTP", sizes, strides), 0);
    const char *names[] = {"IN_STRIDE_S", "IN_STRIDE_C", "IN_STRIDE_T", "IN_STRIDE_P"};
    for (int k = 0; k < 4; k++) {
        char value[32];
        snprintf(value, sizeof value, "%lld", (long long)strides[k]);
        cr_expect_str_eq(m.items[2 + k].name, names[k]);
        cr_expect_str_eq(m.items[2 + k].value, value);
        cr_expect_eq(m.items[2 + k].derived, true);
    }
    cr_expect_null(stage_macros_find(&m, "IN_STRIDE_X"));
}

Test(stage_macros, refusals_leave_the_list_as_it_was)
{
    stage_macros m;
    stage_macros_init(&m);
    cr_assert_eq(stage_macros_add_int(&m, "wg_size", 8, false), 0);
    cr_expect_eq(stage_macros_add_int(&m, "wg_size", 16, false), -1);   /* twice */
    cr_expect_eq(stage_macros_add_int(&m, "1wg", 16, false), -1);       /* no identifier */
    cr_expect_eq(stage_macros_add_int(&m, "wg size", 16, false), -1);
    cr_expect_eq(stage_macros_add_int(&m, "", 16, false), -1);
    const int64_t sizes[] = {2, 3, 4, 5};
    cr_expect_eq(stage_macros_add_strides(&m, "IN", "SCTX", "SCTP", sizes), -1);
    /* IN_STRIDE_C already listed: the strides go in whole or not at all. */
    cr_assert_eq(stage_macros_add_int(&m, "IN_STRIDE_C", 1, true), 0);
    cr_expect_eq(stage_macros_add_strides(&m, "IN", "SCTP", "SCTP", sizes), -1);
    cr_expect_eq(m.count, 2);
    cr_expect_str_eq(stage_macros_find(&m, "wg_size"), "8");
    /* A full list takes no more. */
    stage_macros_init(&m);
    for (int k = 0; k < STAGE_MAX_MACROS; k++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", k);
        cr_assert_eq(stage_macros_add_int(&m, name, k, false), 0);
    }
    cr_expect_eq(stage_macros_add_int(&m, "one_more", 1, false), -1);
    cr_expect_eq(stage_macros_add_strides(&m, "IN", "SCTP", "SCTP", sizes), -1);
    cr_expect_eq(m.count, STAGE_MAX_MACROS);
}

static void sample_list(stage_macros *m)
{
    stage_macros_init(m);
    cr_assert_eq(stage_macros_add_int(m, "stations", 2, false), 0);
    const int64_t sizes[] = {2, 3};
    cr_assert_eq(stage_macros_add_strides(m, "OUT", "BA", "AB", sizes), 0);
}

Test(stage_macros, options_are_the_derived_or_every_macro)
{
    stage_macros m;
    sample_list(&m);
    char options[256] = "-cl-std=CL1.2";
    cr_assert_eq(stage_macros_append_options(&m, true, options, sizeof options), 0);
    cr_expect_str_eq(options, "-cl-std=CL1.2 -D OUT_STRIDE_A=1 -D OUT_STRIDE_B=2");
    char all[256] = "";
    cr_assert_eq(stage_macros_append_options(&m, false, all, sizeof all), 0);
    cr_expect_str_eq(all, " -D stations=2 -D OUT_STRIDE_A=1 -D OUT_STRIDE_B=2");
    /* One byte short of the whole: nothing is appended. */
    char short_buf[64] = "-O2";
    cr_expect_eq(stage_macros_append_options(&m, false, short_buf, 3 + strlen(all)), -1);
    cr_expect_str_eq(short_buf, "-O2");
}

Test(stage_macros, a_section_defines_before_and_undefines_after)
{
    stage_macros m;
    sample_list(&m);
    char *section = stage_macros_section(&m, "__kernel void k(void) {}");
    cr_assert_not_null(section);
    cr_expect_str_eq(section, "#undef stations\n#define stations 2\n"
                              "#undef OUT_STRIDE_A\n#define OUT_STRIDE_A 1\n"
                              "#undef OUT_STRIDE_B\n#define OUT_STRIDE_B 2\n"
                              "__kernel void k(void) {}\n"
                              "#undef stations\n#undef OUT_STRIDE_A\n#undef OUT_STRIDE_B\n");
    free(section);
}
