#include "t1_data.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <pcg32.h>

#include "quote.h"

/* ------------------------------------------------------------ types */

static const t1_type types[] = {
    {"int8", T1_SIGNED, 1, 1},      {"uint8", T1_UNSIGNED, 1, 1},
    {"int16", T1_SIGNED, 2, 1},     {"uint16", T1_UNSIGNED, 2, 1},
    {"int32", T1_SIGNED, 4, 1},     {"uint32", T1_UNSIGNED, 4, 1},
    {"int64", T1_SIGNED, 8, 1},     {"uint64", T1_UNSIGNED, 8, 1},
    {"half", T1_REAL, 2, 1},        {"half2", T1_REAL, 2, 2},     {"half4", T1_REAL, 2, 4},
    {"half8", T1_REAL, 2, 8},       {"half16", T1_REAL, 2, 16},
    {"float", T1_REAL, 4, 1},       {"float2", T1_REAL, 4, 2},    {"float4", T1_REAL, 4, 4},
    {"float8", T1_REAL, 4, 8},      {"float16", T1_REAL, 4, 16},
    {"double", T1_REAL, 8, 1},      {"double2", T1_REAL, 8, 2},   {"double4", T1_REAL, 8, 4},
    {"double8", T1_REAL, 8, 8},     {"double16", T1_REAL, 8, 16},
};

const t1_type *t1_type_find(const char *name)
{
    for (size_t k = 0; name && k < sizeof types / sizeof types[0]; k++)
        if (strcmp(types[k].name, name) == 0) return &types[k];
    return NULL;
}

const char *t1_type_names(void)
{
    return "int8, uint8, int16, uint16, int32, uint32, int64, uint64, half, float, double, and "
           "the vectors half2 to half16, float2 to float16 and double2 to double16";
}

bool t1_type_holds(const t1_type *t, double v)
{
    if (t->number == T1_REAL) return !isnan(v);
    if (v != floor(v)) return false;
    double bits = (double)(8 * t->component_size);
    if (t->number == T1_UNSIGNED) return v >= 0 && v < ldexp(1.0, (int)bits);
    return v >= -ldexp(1.0, (int)bits - 1) && v < ldexp(1.0, (int)bits - 1);
}

/* IEEE 754 binary16, round to nearest even: OpenCL's half is stored so,
 * and the host has no type for it. */
static uint16_t half_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t magnitude = x & 0x7fffffffu;
    if (magnitude >= 0x7f800000u) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0));
    if (magnitude >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds past 65504 */
    if (magnitude < 0x38800000u) {                                  /* a subnormal half */
        float scaled = fabsf(f) * 16777216.0f;                       /* units of 2^-24 */
        return (uint16_t)(sign | (uint16_t)lrintf(scaled));
    }
    uint32_t mantissa = magnitude & 0x7fffffu;
    uint32_t exponent = (magnitude >> 23) - 112;
    uint32_t half = (exponent << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++;
    return (uint16_t)(sign | half);
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0) {
        float v = ldexpf((float)mantissa, -24);
        return sign ? -v : v;
    }
    uint32_t x = sign | (exponent == 31 ? 0x7f800000u | (mantissa << 13)
                                        : ((exponent + 112) << 23) | (mantissa << 13));
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

double t1_component_get(const t1_type *t, const void *data, size_t k)
{
    const unsigned char *at = (const unsigned char *)data + k * t->component_size;
    switch (t->number) {
    case T1_REAL:
        if (t->component_size == 2) {
            uint16_t h;
            memcpy(&h, at, 2);
            return half_to_float(h);
        }
        if (t->component_size == 4) {
            float f;
            memcpy(&f, at, 4);
            return f;
        }
        {
            double d;
            memcpy(&d, at, 8);
            return d;
        }
    case T1_SIGNED:
        switch (t->component_size) {
        case 1: { int8_t v; memcpy(&v, at, 1); return v; }
        case 2: { int16_t v; memcpy(&v, at, 2); return v; }
        case 4: { int32_t v; memcpy(&v, at, 4); return v; }
        default: { int64_t v; memcpy(&v, at, 8); return (double)v; }
        }
    case T1_UNSIGNED:
        switch (t->component_size) {
        case 1: { uint8_t v; memcpy(&v, at, 1); return v; }
        case 2: { uint16_t v; memcpy(&v, at, 2); return v; }
        case 4: { uint32_t v; memcpy(&v, at, 4); return v; }
        default: { uint64_t v; memcpy(&v, at, 8); return (double)v; }
        }
    }
    return 0.0;
}

/* v is in range (t1_type_holds) for integer types. */
void t1_component_set(const t1_type *t, void *data, size_t k, double v)
{
    unsigned char *at = (unsigned char *)data + k * t->component_size;
    switch (t->number) {
    case T1_REAL:
        if (t->component_size == 2) {
            uint16_t h = half_from_float((float)v);
            memcpy(at, &h, 2);
        } else if (t->component_size == 4) {
            float f = (float)v;
            memcpy(at, &f, 4);
        } else {
            memcpy(at, &v, 8);
        }
        return;
    case T1_SIGNED:
        switch (t->component_size) {
        case 1: { int8_t x = (int8_t)v; memcpy(at, &x, 1); return; }
        case 2: { int16_t x = (int16_t)v; memcpy(at, &x, 2); return; }
        case 4: { int32_t x = (int32_t)v; memcpy(at, &x, 4); return; }
        default: { int64_t x = (int64_t)v; memcpy(at, &x, 8); return; }
        }
    case T1_UNSIGNED:
        switch (t->component_size) {
        case 1: { uint8_t x = (uint8_t)v; memcpy(at, &x, 1); return; }
        case 2: { uint16_t x = (uint16_t)v; memcpy(at, &x, 2); return; }
        case 4: { uint32_t x = (uint32_t)v; memcpy(at, &x, 4); return; }
        default: { uint64_t x = (uint64_t)v; memcpy(at, &x, 8); return; }
        }
    }
}

/* ------------------------------------------------------------ fills */

static int read_raw(const t1_fill *f, void *data, size_t bytes, skytune_error *err)
{
    char name[QUOTE_PATH];
    quote_text(f->data_path, name, sizeof name);
    FILE *in = fopen(f->data_path, "rb");
    if (!in) return err_set(err, "DataSource %s: %s", name, strerror(errno));
    size_t got = fread(data, 1, bytes, in);
    int failed = ferror(in);
    fclose(in);
    if (failed) return err_set(err, "DataSource %s: read error", name);
    if (got < bytes)
        return err_set(err, "DataSource %s holds %zu bytes; the argument needs %zu", name, got,
                       bytes);
    return 0;
}

int t1_fill_data(const t1_fill *f, const t1_type *t, void *data, size_t count,
                 uint64_t run_seed, uint64_t stream, skytune_error *err)
{
    size_t components = count * t->width;
    switch (f->kind) {
    case T1_FILL_CONSTANT:
        for (size_t k = 0; k < components; k++) t1_component_set(t, data, k, f->value);
        return 0;
    case T1_FILL_RANDOM: {
        pcg32 rng;
        pcg32_seed(&rng, f->has_seed ? f->seed : run_seed, f->has_seed ? 0 : stream);
        if (t->number == T1_REAL) {
            for (size_t k = 0; k < components; k++)
                t1_component_set(t, data, k, f->value * pcg32_double(&rng));
        } else {
            uint64_t bound = (uint64_t)f->value; /* checked when the file was read */
            for (size_t k = 0; k < components; k++)
                t1_component_set(t, data, k, (double)pcg32_bounded64(&rng, bound));
        }
        return 0;
    }
    case T1_FILL_BINARY_RAW:
        return read_raw(f, data, components * t->component_size, err);
    }
    return err_set(err, "unknown fill");
}

/* ------------------------------------------------------------ checks */

static const char *const method_names[] = {"AbsoluteDifference", "SideBySideComparison",
                                           "SideBySideRelativeComparison"};

const char *t1_method_name(t1_method m)
{
    return (unsigned)m < 3 ? method_names[m] : "?";
}

int t1_method_find(const char *name, t1_method *out)
{
    for (int k = 0; name && k < 3; k++)
        if (strcmp(name, method_names[k]) == 0) {
            *out = (t1_method)k;
            return 0;
        }
    return -1;
}

void t1_compare(const t1_type *t, const void *got, const void *want, size_t count,
                const t1_check *check, int64_t first_index, skytune_verify_report *r)
{
    size_t components = count * t->width;
    double sum = 0.0;
    int64_t first_difference = -1, differences = 0, mismatches = 0, first_mismatch = -1;
    for (size_t k = 0; k < components; k++) {
        double g = t1_component_get(t, got, k), w = t1_component_get(t, want, k);
        bool both_nan = isnan(g) && isnan(w);
        double diff = both_nan ? 0.0 : isnan(g) || isnan(w) ? INFINITY : fabs(g - w);
        if (diff > r->max_abs_error) r->max_abs_error = diff;
        if (w != 0.0 && !isnan(w) && diff / fabs(w) > r->max_rel_error)
            r->max_rel_error = diff / fabs(w);
        if (diff > 0.0) {
            if (first_difference < 0) first_difference = (int64_t)k;
            differences++;
        }
        sum += diff;
        bool bad = check->method == T1_SIDE_BY_SIDE ? diff > check->threshold
                   : check->method == T1_SIDE_BY_SIDE_RELATIVE
                       ? diff > check->threshold * (w != 0.0 ? fabs(w) : 1.0)
                       : isinf(diff);
        if (bad) {
            if (first_mismatch < 0) first_mismatch = (int64_t)k;
            mismatches++;
        }
    }
    if (check->method == T1_ABSOLUTE_DIFFERENCE && sum > check->threshold) {
        /* The sum is judged, so every differing value shares the blame. */
        first_mismatch = first_difference;
        mismatches = differences;
    }
    if (mismatches == 0) return;
    if (r->passed || r->first_mismatch < 0) r->first_mismatch = first_index + first_mismatch;
    r->passed = 0;
    r->mismatches += mismatches;
}
