/* The three LOFAR stage modules as a pipeline uses them, on the default
 * OpenCL device (PoCL here): their kernel sources, each a section between
 * the #defines and #undefs of its stage's macros, build as ONE program that
 * holds every stage's kernels and leaks none of their macros; each stage's
 * plugin verifies against its CPU reference running its kernel from that
 * program; and the stages chained on the device (FIR, clFFT, beam former,
 * correlator, each reading the layout the one before wrote) give the
 * visibilities that the stages' CPU references chained with layout_permute
 * give. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beamformer_stage.h"
#include "correlator_stage.h"
#include "layout.h"
#include "plugin_expect.h"
#include "plugin_harness.h"
#include "ppf_stage.h"
#include "stage_expect.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------ building sections */

typedef struct stage_sources {
    stage_macros macros[3];     /* ppf, beamformer, correlator */
} stage_sources;

/* The program text: the three sections one after the other, then `tail`. */
static char *program_text(const stage_sources *s, const char *tail)
{
    const char *const sources[3] = {ppf_cl_source, beamformer_cl_source, correlator_cl_source};
    char *sections[3];
    size_t total = strlen(tail) + 1;
    for (int k = 0; k < 3; k++) {
        sections[k] = stage_macros_section(&s->macros[k], sources[k]);
        cr_assert_not_null(sections[k]);
        total += strlen(sections[k]);
    }
    char *text = malloc(total);
    cr_assert_not_null(text);
    text[0] = '\0';
    for (int k = 0; k < 3; k++) {
        strcat(text, sections[k]);
        free(sections[k]);
    }
    strcat(text, tail);
    return text;
}

/* Every name a kernel source #defines for itself. */
static size_t defined_names(const char *source, char names[][64], size_t max)
{
    size_t n = 0;
    for (const char *at = strstr(source, "#define "); at && n < max;
         at = strstr(at + 1, "#define ")) {
        const char *name = at + strlen("#define ");
        size_t len = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
        cr_assert(len > 0 && len < 64);
        memcpy(names[n], name, len);
        names[n][len] = '\0';
        n++;
    }
    return n;
}

/* After every section: an #error for any macro a section defined, its own
 * helpers or its stage's parameters, that is still defined. */
static char *leak_probes(const stage_sources *s)
{
    const char *const sources[3] = {ppf_cl_source, beamformer_cl_source, correlator_cl_source};
    char names[256][64];
    size_t n = 0;
    for (int k = 0; k < 3; k++) {
        n += defined_names(sources[k], names + n, COUNT_OF(names) - n);
        for (size_t m = 0; m < s->macros[k].count && n < COUNT_OF(names); m++)
            snprintf(names[n++], sizeof names[0], "%s", s->macros[k].items[m].name);
    }
    cr_assert_gt(n, 40, "only %zu macro names found", n);
    char *probes = malloc(n * 160 + 1);
    cr_assert_not_null(probes);
    probes[0] = '\0';
    for (size_t k = 0; k < n; k++)
        sprintf(probes + strlen(probes), "#ifdef %s\n#error \"%s is still defined\"\n#endif\n",
                names[k], names[k]);
    return probes;
}

/* ---------------------------------------------- the three stage plugins */

static plugin_harness h[3];
static const char *const plugin_names[3] = {"ppf", "beamformer", "correlator"};
static const char *const configs[3] = {
    "wg_size=16,channels_per_item=2,samples_per_item=4,both_pols=1,out_layout=STPC",
    "beam_block=5,station_block=4,wg_time=16,wg_beams=2,use_local=1,in_layout=STPC,"
    "out_layout=TCBP",
    "cell_width=2,cell_height=3,cell_order=column,wg_size=8,use_local=1,block_time=8,in_layout=TCSP",
};

static void open_all(void)
{
    for (int k = 0; k < 3; k++) {
        skytune_error err = {0};
        cr_assert_eq(harness_open(&h[k], plugin_names[k], "small", NULL, 0, 2, &err), 0, "%s: %s",
                     plugin_names[k], err.message);
    }
}

static void close_all(void)
{
    for (int k = 0; k < 3; k++) harness_close(&h[k]);
}

/* Each stage's macros for its plugin's `small` problem and the
 * configuration above. */
static void macros_of_the_plugins(stage_sources *s)
{
    const stage_macros_fn macros_of[3] = {ppf_macros_of_values, beamformer_macros_of_values,
                                          correlator_macros_of_values};
    for (int k = 0; k < 3; k++) stage_macros_for(&h[k], configs[k], macros_of[k], &s->macros[k]);
}

TestSuite(stage_sections, .init = open_all, .fini = close_all, .timeout = 600);

Test(stage_sections, one_program_holds_every_stage_and_leaks_no_macro)
{
    stage_sources s;
    macros_of_the_plugins(&s);
    char *probes = leak_probes(&s);
    char *text = program_text(&s, probes);
    free(probes);
    cl_program program = stage_build_program(h[0].context, h[0].device->device, text);
    free(text);
    cl_uint kernels = 0;
    cr_assert_eq(clCreateKernelsInProgram(program, 0, NULL, &kernels), CL_SUCCESS);
    /* ppf_fir, beamform, correlate_cells, correlate_remainder. */
    cr_expect_eq(kernels, 4);
    clReleaseProgram(program);
}

Test(stage_sections, each_stage_verifies_running_from_the_shared_program)
{
    stage_sources s;
    macros_of_the_plugins(&s);
    char *text = program_text(&s, "");
    for (int k = 0; k < 3; k++) {
        cl_program program = stage_build_program(h[k].context, h[k].device->device, text);
        skytune_verify_report report = plugin_verify_with_program(&h[k], configs[k], program);
        cr_expect_eq(report.passed, 1, "%s: %lld mismatches, max abs error %g", plugin_names[k],
                     (long long)report.mismatches, report.max_abs_error);
        clReleaseProgram(program);
    }
    free(text);
}

/* ------------------------------------------------- the stages in a chain */

/* Read `count` floats of `mem`. */
static float *read_floats(cl_command_queue queue, cl_mem mem, size_t count)
{
    float *host = malloc(count * sizeof *host);
    cr_assert_not_null(host);
    cr_assert_eq(clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, count * sizeof *host, host, 0, NULL,
                                     NULL),
                 CL_SUCCESS);
    return host;
}

static cl_mem device_array(cl_context context, size_t bytes, const void *host)
{
    cl_int status = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(context, host ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR
                                              : CL_MEM_READ_WRITE,
                                bytes, (void *)host, &status);
    cr_assert_eq(status, CL_SUCCESS);
    return mem;
}

/* The default device with a context and an in-order queue of its own. No
 * plugin is loaded in this suite: a plugin module holds its own copy of the
 * ppf stage, whose clFFT count would not know of this test's plan. */
typedef struct chain_device {
    cl_device_entry *devices;
    size_t n_devices;
    const cl_device_entry *device;
    cl_context context;
    cl_command_queue queue;
} chain_device;

static chain_device chain;

static void open_chain_device(void)
{
    skytune_error err = {0};
    size_t chosen = 0;
    cr_assert_eq(cl_devices_list(&chain.devices, &chain.n_devices, &err), 0, "%s", err.message);
    cr_assert_eq(cl_device_select(chain.devices, chain.n_devices, NULL, &chosen, &err), 0, "%s",
                 err.message);
    chain.device = &chain.devices[chosen];
    cl_int status = CL_SUCCESS;
    chain.context = clCreateContext(NULL, 1, &chain.device->device, NULL, NULL, &status);
    cr_assert_eq(status, CL_SUCCESS);
    chain.queue = clCreateCommandQueue(chain.context, chain.device->device, 0, &status);
    cr_assert_eq(status, CL_SUCCESS);
}

static void close_chain_device(void)
{
    if (chain.queue) clReleaseCommandQueue(chain.queue);
    if (chain.context) clReleaseContext(chain.context);
    free(chain.devices);
    memset(&chain, 0, sizeof chain);
}

TestSuite(stage_chain, .init = open_chain_device, .fini = close_chain_device, .timeout = 600);

/* FIR -> FFT -> beam former -> correlator with common write & read layouts
 * (Kis 2013, section 6.2): the FIR writes STPC and the FFT keeps it, the
 * beam former reads STPC and writes TCBP, the correlator reads that as TCSP,
 * the beams standing for its stations. On the host the references chain in
 * their canonical orders, converted with layout_permute. */
Test(stage_chain, the_stages_chained_on_the_device_give_the_chained_references)
{
    const chain_device *dev = &chain;
    skytune_error err = {0};
    const ppf_problem pp = {.stations = 2, .channels = 32, .taps = 8, .samples = 2272,
                            .sample_bits = 8, .fft = true, .blocks = 71, .steps = 64,
                            .transforms = 2 * 2 * 64};
    const ppf_config pc = {.wg_size = 16, .channels_per_item = 2, .samples_per_item = 4,
                           .both_pols = 1, .out_layout = "STPC"};
    const beamformer_problem bp = {.stations = 2, .channels = 32, .samples = 64,
                                   .polarizations = 2, .beams = 4};
    const beamformer_config bc = {.beam_block = 2, .station_block = 2, .wg_time = 16,
                                  .wg_beams = 2, .use_local = 1, .in_layout = "STPC",
                                  .out_layout = "TCBP"};
    const correlator_problem cp = {.stations = 4, .channels = 32, .samples = 64};
    const correlator_config cc = {.cell_width = 2, .cell_height = 2, .wg_size = 4,
                                  .use_local = 0, .block_time = 4, .in_layout = "TCSP"};
    cr_assert_eq(ppf_problem_check(&pp, &err), 0, "%s", err.message);

    /* The references, chained. */
    int16_t *input = malloc(ppf_input_count(&pp) * 2 * sizeof *input);
    float *coefficients = malloc(ppf_coefficient_count(&pp) * sizeof *coefficients);
    const size_t points = ppf_output_count(&pp);
    float *fir = malloc(points * 2 * sizeof *fir), *spectra = malloc(points * 2 * sizeof *fir);
    float *bf_input = malloc(points * 2 * sizeof *fir);
    float *weights = malloc(beamformer_weight_count(&bp) * 2 * sizeof *weights);
    float *beams = malloc(beamformer_output_count(&bp) * 2 * sizeof *beams);
    float *corr_input = malloc(beamformer_output_count(&bp) * 2 * sizeof *beams);
    float *want = malloc(correlator_output_floats(&cp) * sizeof *want);
    cr_assert(input && coefficients && fir && spectra && bf_input && weights && beams &&
              corr_input && want);
    ppf_generate_input(&pp, 7, input);
    ppf_make_coefficients(&pp, coefficients);
    beamformer_generate_weights(&bp, 7, weights);
    ppf_fir_reference(&pp, input, coefficients, fir);
    double norm = 0.0;
    cr_assert_eq(ppf_fft_reference(&pp, fir, spectra, &norm, &err), 0, "%s", err.message);
    int64_t sizes[4];
    ppf_output_sizes(&pp, sizes);
    cr_assert_eq(layout_permute(bf_input, BEAMFORMER_CANONICAL_IN, spectra, PPF_CANONICAL_LAYOUT,
                                PPF_LETTERS, sizes, 8),
                 0);
    cr_assert_eq(beamformer_cpu_reference(&bp, bf_input, weights, beams, &err), 0, "%s",
                 err.message);
    /* The correlator's stations are the beams: CBTP over BCTP as CTBP is
     * CTSP over SCTP byte for byte. */
    beamformer_output_sizes(&bp, sizes);
    cr_assert_eq(layout_permute(corr_input, "CTBP", beams, BEAMFORMER_CANONICAL_OUT,
                                BEAMFORMER_OUT_LETTERS, sizes, 8),
                 0);
    cr_assert_eq(correlator_cpu_reference(&cp, corr_input, want, &err), 0, "%s", err.message);

    /* The device, one program, one queue. */
    stage_sources s;
    cr_assert_eq(ppf_macros(&pp, &pc, &s.macros[0], &err), 0, "%s", err.message);
    cr_assert_eq(beamformer_macros(&bp, &bc, &s.macros[1], &err), 0, "%s", err.message);
    cr_assert_eq(correlator_macros(&cp, &cc, &s.macros[2], &err), 0, "%s", err.message);
    char *text = program_text(&s, "");
    cl_program program = stage_build_program(dev->context, dev->device->device, text);
    free(text);
    void *packed = malloc(ppf_input_bytes(&pp));
    cr_assert_not_null(packed);
    ppf_pack_input(&pp, input, packed);
    cl_mem input_buf = device_array(dev->context, ppf_input_bytes(&pp), packed);
    free(packed);
    cl_mem coefficients_buf = device_array(
        dev->context, ppf_coefficient_count(&pp) * sizeof *coefficients, coefficients);
    cl_mem fir_buf = device_array(dev->context, points * 8, NULL);
    cl_mem spectra_buf = device_array(dev->context, points * 8, NULL);
    cl_mem weights_buf =
        device_array(dev->context, beamformer_weight_count(&bp) * 8, weights);
    cl_mem beams_buf = device_array(dev->context, beamformer_output_count(&bp) * 8, NULL);
    cl_mem visibilities_buf =
        device_array(dev->context, correlator_output_floats(&cp) * sizeof(float), NULL);

    ppf_fir_launch fir_launch;
    ppf_fft fft = {0};
    beamformer_stage_launch bf_launch;
    correlator_stage_launch corr_launch;
    cr_assert_eq(ppf_fir_prepare(&fir_launch, program, &pp, &pc, input_buf, coefficients_buf,
                                 fir_buf, &err),
                 0, "%s", err.message);
    cr_assert_eq(ppf_fft_create(&fft, dev->context, dev->queue, &pp, &err), 0, "%s", err.message);
    cr_assert_eq(beamformer_stage_prepare(&bf_launch, program, &bp, &bc,
                                          dev->device->info.local_mem_size, spectra_buf,
                                          weights_buf, beams_buf, &err),
                 0, "%s", err.message);
    cr_assert_eq(correlator_stage_prepare(&corr_launch, program, &cp, &cc, beams_buf,
                                          visibilities_buf, &err),
                 0, "%s", err.message);
    skytune_events events = {0};
    cl_event fir_done = NULL;
    cr_assert_eq(ppf_fir_enqueue(&fir_launch, dev->queue, &events, &fir_done, &err), 0, "%s",
                 err.message);
    cr_assert_eq(ppf_fft_enqueue(&fft, dev->queue, fir_done, fir_buf, spectra_buf, &events, &err),
                 0, "%s", err.message);
    cr_assert_eq(beamformer_stage_enqueue(&bf_launch, dev->queue, &events, &err), 0, "%s",
                 err.message);
    cr_assert_eq(correlator_stage_enqueue(&corr_launch, dev->queue, &events, &err), 0, "%s",
                 err.message);
    cr_assert_eq(clFinish(dev->queue), CL_SUCCESS);
    /* fir, fft, beamform, cells, remainder. */
    cr_expect_eq(events.count, 5);
    for (size_t k = 0; k < events.count; k++) clReleaseEvent(events.events[k]);
    float *got = read_floats(dev->queue, visibilities_buf, correlator_output_floats(&cp));

    /* Float roundings in four stages against references rounded to float
     * between stages: each stage's relative error is a few u times the sums
     * involved, far below 10^-4 of the largest visibility (an
     * autocorrelation, the sum of 64 squared magnitudes), while a sample,
     * station or beam in the wrong place moves visibilities by a sizeable
     * fraction of it. */
    double largest = 0.0;
    for (size_t k = 0; k < correlator_output_floats(&cp); k++)
        largest = fmax(largest, fabs((double)want[k]));
    cr_assert_gt(largest, 0.0);
    skytune_verify_report report = {0};
    skytune_verify_floats(&report, "visibilities", got, want, correlator_output_floats(&cp),
                          1e-4 * largest, 0.0);
    cr_expect_eq(report.passed, 1, "%lld mismatches, first %lld, max abs error %g of %g",
                 (long long)report.mismatches, (long long)report.first_mismatch,
                 report.max_abs_error, largest);

    ppf_fir_release(&fir_launch);
    ppf_fft_destroy(&fft);
    beamformer_stage_release(&bf_launch);
    correlator_stage_release(&corr_launch);
    cl_mem buffers[] = {input_buf, coefficients_buf, fir_buf, spectra_buf, weights_buf, beams_buf,
                        visibilities_buf};
    for (size_t k = 0; k < COUNT_OF(buffers); k++) clReleaseMemObject(buffers[k]);
    clReleaseProgram(program);
    free(got);
    free(input);
    free(coefficients);
    free(fir);
    free(spectra);
    free(bf_input);
    free(weights);
    free(beams);
    free(corr_input);
    free(want);
}
