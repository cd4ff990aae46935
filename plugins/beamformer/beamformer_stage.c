#include "beamformer_stage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pcg32.h>
#include <skytune/plugin_checks.h>

#include "stage_buffer.h"
#include "stage_random.h"

/* ------------------------------------------------------------ the problem */

void beamformer_problem_read(const skytune_values *problem, beamformer_problem *p)
{
    p->stations = skytune_int(problem, "stations");
    p->channels = skytune_int(problem, "channels");
    p->samples = skytune_int(problem, "samples");
    p->polarizations = skytune_int(problem, "polarizations");
    p->beams = skytune_int(problem, "beams");
}

/* Counts in double for the checks: an int64_t product could overflow for
 * the largest problems. */
static double input_values(const beamformer_problem *p)
{
    return (double)p->channels * (double)p->stations * (double)p->samples *
           (double)p->polarizations;
}

static double weight_values(const beamformer_problem *p)
{
    return (double)p->channels * (double)p->beams * (double)p->stations;
}

static double output_values(const beamformer_problem *p)
{
    return (double)p->channels * (double)p->beams * (double)p->samples * (double)p->polarizations;
}

/* What the kernel indexes with int, and the problem parameters that shrink
 * the arrays: for the messages of the size checks. */
#define INDEXED_ITEMS "complex values"
#define SIZE_HINT "stations, channels, samples, polarizations or beams"

int beamformer_problem_check_device(const beamformer_problem *p,
                                    const skytune_device_info *device, skytune_error *err)
{
    if (p->stations < 1 || p->channels < 1 || p->samples < 1 || p->beams < 1 ||
        p->polarizations < 1 || p->polarizations > 2)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "stations, channels, samples and beams must be at least 1 and "
                                 "polarizations 1 or 2");
    const double complex_bytes = 2.0 * sizeof(float);
    int rc;
    if ((rc = skytune_check_index_extent("input", input_values(p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_index_extent("weight table", weight_values(p), INDEXED_ITEMS,
                                         SIZE_HINT, err)) ||
        (rc = skytune_check_index_extent("output", output_values(p), INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_allocation("input", input_values(p) * complex_bytes, device,
                                       SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("weight table", weight_values(p) * complex_bytes, device,
                                       SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("output", output_values(p) * complex_bytes, device,
                                       SIZE_HINT, err)))
        return rc;
    return SKYTUNE_OK;
}

size_t beamformer_input_count(const beamformer_problem *p) { return (size_t)input_values(p); }

size_t beamformer_weight_count(const beamformer_problem *p) { return (size_t)weight_values(p); }

size_t beamformer_output_count(const beamformer_problem *p) { return (size_t)output_values(p); }

void beamformer_input_sizes(const beamformer_problem *p, int64_t sizes[4])
{
    sizes[0] = p->stations;
    sizes[1] = p->channels;
    sizes[2] = p->samples;
    sizes[3] = p->polarizations;
}

void beamformer_output_sizes(const beamformer_problem *p, int64_t sizes[4])
{
    sizes[0] = p->beams;
    sizes[1] = p->channels;
    sizes[2] = p->samples;
    sizes[3] = p->polarizations;
}

/* ------------------------------------------------------- a configuration */

int beamformer_config_read(const skytune_values *config, beamformer_config *c,
                           skytune_error *err)
{
    c->beam_block = skytune_int(config, "beam_block");
    c->station_block = skytune_int(config, "station_block");
    c->wg_time = skytune_int(config, "wg_time");
    c->wg_beams = skytune_int(config, "wg_beams");
    c->use_local = skytune_int(config, "use_local") != 0;
    int rc = stage_read_layout(config, "in_layout", BEAMFORMER_IN_LETTERS, c->in_layout, err);
    if (rc == SKYTUNE_OK)
        rc = stage_read_layout(config, "out_layout", BEAMFORMER_OUT_LETTERS, c->out_layout, err);
    return rc;
}

int beamformer_config_check(const beamformer_problem *p, const beamformer_config *c,
                            int64_t local_mem_size, skytune_error *err)
{
    if (c->beam_block < 1 || c->station_block < 1 || c->wg_time < 1 || c->wg_beams < 1 ||
        p->samples % c->wg_time != 0 || p->beams % (c->beam_block * c->wg_beams) != 0 ||
        c->station_block > p->stations)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "wg_time must divide samples (%lld), beam_block*wg_beams must "
                                 "divide beams (%lld) and station_block must not exceed "
                                 "stations (%lld)",
                                 (long long)p->samples, (long long)p->beams,
                                 (long long)p->stations);
    if (!c->use_local) return SKYTUNE_OK;
    const double staged_bytes =
        (double)c->station_block * (double)c->wg_time * (double)p->polarizations * 8.0;
    if (staged_bytes > (double)local_mem_size)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "staging %lld stations x %lld samples needs %.0f bytes of local "
                                 "memory; the device has %lld",
                                 (long long)c->station_block, (long long)c->wg_time, staged_bytes,
                                 (long long)local_mem_size);
    return SKYTUNE_OK;
}

int beamformer_macros(const beamformer_problem *p, const beamformer_config *c, stage_macros *m,
                      skytune_error *err)
{
    stage_macros_init(m);
    int64_t in_sizes[4], out_sizes[4];
    beamformer_input_sizes(p, in_sizes);
    beamformer_output_sizes(p, out_sizes);
    if (stage_macros_add_int(m, "stations", p->stations, false) ||
        stage_macros_add_int(m, "channels", p->channels, false) ||
        stage_macros_add_int(m, "samples", p->samples, false) ||
        stage_macros_add_int(m, "polarizations", p->polarizations, false) ||
        stage_macros_add_int(m, "beams", p->beams, false) ||
        stage_macros_add_int(m, "beam_block", c->beam_block, false) ||
        stage_macros_add_int(m, "station_block", c->station_block, false) ||
        stage_macros_add_int(m, "wg_time", c->wg_time, false) ||
        stage_macros_add_int(m, "wg_beams", c->wg_beams, false) ||
        stage_macros_add_int(m, "use_local", c->use_local, false) ||
        stage_macros_add_strides(m, "IN", c->in_layout, BEAMFORMER_IN_LETTERS, in_sizes) ||
        stage_macros_add_strides(m, "OUT", c->out_layout, BEAMFORMER_OUT_LETTERS, out_sizes))
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "cannot list the beam former's macros for in_layout '%s' and "
                                 "out_layout '%s'",
                                 c->in_layout, c->out_layout);
    return SKYTUNE_OK;
}

int beamformer_macros_of_values(const skytune_values *problem, const skytune_values *config,
                                stage_macros *m, skytune_error *err)
{
    beamformer_problem p;
    beamformer_config c;
    beamformer_problem_read(problem, &p);
    int rc = beamformer_config_read(config, &c, err);
    return rc ? rc : beamformer_macros(&p, &c, m, err);
}

/* ------------------------------------------------------- host-side data */

void beamformer_generate_input(const beamformer_problem *p, uint64_t seed, float *input)
{
    stage_fill_signed_uniform(input, (size_t)(2 * beamformer_input_count(p)), seed);
}

void beamformer_generate_weights(const beamformer_problem *p, uint64_t seed, float *weights)
{
    pcg32 rng;
    pcg32_seed(&rng, seed, 1);
    const double two_pi = 6.283185307179586476925286766559;
    const size_t count = beamformer_weight_count(p);
    for (size_t i = 0; i < count; i++) {
        const double phase = two_pi * pcg32_double(&rng);
        weights[2 * i] = (float)cos(phase);
        weights[2 * i + 1] = (float)sin(phase);
    }
}

/* The definition, summed in double so that the reference is the exact sum
 * (to about 2^-53 relative) rounded once to float. Loops run beam by beam
 * and station by station with the canonical order's contiguous
 * time-polarisation row innermost. */
int beamformer_cpu_reference(const beamformer_problem *p, const float *input,
                             const float *weights, float *output, skytune_error *err)
{
    const size_t row = (size_t)p->samples * (size_t)p->polarizations; /* complex values */
    double *sum = malloc(2 * row * sizeof *sum);
    if (!sum)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for %zu sums", 2 * row);
    for (int64_t c = 0; c < p->channels; c++) {
        const float *channel_input = input + 2 * (size_t)c * (size_t)p->stations * row;
        for (int64_t b = 0; b < p->beams; b++) {
            for (size_t k = 0; k < 2 * row; k++) sum[k] = 0.0;
            const float *w = weights + 2 * (size_t)(c * p->beams + b) * (size_t)p->stations;
            for (int64_t st = 0; st < p->stations; st++) {
                const double w_re = w[2 * st], w_im = w[2 * st + 1];
                const float *x = channel_input + 2 * (size_t)st * row;
                for (size_t k = 0; k < row; k++) {
                    const double x_re = x[2 * k], x_im = x[2 * k + 1];
                    sum[2 * k] += w_re * x_re - w_im * x_im;
                    sum[2 * k + 1] += w_re * x_im + w_im * x_re;
                }
            }
            float *out = output + 2 * (size_t)(c * p->beams + b) * row;
            for (size_t k = 0; k < 2 * row; k++) out[k] = (float)sum[k];
        }
    }
    free(sum);
    return SKYTUNE_OK;
}

/* The tolerance, for S = stations and u = 2^-24 (float's unit roundoff).
 * Each real component of a product w * x is a difference or sum of two
 * products, a*b -/+ c*d, computed in float with an error of at most
 * 2u(|ab| + |cd|); by the Cauchy-Schwarz inequality |ab| + |cd| <= |w| |x|,
 * which the inputs bound by 1 * sqrt(2) (unit phasors, components in
 * [-1, 1)). Adding the S terms in float, in any order, adds at most
 * (S - 1)u times the sum of their magnitudes, so a kernel's output is off
 * the exact sum by at most (S + 1) S sqrt(2) u (to first order in u; fused
 * multiply-adds only remove roundings). The reference is the exact sum
 * rounded once, at most S sqrt(2) u away. An absolute tolerance of
 * 2 S (S + 2) u covers both with room to spare for every correct kernel,
 * whatever its summation order. It is absolute because an output, a sum of
 * terms with random phases, can be arbitrarily close to zero. For 64
 * stations it is 5e-4, while one wrong or missing term changes an output
 * by about |w x|, 0.8 on average. */
double beamformer_tolerance(const beamformer_problem *p)
{
    return 2.0 * (double)p->stations * (double)(p->stations + 2) * ldexp(1.0, -24);
}

/* ------------------------------------------------------------ the device */

int beamformer_stage_prepare(beamformer_stage_launch *l, cl_program program,
                             const beamformer_problem *p, const beamformer_config *c,
                             int64_t local_mem_size, cl_mem input, cl_mem weights, cl_mem output,
                             skytune_error *err)
{
    memset(l, 0, sizeof *l);
    int rc = beamformer_config_check(p, c, local_mem_size, err);
    if (rc) return rc;
    const support_kernel_spec kernel = {
        .name = "beamform",
        .label = "beamform",
        .args = {SUPPORT_ARG(input), SUPPORT_ARG(weights), SUPPORT_ARG(output)},
        .dims = 3,
        .global = {(size_t)p->samples, (size_t)(p->beams / c->beam_block), (size_t)p->channels},
        .local = {(size_t)c->wg_time, (size_t)c->wg_beams, 1},
    };
    return support_kernel_create(&l->kernel, program, &kernel, err);
}

int beamformer_stage_enqueue(const beamformer_stage_launch *l, cl_command_queue queue,
                             skytune_events *events, skytune_error *err)
{
    return support_kernel_enqueue(&l->kernel, queue, events, err);
}

void beamformer_stage_release(beamformer_stage_launch *l)
{
    support_kernel_release(&l->kernel);
}

/* ------------------------------------------------------------ work counts */

double beamformer_count_flops(const beamformer_problem *p)
{
    return 8.0 * output_values(p) * (double)p->stations;
}

double beamformer_count_bytes(const beamformer_problem *p)
{
    return 8.0 * (input_values(p) + weight_values(p) + output_values(p));
}
