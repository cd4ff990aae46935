/*
 * gridding — convolution gridding of radio-telescope visibilities, after the
 * NAG report on porting SKA convolution gridding to Xeon, Xeon Phi and GPUs
 * (its Listing 1 is the serial reference; its atomic, tiled and hybrid GPU
 * codes, bucket sort, central box and kernel reordering are the variants
 * here) and Romein's work distribution as EPIC uses it (H. Krishnan,
 * "Optimization of Romein Kernel in EPIC", 2020).
 *
 * Every visibility (u, v, w, one complex value per polarization, a weight) is
 * multiplied by its weight, convolved with the convolution kernel of its
 * w-plane (plane round(sqrt(|w|)), oversampled, support growing with the
 * plane) and added into the complex grid of its batch and polarization; the
 * weights are summed per batch. Which algorithm does it is the tuning choice
 * (`variant`); gridding.cl describes the kernels, README.md the whole
 * plugin.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcg32.h>
#include <skytune/plugin.h>
#include <skytune/plugin_checks.h>

#include "plugin_support.h"

extern const char gridding_cl_source[];

/* ------------------------------------------------------------ description data */

/* Defaults are the `uniform` preset. */
static const skytune_problem_param problem_params[] = {
    {"grid_size", SKYTUNE_INT, "4096", "grid points along u and along v"},
    {"oversample", SKYTUNE_INT, "8", "samples of the convolution kernels per grid cell"},
    {"w_planes", SKYTUNE_INT, "714", "convolution kernels, one per w-plane"},
    {"support_min", SKYTUNE_INT, "4", "support (half-width in cells) of plane 0's kernel"},
    {"support_max", SKYTUNE_INT, "36",
     "support of the last plane's kernel; supports grow linearly from plane 0"},
    {"visibilities", SKYTUNE_INT, "2152800", "visibilities per batch"},
    {"polarizations", SKYTUNE_INT, "1", "complex values per visibility: 1, 2 or 4"},
    {"batches", SKYTUNE_INT, "1",
     "independent grids, each with its own visibilities (EPIC: time samples x channels)"},
    {"track_length", SKYTUNE_INT, "32",
     "consecutive visibilities of one track (a baseline over time, or an EPIC batch's "
     "antennas): one w-plane, neighbouring positions; romein gives a track a work-group"},
    {"distribution", SKYTUNE_STRING, "uniform",
     "where visibilities land: uniform, concentrated (a dense central halo) or epic (antenna "
     "positions, the same in every batch)"},
    {"concentration", SKYTUNE_FLOAT, "0.9",
     "concentrated only: the fraction of tracks that start in the central halo, 0 to 1"},
    {"halo_radius", SKYTUNE_FLOAT, "64", "concentrated only: radius of the halo in grid cells"},
    {"extent", SKYTUNE_FLOAT, "0.75",
     "diameter of the disk the tracks start in (the antennas for epic), as a fraction of "
     "grid_size; 1 reaches the grid's edges"},
    {NULL, 0, NULL, NULL}
};

/* The report's data sets (its Table 1) scaled to run through a CPU reference
 * in seconds; README.md gives the reasoning for each. */
static const skytune_preset presets[] = {
    {"uniform",
     "grid_size=4096,oversample=8,w_planes=714,support_min=4,support_max=36,"
     "visibilities=2152800,polarizations=1,batches=1,track_length=32,distribution=uniform,"
     "extent=0.75",
     "the report's synthetic set: 2,152,800 visibilities, 714 kernels up to support 36, a "
     "3072-point wide active disk"},
    {"concentrated",
     "grid_size=8192,oversample=8,w_planes=601,support_min=2,support_max=24,"
     "visibilities=3139584,polarizations=1,batches=1,track_length=32,"
     "distribution=concentrated,concentration=0.9,halo_radius=64,extent=0.5",
     "SKA-like (the report's EL56-EL82): 601 kernels, 90 % of the tracks in a 64-cell halo; "
     "visibilities and supports scaled down"},
    {"epic",
     "grid_size=64,oversample=1,w_planes=1,support_min=2,support_max=2,visibilities=256,"
     "polarizations=2,batches=2048,track_length=256,distribution=epic,extent=0.5",
     "EPIC on LWA-SV: 256 antennas, 2 polarizations, a 64 x 64 grid per batch, 512 time "
     "samples x 4 channels"},
    {"small",
     "grid_size=24,oversample=4,w_planes=3,support_min=1,support_max=3,visibilities=256,"
     "polarizations=1,batches=2,track_length=8,distribution=concentrated,concentration=0.5,"
     "halo_radius=3,extent=1.0",
     "a 24 x 24 grid, 2 batches of 256 visibilities, 3 kernels: for tests and demos"},
    {NULL, NULL, NULL}
};

/* Checks run in order and stop at the first failure, so each may assume the
 * ones before it. */
static const skytune_problem_check problem_checks[] = {
    {"grid_size >= 8", "grid_size must be at least 8"},
    {"oversample >= 1",
     "oversample must be at least 1 (samples of the convolution kernels per grid cell)"},
    {"w_planes >= 1", "w_planes must be at least 1"},
    {"support_min >= 1", "support_min must be at least 1"},
    {"support_max >= support_min", "support_max must be at least support_min"},
    {"2 * support_max + 1 <= grid_size",
     "support_max is larger than the grid: a footprint of 2 * support_max + 1 points must fit "
     "in grid_size"},
    {"visibilities >= 1", "visibilities must be at least 1"},
    {"polarizations == 1 or polarizations == 2 or polarizations == 4",
     "polarizations must be 1, 2 or 4"},
    {"batches >= 1", "batches must be at least 1"},
    {"track_length >= 1 and visibilities % track_length == 0",
     "track_length must be at least 1 and divide visibilities"},
    {"distribution == 'uniform' or distribution == 'concentrated' or distribution == 'epic'",
     "distribution must be uniform, concentrated or epic"},
    {"0 <= concentration <= 1",
     "concentration must be between 0 and 1 (the fraction of tracks in the central halo)"},
    {"halo_radius > 0", "halo_radius must be positive"},
    {"distribution != 'concentrated' or 2 * halo_radius <= grid_size",
     "halo_radius must be at most grid_size / 2 for the concentrated distribution"},
    {"0 < extent <= 1", "extent must be above 0 and at most 1 (a fraction of grid_size)"},
    {NULL, NULL}
};

static const skytune_tuning_param tuning_params[] = {
    {"variant", SKYTUNE_ENUM, "atomic,tiled,hybrid,romein", 0, 0, 0,
     "atomic: a work-group per visibility, atomic adds; tiled: bucket sort by tile, each tile "
     "accumulated on chip and written once; hybrid: tiles with a central box and/or only a "
     "central fraction tiled, the rest atomic; romein: work-items own footprint positions "
     "and walk a track"},
    {"wg_size", SKYTUNE_POW2, NULL, 8, 1024, 0, "work-items per work-group"},
    {"tile_size", SKYTUNE_POW2, NULL, 8, 64, 0, "tiled, hybrid: tile side in grid points"},
    {"groups_per_tile", SKYTUNE_LIST, "1,4,16,64", 0, 0, 0,
     "tiled: work-groups per tile; hybrid: work-groups per tile of the central box (the "
     "other tiles get one)"},
    {"tile_registers", SKYTUNE_BOOLEAN, NULL, 0, 0, 0,
     "tiled, hybrid: 1 accumulates a tile in private memory (registers), 0 in local memory"},
    {"box_radius", SKYTUNE_LIST, "0,1,2,4,8,16", 0, 0, 0,
     "hybrid: the central box, tiles within this many of the central tile (0: none)"},
    {"tiled_fraction", SKYTUNE_FLOAT_LIST, "0.25,0.5,0.75,1.0", 0, 0, 0,
     "hybrid: the fraction of the active grid's radius (in tiles) that is tiled; the rest is "
     "gridded with atomics"},
    {"pols_per_item", SKYTUNE_LIST, "1,2,4", 0, 0, 0,
     "polarizations each work-item grids (one kernel value read for all of them)"},
    {"reorder_kernels", SKYTUNE_BOOLEAN, NULL, 0, 0, 0,
     "1: kernels compacted and reordered for unit-stride reads (the report's sections 3.5 "
     "and 4.3); 0: the original cube, strided by oversample"},
    {"romein_loop", SKYTUNE_ENUM, "strided,whole", 0, 0, 0,
     "romein: strided = work-items own footprint positions and walk the track (Romein); "
     "whole = work-items own visibilities and walk whole footprints (the EPIC note)"},
    {"float_atomics", SKYTUNE_ENUM, "cas,native", 0, 0, 0,
     "how the grid's float atomic adds are made: cas = a compare-and-swap loop on the float's "
     "bits (OpenCL 1.2 has no float atomic add); native = the device's own float reduction "
     "(NVIDIA's red.global.add.f32, offered on NVIDIA's OpenCL only)"},
    {NULL, 0, NULL, 0, 0, 0, NULL}
};

/*
 * Each variant's irrelevant parameters are pinned to one value, so that no
 * two configurations run the same code (README.md, "Tuning parameters",
 * explains each rule). The tile rules keep a work-item's share of a tile
 * whole (tile_size <= wg_size <= tile_size^2, powers of two) and its private
 * accumulators to 16 complex values; the box and the tiled fraction must fit
 * the active grid (extent * grid_size wide).
 */
static const char *const constraints[] = {
    "wg_size <= device.max_work_group_size",
    "wg_size <= device.max_work_item_size_0",
    "polarizations % pols_per_item == 0",
    /* pinned */
    "variant == 'tiled' or variant == 'hybrid' or "
    "(tile_size == 8 and groups_per_tile == 1 and tile_registers == 0)",
    "variant == 'hybrid' or (box_radius == 0 and tiled_fraction == 1.0)",
    "variant == 'romein' or romein_loop == 'strided'",
    /* plain tiling with one group per tile writes each point once, no atomics */
    "variant != 'tiled' or groups_per_tile > 1 or float_atomics == 'cas'",
    /* hybrid: not plain tiling; box work-groups only with a box */
    "variant != 'hybrid' or box_radius > 0 or tiled_fraction < 1.0",
    "variant != 'hybrid' or (box_radius == 0 and groups_per_tile == 1) or "
    "(box_radius > 0 and groups_per_tile > 1)",
    "variant != 'tiled' or groups_per_tile <= 8",
    "box_radius == 0 or (2 * box_radius + 1) * tile_size <= extent * grid_size",
    "tiled_fraction == 1.0 or tiled_fraction * extent * grid_size >= 2 * tile_size",
    /* tiles */
    "(variant != 'tiled' and variant != 'hybrid') or "
    "(2 * tile_size <= grid_size and tile_size <= wg_size <= tile_size * tile_size)",
    "tile_registers == 0 or tile_size * tile_size // wg_size * pols_per_item <= 16",
    "tile_registers == 1 or (variant != 'tiled' and variant != 'hybrid') or "
    "tile_size * tile_size * pols_per_item * 8 <= device.local_mem_size",
    /* footprint-sized and track-sized work-groups */
    "variant != 'atomic' or wg_size < 2 * (2 * support_max + 1) ** 2",
    "variant != 'romein' or romein_loop == 'whole' or wg_size < 2 * (2 * support_max + 1) ** 2",
    "romein_loop == 'strided' or wg_size <= track_length",
    NULL
};

/* ------------------------------------------------------------- constants */

/* Weights are whole multiples of 1 / WEIGHT_SCALE in (0, 1], so their sum
 * in units of 1 / WEIGHT_SCALE is an integer the device adds exactly. */
#define WEIGHT_SCALE 256
/* Work-items per group of the bucket-sort kernels. */
#define SORT_WG 64
/* The scan's one work-group: at most this many work-items. */
#define SCAN_WG_MAX 256
/* The atomic kernel's work-groups in all batches together: enough to fill
 * a GPU, few enough that each takes many visibilities in turn. */
#define ATOMIC_GROUPS 65536
/* A track moves this many grid cells per visibility. */
#define TRACK_STEP 0.25
/* sqrt(|w|) lies within this of its plane's number, well away from the
 * rounding boundary, so that the device's sqrt (not correctly rounded in
 * OpenCL) picks the same plane as the host's. */
#define W_JITTER 0.3

enum { DIST_UNIFORM, DIST_CONCENTRATED, DIST_EPIC };
enum { VARIANT_ATOMIC, VARIANT_TILED, VARIANT_HYBRID, VARIANT_ROMEIN };

/* ------------------------------------------------------------------ the problem */

typedef struct gridding_problem {
    int64_t grid_size, oversample, w_planes, support_min, support_max;
    int64_t visibilities, polarizations, batches, track_length;
    int distribution;
    double concentration, halo_radius, extent;
    int64_t half_os;     /* (oversample + 1) / 2: the largest |oversampling offset| */
    int64_t cube_dim;    /* half_os + support_max * oversample + 1 */
    int64_t total;       /* batches * visibilities */
    int64_t tracks;      /* total / track_length */
    int64_t points;      /* grid points of all grids: batches * polarizations * grid_size^2 */
} gridding_problem;

static int distribution_kind(const char *name)
{
    if (strcmp(name, "concentrated") == 0) return DIST_CONCENTRATED;
    if (strcmp(name, "epic") == 0) return DIST_EPIC;
    return DIST_UNIFORM;
}

/* Derived sizes of absurd problems saturate rather than overflow; setup's
 * size checks then refuse them with a message. */
static int64_t saturating_product(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static int64_t saturating_sum(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

static void problem_read(const skytune_values *values, gridding_problem *p)
{
    p->grid_size = skytune_int(values, "grid_size");
    p->oversample = skytune_int(values, "oversample");
    p->w_planes = skytune_int(values, "w_planes");
    p->support_min = skytune_int(values, "support_min");
    p->support_max = skytune_int(values, "support_max");
    p->visibilities = skytune_int(values, "visibilities");
    p->polarizations = skytune_int(values, "polarizations");
    p->batches = skytune_int(values, "batches");
    p->track_length = skytune_int(values, "track_length");
    p->distribution = distribution_kind(skytune_string(values, "distribution"));
    p->concentration = skytune_float(values, "concentration");
    p->halo_radius = skytune_float(values, "halo_radius");
    p->extent = skytune_float(values, "extent");
    p->half_os = (p->oversample + 1) / 2;
    p->cube_dim = saturating_sum(p->half_os + 1, saturating_product(p->support_max, p->oversample));
    p->total = saturating_product(p->batches, p->visibilities);
    p->tracks = p->track_length > 0 ? p->total / p->track_length : 0;
    p->points = saturating_product(saturating_product(p->batches, p->polarizations),
                                   saturating_product(p->grid_size, p->grid_size));
}

/* The problem checks again, for callers that bypass problem resolution. */
static int check_problem(const skytune_values *values, const gridding_problem *p,
                         skytune_error *err)
{
    const char *dist = skytune_string(values, "distribution");
    if (p->grid_size < 8) return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "grid_size must be at least 8");
    if (p->oversample < 1)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "oversample must be at least 1");
    if (p->w_planes < 1) return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "w_planes must be at least 1");
    if (p->support_min < 1 || p->support_max < p->support_min)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "support_min must be at least 1 and support_max at least "
                                 "support_min");
    if (2 * p->support_max + 1 > p->grid_size)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "support_max is larger than the grid: a footprint of %lld points "
                                 "does not fit in grid_size=%lld",
                                 (long long)(2 * p->support_max + 1), (long long)p->grid_size);
    if (p->visibilities < 1)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "visibilities must be at least 1");
    if (p->polarizations != 1 && p->polarizations != 2 && p->polarizations != 4)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "polarizations must be 1, 2 or 4");
    if (p->batches < 1) return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "batches must be at least 1");
    if (p->track_length < 1 || p->visibilities % p->track_length != 0)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "track_length must be at least 1 and divide visibilities");
    if (strcmp(dist, "uniform") != 0 && strcmp(dist, "concentrated") != 0 &&
        strcmp(dist, "epic") != 0)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "distribution must be uniform, concentrated or epic, not '%s'",
                                 dist);
    if (!(p->concentration >= 0.0 && p->concentration <= 1.0))
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "concentration must be between 0 and 1");
    if (!(p->halo_radius > 0.0))
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "halo_radius must be positive");
    if (p->distribution == DIST_CONCENTRATED && 2.0 * p->halo_radius > (double)p->grid_size)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "halo_radius must be at most grid_size / 2 for the concentrated "
                                 "distribution");
    if (!(p->extent > 0.0 && p->extent <= 1.0))
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "extent must be above 0 and at most 1");
    return SKYTUNE_OK;
}

/* Plane `plane`'s support: linear from support_min at plane 0 to
 * support_max at the last plane, rounded half up; a single plane has
 * support_max. */
static int64_t plane_support(const gridding_problem *p, int64_t plane)
{
    if (p->w_planes == 1) return p->support_max;
    const int64_t span = p->w_planes - 1;
    return p->support_min + ((p->support_max - p->support_min) * plane * 2 + span) / (2 * span);
}

/* Track t uses plane t % w_planes for all its visibilities, so how many
 * visibilities each plane convolves follows from the problem alone (the work
 * counts need that); the tracks' positions and the stream's values are what
 * the seed draws. */
static int64_t plane_track(int64_t track, const gridding_problem *p) { return track % p->w_planes; }

static int64_t plane_visibilities(const gridding_problem *p, int64_t plane)
{
    const int64_t tracks = p->tracks / p->w_planes + (plane < p->tracks % p->w_planes ? 1 : 0);
    return tracks * p->track_length;
}

/* ------------------------------------------------------- convolution kernels */

/* The kernel of plane `plane` (support s) at oversampled indices (ix, iy),
 * i.e. at (ix, iy) / oversample cells from the visibility: a separable taper
 * that falls to zero just beyond the support, times a phase growing with the
 * plane and with the distance (the w-term's shape), as complex float. */
static void kernel_sample(const gridding_problem *p, int64_t plane, int64_t s, int64_t ix,
                          int64_t iy, float out[2])
{
    const double pi = 3.14159265358979323846;
    const double x = (double)ix / (double)p->oversample, y = (double)iy / (double)p->oversample;
    const double reach = (double)s + 1.0;
    const double taper = (1.0 - (x / reach) * (x / reach)) * (1.0 - (y / reach) * (y / reach));
    const double phase =
        pi * (double)(plane + 1) / (double)(p->w_planes + 1) * (x * x + y * y) / (reach * reach);
    out[0] = (float)(taper * cos(phase));
    out[1] = (float)(taper * sin(phase));
}

/* Entries of plane `plane` in the reordered layout. */
static int64_t reordered_plane_size(const gridding_problem *p, int64_t plane)
{
    const int64_t width = 2 * plane_support(p, plane) + 1;
    return (p->half_os + 1) * (p->half_os + 1) * width * width;
}

/* The original cube ([plane][iy][ix], every plane cube_dim square, unused
 * entries zero) and the reordered stack (Listing 12: plane p from start[p],
 * [off_v][off_u][j + s][k + s] for offsets 0..half_os), both complex. */
static void build_kernels(const gridding_problem *p, float *cube, float *reordered,
                          const int *start)
{
    const int64_t dim = p->cube_dim, os = p->oversample, h = p->half_os;
    for (int64_t plane = 0; plane < p->w_planes; plane++) {
        const int64_t s = plane_support(p, plane), size = h + s * os + 1;
        float *sheet = cube + plane * dim * dim * 2;
        for (int64_t iy = 0; iy < size; iy++)
            for (int64_t ix = 0; ix < size; ix++)
                kernel_sample(p, plane, s, ix, iy, sheet + (iy * dim + ix) * 2);
        const int64_t width = 2 * s + 1;
        float *out = reordered + (int64_t)start[plane] * 2;
        for (int64_t ov = 0; ov <= h; ov++)
            for (int64_t ou = 0; ou <= h; ou++)
                for (int64_t j = -s; j <= s; j++)
                    for (int64_t k = -s; k <= s; k++) {
                        const int64_t iy = llabs(ov + j * os), ix = llabs(ou + k * os);
                        const int64_t q = ((ov * (h + 1) + ou) * width + j + s) * width + k + s;
                        out[q * 2] = sheet[(iy * dim + ix) * 2];
                        out[q * 2 + 1] = sheet[(iy * dim + ix) * 2 + 1];
                    }
    }
}

/* ------------------------------------------------------------------ placement */

/* Where a visibility lands: gridding.cl's `place`, operation for operation
 * in float (roundf, like OpenCL's round, rounds halves away from zero). */
typedef struct placement {
    int64_t gu, gv, off_u, off_v, plane, support;
    int conjugate;
} placement;

static placement place(const gridding_problem *p, const int *supports, const float *uvwt)
{
    placement pl;
    const float ru = roundf(uvwt[0]), rv = roundf(uvwt[1]);
    pl.gu = (int64_t)ru + p->grid_size / 2;
    pl.gv = (int64_t)rv + p->grid_size / 2;
    pl.off_u = (int64_t)roundf((ru - uvwt[0]) * (float)p->oversample);
    pl.off_v = (int64_t)roundf((rv - uvwt[1]) * (float)p->oversample);
    int64_t plane = (int64_t)roundf(sqrtf(fabsf(uvwt[2])));
    pl.plane = plane < p->w_planes - 1 ? plane : p->w_planes - 1;
    pl.support = supports[pl.plane];
    pl.conjugate = uvwt[2] > 0.0f;
    return pl;
}

/* --------------------------------------------------------------- run state */

/* The inputs every configuration reads (the kernels in both layouts; a
 * configuration reads one), then the outputs: the grid, and each batch's
 * weight sum as two 32-bit halves. */
enum {
    BUFFER_UVWT, BUFFER_VIS, BUFFER_CUBE, BUFFER_REORDERED, BUFFER_START, BUFFER_SUPPORTS,
    BUFFER_GRID, BUFFER_WEIGHTS, BUFFERS
};

typedef struct gridding_state {
    gridding_problem problem;
    skytune_device_info device;
    int64_t scan_wg;          /* work-items of the scan's work-group */
    int *supports;            /* [plane] */
    int *reordered_start;     /* [plane]: first entry of each plane, reordered layout */
    int64_t cube_entries, reordered_entries;
    float *uvwt;              /* [visibility][u, v, w, weight] */
    float *vis;               /* [visibility][polarization][re, im] */
    float *cube, *reordered;  /* complex kernels in both layouts */
    int64_t active[4];        /* grid points the footprints touch: u0, v0, u1, v1 (u0 > u1: none) */
    float *expected;          /* [batch][pol][v][u][re, im], from `reference` */
    float *tolerance;         /* one per complex grid point, from `reference` */
    uint64_t *expected_weights; /* [batch]: sum of weight * WEIGHT_SCALE */
    float *result;
    unsigned int *result_weights;
    support_buffer buffers[BUFFERS];
    cl_context context;       /* borrowed from setup, for the sort's buffers in prepare */
} gridding_state;

/* The tiled region and the central box, in tiles. */
typedef struct tile_plan {
    cl_int4 region;           /* first a, first b, columns, rows: the tiles that are tiled */
    cl_int4 box;              /* the central box's tiles (columns 0: no box launch) */
    cl_int4 region_points;    /* grid points of the region: u0, v0, u1, v1 */
    int64_t buckets;          /* batches * columns * rows */
    int64_t entries;          /* (visibility, tile) pairs the sort writes */
} tile_plan;

#define MAX_LAUNCHES 7

/* The bucket sort's buffers, a launch's own. */
enum { SORT_COUNTS, SORT_OFFSETS, SORT_CURSOR, SORT_ENTRIES, SORT_BUFFERS };

typedef struct gridding_launch {
    const support_buffer *grid, *weights; /* borrowed from the state: zeroed by every run */
    support_buffer sort[SORT_BUFFERS];
    support_kernel launches[MAX_LAUNCHES];
    size_t n_launches;
    int zero_counts_before;            /* the counts are zeroed before launches[this] (-1: none) */
} gridding_launch;

#define INDEXED_ITEMS "complex values"
#define SIZE_HINT "grid_size, batches, polarizations or visibilities"
#define KERNEL_HINT "w_planes, support_max or oversample"

/* ------------------------------------------------------------- input data */

/* A point uniform in the disk of radius r around the grid centre. */
static void disk_point(pcg32 *rng, double r, double *x, double *y)
{
    const double pi = 3.14159265358979323846;
    const double radius = r * sqrt(pcg32_double(rng)), angle = 2.0 * pi * pcg32_double(rng);
    *x = radius * cos(angle);
    *y = radius * sin(angle);
}

/* The visibility stream: tracks of track_length consecutive visibilities.
 * uniform and concentrated tracks start at a point of their distribution and
 * move TRACK_STEP cells per visibility in a random direction; epic's
 * visibilities are antenna voltages, antenna i at the same position in every
 * batch. Each track keeps one w-plane (plane_track); w itself varies, signed,
 * with sqrt(|w|) within W_JITTER of the plane. Values are uniform in
 * [-1, 1) per part, weights k / WEIGHT_SCALE for k in 1..WEIGHT_SCALE. */
static int generate_visibilities(gridding_state *s, uint64_t seed, skytune_error *err)
{
    const gridding_problem *p = &s->problem;
    const double pi = 3.14159265358979323846;
    const double disk = p->extent * (double)p->grid_size / 2.0;
    pcg32 rng;
    pcg32_seed(&rng, seed, 0);
    double *antennas = NULL;
    if (p->distribution == DIST_EPIC) {
        antennas = malloc((size_t)p->visibilities * 2 * sizeof *antennas);
        if (!antennas)
            return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the antennas");
        for (int64_t a = 0; a < p->visibilities; a++)
            disk_point(&rng, disk, &antennas[2 * a], &antennas[2 * a + 1]);
    }
    for (int64_t t = 0; t < p->tracks; t++) {
        const int64_t plane = plane_track(t, p);
        double x0 = 0.0, y0 = 0.0;
        if (p->distribution == DIST_CONCENTRATED && pcg32_double(&rng) < p->concentration)
            disk_point(&rng, p->halo_radius, &x0, &y0);
        else if (p->distribution != DIST_EPIC)
            disk_point(&rng, disk, &x0, &y0);
        const double direction = 2.0 * pi * pcg32_double(&rng);
        for (int64_t i = 0; i < p->track_length; i++) {
            const int64_t n = t * p->track_length + i;
            double x, y;
            if (p->distribution == DIST_EPIC) {
                const int64_t antenna = n % p->visibilities;
                x = antennas[2 * antenna];
                y = antennas[2 * antenna + 1];
            } else {
                x = x0 + (double)i * TRACK_STEP * cos(direction);
                y = y0 + (double)i * TRACK_STEP * sin(direction);
            }
            const double low = plane == 0 ? 0.0 : -W_JITTER;
            const double root = (double)plane + low + (W_JITTER - low) * pcg32_double(&rng);
            const double w = (pcg32_next(&rng) & 1u ? 1.0 : -1.0) * root * root;
            float *point = s->uvwt + n * 4;
            point[0] = (float)x;
            point[1] = (float)y;
            point[2] = (float)w;
            point[3] = (float)(1 + pcg32_bounded(&rng, WEIGHT_SCALE)) / (float)WEIGHT_SCALE;
            for (int64_t q = 0; q < 2 * p->polarizations; q++)
                s->vis[n * 2 * p->polarizations + q] = 2.0f * pcg32_float(&rng) - 1.0f;
        }
    }
    free(antennas);
    return SKYTUNE_OK;
}

/* The grid points any footprint touches (the report's "active grid"). */
static void find_active_grid(gridding_state *s)
{
    const gridding_problem *p = &s->problem;
    int64_t box[4] = {p->grid_size, p->grid_size, -1, -1};
    for (int64_t n = 0; n < p->total; n++) {
        const placement pl = place(p, s->supports, s->uvwt + n * 4);
        const int64_t u0 = pl.gu - pl.support, u1 = pl.gu + pl.support;
        const int64_t v0 = pl.gv - pl.support, v1 = pl.gv + pl.support;
        if (u1 < 0 || v1 < 0 || u0 >= p->grid_size || v0 >= p->grid_size) continue;
        if (u0 < box[0]) box[0] = u0 < 0 ? 0 : u0;
        if (v0 < box[1]) box[1] = v0 < 0 ? 0 : v0;
        if (u1 > box[2]) box[2] = u1 >= p->grid_size ? p->grid_size - 1 : u1;
        if (v1 > box[3]) box[3] = v1 >= p->grid_size ? p->grid_size - 1 : v1;
    }
    memcpy(s->active, box, sizeof box);
}

/* ---------------------------------------------------------------- callbacks */

static void gridding_teardown(void *opaque);
static void gridding_release(void *opaque);

/* The arrays the kernels index with int and the buffers the device must
 * allocate in one piece. The kernel stacks come first, before anything is
 * allocated per plane. */
static int check_kernel_sizes(const gridding_problem *p, const skytune_device_info *dev,
                              skytune_error *err)
{
    int rc;
    const double dim = (double)p->half_os + 1.0 + (double)p->support_max * (double)p->oversample;
    const double cube = (double)p->w_planes * dim * dim;
    if ((rc = skytune_check_index_extent("cube of kernels", cube, INDEXED_ITEMS, KERNEL_HINT,
                                         err)) ||
        (rc = skytune_check_allocation("cube of kernels", cube * 8.0, dev, KERNEL_HINT, err)))
        return rc;
    return SKYTUNE_OK;
}

static int check_sizes(const gridding_problem *p, const skytune_device_info *dev,
                       int64_t reordered_entries, skytune_error *err)
{
    int rc;
    const double total = (double)p->batches * (double)p->visibilities;
    const double points =
        (double)p->batches * (double)p->polarizations * (double)p->grid_size * (double)p->grid_size;
    const double values = total * (double)p->polarizations;
    if ((rc = skytune_check_index_extent("grid", points, INDEXED_ITEMS, SIZE_HINT, err)) ||
        (rc = skytune_check_index_extent("visibility values", values, INDEXED_ITEMS, SIZE_HINT,
                                         err)) ||
        (rc = skytune_check_index_extent("reordered kernels", (double)reordered_entries,
                                         INDEXED_ITEMS, KERNEL_HINT, err)) ||
        (rc = skytune_check_allocation("grid", points * 8.0, dev, SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("visibilities", total * 16.0, dev, SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("visibility values", values * 8.0, dev, SIZE_HINT, err)) ||
        (rc = skytune_check_allocation("reordered kernels", (double)reordered_entries * 8.0, dev,
                                       KERNEL_HINT, err)))
        return rc;
    return SKYTUNE_OK;
}

static int64_t floor_power_of_two(int64_t n)
{
    int64_t power = 1;
    while (power * 2 <= n) power *= 2;
    return power;
}

static int gridding_setup(const skytune_setup_context *ctx, void **state_out, skytune_error *err)
{
    gridding_problem p;
    problem_read(ctx->problem, &p);
    int rc = check_problem(ctx->problem, &p, err);
    if (rc) return rc;

    gridding_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    s->problem = p;
    s->device = *ctx->device_info;
    s->context = ctx->context;
    int64_t scan_limit = s->device.max_work_group_size;
    if (s->device.max_work_item_sizes[0] < scan_limit) scan_limit = s->device.max_work_item_sizes[0];
    s->scan_wg = floor_power_of_two(scan_limit < SCAN_WG_MAX ? scan_limit : SCAN_WG_MAX);

    if ((rc = check_kernel_sizes(&p, &s->device, err)) != SKYTUNE_OK) {
        gridding_teardown(s);
        return rc;
    }
    s->supports = malloc((size_t)p.w_planes * sizeof *s->supports);
    s->reordered_start = malloc((size_t)p.w_planes * sizeof *s->reordered_start);
    if (!s->supports || !s->reordered_start) {
        gridding_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for %lld planes",
                                 (long long)p.w_planes);
    }
    int64_t entries = 0;
    for (int64_t plane = 0; plane < p.w_planes && entries <= INT_MAX; plane++) {
        s->supports[plane] = (int)plane_support(&p, plane);
        s->reordered_start[plane] = (int)entries;
        entries += reordered_plane_size(&p, plane);
    }
    s->reordered_entries = entries;
    s->cube_entries = p.w_planes * p.cube_dim * p.cube_dim;
    if ((rc = check_sizes(&p, &s->device, entries, err)) != SKYTUNE_OK) {
        gridding_teardown(s);
        return rc;
    }

    const size_t total = (size_t)p.total, points = (size_t)p.points;
    s->uvwt = malloc(total * 4 * sizeof *s->uvwt);
    s->vis = malloc(total * (size_t)p.polarizations * 2 * sizeof *s->vis);
    s->cube = calloc((size_t)s->cube_entries * 2, sizeof *s->cube);
    s->reordered = malloc((size_t)entries * 2 * sizeof *s->reordered);
    s->expected = malloc(points * 2 * sizeof *s->expected);
    s->tolerance = malloc(points * sizeof *s->tolerance);
    s->result = malloc(points * 2 * sizeof *s->result);
    s->expected_weights = calloc((size_t)p.batches, sizeof *s->expected_weights);
    s->result_weights = malloc((size_t)p.batches * 2 * sizeof *s->result_weights);
    if (!s->uvwt || !s->vis || !s->cube || !s->reordered || !s->expected || !s->tolerance ||
        !s->result || !s->expected_weights || !s->result_weights) {
        gridding_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the host arrays (%zu visibilities, %zu grid "
                                 "points, %lld kernel entries)",
                                 total, points, (long long)(s->cube_entries + entries));
    }
    if ((rc = generate_visibilities(s, ctx->seed, err)) != SKYTUNE_OK) {
        gridding_teardown(s);
        return rc;
    }
    find_active_grid(s);
    build_kernels(&p, s->cube, s->reordered, s->reordered_start);

    const size_t plane_bytes = (size_t)p.w_planes * sizeof(int);
    support_buffer *b = s->buffers;
    b[BUFFER_UVWT] = support_input("u, v, w and weights", s->uvwt, total * 4 * sizeof(float));
    b[BUFFER_VIS] = support_input("visibilities", s->vis, total * (size_t)p.polarizations * 8);
    b[BUFFER_CUBE] = support_input("kernel cube", s->cube, (size_t)s->cube_entries * 8);
    b[BUFFER_REORDERED] = support_input("reordered kernels", s->reordered, (size_t)entries * 8);
    b[BUFFER_START] = support_input("plane starts", s->reordered_start, plane_bytes);
    b[BUFFER_SUPPORTS] = support_input("supports", s->supports, plane_bytes);
    /* The kernels add into the grid and the weight sums (atomically), so
     * they read them too. Every bit set in a weight sum is no sum of the
     * batch's weights. */
    b[BUFFER_GRID] = support_read_write("grid", points * 8);
    b[BUFFER_WEIGHTS] = support_read_write("weight sums", (size_t)p.batches * 2 * sizeof(cl_uint));
    b[BUFFER_WEIGHTS].poison = SUPPORT_POISON_ONES;
    if ((rc = support_buffers_create(b, BUFFERS, ctx->context, SKYTUNE_ERR_SETUP, err))) {
        gridding_teardown(s);
        return rc;
    }
    *state_out = s;
    return SKYTUNE_OK;
}

/* The reference's accumulators: per grid point the real and imaginary sums,
 * the sum of the terms' magnitude bounds, and the number of terms. */
typedef struct reference_sums {
    double *sums;       /* [point][re, im, bound] */
    uint32_t *terms;    /* [point] */
} reference_sums;

/* Grid rows are dealt to the reference's threads in blocks of this many,
 * round robin, so that a dense centre is shared by all of them. */
#define REFERENCE_ROW_BLOCK 8
#define REFERENCE_THREADS_MAX 32

typedef struct reference_share {
    const gridding_state *s;
    reference_sums *out;
    int64_t thread, threads;
} reference_share;

/* Listing 1 in double for the grid rows of one share, visibility by
 * visibility in stream order: grid[batch][pol][gv + j][gu + k] +=
 * vis * weight * kernel(j, k) (conjugated for w > 0) for |j|, |k| <= support,
 * clipped at the grid's edges. Every point's terms are added in stream order
 * whatever the number of threads, so the result does not depend on it. */
static void *reference_rows(void *arg)
{
    const reference_share *share = arg;
    const gridding_state *s = share->s;
    const gridding_problem *p = &s->problem;
    const int64_t n_grid = p->grid_size, dim = p->cube_dim, os = p->oversample;
    const int64_t pols = p->polarizations;
    double *sums = share->out->sums;
    uint32_t *terms = share->out->terms;
    for (int64_t n = 0; n < p->total; n++) {
        const float *point = s->uvwt + n * 4;
        const placement pl = place(p, s->supports, point);
        const int64_t batch = n / p->visibilities;
        double v_re[4], v_im[4], v_abs[4];
        for (int64_t pol = 0; pol < pols; pol++) {
            const float *value = s->vis + (n * pols + pol) * 2;
            v_re[pol] = (double)value[0] * point[3];
            v_im[pol] = (double)value[1] * point[3];
            v_abs[pol] = fabs(v_re[pol]) + fabs(v_im[pol]);
        }
        const float *kernel = s->cube + pl.plane * dim * dim * 2;
        for (int64_t j = -pl.support; j <= pl.support; j++) {
            const int64_t v = pl.gv + j;
            if (v < 0 || v >= n_grid || (v / REFERENCE_ROW_BLOCK) % share->threads != share->thread)
                continue;
            const float *row = kernel + llabs(pl.off_v + j * os) * dim * 2;
            for (int64_t k = -pl.support; k <= pl.support; k++) {
                const int64_t u = pl.gu + k;
                if (u < 0 || u >= n_grid) continue;
                const float *c = row + llabs(pl.off_u + k * os) * 2;
                const double c_re = c[0], c_im = pl.conjugate ? -c[1] : c[1];
                const double c_abs = fabs(c_re) + fabs(c_im);
                for (int64_t pol = 0; pol < pols; pol++) {
                    const size_t at = (size_t)(((batch * pols + pol) * n_grid + v) * n_grid + u);
                    sums[at * 3] += v_re[pol] * c_re - v_im[pol] * c_im;
                    sums[at * 3 + 1] += v_re[pol] * c_im + v_im[pol] * c_re;
                    sums[at * 3 + 2] += v_abs[pol] * c_abs;
                    terms[at]++;
                }
            }
        }
    }
    return NULL;
}

/* As many threads as the host has cores (at most REFERENCE_THREADS_MAX),
 * each with its own rows: the reference of the large presets is billions
 * of updates. A thread that cannot be started does its share here. */
static void reference_in_threads(const gridding_state *s, reference_sums *out)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const int64_t blocks = (s->problem.grid_size + REFERENCE_ROW_BLOCK - 1) / REFERENCE_ROW_BLOCK;
    int64_t threads = cores < 1 ? 1 : cores;
    if (threads > REFERENCE_THREADS_MAX) threads = REFERENCE_THREADS_MAX;
    if (threads > blocks) threads = blocks;
    reference_share shares[REFERENCE_THREADS_MAX];
    pthread_t ids[REFERENCE_THREADS_MAX];
    int started[REFERENCE_THREADS_MAX] = {0};
    for (int64_t t = 0; t < threads; t++) {
        shares[t] = (reference_share){.s = s, .out = out, .thread = t, .threads = threads};
        if (t > 0) started[t] = pthread_create(&ids[t], NULL, reference_rows, &shares[t]) == 0;
    }
    reference_rows(&shares[0]);
    for (int64_t t = 1; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        else reference_rows(&shares[t]);
    }
}

/* The expected grid and weight sums, and the tolerance of every grid point.
 *
 * The tolerance. The device adds the same products in another order (and
 * several groups' partial sums, atomically). A float sum of n terms in any
 * order is off by at most (n - 1) u sum|term| (u = 2^-24), and each term
 * carries up to 3 u |term| from weighting and the complex product (FMA
 * contraction only removes roundings); |term| is bounded by
 * (|v.re| + |v.im|)(|c.re| + |c.im|). The tolerance is twice (n + 3) u A
 * with A the sum of those bounds at the point: exact where no visibility
 * lands (n = 0: the grid must be exactly zero there), loose only where
 * thousands of terms meet, and always far below one missing or misplaced
 * term at points with few terms. */
static int gridding_reference(void *opaque, skytune_error *err)
{
    gridding_state *s = opaque;
    const gridding_problem *p = &s->problem;
    const size_t points = (size_t)p->points;
    reference_sums out = {.sums = calloc(points * 3, sizeof *out.sums),
                          .terms = calloc(points, sizeof *out.terms)};
    if (!out.sums || !out.terms) {
        free(out.sums);
        free(out.terms);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY,
                                 "out of memory for the reference grid (%zu points)", points);
    }
    memset(s->expected_weights, 0, (size_t)p->batches * sizeof *s->expected_weights);
    for (int64_t n = 0; n < p->total; n++)
        s->expected_weights[n / p->visibilities] +=
            (uint64_t)(s->uvwt[n * 4 + 3] * (float)WEIGHT_SCALE);
    reference_in_threads(s, &out);
    const double u = ldexp(1.0, -24);
    for (size_t at = 0; at < points; at++) {
        const uint32_t n = out.terms[at];
        s->expected[at * 2] = (float)out.sums[at * 3];
        s->expected[at * 2 + 1] = (float)out.sums[at * 3 + 1];
        s->tolerance[at] = n ? (float)(2.0 * ((double)n + 3.0) * u * out.sums[at * 3 + 2]) : 0.0f;
    }
    free(out.sums);
    free(out.terms);
    return SKYTUNE_OK;
}

/* What the reference computes, for the engine to compute it once per
 * campaign: the expected grid, each point's tolerance and the batches'
 * weight sums, three arrays that nothing else writes. */
static int gridding_reference_data(void *opaque, skytune_region *regions, size_t max,
                                   size_t *count, skytune_error *err)
{
    gridding_state *s = opaque;
    const size_t points = (size_t)s->problem.points;
    if (max < 3)
        return skytune_error_set(err, SKYTUNE_ERR_SETUP,
                                 "the reference is 3 regions, room for %zu", max);
    regions[0] = (skytune_region){s->expected, points * 2 * sizeof *s->expected};
    regions[1] = (skytune_region){s->tolerance, points * sizeof *s->tolerance};
    regions[2] = (skytune_region){s->expected_weights,
                                  (size_t)s->problem.batches * sizeof *s->expected_weights};
    *count = 3;
    return SKYTUNE_OK;
}

/* ------------------------------------------------------------------ tiles */

static int64_t floor_div(int64_t x, int64_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); }

/* The tile (a or b) holding grid coordinate x: tile 0 is centred on the grid
 * centre (gridding.cl's tile_of). */
static int64_t tile_of(const gridding_problem *p, int64_t tile_size, int64_t x)
{
    return floor_div(x - p->grid_size / 2 + tile_size / 2, tile_size);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* How many tiles of the region the footprint of `pl` touches, clipped to the
 * grid (gridding.cl's touched_tiles). */
static int64_t touched_tiles(const gridding_problem *p, int64_t tile_size, const cl_int4 *region,
                             const placement *pl)
{
    const int64_t n = p->grid_size;
    const int64_t u_lo = max64(pl->gu - pl->support, 0), u_hi = min64(pl->gu + pl->support, n - 1);
    const int64_t v_lo = max64(pl->gv - pl->support, 0), v_hi = min64(pl->gv + pl->support, n - 1);
    if (u_lo > u_hi || v_lo > v_hi) return 0;
    const int64_t a0 = max64(tile_of(p, tile_size, u_lo), region->s[0]);
    const int64_t a1 = min64(tile_of(p, tile_size, u_hi), region->s[0] + region->s[2] - 1);
    const int64_t b0 = max64(tile_of(p, tile_size, v_lo), region->s[1]);
    const int64_t b1 = min64(tile_of(p, tile_size, v_hi), region->s[1] + region->s[3] - 1);
    return a1 < a0 || b1 < b0 ? 0 : (a1 - a0 + 1) * (b1 - b0 + 1);
}

/* The tiled region: the tiles covering the active grid, cut down for a
 * tiled fraction below 1 to those within floor(fraction * R) of tile (0, 0)
 * in both directions, R the active grid's radius in tiles. The central box:
 * the region's tiles within box_radius of tile (0, 0). */
static void plan_tiles(const gridding_state *s, int64_t tile_size, double fraction,
                       int64_t box_radius, tile_plan *plan)
{
    const gridding_problem *p = &s->problem;
    memset(plan, 0, sizeof *plan);
    int64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    if (s->active[0] <= s->active[2]) {
        a0 = tile_of(p, tile_size, s->active[0]);
        a1 = tile_of(p, tile_size, s->active[2]);
        b0 = tile_of(p, tile_size, s->active[1]);
        b1 = tile_of(p, tile_size, s->active[3]);
    }
    if (fraction < 1.0) {
        const int64_t radius = max64(max64(llabs(a0), llabs(a1)), max64(llabs(b0), llabs(b1)));
        const int64_t kept = (int64_t)floor(fraction * (double)radius);
        a0 = max64(a0, -kept);
        a1 = min64(a1, kept);
        b0 = max64(b0, -kept);
        b1 = min64(b1, kept);
    }
    const int64_t columns = max64(a1 - a0 + 1, 0), rows = max64(b1 - b0 + 1, 0);
    plan->region = (cl_int4){{(cl_int)a0, (cl_int)b0, (cl_int)columns, (cl_int)rows}};
    plan->buckets = p->batches * columns * rows;
    const int64_t c = p->grid_size / 2 - tile_size / 2;
    plan->region_points = (cl_int4){{(cl_int)(c + a0 * tile_size), (cl_int)(c + b0 * tile_size),
                                     (cl_int)(c + (a1 + 1) * tile_size - 1),
                                     (cl_int)(c + (b1 + 1) * tile_size - 1)}};
    if (columns == 0 || rows == 0) plan->region_points = (cl_int4){{1, 1, 0, 0}};
    if (box_radius > 0) {
        const int64_t x0 = max64(a0, -box_radius), x1 = min64(a1, box_radius);
        const int64_t y0 = max64(b0, -box_radius), y1 = min64(b1, box_radius);
        if (x0 <= x1 && y0 <= y1)
            plan->box = (cl_int4){{(cl_int)x0, (cl_int)y0, (cl_int)(x1 - x0 + 1),
                                   (cl_int)(y1 - y0 + 1)}};
    }
    for (int64_t n = 0; n < p->total && columns > 0 && rows > 0; n++) {
        const placement pl = place(p, s->supports, s->uvwt + n * 4);
        plan->entries += touched_tiles(p, tile_size, &plan->region, &pl);
    }
}

/* Exported for tests: over the visibilities of a state made by setup, how
 * many have a footprint that crosses the grid's edge (counts[0]) or a border
 * between tiles of `tile_size` (counts[1]), and how many different supports
 * the footprints have (counts[2]). */
SKYTUNE_EXPORT void skytune_gridding_census(const void *state, int64_t tile_size,
                                            int64_t counts[3]);
SKYTUNE_EXPORT void skytune_gridding_census(const void *state, int64_t tile_size,
                                            int64_t counts[3])
{
    const gridding_state *s = state;
    const gridding_problem *p = &s->problem;
    counts[0] = counts[1] = counts[2] = 0;
    int64_t seen_supports[64] = {0};
    for (int64_t n = 0; n < p->total; n++) {
        const placement pl = place(p, s->supports, s->uvwt + n * 4);
        if (pl.gu - pl.support < 0 || pl.gv - pl.support < 0 ||
            pl.gu + pl.support >= p->grid_size || pl.gv + pl.support >= p->grid_size)
            counts[0]++;
        if (tile_of(p, tile_size, pl.gu - pl.support) != tile_of(p, tile_size, pl.gu + pl.support) ||
            tile_of(p, tile_size, pl.gv - pl.support) != tile_of(p, tile_size, pl.gv + pl.support))
            counts[1]++;
        if (pl.support < 64 && !seen_supports[pl.support]++) counts[2]++;
    }
}

/* --------------------------------------------------------- configurations */

static int variant_of(const skytune_values *config)
{
    const char *name = skytune_string(config, "variant");
    if (strcmp(name, "tiled") == 0) return VARIANT_TILED;
    if (strcmp(name, "hybrid") == 0) return VARIANT_HYBRID;
    if (strcmp(name, "romein") == 0) return VARIANT_ROMEIN;
    return VARIANT_ATOMIC;
}

/* Whether the device takes NVIDIA's PTX in OpenCL C: its vendor or
 * platform says NVIDIA. The device facts are all a constraint sees (a
 * replayed campaign's too), and they name no extensions, so the native
 * float add is offered by vendor. */
static bool device_takes_ptx(const skytune_device_info *device)
{
    return strstr(device->vendor, "NVIDIA") != NULL || strstr(device->platform, "NVIDIA") != NULL;
}

#define NATIVE_REFUSED "float_atomics=native needs NVIDIA's OpenCL (PTX red.global.add.f32)"

/* native is offered only where the device can run it, so that the space
 * of a device without it holds no configuration bound to fail to build. */
static int gridding_constraint(const skytune_values *config, const skytune_values *problem,
                               const skytune_device_info *device, const char **why)
{
    (void)problem;
    if (strcmp(skytune_string(config, "float_atomics"), "native") != 0 ||
        device_takes_ptx(device))
        return 1;
    *why = NATIVE_REFUSED;
    return 0;
}

/* Build options the parameters do not give directly. */
static int gridding_defines(void *opaque, const skytune_values *config, char *buf, size_t len,
                            skytune_error *err)
{
    const gridding_state *s = opaque;
    const int variant = variant_of(config);
    const bool native = strcmp(skytune_string(config, "float_atomics"), "native") == 0;
    /* The constraint keeps native out of this device's space; a
     * configuration that bypassed it fails its build with the reason
     * instead of the assembler's complaint about PTX. */
    if (native && !device_takes_ptx(&s->device))
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, NATIVE_REFUSED "; this device is %s's",
                                 s->device.vendor);
    const int written = snprintf(
        buf, len,
        "-D VARIANT_ATOMIC=%d -D VARIANT_TILED=%d -D VARIANT_HYBRID=%d -D VARIANT_ROMEIN=%d "
        "-D ROMEIN_WHOLE=%d -D HALF_OS=%lld -D CUBE_DIM=%lld -D WEIGHT_SCALE=%d -D SORT_WG=%d "
        "-D SCAN_WG=%lld -D FLOAT_ATOMICS_NATIVE=%d",
        variant == VARIANT_ATOMIC, variant == VARIANT_TILED, variant == VARIANT_HYBRID,
        variant == VARIANT_ROMEIN, strcmp(skytune_string(config, "romein_loop"), "whole") == 0,
        (long long)s->problem.half_os, (long long)s->problem.cube_dim, WEIGHT_SCALE, SORT_WG,
        (long long)s->scan_wg, native);
    if (written >= 0 && (size_t)written < len) return SKYTUNE_OK;
    return skytune_error_set(err, SKYTUNE_ERR_SETUP, "the variant and size defines do not fit");
}

/* The rules of the constraints that keep the kernels in bounds, again: a
 * configuration that bypassed them gets a clear error instead of a kernel
 * that reads or writes out of bounds. */
static int check_configuration(const gridding_state *s, const skytune_values *config,
                               skytune_error *err)
{
    const gridding_problem *p = &s->problem;
    const int variant = variant_of(config);
    const int64_t wg = skytune_int(config, "wg_size"), tile = skytune_int(config, "tile_size");
    const int64_t pols = skytune_int(config, "pols_per_item");
    if (wg < 1 || pols < 1 || p->polarizations % pols != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "pols_per_item=%lld must divide polarizations=%lld",
                                 (long long)pols, (long long)p->polarizations);
    if ((variant == VARIANT_TILED || variant == VARIANT_HYBRID) &&
        (wg < tile || wg > tile * tile || wg % tile != 0 || (tile * tile) % wg != 0))
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "wg_size=%lld must be a multiple of tile_size=%lld and divide "
                                 "tile_size^2",
                                 (long long)wg, (long long)tile);
    if ((variant == VARIANT_TILED || variant == VARIANT_HYBRID) &&
        !skytune_int(config, "tile_registers") &&
        tile * tile * pols * 8 > s->device.local_mem_size)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "a tile of %lld^2 points x %lld polarizations needs %lld bytes of "
                                 "local memory; this device has %lld",
                                 (long long)tile, (long long)pols, (long long)(tile * tile * pols * 8),
                                 (long long)s->device.local_mem_size);
    return SKYTUNE_OK;
}

/* Creates the kernel of `spec` as the next of the launches of one run. */
static int add_kernel(gridding_launch *l, cl_program program, const support_kernel_spec *spec,
                      skytune_error *err)
{
    int rc = support_kernel_create(&l->launches[l->n_launches], program, spec, err);
    if (rc == SKYTUNE_OK) l->n_launches++;
    return rc;
}

static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

/* What one configuration launches: its kernels, their arguments and
 * geometry. The first six arguments of every gridding kernel are the same. */
typedef struct launch_setup {
    gridding_state *s;
    cl_program program;
    cl_mem kernels;             /* the layout this configuration reads */
    int64_t wg, pol_groups;
} launch_setup;

#define GRID_ARGS(ls)                                                                      \
    SUPPORT_ARG((ls)->s->buffers[BUFFER_UVWT].mem), SUPPORT_ARG((ls)->s->buffers[BUFFER_VIS].mem), \
        SUPPORT_ARG((ls)->kernels), SUPPORT_ARG((ls)->s->buffers[BUFFER_START].mem),       \
        SUPPORT_ARG((ls)->s->buffers[BUFFER_SUPPORTS].mem),                                \
        SUPPORT_ARG((ls)->s->buffers[BUFFER_GRID].mem)

/* Every kernel's work-items per group are limited by its registers as well
 * as by the device, so each launch is checked against the kernel's limit
 * (check_work_group) instead of failing to launch. A launch's work-groups
 * are `wg` work-items along the first dimension. */
#define GROUPS_OF(wg) .local = {(size_t)(wg), 1, 1}, .dims = 3, .check_work_group = true

/* The atomic kernel: the whole atomic variant (an empty region, and it sums
 * the weights), or the hybrid's remainder outside the region's grid points. */
static int prepare_atomic(const launch_setup *ls, gridding_launch *l, cl_int4 region,
                          cl_int add_weights, skytune_error *err)
{
    const gridding_problem *p = &ls->s->problem;
    const int64_t per_batch = max64(1, min64(p->visibilities, ATOMIC_GROUPS / p->batches));
    const support_kernel_spec k = {
        .name = "grid_atomic",
        .label = "grid",
        .args = {GRID_ARGS(ls), SUPPORT_ARG(ls->s->buffers[BUFFER_WEIGHTS].mem),
                 SUPPORT_ARG(region), SUPPORT_ARG(add_weights)},
        .global = {(size_t)(per_batch * ls->wg), (size_t)p->batches, (size_t)ls->pol_groups},
        GROUPS_OF(ls->wg),
    };
    return add_kernel(l, ls->program, &k, err);
}

static int prepare_romein(const launch_setup *ls, gridding_launch *l, skytune_error *err)
{
    const gridding_problem *p = &ls->s->problem;
    const support_kernel_spec k = {
        .name = "grid_romein",
        .label = "grid",
        .args = {GRID_ARGS(ls), SUPPORT_ARG(ls->s->buffers[BUFFER_WEIGHTS].mem)},
        .global = {(size_t)(p->visibilities / p->track_length * ls->wg), (size_t)p->batches,
                   (size_t)ls->pol_groups},
        GROUPS_OF(ls->wg),
    };
    return add_kernel(l, ls->program, &k, err);
}

static int create_sort_buffers(const gridding_state *s, const tile_plan *plan, gridding_launch *l,
                               skytune_error *err)
{
    int rc;
    const double buckets = (double)max64(plan->buckets, 1), entries = (double)max64(plan->entries, 1);
    if (plan->entries > INT_MAX)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH,
                                 "the bucket sort would hold %lld (visibility, tile) pairs; it "
                                 "indexes at most %d (use larger tiles or fewer visibilities)",
                                 (long long)plan->entries, INT_MAX);
    if ((rc = skytune_check_allocation("bucket sort's entries", entries * 4.0, &s->device,
                                       "visibilities, or use larger tiles", err)) ||
        (rc = skytune_check_allocation("bucket counts", buckets * 4.0, &s->device,
                                       "grid_size or batches, or use larger tiles", err)))
        return rc == SKYTUNE_ERR_PROBLEM ? SKYTUNE_ERR_LAUNCH : rc;
    /* Device scratch the sort's kernels fill (the counts are zeroed by each
     * run): nothing to upload, nothing to poison. */
    const size_t counts_bytes = (size_t)buckets * sizeof(cl_uint);
    const size_t entries_bytes = (size_t)entries * sizeof(cl_int);
    const cl_mem_flags scratch = CL_MEM_READ_WRITE;
    l->sort[SORT_COUNTS] =
        (support_buffer){.name = "bucket counts", .flags = scratch, .bytes = counts_bytes};
    l->sort[SORT_OFFSETS] =
        (support_buffer){.name = "bucket offsets", .flags = scratch, .bytes = counts_bytes};
    l->sort[SORT_CURSOR] =
        (support_buffer){.name = "bucket cursors", .flags = scratch, .bytes = counts_bytes};
    l->sort[SORT_ENTRIES] =
        (support_buffer){.name = "bucket entries", .flags = scratch, .bytes = entries_bytes};
    return support_buffers_create(l->sort, SORT_BUFFERS, s->context, SKYTUNE_ERR_LAUNCH, err);
}

/* One launch of the tile kernel over the `rect` of tiles, `groups` groups a
 * tile, skipping the central box's tiles when `skip_radius` >= 0. */
static int prepare_tile_launch(const launch_setup *ls, gridding_launch *l, const tile_plan *plan,
                               cl_int4 rect, cl_int groups, cl_int skip_radius, skytune_error *err)
{
    const int64_t tiles = (int64_t)rect.s[2] * rect.s[3];
    if (tiles == 0) return SKYTUNE_OK;
    const support_kernel_spec k = {
        .name = "grid_tiles",
        .label = "grid",
        .args = {GRID_ARGS(ls), SUPPORT_ARG(l->sort[SORT_OFFSETS].mem),
                 SUPPORT_ARG(l->sort[SORT_COUNTS].mem), SUPPORT_ARG(l->sort[SORT_ENTRIES].mem),
                 SUPPORT_ARG(plan->region), SUPPORT_ARG(rect), SUPPORT_ARG(groups),
                 SUPPORT_ARG(skip_radius)},
        .global = {(size_t)(tiles * groups * ls->wg), (size_t)ls->s->problem.batches,
                   (size_t)ls->pol_groups},
        GROUPS_OF(ls->wg),
    };
    return add_kernel(l, ls->program, &k, err);
}

/* The tiled and hybrid variants: the bucket sort (count, scan, scatter),
 * the tiles outside the central box, the box, and for a tiled fraction below
 * one the atomic remainder. */
static int prepare_tiles(const launch_setup *ls, gridding_launch *l, const skytune_values *config,
                         skytune_error *err)
{
    gridding_state *s = ls->s;
    const gridding_problem *p = &s->problem;
    const int hybrid = variant_of(config) == VARIANT_HYBRID;
    const int64_t tile_size = skytune_int(config, "tile_size");
    const int64_t box_radius = hybrid ? skytune_int(config, "box_radius") : 0;
    const double fraction = hybrid ? skytune_float(config, "tiled_fraction") : 1.0;
    const cl_int groups = (cl_int)skytune_int(config, "groups_per_tile");
    tile_plan plan;
    plan_tiles(s, tile_size, fraction, box_radius, &plan);
    int rc = create_sort_buffers(s, &plan, l, err);
    if (rc) return rc;

    const cl_int buckets = (cl_int)plan.buckets;
    const cl_uint capacity = (cl_uint)plan.entries;
    const size_t sort_global = round_up((size_t)p->visibilities, SORT_WG);
    const support_kernel_spec sort_kernels[] = {
        {.name = "bucket_count",
         .label = "sort",
         .args = {SUPPORT_ARG(s->buffers[BUFFER_UVWT].mem),
                  SUPPORT_ARG(s->buffers[BUFFER_SUPPORTS].mem),
                  SUPPORT_ARG(l->sort[SORT_COUNTS].mem),
                  SUPPORT_ARG(s->buffers[BUFFER_WEIGHTS].mem), SUPPORT_ARG(plan.region)},
         .global = {sort_global, (size_t)p->batches, 1},
         GROUPS_OF(SORT_WG)},
        {.name = "bucket_scan",
         .label = "sort",
         .args = {SUPPORT_ARG(l->sort[SORT_COUNTS].mem), SUPPORT_ARG(l->sort[SORT_OFFSETS].mem),
                  SUPPORT_ARG(l->sort[SORT_CURSOR].mem), SUPPORT_ARG(buckets)},
         .global = {(size_t)s->scan_wg, 1, 1},
         GROUPS_OF(s->scan_wg)},
        {.name = "bucket_scatter",
         .label = "sort",
         .args = {SUPPORT_ARG(s->buffers[BUFFER_UVWT].mem),
                  SUPPORT_ARG(s->buffers[BUFFER_SUPPORTS].mem),
                  SUPPORT_ARG(l->sort[SORT_CURSOR].mem), SUPPORT_ARG(l->sort[SORT_ENTRIES].mem),
                  SUPPORT_ARG(plan.region), SUPPORT_ARG(capacity)},
         .global = {sort_global, (size_t)p->batches, 1},
         GROUPS_OF(SORT_WG)},
    };
    l->zero_counts_before = (int)l->n_launches;
    for (size_t k = 0; k < sizeof sort_kernels / sizeof *sort_kernels; k++)
        if ((rc = add_kernel(l, ls->program, &sort_kernels[k], err))) return rc;

    const int has_box = plan.box.s[2] > 0;
    if ((rc = prepare_tile_launch(ls, l, &plan, plan.region, hybrid ? 1 : groups,
                                  has_box ? (cl_int)box_radius : -1, err)))
        return rc;
    if (has_box && (rc = prepare_tile_launch(ls, l, &plan, plan.box, groups, -1, err))) return rc;
    if (fraction < 1.0) return prepare_atomic(ls, l, plan.region_points, 0, err);
    return SKYTUNE_OK;
}

static int gridding_prepare(void *opaque, cl_program program, const skytune_values *config,
                            void **launch_out, skytune_error *err)
{
    gridding_state *s = opaque;
    int rc = check_configuration(s, config, err);
    if (rc) return rc;
    gridding_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    l->grid = &s->buffers[BUFFER_GRID];
    l->weights = &s->buffers[BUFFER_WEIGHTS];
    l->zero_counts_before = -1;
    const launch_setup ls = {
        .s = s,
        .program = program,
        .kernels = s->buffers[skytune_int(config, "reorder_kernels") ? BUFFER_REORDERED
                                                                      : BUFFER_CUBE].mem,
        .wg = skytune_int(config, "wg_size"),
        .pol_groups = s->problem.polarizations / skytune_int(config, "pols_per_item"),
    };
    switch (variant_of(config)) {
    case VARIANT_ATOMIC: rc = prepare_atomic(&ls, l, (cl_int4){{1, 1, 0, 0}}, 1, err); break;
    case VARIANT_ROMEIN: rc = prepare_romein(&ls, l, err); break;
    default: rc = prepare_tiles(&ls, l, config, err); break;
    }
    if (rc) {
        gridding_release(l);
        return rc;
    }
    *launch_out = l;
    return SKYTUNE_OK;
}

/* NaN over the grid and all ones over the weight sums: every run must zero
 * both itself, or verification fails. */
static int gridding_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    gridding_state *s = opaque;
    return support_buffers_poison(s->buffers, BUFFERS, queue, err);
}

/* Zeroing is part of a run, timed under `label`. */
static int zero_buffer(cl_command_queue queue, const support_buffer *buffer, const char *label,
                       skytune_events *events, skytune_error *err)
{
    const cl_uint zero = 0;
    cl_event done = NULL;
    cl_int status = clEnqueueFillBuffer(queue, buffer->mem, &zero, sizeof zero, 0, buffer->bytes,
                                        0, NULL, &done);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueFillBuffer (zero)");
    return support_event_add(events, done, label, err);
}

/* One run: zero the grid and the weight sums ("clear"), then the variant's
 * kernels in order; the bucket counts are zeroed just before the sort
 * starts. Parts: "clear", "sort" (tiled and hybrid) and "grid". */
static int gridding_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                            skytune_error *err)
{
    gridding_launch *l = opaque;
    int rc = zero_buffer(queue, l->grid, "clear", events, err);
    if (rc == 0) rc = zero_buffer(queue, l->weights, "clear", events, err);
    for (size_t i = 0; rc == 0 && i < l->n_launches; i++) {
        if ((int)i == l->zero_counts_before &&
            (rc = zero_buffer(queue, &l->sort[SORT_COUNTS], "sort", events, err)))
            break;
        rc = support_kernel_enqueue(&l->launches[i], queue, events, err);
    }
    return rc;
}

/* The grid and the weight sums of the verification run, read right after
 * it: the timed runs that follow zero and refill both. */
static int gridding_read_back(void *opaque, const skytune_values *config, cl_command_queue queue,
                              skytune_error *err)
{
    (void)config;
    gridding_state *s = opaque;
    int rc = support_buffer_read(&s->buffers[BUFFER_GRID], queue, s->result, err);
    if (rc == SKYTUNE_OK)
        rc = support_buffer_read(&s->buffers[BUFFER_WEIGHTS], queue, s->result_weights, err);
    return rc;
}

/* Compares what gridding_read_back read, off the device: each part of the
 * grid (real and imaginary) within the tolerance of its point (see
 * gridding_reference), and each batch's weight sum exact. The weight sums
 * count as elements after the grid's floats in the report: index
 * 2 * points + batch. */
static int gridding_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                           skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    (void)queue;
    (void)err;
    gridding_state *s = opaque;
    const gridding_problem *p = &s->problem;
    const size_t points = (size_t)p->points;
    memset(report, 0, sizeof *report);
    report->passed = 1;
    report->first_mismatch = -1;
    for (size_t k = 0; k < points * 2; k++) {
        const double got = s->result[k], want = s->expected[k];
        double diff = fabs(got - want);
        if (got != got) diff = INFINITY;
        const double rel = want != 0.0 ? diff / fabs(want) : (diff == 0.0 ? 0.0 : INFINITY);
        if (diff > report->max_abs_error) report->max_abs_error = diff;
        if (rel > report->max_rel_error) report->max_rel_error = rel;
        if (!(diff <= s->tolerance[k / 2])) {
            if (report->first_mismatch < 0) report->first_mismatch = (int64_t)k;
            report->mismatches++;
            report->passed = 0;
        }
    }
    for (int64_t b = 0; b < p->batches; b++) {
        const uint64_t got = (uint64_t)s->result_weights[2 * b] |
                             (uint64_t)s->result_weights[2 * b + 1] << 32;
        if (got != s->expected_weights[b]) {
            if (report->first_mismatch < 0) report->first_mismatch = (int64_t)(points * 2) + b;
            report->mismatches++;
            report->passed = 0;
        }
    }
    return SKYTUNE_OK;
}

static void gridding_release(void *opaque)
{
    gridding_launch *l = opaque;
    if (!l) return;
    for (size_t i = 0; i < l->n_launches; i++) support_kernel_release(&l->launches[i]);
    support_buffers_release(l->sort, SORT_BUFFERS);
    free(l);
}

/* Safe on a partly built state. */
/* What a gridder exchanges with the host per snapshot: the visibilities
 * and their u, v, w and weights in, the grids and weight sums out. The
 * convolution kernels depend on the problem alone and stay on the device. */
static int gridding_transfers(void *opaque, skytune_transfer *list, size_t max, size_t *count,
                              skytune_error *err)
{
    const gridding_state *s = opaque;
    const support_buffer *b = s->buffers;
    *count = 0;
    if (skytune_transfer_add(list, max, count, "upload u, v, w, weights", 1, s->uvwt,
                             b[BUFFER_UVWT].bytes) ||
        skytune_transfer_add(list, max, count, "upload visibilities", 1, s->vis,
                             b[BUFFER_VIS].bytes) ||
        skytune_transfer_add(list, max, count, "download grid", 0, NULL, b[BUFFER_GRID].bytes) ||
        skytune_transfer_add(list, max, count, "download weight sums", 0, NULL,
                             b[BUFFER_WEIGHTS].bytes))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more transfers than %zu", max);
    return SKYTUNE_OK;
}

static void gridding_teardown(void *opaque)
{
    gridding_state *s = opaque;
    if (!s) return;
    support_buffers_release(s->buffers, BUFFERS);
    free(s->supports);
    free(s->reordered_start);
    free(s->uvwt);
    free(s->vis);
    free(s->cube);
    free(s->reordered);
    free(s->expected);
    free(s->tolerance);
    free(s->expected_weights);
    free(s->result);
    free(s->result_weights);
    free(s);
}

/* ------------------------------------------------------------ work counts */

/* Listing 1's work, the same for every variant so that their GFLOP/s and
 * GB/s compare: per visibility and polarization, the weighting (a complex
 * value times a real weight, 2 FLOPs) and, per footprint point, a complex
 * product (6) added into the grid (2). Footprint points clipped at the
 * grid's edge are counted as done (of the presets only `small` reaches it). The
 * sort, the atomics' retries and the sum of weights (integer adds) are not
 * FLOPs. */
static double gridding_flops(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    gridding_problem p;
    problem_read(problem, &p);
    double flops = 0.0;
    for (int64_t plane = 0; plane < p.w_planes; plane++) {
        const double width = (double)(2 * plane_support(&p, plane) + 1);
        flops += (double)plane_visibilities(&p, plane) * (2.0 + 8.0 * width * width);
    }
    return flops * (double)p.polarizations;
}

/* Listing 1's memory traffic: every visibility read once (u, v, w, weight:
 * 16 bytes, and 8 per polarization), per footprint point one kernel value
 * (8 bytes, shared by the polarizations) and, per polarization, the grid
 * point read and written (16); and the grid zeroed once (8 bytes a point). */
static double gridding_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    gridding_problem p;
    problem_read(problem, &p);
    const double pols = (double)p.polarizations;
    double bytes = (double)p.total * (16.0 + 8.0 * pols) + 8.0 * (double)p.points;
    for (int64_t plane = 0; plane < p.w_planes; plane++) {
        const double width = (double)(2 * plane_support(&p, plane) + 1);
        bytes += (double)plane_visibilities(&p, plane) * width * width * (8.0 + 16.0 * pols);
    }
    return bytes;
}

/* -------------------------------------------------------------- description */

static const skytune_plugin gridding_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "gridding",
    .version = "1.0",
    .description = "convolution gridding: atomic, tiled, hybrid and Romein variants (NAG report "
                   "on SKA gridding; EPIC)",
    .problem_params = problem_params,
    .presets = presets,
    .problem_checks = problem_checks,
    .tuning_params = tuning_params,
    .constraints = constraints,
    .constraint = gridding_constraint,
    .kernel_source = gridding_cl_source,
    .generate_source = NULL,
    .defines = gridding_defines,
    .setup = gridding_setup,
    .reference = gridding_reference,
    .reference_data = gridding_reference_data,
    .prepare = gridding_prepare,
    .clear_outputs = gridding_clear_outputs,
    .enqueue = gridding_enqueue,
    .read_back = gridding_read_back,
    .verify = gridding_verify,
    .release = gridding_release,
    .teardown = gridding_teardown,
    .flops = gridding_flops,
    .bytes = gridding_bytes,
    .transfers = gridding_transfers,
};

SKYTUNE_DEFINE_PLUGIN(gridding_plugin)
