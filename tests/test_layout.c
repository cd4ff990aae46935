/* The layout library (plugins/layout): which texts are layouts and what the
 * refusals say, layout distances counted by hand (the thesis's CTS against
 * STC among them), strides for every layout of a small array checked
 * against the definition, and the stride build options with their
 * overflow. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ check */

Test(layout, permutations_are_layouts)
{
    char message[256] = "";
    const char *good[] = {"SCTP", "PTCS", "TCSP", "CSTP"};
    for (size_t k = 0; k < COUNT_OF(good); k++)
        cr_expect_eq(layout_check("in_layout", good[k], "SCTP", message, sizeof message), 0,
                     "%s: %s", good[k], message);
    cr_expect_eq(layout_check("layout", "ba", "ab", message, sizeof message), 0);
    cr_expect_eq(layout_check("layout", "x", "x", message, sizeof message), 0);
}

static void expect_refused(const char *layout, const char *const *needles, size_t n)
{
    char message[512] = "";
    cr_assert_eq(layout_check("in_layout", layout, "SCTP", message, sizeof message), -1,
                 "'%s' was accepted", layout ? layout : "(null)");
    /* Every refusal names the parameter and says what is valid. */
    cr_expect(strncmp(message, "in_layout: ", 11) == 0, "%s", message);
    cr_expect(strstr(message, "a layout holds each of S, C, T and P exactly once") != NULL, "%s",
              message);
    for (size_t k = 0; k < n; k++)
        cr_expect(strstr(message, needles[k]) != NULL, "'%s' not in: %s", needles[k], message);
}

Test(layout, what_is_not_a_layout_is_refused_saying_why)
{
    expect_refused("SCTX", (const char *[]){"'SCTX' is not a layout of SCTP",
                                            "'X' is not one of its letters"}, 2);
    expect_refused("SCT", (const char *[]){"'SCT' is not a layout of SCTP", "'P' is missing"}, 2);
    expect_refused("SCTPS", (const char *[]){"'S' appears more than once"}, 1);
    expect_refused("SSTP", (const char *[]){"'S' appears more than once"}, 1);
    expect_refused("sctp", (const char *[]){"'s' is not one of its letters"}, 1);
    expect_refused("", (const char *[]){"the layout is empty"}, 1);
    expect_refused(NULL, (const char *[]){"the layout is empty"}, 1);
    /* A control character is not echoed into the message. */
    expect_refused("SC\nP", (const char *[]){"'SC?P'", "'?' is not one of its letters"}, 2);
    char message[512];
    layout_check("in_layout", "SC\nP", "SCTP", message, sizeof message);
    cr_expect_null(strchr(message, '\n'));
}

Test(layout, the_letters_themselves_must_be_distinct)
{
    char message[256] = "";
    cr_expect_eq(layout_check("in_layout", "SS", "SS", message, sizeof message), -1);
    cr_expect(strstr(message, "distinct") != NULL, "%s", message);
    cr_expect_eq(layout_check("in_layout", "", "", message, sizeof message), -1);
    cr_expect_eq(layout_check("in_layout", "ABCDEFGHI", "ABCDEFGHI", message, sizeof message), -1);
    /* Without a message buffer the answer is the same. */
    cr_expect_eq(layout_check("in_layout", "SCTX", "SCTP", NULL, 0), -1);
    cr_expect_eq(layout_check("in_layout", "PTCS", "SCTP", NULL, 0), 0);
}

Test(layout, a_short_buffer_gets_a_truncated_message)
{
    char message[16];
    memset(message, 'x', sizeof message);
    cr_expect_eq(layout_check("in_layout", "SCTX", "SCTP", message, sizeof message), -1);
    cr_expect_eq(strlen(message), sizeof message - 1);
    cr_expect(strncmp(message, "in_layout: 'SCT", 15) == 0, "%s", message);
}

/* --------------------------------------------------------------- distance */

Test(layout, distances_match_a_hand_count)
{
    /* Kis 2013, section 6.3: C and S each move two places. */
    cr_expect_eq(layout_distance("CTS", "STC"), 4);
    /* With P inner: the same 4. */
    cr_expect_eq(layout_distance("CTSP", "STCP"), 4);
    /* S 0->3, C 1->2, T 2->1, P 3->0: 3 + 1 + 1 + 3, the most for four. */
    cr_expect_eq(layout_distance("SCTP", "PTCS"), 8);
    /* Section 6.4: PTSC and PSTC are 6 and 8 away from TCSP. */
    cr_expect_eq(layout_distance("PTSC", "TCSP"), 6);
    cr_expect_eq(layout_distance("PSTC", "TCSP"), 8);
    /* One swap of neighbours: 2. */
    cr_expect_eq(layout_distance("SCTP", "SCPT"), 2);
    cr_expect_eq(layout_distance("SCTP", "SCTP"), 0);
    cr_expect_eq(layout_distance("TCSP", "TCSP"), 0);
    /* Not orderings of the same letters. */
    cr_expect_eq(layout_distance("SCTP", "SCTX"), -1);
    cr_expect_eq(layout_distance("SCTP", "SCT"), -1);
    cr_expect_eq(layout_distance("SSTP", "STPS"), -1);
    cr_expect_eq(layout_distance(NULL, "SCTP"), -1);
}

/* Every ordering of the four letters, counted here without the library. */
static int all_layouts(char out[24][5])
{
    const char *letters = "SCTP";
    int n = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++)
                for (int d = 0; d < 4; d++)
                    if (a != b && a != c && a != d && b != c && b != d && c != d) {
                        out[n][0] = letters[a];
                        out[n][1] = letters[b];
                        out[n][2] = letters[c];
                        out[n][3] = letters[d];
                        out[n][4] = '\0';
                        n++;
                    }
    return n;
}

Test(layout, distances_over_all_pairs_are_symmetric_even_and_at_most_8)
{
    char layouts[24][5];
    cr_assert_eq(all_layouts(layouts), 24);
    int at_distance[9] = {0};
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++) {
            const int d = layout_distance(layouts[i], layouts[j]);
            cr_assert_eq(d, layout_distance(layouts[j], layouts[i]));
            cr_assert(d >= 0 && d <= 8 && d % 2 == 0, "%s %s: %d", layouts[i], layouts[j], d);
            cr_assert_eq(d == 0, i == j);
            if (j == 0) at_distance[d]++;
        }
    /* From one layout: itself; 3 neighbour swaps, and 4 more layouts at 4,
     * ... The counts of permutations of 4 by total displacement (Spearman's
     * footrule): 1, 3, 7, 9, 4. */
    cr_expect_eq(at_distance[0], 1);
    cr_expect_eq(at_distance[2], 3);
    cr_expect_eq(at_distance[4], 7);
    cr_expect_eq(at_distance[6], 9);
    cr_expect_eq(at_distance[8], 4);
}

Test(layout, positions)
{
    cr_expect_eq(layout_position("TCSP", 'T'), 0);
    cr_expect_eq(layout_position("TCSP", 'P'), 3);
    cr_expect_eq(layout_position("TCSP", 'X'), -1);
    cr_expect_eq(layout_position("TCSP", '\0'), -1);
    cr_expect_eq(layout_position(NULL, 'T'), -1);
}

/* ---------------------------------------------------------------- strides */

Test(layout, strides_match_a_hand_count)
{
    /* S = 2, C = 3, T = 4, P = 5. */
    const int64_t sizes[] = {2, 3, 4, 5};
    int64_t strides[4];
    cr_assert_eq(layout_strides("SCTP", "SCTP", sizes, strides), 0);
    cr_expect_arr_eq(strides, ((int64_t[]){60, 20, 5, 1}), sizeof strides);
    /* TCSP: x[T][C][S][P]; S's stride is P = 5, C's is S * P = 10, T's is
     * C * S * P = 30. */
    cr_assert_eq(layout_strides("TCSP", "SCTP", sizes, strides), 0);
    cr_expect_arr_eq(strides, ((int64_t[]){5, 10, 30, 1}), sizeof strides);
    /* PTCS: S contiguous, C strided by S = 2, T by C * S = 6, P by 24. */
    cr_assert_eq(layout_strides("PTCS", "SCTP", sizes, strides), 0);
    cr_expect_arr_eq(strides, ((int64_t[]){1, 2, 6, 24}), sizeof strides);
}

/* For every layout, the strides put each element of a 2 x 3 x 4 x 5 array
 * at a distinct offset in [0, 120), with the layout's last letter moving by
 * one and the first by the largest stride. */
Test(layout, strides_of_every_layout_are_a_bijection)
{
    char layouts[24][5];
    all_layouts(layouts);
    const int64_t sizes[] = {2, 3, 4, 5};
    for (int l = 0; l < 24; l++) {
        int64_t st[4];
        cr_assert_eq(layout_strides(layouts[l], "SCTP", sizes, st), 0, "%s", layouts[l]);
        int seen[120] = {0};
        for (int64_t a = 0; a < 2; a++)
            for (int64_t b = 0; b < 3; b++)
                for (int64_t c = 0; c < 4; c++)
                    for (int64_t d = 0; d < 5; d++) {
                        const int64_t at = a * st[0] + b * st[1] + c * st[2] + d * st[3];
                        cr_assert(at >= 0 && at < 120, "%s: %lld", layouts[l], (long long)at);
                        seen[at]++;
                    }
        for (int k = 0; k < 120; k++) cr_assert_eq(seen[k], 1, "%s: offset %d", layouts[l], k);
        const int last = (int)(strchr("SCTP", layouts[l][3]) - "SCTP");
        const int first = (int)(strchr("SCTP", layouts[l][0]) - "SCTP");
        cr_expect_eq(st[last], 1, "%s", layouts[l]);
        cr_expect_eq(st[first], 120 / sizes[first], "%s", layouts[l]);
    }
}

Test(layout, strides_refuse_bad_layouts_sizes_and_overflow)
{
    int64_t strides[4] = {-7, -7, -7, -7};
    const int64_t sizes[] = {2, 3, 4, 5};
    cr_expect_eq(layout_strides("SCTX", "SCTP", sizes, strides), -1);
    cr_expect_eq(layout_strides("SCT", "SCTP", sizes, strides), -1);
    const int64_t zero[] = {2, 0, 4, 5};
    cr_expect_eq(layout_strides("SCTP", "SCTP", zero, strides), -1);
    /* 2^20 to the fourth power is 2^80 elements. */
    const int64_t huge[] = {1 << 20, 1 << 20, 1 << 20, 1 << 20};
    cr_expect_eq(layout_strides("SCTP", "SCTP", huge, strides), -1);
    /* Refusals leave the strides alone. */
    cr_expect_arr_eq(strides, ((int64_t[]){-7, -7, -7, -7}), sizeof strides);
    /* 2^62 elements still fit. */
    const int64_t big[] = {1 << 20, 1 << 20, 1 << 20, 4};
    cr_expect_eq(layout_strides("SCTP", "SCTP", big, strides), 0);
    cr_expect_eq(strides[0], (int64_t)1 << 42);
}

/* ---------------------------------------------------------- build options */

Test(layout, stride_defines_are_appended_in_letter_order)
{
    const int64_t sizes[] = {2, 3, 4, 5};
    char options[256] = "-cl-mad-enable";
    cr_assert_eq(layout_append_stride_defines(options, sizeof options, "IN", "TCSP", "SCTP",
                                              sizes),
                 0);
    cr_assert_eq(layout_append_stride_defines(options, sizeof options, "OUT", "SCTP", "SCTP",
                                              sizes),
                 0);
    cr_expect_str_eq(options, "-cl-mad-enable -D IN_STRIDE_S=5 -D IN_STRIDE_C=10 "
                              "-D IN_STRIDE_T=30 -D IN_STRIDE_P=1 -D OUT_STRIDE_S=60 "
                              "-D OUT_STRIDE_C=20 -D OUT_STRIDE_T=5 -D OUT_STRIDE_P=1");
}

Test(layout, stride_defines_that_do_not_fit_leave_the_buffer_as_it_was)
{
    const int64_t sizes[] = {64, 300, 768, 2};
    /* " -D IN_STRIDE_S=460800 -D IN_STRIDE_C=1536 -D IN_STRIDE_T=2
     * -D IN_STRIDE_P=1" is 76 characters: exactly fits 77 bytes. */
    char exact[77] = "";
    cr_expect_eq(layout_append_stride_defines(exact, sizeof exact, "IN", "SCTP", "SCTP", sizes),
                 0);
    cr_expect_eq(strlen(exact), 76, "%s", exact);
    /* One byte short: the last option is cut, so nothing is appended. */
    char short_buf[79] = "-O2";
    cr_expect_eq(
        layout_append_stride_defines(short_buf, sizeof short_buf, "IN", "SCTP", "SCTP", sizes),
        -1);
    cr_expect_str_eq(short_buf, "-O2");
    /* A prefix that is no identifier, or a layout that is none. */
    char options[256] = "";
    cr_expect_eq(layout_append_stride_defines(options, sizeof options, "1N", "SCTP", "SCTP",
                                              sizes),
                 -1);
    cr_expect_eq(layout_append_stride_defines(options, sizeof options, "IN X", "SCTP", "SCTP",
                                              sizes),
                 -1);
    cr_expect_eq(layout_append_stride_defines(options, sizeof options, "IN", "SCTX", "SCTP",
                                              sizes),
                 -1);
    cr_expect_str_eq(options, "");
    /* A buffer that holds no terminated text. */
    char unterminated[4] = {'a', 'b', 'c', 'd'};
    cr_expect_eq(layout_append_stride_defines(unterminated, sizeof unterminated, "IN", "SCTP",
                                              "SCTP", sizes),
                 -1);
}

/* ---------------------------------------------------------------- permute */

Test(layout, permute_matches_a_hand_count)
{
    /* x[a][b] with a < 2, b < 3 holds 10a + b; stored [b][a] it reads
     * x[0][0], x[1][0], x[0][1], x[1][1], x[0][2], x[1][2]. */
    const int64_t sizes[] = {2, 3};
    const int src[] = {0, 1, 2, 10, 11, 12};
    int dst[6] = {0};
    cr_assert_eq(layout_permute(dst, "BA", src, "AB", "AB", sizes, sizeof *src), 0);
    cr_expect_arr_eq(dst, ((int[]){0, 10, 1, 11, 2, 12}), sizeof dst);
    /* And back. */
    int back[6] = {0};
    cr_assert_eq(layout_permute(back, "AB", dst, "BA", "AB", sizes, sizeof *src), 0);
    cr_expect_arr_eq(back, src, sizeof back);
    /* Equal layouts copy. */
    cr_assert_eq(layout_permute(back, "BA", dst, "BA", "AB", sizes, sizeof *src), 0);
    cr_expect_arr_eq(back, dst, sizeof back);
}

/* An element of a 2 x 3 x 4 x 5 array over SCTP that says where it belongs. */
static int32_t coordinates_code(int64_t s, int64_t c, int64_t t, int64_t p)
{
    return (int32_t)(1000 * s + 100 * c + 10 * t + p);
}

/* Every ordering to every other: each element lands at the offset the
 * destination's strides give its coordinates. */
Test(layout, permute_between_every_pair_of_layouts_puts_each_element_where_its_strides_say)
{
    char layouts[24][5];
    all_layouts(layouts);
    const int64_t sizes[] = {2, 3, 4, 5};
    int32_t canonical[120], from[120], to[120];
    for (int64_t s = 0; s < 2; s++)
        for (int64_t c = 0; c < 3; c++)
            for (int64_t t = 0; t < 4; t++)
                for (int64_t p = 0; p < 5; p++)
                    canonical[((s * 3 + c) * 4 + t) * 5 + p] = coordinates_code(s, c, t, p);
    for (int a = 0; a < 24; a++) {
        cr_assert_eq(layout_permute(from, layouts[a], canonical, "SCTP", "SCTP", sizes,
                                    sizeof *from),
                     0);
        for (int b = 0; b < 24; b++) {
            memset(to, 0xff, sizeof to);
            cr_assert_eq(layout_permute(to, layouts[b], from, layouts[a], "SCTP", sizes,
                                        sizeof *to),
                         0);
            int64_t st[4];
            layout_strides(layouts[b], "SCTP", sizes, st);
            for (int64_t s = 0; s < 2; s++)
                for (int64_t c = 0; c < 3; c++)
                    for (int64_t t = 0; t < 4; t++)
                        for (int64_t p = 0; p < 5; p++)
                            cr_assert_eq(to[s * st[0] + c * st[1] + t * st[2] + p * st[3]],
                                         coordinates_code(s, c, t, p), "%s -> %s at %lld%lld%lld%lld",
                                         layouts[a], layouts[b], (long long)s, (long long)c,
                                         (long long)t, (long long)p);
        }
    }
}

/* Complex floats (8 bytes), float4 (16), bytes and an odd element size all
 * move whole; a dimension of size 1 (one polarization) changes nothing. */
Test(layout, permute_moves_whole_elements_of_any_size)
{
    const int64_t sizes[] = {3, 1, 2};
    /* 3 x 1 x 2 elements of 3 bytes: element k is {k, 100 + k, 200 + k}. */
    unsigned char src[18], dst[18];
    for (int k = 0; k < 6; k++) {
        src[3 * k] = (unsigned char)k;
        src[3 * k + 1] = (unsigned char)(100 + k);
        src[3 * k + 2] = (unsigned char)(200 + k);
    }
    cr_assert_eq(layout_permute(dst, "ZYX", src, "XYZ", "XYZ", sizes, 3), 0);
    /* [z][y][x]: x moves fastest, so element (x, 0, z) = src element 2x + z. */
    const int order[] = {0, 2, 4, 1, 3, 5};
    for (int k = 0; k < 6; k++)
        for (int byte = 0; byte < 3; byte++)
            cr_expect_eq(dst[3 * k + byte], src[3 * order[k] + byte], "element %d byte %d", k,
                         byte);

    double wide_src[6][2], wide_dst[6][2];
    for (int k = 0; k < 6; k++) {
        wide_src[k][0] = k;
        wide_src[k][1] = -k;
    }
    cr_assert_eq(layout_permute(wide_dst, "ZYX", wide_src, "XYZ", "XYZ", sizes, 16), 0);
    for (int k = 0; k < 6; k++) {
        cr_expect_eq(wide_dst[k][0], order[k]);
        cr_expect_eq(wide_dst[k][1], -order[k]);
    }
    float pair_src[6][2], pair_dst[6][2];
    memcpy(pair_src, (float[12]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, sizeof pair_src);
    cr_assert_eq(layout_permute(pair_dst, "ZYX", pair_src, "XYZ", "XYZ", sizes, 8), 0);
    for (int k = 0; k < 6; k++) cr_expect_eq(pair_dst[k][1], pair_src[order[k]][1]);
    /* Moving the size-1 dimension alone keeps the order. */
    cr_assert_eq(layout_permute(pair_dst, "YXZ", pair_src, "XYZ", "XYZ", sizes, 8), 0);
    cr_expect_arr_eq(pair_dst, pair_src, sizeof pair_dst);
}

Test(layout, permute_refuses_what_strides_refuse_and_leaves_the_destination)
{
    const int64_t sizes[] = {2, 3, 4, 5};
    int32_t src[120] = {0}, dst[120];
    memset(dst, 0x5a, sizeof dst);
    int32_t untouched[120];
    memcpy(untouched, dst, sizeof dst);
    cr_expect_eq(layout_permute(dst, "SCTX", src, "SCTP", "SCTP", sizes, 4), -1);
    cr_expect_eq(layout_permute(dst, "SCTP", src, "SCT", "SCTP", sizes, 4), -1);
    cr_expect_eq(layout_permute(dst, "SCTP", src, "SCTP", "SCTP", sizes, 0), -1);
    cr_expect_eq(layout_permute(NULL, "SCTP", src, "SCTP", "SCTP", sizes, 4), -1);
    cr_expect_eq(layout_permute(dst, "SCTP", NULL, "SCTP", "SCTP", sizes, 4), -1);
    const int64_t zero[] = {2, 0, 4, 5};
    cr_expect_eq(layout_permute(dst, "SCTP", src, "PTCS", "SCTP", zero, 4), -1);
    /* 2^62 elements fit in int64_t; 2^62 elements of 4 bytes do not. */
    const int64_t big[] = {1 << 20, 1 << 20, 1 << 20, 4};
    cr_expect_eq(layout_permute(dst, "SCTP", src, "PTCS", "SCTP", big, 4), -1);
    cr_expect_arr_eq(dst, untouched, sizeof dst);
}
