/*
 * Beam forming (after Sclocco, Varbanescu, Mol and van Nieuwpoort, "Radio
 * astronomy beam forming on many-core architectures", IPDPS 2012):
 *
 *     output[c][b][t][p] = sum over s of weights[c][b][s] * input[c][s][t][p]
 *
 * with complex (float2: x real, y imaginary) samples and weights.
 *
 * Macros from the engine, one per parameter (never reuse these names for
 * variables in this file):
 *   stations, channels, samples, polarizations, beams    problem shape
 *   beam_block      beams per work-item, accumulated in registers
 *   station_block   stations per step of the station loop (fully unrolled)
 *   wg_time         work-items per work-group along time
 *   wg_beams        work-items per work-group along beams
 *   use_local       1: stage the samples of station_block stations in local memory
 *
 * Work decomposition. The NDRange is samples x (beams / beam_block) x
 * channels. A work-group owns wg_time consecutive samples of one channel and
 * a tile of TILE_BEAMS = wg_beams * beam_block beams; work-item (x, y)
 * computes, for its sample t and every polarisation, the beam_block beams
 * tile_beam + y + j * wg_beams. Each station's sample is loaded once and
 * multiplied by beam_block weights: beam blocking is register blocking, and
 * it raises the arithmetic intensity from one complex multiply-add per
 * sample loaded to beam_block of them. Neighbouring work-items along x read
 * and write neighbouring samples (coalesced on GPUs, vectorised across
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
/* float2 values per row of one channel: one station's input, one beam's output. */
#define TIME_ROW (samples * polarizations)

/* acc += w * x, complex. Written as two multiply-adds per component so that
 * the compiler may contract them into fused multiply-adds. */
#define COMPLEX_MAD(acc, w, v)                         \
    do {                                               \
        (acc).x += (w).x * (v).x - (w).y * (v).y;      \
        (acc).y += (w).x * (v).y + (w).y * (v).x;      \
    } while (0)

__kernel __attribute__((reqd_work_group_size(wg_time, wg_beams, 1)))
void beamform(__global const float2 *restrict input,    /* [channels][stations][samples][polarizations] */
              __global const float2 *restrict weights,  /* [channels][beams][stations] */
              __global float2 *restrict output)         /* [channels][beams][samples][polarizations] */
{
    const int x = get_local_id(0);
    const int y = get_local_id(1);
    const int t = get_global_id(0);
    const int tile_beam = get_group_id(1) * TILE_BEAMS;
    const int channel = get_global_id(2);

    __global const float2 *channel_input = input + channel * stations * TIME_ROW;
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
    const int tile_offset = get_group_id(0) * wg_time * polarizations;
    for (int first_station = 0; first_station < stations; first_station += station_block) {
        #pragma unroll
        for (int u = 0; u < station_block; u++) {
            if (STATION_TAIL == 0 || first_station + u < stations) {
                __global const float2 *span =
                    channel_input + (first_station + u) * TIME_ROW + tile_offset;
                for (int i = flat_id; i < wg_time * polarizations; i += wg_time * wg_beams)
                    staged[u][i] = span[i];
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
    __global const float2 *my_samples = channel_input + t * polarizations;
    for (int first_station = 0; first_station < stations; first_station += station_block) {
        #pragma unroll
        for (int u = 0; u < station_block; u++) {
            const int station = first_station + u;
            if (STATION_TAIL == 0 || station < stations) {
                float2 sample[polarizations];
                #pragma unroll
                for (int p = 0; p < polarizations; p++)
                    sample[p] = my_samples[station * TIME_ROW + p];
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

    __global float2 *out = output + ((channel * beams + tile_beam + y) * samples + t) * polarizations;
    #pragma unroll
    for (int j = 0; j < beam_block; j++)
        #pragma unroll
        for (int p = 0; p < polarizations; p++)
            out[j * wg_beams * TIME_ROW + p] = acc[j][p];
}
