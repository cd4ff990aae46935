/*
 * The FIR half of a polyphase filter bank (K. van der Veldt, "A Polyphase
 * Filter For GPUs And Multi-Core Processors", 2011). The FFT half is clFFT,
 * enqueued by the host after this kernel.
 *
 * For every station, polarization, channel c and output step k:
 *
 *     fir[k][pol][station][c] = sum over t < taps of
 *         coefficients[t][c] * input[k + taps - 1 - t][station][c][pol]
 *
 * Tap 0 multiplies the newest input block, tap taps-1 the oldest (the
 * thesis's delay line, section 3.4). A block is `channels` consecutive
 * samples of one stream; output step k reads blocks k .. k + taps - 1, so
 * there are samples / channels - taps + 1 steps and no history is carried in.
 *
 * Macros from the engine, one per parameter (never reuse these names):
 *   stations, channels, taps, samples, sample_bits    the problem
 *   wg_size            work-items per work-group
 *   channels_per_item  station-channels each work-item filters
 *   samples_per_item   consecutive output steps each work-item computes
 *                      (the thesis's sample batch processing, 4.7.4)
 *   both_pols          1: a work-item filters both polarizations of its
 *                      channels (coefficients loaded once for both, one
 *                      4-component load per sample, the thesis's vectorised
 *                      OpenCL version, 4.9.2); 0: one polarization, chosen
 *                      by the parity of the work-item (as in its CUDA version)
 *
 * Layouts (the thesis's, figure 4.5):
 *   input         [block][station][channel][pol] complex integers, re then im
 *                 (char2 or short2 per sample, so both pols are a char4/short4)
 *   coefficients  [tap][channel] float
 *   fir           [step][pol][station][channel] float2, each run of `channels`
 *                 values one FFT input
 *
 * Work decomposition. Dimension 0 runs over the station-channels
 * (sc = station * channels + channel, all stations back to back) and, with
 * both_pols = 0, their two polarizations; dimension 1 over batches of
 * samples_per_item output steps. A work-group covers TILE consecutive
 * station-channels: work-item x handles sc = tile_first + x / LANES
 * + j * COLUMNS for j < channels_per_item. At each j the work-group therefore
 * reads one contiguous stretch of input and writes contiguous stretches of
 * output (coalesced on GPUs, vectorisable across work-items on CPUs).
 *
 * Sample batching. Output steps first_step + s (s < samples_per_item) use a
 * window of samples_per_item + taps - 1 input blocks. The loop over taps keeps
 * a sliding window of samples_per_item samples in registers: at tap t,
 * line[s] holds block first_step + taps - 1 - t + s, so moving to the next tap
 * shifts the window by one and loads one new (older) block. Each input sample
 * is loaded once per work-item rather than once per output, the coefficient of
 * a tap once for all samples_per_item outputs (and both polarizations).
 *
 * The host guarantees (through the constraints) that tiles divide
 * stations * channels and that samples_per_item divides the number of steps,
 * so there are no bounds checks, and that every index fits an int.
 */

#define STATION_CHANNELS (stations * channels)
#define STEPS (samples / channels - taps + 1)
#define LANES (2 - both_pols)               /* work-items per station-channel */
#define COLUMNS (wg_size / LANES)           /* station-channels per work-group and j */
#define TILE (COLUMNS * channels_per_item)  /* station-channels per work-group */
#define POLS_PER_ITEM (1 + both_pols)

#if sample_bits == 8
typedef char2 complex_sample;
typedef char4 dual_pol_sample;
#elif sample_bits == 16
typedef short2 complex_sample;
typedef short4 dual_pol_sample;
#else
#error "sample_bits must be 8 or 16"
#endif

/* Input sample(s) of block `block` and station-channel `sc` as floats:
 * both polarizations into line[0] and line[1], or the one of `pol`. */
#if both_pols
#define LOAD(line, block, sc, pol)                                                          \
    do {                                                                                    \
        const float4 both = convert_float4(dual_input[(block) * STATION_CHANNELS + (sc)]);  \
        (line)[0] = both.s01;                                                               \
        (line)[1] = both.s23;                                                               \
    } while (0)
#else
#define LOAD(line, block, sc, pol) \
    ((line)[0] = convert_float2(input[((block) * STATION_CHANNELS + (sc)) * 2 + (pol)]))
#endif

__kernel __attribute__((reqd_work_group_size(wg_size, 1, 1)))
void ppf_fir(__global const complex_sample *restrict input,
             __global const float *restrict coefficients,
             __global float2 *restrict fir)
{
    const int x = get_local_id(0);
    const int pol = both_pols ? 0 : x % LANES;  /* the first polarization handled */
    const int tile_first = get_group_id(0) * TILE + x / LANES;
    const int first_step = get_group_id(1) * samples_per_item;
#if both_pols
    __global const dual_pol_sample *dual_input = (__global const dual_pol_sample *)input;
#endif

    /* line[j][s][p]: the sliding window; sum[j][s][p]: the outputs. Every
     * loop over j, s and p has a compile-time trip count and is unrolled, so
     * both arrays live in registers. */
    float2 line[channels_per_item][samples_per_item][POLS_PER_ITEM];
    float2 sum[channels_per_item][samples_per_item][POLS_PER_ITEM];

    /* Tap 0: the newest block of each output step. */
    #pragma unroll
    for (int j = 0; j < channels_per_item; j++) {
        const int sc = tile_first + j * COLUMNS;
        const float coefficient = coefficients[sc % channels];
        #pragma unroll
        for (int s = 0; s < samples_per_item; s++) {
            LOAD(line[j][s], first_step + taps - 1 + s, sc, pol);
            #pragma unroll
            for (int p = 0; p < POLS_PER_ITEM; p++)
                sum[j][s][p] = coefficient * line[j][s][p];
        }
    }

    /* Taps 1 .. taps-1: slide the window one block back, then accumulate. */
    for (int t = 1; t < taps; t++) {
        #pragma unroll
        for (int j = 0; j < channels_per_item; j++) {
            const int sc = tile_first + j * COLUMNS;
            const float coefficient = coefficients[t * channels + sc % channels];
            #pragma unroll
            for (int s = samples_per_item - 1; s > 0; s--)
                #pragma unroll
                for (int p = 0; p < POLS_PER_ITEM; p++)
                    line[j][s][p] = line[j][s - 1][p];
            LOAD(line[j][0], first_step + taps - 1 - t, sc, pol);
            #pragma unroll
            for (int s = 0; s < samples_per_item; s++)
                #pragma unroll
                for (int p = 0; p < POLS_PER_ITEM; p++)
                    sum[j][s][p] += coefficient * line[j][s][p];
        }
    }

    #pragma unroll
    for (int j = 0; j < channels_per_item; j++) {
        const int sc = tile_first + j * COLUMNS;
        #pragma unroll
        for (int s = 0; s < samples_per_item; s++)
            #pragma unroll
            for (int p = 0; p < POLS_PER_ITEM; p++)
                fir[((first_step + s) * 2 + pol + p) * STATION_CHANNELS + sc] = sum[j][s][p];
    }
}
