/*
 * Brute-force dedispersion (Sclocco et al., "Auto-Tuning Dedispersion for
 * Many-Core Accelerators", section III-B):
 *
 *     output[dm][sample] = sum over channel of input[channel][sample + shift[dm][channel]]
 *
 * Macros from the engine, one per parameter (never reuse these names for
 * variables in this file):
 *   channels, samples, dms            problem shape
 *   wi_samples, wi_dms                work-items per work-group along samples and DMs
 *   el_samples, el_dms                outputs per work-item along samples and DMs
 *   local_mem                         1: stage the input in local memory
 *   unroll                            channels handled per step of the channel loop
 * (and the physical problem parameters, unused here: the host turns them
 * into the shift table). Macros from the plugin's `defines` callback:
 *   IN_STRIDE       floats per input channel row: samples + the largest shift
 *   MAX_TILE_SPAN   local_mem only: floats staged per channel, the tile's
 *                   samples plus a bound on the spread of its DMs' shifts
 *
 * Work decomposition. A work-group owns a tile of TILE_DMS x TILE_SAMPLES
 * outputs. Work-item (x, y) of the group computes the el_dms x el_samples
 * outputs (tile_dm + y + j*wi_dms, tile_sample + x + k*wi_samples): strided,
 * not blocked, so that at each (j, k) the wi_samples work-items of a row read
 * and write consecutive floats (coalesced on GPUs, vectorised across
 * work-items on CPUs). Sums stay in registers until the end.
 *
 * The host guarantees (through the plugin's constraints) that the tiles
 * divide samples and dms exactly, that unroll divides channels, and, with
 * local_mem, that unroll * MAX_TILE_SPAN floats fit in local memory.
 */

#define TILE_SAMPLES (wi_samples * el_samples)
#define TILE_DMS (wi_dms * el_dms)

__kernel __attribute__((reqd_work_group_size(wi_samples, wi_dms, 1)))
void dedisperse(__global const float *restrict input,  /* [channels][IN_STRIDE] */
                __global const int *restrict shifts,   /* [dms][channels], in samples */
                __global float *restrict output)       /* [dms][samples] */
{
    const int x = get_local_id(0);
    const int y = get_local_id(1);
    const int tile_sample = get_group_id(0) * TILE_SAMPLES;
    const int tile_dm = get_group_id(1) * TILE_DMS;

    /* Every loop over el_dms, el_samples or unroll has a compile-time trip
     * count and is fully unrolled (#pragma unroll, understood by the clang-
     * based compilers of PoCL, AMD and Intel and by NVIDIA's): `sum` is then
     * indexed by constants only and lives in registers, as in the paper. Clang
     * does not macro-expand a pragma's name, so the `unroll` parameter's
     * macro leaves `#pragma unroll` alone. */
    float sum[el_dms][el_samples];
    #pragma unroll
    for (int j = 0; j < el_dms; j++)
        #pragma unroll
        for (int k = 0; k < el_samples; k++)
            sum[j][k] = 0.0f;

#if local_mem
    /* Data reuse through local memory: for a channel, the tile's DMs read
     * overlapping windows of one input row, starting at the tile's first DM's
     * shift and ending TILE_SAMPLES past its last DM's shift (shifts grow
     * with the DM). The work-group loads that span once, cooperatively and
     * coalesced, and every work-item then reads its samples from local
     * memory. `unroll` channels are staged per barrier pair, so unrolling
     * also divides the number of barriers. */
    __local float staged[unroll][MAX_TILE_SPAN];
    const int flat_id = y * wi_samples + x;
    for (int first_channel = 0; first_channel < channels; first_channel += unroll) {
        int base_shift[unroll];
        #pragma unroll
        for (int u = 0; u < unroll; u++) {
            const int channel = first_channel + u;
            base_shift[u] = shifts[tile_dm * channels + channel];
            const int span =
                TILE_SAMPLES + shifts[(tile_dm + TILE_DMS - 1) * channels + channel] - base_shift[u];
            __global const float *row = input + channel * IN_STRIDE + tile_sample + base_shift[u];
            for (int i = flat_id; i < span; i += wi_samples * wi_dms)
                staged[u][i] = row[i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        #pragma unroll
        for (int u = 0; u < unroll; u++) {
            const int channel = first_channel + u;
            #pragma unroll
            for (int j = 0; j < el_dms; j++) {
                const int dm = tile_dm + y + j * wi_dms;
                const int offset = shifts[dm * channels + channel] - base_shift[u] + x;
                #pragma unroll
                for (int k = 0; k < el_samples; k++)
                    sum[j][k] += staged[u][offset + k * wi_samples];
            }
        }
        /* The next step overwrites `staged`: wait until everyone has read it. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    /* Straight from global memory; reuse between the tile's DMs is left to
     * the caches. Unrolling `unroll` channels lets the loads of different
     * channels overlap. */
    for (int first_channel = 0; first_channel < channels; first_channel += unroll) {
        #pragma unroll
        for (int u = 0; u < unroll; u++) {
            const int channel = first_channel + u;
            __global const float *row = input + channel * IN_STRIDE + tile_sample + x;
            #pragma unroll
            for (int j = 0; j < el_dms; j++) {
                const int dm = tile_dm + y + j * wi_dms;
                const int shift = shifts[dm * channels + channel];
                #pragma unroll
                for (int k = 0; k < el_samples; k++)
                    sum[j][k] += row[shift + k * wi_samples];
            }
        }
    }
#endif

    #pragma unroll
    for (int j = 0; j < el_dms; j++) {
        const int dm = tile_dm + y + j * wi_dms;
        #pragma unroll
        for (int k = 0; k < el_samples; k++)
            output[dm * samples + tile_sample + x + k * wi_samples] = sum[j][k];
    }
}
