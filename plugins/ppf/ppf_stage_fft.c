#include "ppf_stage.h"

#include <math.h>
#include <stdlib.h>

/* clfftSetup and clfftTeardown act on the whole process: clFFT keeps one
 * cache of generated kernels and plans for everyone, and clfftTeardown
 * destroys every plan still alive. Several problem states can be open at
 * once (the engine's and a test's own, say), so the first plan in calls
 * clfftSetup and the last one out calls clfftTeardown. This counter is the
 * stage's only mutable global; the engine calls a plugin from one thread at
 * a time, so it needs no lock. */
static unsigned clfft_users;

static const char *clfft_status_text(clfftStatus status)
{
    switch (status) {
    case CLFFT_BUGCHECK: return "CLFFT_BUGCHECK";
    case CLFFT_NOTIMPLEMENTED: return "CLFFT_NOTIMPLEMENTED";
    case CLFFT_TRANSPOSED_NOTIMPLEMENTED: return "CLFFT_TRANSPOSED_NOTIMPLEMENTED";
    case CLFFT_FILE_NOT_FOUND: return "CLFFT_FILE_NOT_FOUND";
    case CLFFT_FILE_CREATE_FAILURE: return "CLFFT_FILE_CREATE_FAILURE";
    case CLFFT_VERSION_MISMATCH: return "CLFFT_VERSION_MISMATCH";
    case CLFFT_INVALID_PLAN: return "CLFFT_INVALID_PLAN";
    case CLFFT_DEVICE_NO_DOUBLE: return "CLFFT_DEVICE_NO_DOUBLE";
    case CLFFT_DEVICE_MISMATCH: return "CLFFT_DEVICE_MISMATCH";
    default: return "an OpenCL error";
    }
}

/* clFFT's codes are OpenCL's plus a few of its own above 4096: pass the
 * OpenCL ones on as cl_error so that the engine names them. */
static int clfft_failure(skytune_error *err, int code, clfftStatus status, const char *what)
{
    if (err && (int)status < CLFFT_BUGCHECK) err->cl_error = (int)status;
    return skytune_error_set(err, code, "%s failed (clFFT status %d, %s)", what, (int)status,
                             clfft_status_text(status));
}

static int clfft_acquire(skytune_error *err)
{
    if (clfft_users == 0) {
        /* What clfftInitSetupData fills in; that function is an inline in
         * clFFT.h that the library does not export, so it is not called. */
        clfftSetupData setup_data = {
            .major = clfftVersionMajor,
            .minor = clfftVersionMinor,
            .patch = clfftVersionPatch,
            .debugFlags = 0,
        };
        clfftStatus status = clfftSetup(&setup_data);
        if (status != CLFFT_SUCCESS) return clfft_failure(err, SKYTUNE_ERR_SETUP, status, "clfftSetup");
    }
    clfft_users++;
    return SKYTUNE_OK;
}

static void clfft_release(void)
{
    if (clfft_users == 0) return;
    if (--clfft_users == 0) clfftTeardown();
}

/* One plan for the whole problem: `transforms` single-precision complex FFTs
 * of size `channels`, packed back to back, forward (exp(-2 pi i ...)) and
 * unscaled. A layout ending in C keeps each transform's points contiguous
 * and the transforms `channels` apart whatever the order of the other
 * dimensions, so the plan is the same for every such layout. Baking
 * compiles clFFT's kernel now rather than in the first timed run. */
int ppf_fft_create(ppf_fft *fft, cl_context context, cl_command_queue queue,
                   const ppf_problem *p, skytune_error *err)
{
    int rc = clfft_acquire(err);
    if (rc) return rc;
    fft->holds_clfft = true;
    size_t length = (size_t)p->channels;
    clfftStatus status = clfftCreateDefaultPlan(&fft->plan, context, CLFFT_1D, &length);
    if (status != CLFFT_SUCCESS)
        return clfft_failure(err, SKYTUNE_ERR_SETUP, status, "clfftCreateDefaultPlan");
    fft->has_plan = true;
    const char *what = "clfftSetPlanPrecision";
    status = clfftSetPlanPrecision(fft->plan, CLFFT_SINGLE);
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetLayout";
        status = clfftSetLayout(fft->plan, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetResultLocation";
        status = clfftSetResultLocation(fft->plan, CLFFT_OUTOFPLACE);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetPlanBatchSize";
        status = clfftSetPlanBatchSize(fft->plan, (size_t)p->transforms);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetPlanDistance";
        status = clfftSetPlanDistance(fft->plan, length, length);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftSetPlanScale";
        status = clfftSetPlanScale(fft->plan, CLFFT_FORWARD, 1.0f);
    }
    if (status == CLFFT_SUCCESS) {
        what = "clfftBakePlan";
        status = clfftBakePlan(fft->plan, 1, &queue, NULL, NULL);
    }
    if (status != CLFFT_SUCCESS) return clfft_failure(err, SKYTUNE_ERR_SETUP, status, what);

    /* A plan that needs scratch space runs in several kernels (see the
     * channels check): its "fft" event would time only the last of them. */
    size_t scratch = 0;
    status = clfftGetTmpBufSize(fft->plan, &scratch);
    if (status != CLFFT_SUCCESS)
        return clfft_failure(err, SKYTUNE_ERR_SETUP, status, "clfftGetTmpBufSize");
    if (scratch > 0)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "channels=%lld: on this device clFFT splits a transform of this "
                                 "size into several kernels, and only the last one could be "
                                 "timed; use fewer channels",
                                 (long long)p->channels);
    return SKYTUNE_OK;
}

int ppf_fft_enqueue(const ppf_fft *fft, cl_command_queue queue, cl_event wait, cl_mem in,
                    cl_mem out, skytune_events *events, skytune_error *err)
{
    cl_event fft_done = NULL;
    cl_command_queue queues[1] = {queue};
    cl_mem inputs[1] = {in}, outputs[1] = {out};
    clfftStatus status = clfftEnqueueTransform(fft->plan, CLFFT_FORWARD, 1, queues, wait ? 1 : 0,
                                               wait ? &wait : NULL, &fft_done, inputs, outputs,
                                               NULL);
    if (status != CLFFT_SUCCESS)
        return clfft_failure(err, SKYTUNE_ERR_LAUNCH, status, "clfftEnqueueTransform");
    return support_event_add(events, fft_done, "fft", err);
}

/* The plan goes before clFFT's reference. */
void ppf_fft_destroy(ppf_fft *fft)
{
    if (fft->has_plan) clfftDestroyPlan(&fft->plan);
    if (fft->holds_clfft) clfft_release();
    fft->has_plan = fft->holds_clfft = false;
}

/* The transform of one FIR output vector, in place, in double: a direct DFT
 * up to 32 points (the obviously correct definition), an iterative radix-2
 * FFT above (a direct DFT costs N^2 per transform, too slow for the LOFAR
 * presets). Twiddles come from the caller: cos_table[k] + i sin_table[k] =
 * exp(-2 pi i k / n). `scratch` holds n complex values. */
static void reference_transform(double *re, double *im, int64_t n, const double *cos_table,
                                const double *sin_table, double *scratch)
{
    if (n <= 32) {
        for (int64_t f = 0; f < n; f++) {
            double sum_re = 0.0, sum_im = 0.0;
            for (int64_t c = 0; c < n; c++) {
                const int64_t k = (c * f) % n;
                sum_re += re[c] * cos_table[k] - im[c] * sin_table[k];
                sum_im += re[c] * sin_table[k] + im[c] * cos_table[k];
            }
            scratch[2 * f] = sum_re;
            scratch[2 * f + 1] = sum_im;
        }
        for (int64_t f = 0; f < n; f++) {
            re[f] = scratch[2 * f];
            im[f] = scratch[2 * f + 1];
        }
        return;
    }
    /* Bit-reversal permutation, then log2(n) stages of butterflies. */
    for (int64_t i = 1, j = 0; i < n; i++) {
        int64_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    for (int64_t half = 1; half < n; half *= 2) {
        const int64_t stride = n / (2 * half); /* twiddle index step */
        for (int64_t start = 0; start < n; start += 2 * half)
            for (int64_t k = 0; k < half; k++) {
                const double w_re = cos_table[k * stride], w_im = sin_table[k * stride];
                const int64_t a = start + k, b = a + half;
                const double t_re = re[b] * w_re - im[b] * w_im;
                const double t_im = re[b] * w_im + im[b] * w_re;
                re[b] = re[a] - t_re;
                im[b] = im[a] - t_im;
                re[a] += t_re;
                im[a] += t_im;
            }
    }
}

int ppf_fft_reference(const ppf_problem *p, const float *fir, float *spectra,
                      double *largest_norm, skytune_error *err)
{
    const int64_t n = p->channels;
    double *work = malloc((size_t)n * 6 * sizeof *work);
    if (!work)
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the reference");
    double *re = work, *im = work + n, *cos_table = work + 2 * n, *sin_table = work + 3 * n;
    double *scratch = work + 4 * n;
    const double pi = 3.14159265358979323846;
    for (int64_t k = 0; k < n; k++) {
        cos_table[k] = cos(2.0 * pi * (double)k / (double)n);
        sin_table[k] = -sin(2.0 * pi * (double)k / (double)n);
    }
    *largest_norm = 0.0;
    for (int64_t k = 0; k < p->transforms; k++) {
        const float *in = fir + k * n * 2;
        for (int64_t c = 0; c < n; c++) {
            re[c] = in[2 * c];
            im[c] = in[2 * c + 1];
        }
        reference_transform(re, im, n, cos_table, sin_table, scratch);
        double norm2 = 0.0;
        float *out = spectra + k * n * 2;
        for (int64_t f = 0; f < n; f++) {
            norm2 += re[f] * re[f] + im[f] * im[f];
            out[2 * f] = (float)re[f];
            out[2 * f + 1] = (float)im[f];
        }
        if (norm2 > *largest_norm) *largest_norm = norm2;
    }
    *largest_norm = sqrt(*largest_norm);
    free(work);
    return SKYTUNE_OK;
}
