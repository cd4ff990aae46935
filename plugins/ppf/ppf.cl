/*
 * The FIR half of a polyphase filter bank (K. van der Veldt, "A Polyphase
 * Filter For GPUs And Multi-Core Processors", 2011). The FFT half is clFFT,
 * enqueued by the host after this kernel.
 *
 * Section-safe: a pipeline compiles this file into one program with other
 * stages' sources, each between #defines of its macros and #undefs of them
 * (plugins/stage/stage_macros.h). So its kernel and types carry the
 * stage's name (no typedef: a typedef cannot be undone), and every helper
 * macro it defines is #undef'd at its end; nothing it declares can clash
 * with another section's.
 *
 * For every station, polarization, channel c and output step k:
 *
 *     fir(station, c, k, pol) = sum over t < taps of
 *         coefficients[t][c] * input[k + taps - 1 - t][station][c][pol]
 *
 * Tap 0 multiplies the newest input block, tap taps-1 the oldest (the
 * thesis's delay line, section 3.4). A block is `channels` consecutive
 * samples of one stream; output step k reads blocks k .. k + taps - 1, so
 * there are samples / channels - taps + 1 steps and no history is carried in.
 *
 * Macros, one per parameter (never reuse these names), from the engine or
 * the pipeline (ppf_macros in ppf_stage.c lists them):
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
 *   OUT_STRIDE_S, OUT_STRIDE_C, OUT_STRIDE_T, OUT_STRIDE_P
 *                      the strides of the FIR output's layout (out_layout),
 *                      in float2 elements (derived)
 *
 * Layouts (the thesis's, figure 4.5, but for the output):
 *   input         [block][station][channel][pol] complex integers, re then im
 *                 (char2 or short2 per sample, so both pols are a char4/short4)
 *   coefficients  [tap][channel] float
 *   fir           float2 in the tuned layout out_layout over S, C, T (output
 *                 step) and P: element (s, c, t, p) at s * OUT_STRIDE_S +
 *                 c * OUT_STRIDE_C + t * OUT_STRIDE_T + p * OUT_STRIDE_P, the
 *                 index arithmetic generated from the layout (Kis 2013,
 *                 Algorithm 1) with constants the compiler folds. LOFAR's
 *                 layout, and the default, is TPSC: [step][pol][station]
 *                 [channel], each run of `channels` values one FFT input.
 *
 * Work decomposition. Dimension 0 runs over the station-channels
 * (sc = station * channels + channel, all stations back to back) and, with
 * both_pols = 0, their two polarizations; dimension 1 over batches of
 * samples_per_item output steps. A work-group covers TILE consecutive
 * station-channels: work-item x handles sc = tile_first + x / LANES
 * + j * COLUMNS for j < channels_per_item. At each j the work-group therefore
 * reads one contiguous stretch of input and, when the layout ends in SC (as
 * TPSC does), writes contiguous stretches of output (coalesced on GPUs, vectorisable
 * across work-items on CPUs); other layouts write with strides, which is
 * what tuning out_layout measures.
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
#define LANES (2 - both_pols)               /* work-items per station-channel */
#define COLUMNS (wg_size / LANES)           /* station-channels per work-group and j */
#define TILE (COLUMNS * channels_per_item)  /* station-channels per work-group */
#define POLS_PER_ITEM (1 + both_pols)

#if sample_bits == 8
#define PPF_SAMPLE char2
#define PPF_DUAL_SAMPLE char4
#elif sample_bits == 16
#define PPF_SAMPLE short2
#define PPF_DUAL_SAMPLE short4
#else
#error "sample_bits must be 8 or 16"
#endif

/* Where output (station, channel, step, pol) goes. When the station's stride
 * is the channel's times the channels (the layout holds ..SC..), station and
 * channel make one index sc = station * channels + channel, and the division
 * into them is skipped: TPSC's index is then the one the fixed layout had. */
#if OUT_STRIDE_S == channels * OUT_STRIDE_C
#define PPF_OUT_IDX(sc, step, pol) \
    ((sc) * OUT_STRIDE_C + (step) * OUT_STRIDE_T + (pol) * OUT_STRIDE_P)
#else
#define PPF_OUT_IDX(sc, step, pol)                                                     \
    ((sc) / channels * OUT_STRIDE_S + (sc) % channels * OUT_STRIDE_C +                  \
     (step) * OUT_STRIDE_T + (pol) * OUT_STRIDE_P)
#endif

/* Input sample(s) of block `block` and station-channel `sc` as floats:
 * both polarizations into line[0] and line[1], or the one of `pol`. */
#if both_pols
#define PPF_LOAD(line, block, sc, pol)                                                      \
    do {                                                                                    \
        const float4 both = convert_float4(dual_input[(block) * STATION_CHANNELS + (sc)]);  \
        (line)[0] = both.s01;                                                               \
        (line)[1] = both.s23;                                                               \
    } while (0)
#else
#define PPF_LOAD(line, block, sc, pol) \
    ((line)[0] = convert_float2(input[((block) * STATION_CHANNELS + (sc)) * 2 + (pol)]))
#endif

__kernel __attribute__((reqd_work_group_size(wg_size, 1, 1)))
void ppf_fir(__global const PPF_SAMPLE *restrict input,
             __global const float *restrict coefficients,
             __global float2 *restrict fir)
{
    const int x = get_local_id(0);
    const int pol = both_pols ? 0 : x % LANES;  /* the first polarization handled */
    const int tile_first = get_group_id(0) * TILE + x / LANES;
    const int first_step = get_group_id(1) * samples_per_item;
#if both_pols
    __global const PPF_DUAL_SAMPLE *dual_input = (__global const PPF_DUAL_SAMPLE *)input;
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
            PPF_LOAD(line[j][s], first_step + taps - 1 + s, sc, pol);
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
            PPF_LOAD(line[j][0], first_step + taps - 1 - t, sc, pol);
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
                fir[PPF_OUT_IDX(sc, first_step + s, pol + p)] = sum[j][s][p];
    }
}

#undef STATION_CHANNELS
#undef LANES
#undef COLUMNS
#undef TILE
#undef POLS_PER_ITEM
#undef PPF_SAMPLE
#undef PPF_DUAL_SAMPLE
#undef PPF_OUT_IDX
#undef PPF_LOAD
