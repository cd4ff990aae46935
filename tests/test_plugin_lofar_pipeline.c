/* The lofar_pipeline plugin on the default OpenCL device (PoCL here): the
 * whole pipeline equals the stages' CPU references chained, for several
 * layout combinations, both schemes, both pipelines, with and without the
 * FFT; a broken stage is the output verification names; each stage and
 * transposition is a labelled part of the time; the space holds the
 * thesis's combination counts; bad problems are refused naming the
 * parameter. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "plugin_expect.h"
#include "plugin_harness.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static plugin_harness h;

static void open_with(const char *preset, const char *const *settings, size_t n_settings)
{
    skytune_error err = {0};
    cr_assert_eq(harness_open(&h, "lofar_pipeline", preset, settings, n_settings, 2, &err), 0,
                 "%s", err.message);
}

static void close_harness(void) { harness_close(&h); }

/* The labels of a measurement's parts, joined by spaces. */
static void part_labels(const measurement *m, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < m->n_parts && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? " " : "", m->parts[k].label);
}

static void expect_ok_with_parts(const char *config, const char *parts)
{
    measurement m;
    if (plugin_expect_measured_ok(&h, config, 2, &m)) {
        char labels[256];
        part_labels(&m, labels, sizeof labels);
        cr_expect_str_eq(labels, parts, "%s", config);
        /* Float sums against references summed in double: a passing
         * measurement records how close it came. */
        cr_expect_gt(m.max_abs_error, 0.0, "%s", config);
    }
    measurement_clear(&m);
}

/* ----------------------------------------------------- Pipeline 2, with FFT */

static void open_small(void) { open_with("small", NULL, 0); }

TestSuite(pipeline2, .init = open_small, .fini = close_harness, .timeout = 600);

Test(pipeline2, lofars_layouts_verify_with_a_part_per_stage_and_transposition)
{
    /* LOFAR's layouts: the FIR writes what the FFT reads; the FFT's output
     * goes through a transposition to the beam former, whose CBTP output
     * through another to the correlator's CTBP. */
    expect_ok_with_parts("fir_layout=TPSC,fft_layout=TPSC,bf_in_layout=CSTP,bf_out_layout=CBTP,"
                         "corr_layout=CTBP,scheme=transpose",
                         "fir fft transpose_fft_bf beamform transpose_bf_corr cells remainder");
}

Test(pipeline2, common_write_and_read_needs_only_the_ffts_transposition)
{
    expect_ok_with_parts("fir_layout=STPC,fft_layout=STPC,bf_in_layout=SCTP,bf_out_layout=CTBP,"
                         "corr_layout=CTBP,scheme=common",
                         "fir fft transpose_fft_bf beamform cells remainder");
}

Test(pipeline2, every_junction_transposed_verifies)
{
    expect_ok_with_parts("fir_layout=PCTS,fft_layout=PTSC,bf_in_layout=TCSP,bf_out_layout=TBCP,"
                         "corr_layout=BCTP,scheme=transpose",
                         "fir transpose_fir_fft fft transpose_fft_bf beamform transpose_bf_corr "
                         "cells remainder");
    expect_ok_with_parts("fir_layout=CSPT,fft_layout=SPTC,bf_in_layout=STCP,bf_out_layout=BTCP,"
                         "corr_layout=TCBP,scheme=transpose",
                         "fir transpose_fir_fft fft transpose_fft_bf beamform transpose_bf_corr "
                         "cells remainder");
}

Test(pipeline2, a_sample_of_the_space_all_verifies)
{
    /* Any valid configuration that fails to build or verify is a bug. */
    pcg32 rng;
    pcg32_seed(&rng, 11, 3);
    uint16_t idx[8];
    for (int k = 0; k < 6; k++) {
        char text[256];
        space_unrank(h.space, space_sample(h.space, &rng), idx);
        space_config_text(h.space, idx, text, sizeof text);
        measurement m;
        plugin_expect_measured_ok(&h, text, 2, &m);
        measurement_clear(&m);
    }
}

/* The pipeline's program with one stage broken: the beam former's output
 * written with its B and C strides swapped (a kernel writing the wrong
 * layout). Verification passes the stages before it and names the beams
 * (and what follows from them). */
Test(pipeline2, a_broken_stage_is_the_output_verification_names)
{
    const char *config = "fir_layout=TPSC,fft_layout=TPSC,bf_in_layout=CSTP,bf_out_layout=CBTP,"
                         "corr_layout=CTBP,scheme=transpose";
    skytune_named_value items[8];
    skytune_values values;
    skytune_error err = {0};
    cr_assert_eq(harness_config(&h, config, items, &values, &err), 0, "%s", err.message);
    char *source = NULL;
    cr_assert_eq(h.plugin.desc->generate_source(&values, &h.problem.values, &source, &err), 0,
                 "%s", err.message);
    /* The beam former's section begins with its own macros; the FIR's,
     * before it, has an OUT_STRIDE_C of its own. */
    const char *section = strstr(source, "#define beam_block ");
    cr_assert_not_null(section, "no beam former section in the source");
    const char *stride_b = strstr(section, "#define OUT_STRIDE_B ");
    const char *stride_c = strstr(section, "#define OUT_STRIDE_C ");
    cr_assert(stride_b && stride_c, "the beam former's output strides are not in the source");
    /* Swap the two strides' values where they are defined. */
    long long b = 0, c = 0;
    cr_assert_eq(sscanf(stride_b, "#define OUT_STRIDE_B %lld", &b), 1);
    cr_assert_eq(sscanf(stride_c, "#define OUT_STRIDE_C %lld", &c), 1);
    size_t len = strlen(source);
    char *broken = malloc(len + 64);
    cr_assert_not_null(broken);
    const char *b_end = strchr(stride_b, '\n'), *c_end = strchr(stride_c, '\n');
    cr_assert(stride_b < stride_c && b_end && c_end);
    snprintf(broken, len + 64, "%.*s#define OUT_STRIDE_B %lld%.*s#define OUT_STRIDE_C %lld%s",
             (int)(stride_b - source), source, c, (int)(stride_c - b_end), b_end, b, c_end);
    cl_program program = NULL;
    cr_assert_eq(harness_build(&h, &values, broken, NULL, &program, &err), 0, "%s", err.message);
    skytune_verify_report r = plugin_verify_with_program(&h, config, program);
    clReleaseProgram(program);
    free(broken);
    free(source);
    cr_assert_eq(r.passed, 0, "a beam former writing the wrong layout passed");
    cr_assert_eq(r.n_outputs, 4);
    cr_expect_str_eq(r.outputs[0].name, "fir");
    cr_expect_eq(r.outputs[0].passed, 1);
    cr_expect_str_eq(r.outputs[1].name, "spectra");
    cr_expect_eq(r.outputs[1].passed, 1);
    cr_expect_str_eq(r.outputs[2].name, "beams");
    cr_expect_eq(r.outputs[2].passed, 0);
    cr_expect_str_eq(r.outputs[3].name, "visibilities");
    cr_expect_eq(r.outputs[3].passed, 0);
}

Test(pipeline2, the_transposes_derived_value_counts_the_transpositions)
{
    const skytune_derived_value *d = h.plugin.desc->derived_values;
    cr_assert(d && d[0].name && strcmp(d[0].name, "transposes") == 0);
    static const struct {
        const char *config;
        double transposes;
    } cases[] = {
        {"fir_layout=TPSC,fft_layout=TPSC,bf_in_layout=CSTP,bf_out_layout=CBTP,corr_layout=CTBP,"
         "scheme=transpose",
         2},
        {"fir_layout=STPC,fft_layout=STPC,bf_in_layout=SCTP,bf_out_layout=CTBP,corr_layout=CTBP,"
         "scheme=common",
         1},
        {"fir_layout=PCTS,fft_layout=PTSC,bf_in_layout=TCSP,bf_out_layout=TBCP,corr_layout=BCTP,"
         "scheme=transpose",
         3},
    };
    for (size_t k = 0; k < COUNT_OF(cases); k++) {
        skytune_named_value items[8];
        skytune_values values;
        skytune_error err = {0};
        cr_assert_eq(harness_config(&h, cases[k].config, items, &values, &err), 0, "%s",
                     err.message);
        cr_expect_float_eq(d[0].compute(&h.problem.values, &values), cases[k].transposes, 1e-12,
                           "%s", cases[k].config);
    }
}

/* -------------------------------------------------- other shapes of pipeline */

static void open_pipeline1(void)
{
    static const char *const settings[] = {"pipeline=1"};
    open_with("small", settings, COUNT_OF(settings));
}

TestSuite(pipeline1, .init = open_pipeline1, .fini = close_harness, .timeout = 600);

Test(pipeline1, stops_after_the_beam_former)
{
    expect_ok_with_parts("fir_layout=SCPT,fft_layout=SPTC,bf_in_layout=TSCP,bf_out_layout=CBTP,"
                         "corr_layout=CTBP,scheme=transpose",
                         "fir transpose_fir_fft fft transpose_fft_bf beamform");
    /* The correlator's layout is not the pipeline's to tune. */
    cr_expect_eq(plugin_is_valid(&h, "fir_layout=SCPT,fft_layout=SPTC,bf_in_layout=TSCP,"
                                     "bf_out_layout=CBTP,corr_layout=BCTP,scheme=transpose"),
                 0);
}

static void open_without_fft(void)
{
    static const char *const settings[] = {"fft=false"};
    open_with("small", settings, COUNT_OF(settings));
}

TestSuite(without_fft, .init = open_without_fft, .fini = close_harness, .timeout = 600);

Test(without_fft, the_fir_output_goes_to_the_beam_former)
{
    expect_ok_with_parts("fir_layout=CTSP,fft_layout=TPSC,bf_in_layout=CTSP,bf_out_layout=TCBP,"
                         "corr_layout=TCBP,scheme=common",
                         "fir beamform cells remainder");
    expect_ok_with_parts("fir_layout=PTSC,fft_layout=TPSC,bf_in_layout=SCTP,bf_out_layout=CBTP,"
                         "corr_layout=CTBP,scheme=transpose",
                         "fir transpose_fir_bf beamform transpose_bf_corr cells remainder");
}

/* ------------------------------------------------------- the space's size */

Test(space, holds_the_thesis_combination_counts)
{
    /* Kis 2013, section 7.2: 24 FIR write layouts x 6 FFT layouts x 6 beam
     * former read layouts = 864 in Pipeline 1, x 6 beam former write
     * layouts x 6 correlator read layouts = 31,104 in Pipeline 2. The two
     * schemes split them: the common scheme has the FIR write what the FFT
     * reads (6 of the 144 pairs) and, in Pipeline 2, the beam former what
     * the correlator reads (6 of 36). Without the FFT the FIR writes for
     * the beam former (24 x 6). */
    static const struct {
        const char *settings[2];
        uint64_t all, common;
    } cases[] = {
        {{"pipeline=1", "fft=true"}, 864, 6 * 6},
        {{"pipeline=2", "fft=true"}, 31104, 6 * 6 * 6},
        {{"pipeline=1", "fft=false"}, 24 * 6, 6},
        {{"pipeline=2", "fft=false"}, 24 * 6 * 36, 6 * 6},
    };
    for (size_t k = 0; k < COUNT_OF(cases); k++) {
        open_with("thesis", cases[k].settings, 2);
        cr_expect_eq(space_count(h.space), cases[k].all, "%s %s: %llu", cases[k].settings[0],
                     cases[k].settings[1], (unsigned long long)space_count(h.space));
        uint64_t common = 0;
        uint16_t idx[8];
        const int scheme = space_param_index(h.space, "scheme");
        for (uint64_t r = 0; r < space_count(h.space); r++) {
            space_unrank(h.space, r, idx);
            common += strcmp(space_param(h.space, (size_t)scheme)->values[idx[scheme]].s,
                             "common") == 0;
        }
        cr_expect_eq(common, cases[k].common, "%s %s: %llu common", cases[k].settings[0],
                     cases[k].settings[1], (unsigned long long)common);
        harness_close(&h);
    }
}

/* ---------------------------------------------- the correlator's cells */

/* The correlator stage takes the correlator plugin's new cells and either
 * order of its cell list from corr_config; the thesis preset names the
 * thesis's 1 x 6 cells. */
Test(cells, tall_cells_in_either_order_verify_in_pipeline_2)
{
    static const char *const corr[] = {
        "corr_config=cell_width=1,cell_height=6,wg_size=4,use_local=0,block_time=4",
        "corr_config=cell_width=1,cell_height=6,wg_size=4,use_local=0,block_time=4,"
        "cell_order=row",
        "corr_config=cell_order=row,cell_width=2,cell_height=5,wg_size=8,use_local=1,"
        "block_time=8",
    };
    for (size_t k = 0; k < COUNT_OF(corr); k++) {
        const char *settings[] = {"beams=8", corr[k]};
        open_with("small", settings, COUNT_OF(settings));
        expect_ok_with_parts("fir_layout=TPSC,fft_layout=TPSC,bf_in_layout=CSTP,"
                             "bf_out_layout=CBTP,corr_layout=CTBP,scheme=transpose",
                             "fir fft transpose_fft_bf beamform transpose_bf_corr cells "
                             "remainder");
        harness_close(&h);
    }
    problem thesis;
    skytune_error err = {0};
    open_with("small", NULL, 0);
    cr_assert_eq(problem_resolve(h.plugin.desc, "thesis", NULL, 0, &thesis, &err), 0, "%s",
                 err.message);
    cr_expect(strstr(skytune_string(&thesis.values, "corr_config"), "cell_width=1,cell_height=6"),
              "%s", skytune_string(&thesis.values, "corr_config"));
    problem_free(&thesis);
    harness_close(&h);
}

/* ---------------------------------------------------------- transfers */

/* The labels of the parts of db's measurements of the plugin build whose
 * version is `version`, in order. */
static char *stored_parts(const char *db, const char *version)
{
    return cli_db_text(db, "SELECT group_concat(label, ' ') FROM (SELECT label FROM "
                           "measurement_parts mp JOIN measurements m ON m.id = mp.measurement_id "
                           "JOIN plugins p ON p.id = m.plugin_id WHERE p.version = '%s' "
                           "ORDER BY measurement_id, part)",
                       version);
}

/* One run of Pipeline 2 at LOFAR's layouts. */
#define LOFAR_LAYOUTS_RUN                                                                   \
    "run", "--plugin", "lofar_pipeline", "--plugin-dir", cli_plugin_dir(), "--preset",     \
        "small", "--only", "fir_layout=TPSC", "--only", "fft_layout=TPSC", "--only",        \
        "bf_in_layout=CSTP", "--only", "bf_out_layout=CBTP", "--only", "corr_layout=CTBP", \
        "--only", "scheme=transpose", "--runs", "2", "--quiet"

/* With --transfers, the station samples, taps and weights go up before the
 * pipeline and the visibilities come down after it, each a part of the
 * run; without it, the run is the kernels alone, as before. In one
 * database the two never stand in for each other: the store keeps one
 * measurement per plugin build and configuration, and a run with transfers
 * records the plugin as a build of its own. */
Test(transfers, are_parts_of_the_run_only_when_asked_for)
{
    char *dir = cli_make_temp_dir();
    char *db = cli_path(dir, "transfers.db");
    cli_result r = cli_run(CLI_ARGS(LOFAR_LAYOUTS_RUN, "--db", db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS(LOFAR_LAYOUTS_RUN, "--transfers", "--db", db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    char *parts = stored_parts(db, "1.0+transfers");
    cr_expect_str_eq(parts, "upload station samples upload taps upload weights fir fft "
                            "transpose_fft_bf beamform transpose_bf_corr cells remainder "
                            "download visibilities");
    free(parts);
    parts = stored_parts(db, "1.0");
    cr_expect_str_eq(parts, "fir fft transpose_fft_bf beamform transpose_bf_corr cells remainder");
    free(parts);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM measurements WHERE status = 'ok'"), 2);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM measurement_parts WHERE median_ns <= 0"),
                 0, "every part takes time");
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM campaigns WHERE settings LIKE "
                                "'%%transfers%%'"),
                 1);
    free(db);
    cli_remove_tree(dir);
    free(dir);
}

/* ------------------------------------------------------------ refusals */

Test(refusals, stage_configurations_and_sizes_are_checked_naming_the_parameter)
{
    static const struct {
        const char *setting, *needle;
    } cases[] = {
        {"fir_config=wg_size=16,channels_per_itm=2,samples_per_item=4,both_pols=1",
         "fir_config 'wg_size=16,channels_per_itm=2,samples_per_item=4,both_pols=1': "
         "'channels_per_itm=2' is not NAME=VALUE over the ppf plugin's tuning parameters"},
        {"fir_config=wg_size=16,channels_per_item=2,samples_per_item=4",
         "does not set both_pols"},
        {"bf_config=beam_block=3,station_block=2,wg_time=16,wg_beams=2,use_local=0",
         "bf_config 'beam_block=3,station_block=2,wg_time=16,wg_beams=2,use_local=0' does not "
         "suit this problem"},
        {"corr_config=cell_width=4,cell_height=4,wg_size=4,use_local=0,block_time=4",
         "corr_config"},
        {"corr_config=cell_width=1,cell_height=2,wg_size=4,use_local=0,block_time=4,"
         "cell_order=diagonal",
         "cell_order 'diagonal' is neither of column,row"},
        {"corr_config=cell_width=3,cell_height=6,wg_size=4,use_local=0,block_time=4",
         "a 3 x 6 cell is beyond the correlator's cells"},
        {"fir_config=wg_size=sixteen,channels_per_item=2,samples_per_item=4,both_pols=1",
         "wg_size=sixteen is not an integer"},
        {"stations=100000000", "reduce"},
        {"channels=48", "channels must be a power of two"},
    };
    for (size_t k = 0; k < COUNT_OF(cases); k++) {
        const char *settings[] = {cases[k].setting};
        skytune_error err = {0};
        cr_expect_neq(harness_open(&h, "lofar_pipeline", "small", settings, 1, 2, &err), 0,
                      "%s was accepted", cases[k].setting);
        cr_expect(strstr(err.message, cases[k].needle), "%s: %s", cases[k].setting, err.message);
        harness_close(&h);
    }
}

Test(refusals, a_layout_that_is_no_permutation_is_refused_naming_the_parameter)
{
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", "lofar_pipeline", "--plugin-dir",
                                    cli_plugin_dir(), "--preset", "small", "--only",
                                    "fir_layout=SCTX", "--db", "/nonexistent/never.db"));
    cr_assert_neq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "parameter 'fir_layout': 'SCTX' is not one of its values"), "%s",
              r.err);
    cli_result_free(&r);
}

/* ------------------------------------------- read_back and reference_data */

#define PIPELINE2_CONFIG                                                                   \
    "fir_layout=PCTS,fft_layout=PTSC,bf_in_layout=TCSP,bf_out_layout=TBCP,"                 \
    "corr_layout=BCTP,scheme=transpose"

/* Every stage's output read back, each in its own array. */
Test(pipeline2, verify_compares_what_read_back_read)
{
    plugin_expect_read_back_judged(&h, PIPELINE2_CONFIG);
}

/* Each stage's reference and its tolerance, which the chain derives from
 * the stages before: four of each. */
Test(pipeline2, reference_data_names_all_the_reference_computes)
{
    cr_expect_eq(plugin_expect_reference_data_covers(&h, PIPELINE2_CONFIG), 8);
}

/* No visibilities. */
Test(pipeline1, reference_data_names_all_the_reference_computes)
{
    const char *config = "fir_layout=SCPT,fft_layout=SPTC,bf_in_layout=TSCP,bf_out_layout=CBTP,"
                         "corr_layout=CTBP,scheme=transpose";
    plugin_expect_read_back_judged(&h, config);
    cr_expect_eq(plugin_expect_reference_data_covers(&h, config), 6);
}

/* No spectra. */
Test(without_fft, reference_data_names_all_the_reference_computes)
{
    const char *config = "fir_layout=PTSC,fft_layout=TPSC,bf_in_layout=SCTP,bf_out_layout=CBTP,"
                         "corr_layout=CTBP,scheme=transpose";
    plugin_expect_read_back_judged(&h, config);
    cr_expect_eq(plugin_expect_reference_data_covers(&h, config), 6);
}
