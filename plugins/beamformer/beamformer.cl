/*
 * Beam forming (after Sclocco, Varbanescu, Mol and van Nieuwpoort, "Radio
 * astronomy beam forming on many-core architectures", IPDPS 2012):
 *
 *     output(b, c, t, p) = sum over s of weights[c][b][s] * input(s, c, t, p)
 *
 * with complex (float2: x real, y imaginary) samples and weights.
 *
 * Section-safe: a pipeline compiles this file into one program with other
 * stages' sources, each between #defines of its macros and #undefs of them
 * (plugins/stage/stage_macros.h). So its kernel's name is the stage's own,
 * it defines no functions or types, and every helper macro it defines is
 * #undef'd at its end; nothing it declares can clash with another section's.
 *
 * Macros, one per parameter (never reuse these names for variables in this
 * file), from the engine or the pipeline (beamformer_macros in
 * beamformer_stage.c lists them):
 *   stations, channels, samples, polarizations, beams    problem shape
 *   beam_block      beams per work-item, accumulated in registers
 *   station_block   stations per step of the station loop (fully unrolled)
 *   wg_time         work-items per work-group along time
 *   wg_beams        work-items per work-group along beams
 *   use_local       1: stage the samples of station_block stations in local memory
 *   IN_STRIDE_S, IN_STRIDE_C, IN_STRIDE_T, IN_STRIDE_P
 *                   strides of the input's layout (in_layout over SCTP), in
 *                   float2 elements (derived)
 *   OUT_STRIDE_B, OUT_STRIDE_C, OUT_STRIDE_T, OUT_STRIDE_P
 *                   strides of the output's layout (out_layout over BCTP)
 *
 * Layouts. The input and the output are stored in tuned layouts: element
 * (s, c, t, p) of the input at s * IN_STRIDE_S + c * IN_STRIDE_C +
 * t * IN_STRIDE_T + p * IN_STRIDE_P, and (b, c, t, p) of the output
 * likewise with the OUT_STRIDEs, the index arithmetic generated from the
 * layout (Kis 2013, Algorithm 1) with constants the compiler folds. LOFAR's
 * (and the defaults) are CSTP in, [channel][station][time][pol], and CBTP
 * out. The weights are [channel][beam][station].
 *
 * Work decomposition. The NDRange is samples x (beams / beam_block) x
 * channels. A work-group owns wg_time consecutive samples of one channel and
 * a tile of TILE_BEAMS = wg_beams * beam_block beams; work-item (x, y)
 * computes, for its sample t and every polarisation, the beam_block beams
 * tile_beam + y + j * wg_beams. Each station's sample is loaded once and
 * multiplied by beam_block weights: beam blocking is register blocking, and
 * it raises the arithmetic intensity from one complex multiply-add per
 * sample loaded to beam_block of them. Neighbouring work-items along x read
 * and write neighbouring samples when the layouts keep time and polarisation
 * innermost (..TP, as the defaults do; coalesced on GPUs, vectorised across
 * work-items on CPUs); the weights they read are the same for the whole row
 * (a broadcast).
 *
 * Stations. The station loop advances station_block stations per step and
 * the inner loop over them has a constant trip count, so it is unrolled. When
 * station_block does not divide stations, the last step is partial: each
 * unrolled station is guarded by a test that is the same for every work-item
 * (no divergence) and that the compiler removes when STATION_TAIL is 0.
 *
 * The host guarantees (through the plugin's constraints) that wg_time divides
 * samples, that TILE_BEAMS divides beams, that station_block <= stations and,
 * with use_local, that the staging buffer fits in local memory.
 */

#define TILE_BEAMS (wg_beams * beam_block)
#define STATION_TAIL (stations % station_block)

/* acc += w * x, complex. Written as two multiply-adds per component so that
 * the compiler may contract them into fused multiply-adds. */
#define COMPLEX_MAD(acc, w, v)                         \
    do {                                               \
        (acc).x += (w).x * (v).x - (w).y * (v).y;      \
        (acc).y += (w).x * (v).y + (w).y * (v).x;      \
    } while (0)

__kernel __attribute__((reqd_work_group_size(wg_time, wg_beams, 1)))
void beamform(__global const float2 *restrict input,    /* in_layout */
              __global const float2 *restrict weights,  /* [channels][beams][stations] */
              __global float2 *restrict output)         /* out_layout */
{
    const int x = get_local_id(0);
    const int y = get_local_id(1);
    const int t = get_global_id(0);
    const int tile_beam = get_group_id(1) * TILE_BEAMS;
    const int channel = get_global_id(2);

    /* The channel's samples: station s's sample t, polarisation p, at
     * s * IN_STRIDE_S + t * IN_STRIDE_T + p * IN_STRIDE_P from here (for
     * the default CSTP the offsets the fixed layout had). */
    __global const float2 *channel_input = input + channel * IN_STRIDE_C;
    /* This work-item's first beam; its others follow every wg_beams rows. */
    __global const float2 *beam_weights = weights + (channel * beams + tile_beam + y) * stations;

    float2 acc[beam_block][polarizations];
    #pragma unroll
    for (int j = 0; j < beam_block; j++)
        #pragma unroll
        for (int p = 0; p < polarizations; p++)
            acc[j][p] = (float2)(0.0f, 0.0f);

#if use_local
    /* Data reuse through local memory: the wg_beams rows of the work-group
     * all need the same samples. The group loads the samples of
     * station_block stations for its wg_time time steps once, cooperatively
     * and coalesced (each station's span is contiguous), and every work-item
     * then reads its samples from local memory. The weights are not staged:
     * a row of work-items reads the same weight address, which GPUs serve as
     * one broadcast and CPUs as one scalar load per vector. */
    __local float2 staged[station_block][wg_time * polarizations];
    const int flat_id = y * wg_time + x;
    const int tile_offset = get_group_id(0) * wg_time * IN_STRIDE_T;
    for (int first_station = 0; first_station < stations; first_station += station_block) {
        #pragma unroll
        for (int u = 0; u < station_block; u++) {
            if (STATION_TAIL == 0 || first_station + u < stations) {
                __global const float2 *span =
                    channel_input + (first_station + u) * IN_STRIDE_S + tile_offset;
#if IN_STRIDE_P == 1 && IN_STRIDE_T == polarizations
                /* Time and polarisation innermost: the group's samples of a
                 * station are one contiguous span. */
                for (int i = flat_id; i < wg_time * polarizations; i += wg_time * wg_beams)
                    staged[u][i] = span[i];
#else
                for (int i = flat_id; i < wg_time * polarizations; i += wg_time * wg_beams)
                    staged[u][i] = span[i / polarizations * IN_STRIDE_T +
                                        i % polarizations * IN_STRIDE_P];
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        #pragma unroll
        for (int u = 0; u < station_block; u++) {
            const int station = first_station + u;
            if (STATION_TAIL == 0 || station < stations) {
                float2 sample[polarizations];
                #pragma unroll
                for (int p = 0; p < polarizations; p++)
                    sample[p] = staged[u][x * polarizations + p];
                #pragma unroll
                for (int j = 0; j < beam_block; j++) {
                    const float2 w = beam_weights[j * wg_beams * stations + station];
                    #pragma unroll
                    for (int p = 0; p < polarizations; p++)
                        COMPLEX_MAD(acc[j][p], w, sample[p]);
                }
            }
        }
        /* The next step overwrites `staged`: wait until everyone has read it. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    /* Straight from global memory: each work-item loads each of its samples
     * exactly once, so there is nothing to share within a row; sharing
     * between rows (wg_beams > 1) is left to the caches. */
    __global const float2 *my_samples = channel_input + t * IN_STRIDE_T;
    for (int first_station = 0; first_station < stations; first_station += station_block) {
        #pragma unroll
        for (int u = 0; u < station_block; u++) {
            const int station = first_station + u;
            if (STATION_TAIL == 0 || station < stations) {
                float2 sample[polarizations];
                #pragma unroll
                for (int p = 0; p < polarizations; p++)
                    sample[p] = my_samples[station * IN_STRIDE_S + p * IN_STRIDE_P];
                #pragma unroll
                for (int j = 0; j < beam_block; j++) {
                    const float2 w = beam_weights[j * wg_beams * stations + station];
                    #pragma unroll
                    for (int p = 0; p < polarizations; p++)
                        COMPLEX_MAD(acc[j][p], w, sample[p]);
                }
            }
        }
    }
#endif

    __global float2 *out =
        output + channel * OUT_STRIDE_C + (tile_beam + y) * OUT_STRIDE_B + t * OUT_STRIDE_T;
    #pragma unroll
    for (int j = 0; j < beam_block; j++)
        #pragma unroll
        for (int p = 0; p < polarizations; p++)
            out[j * wg_beams * OUT_STRIDE_B + p * OUT_STRIDE_P] = acc[j][p];
}

#undef TILE_BEAMS
#undef STATION_TAIL
#undef COMPLEX_MAD
