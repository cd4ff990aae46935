/* The comparison on the device (framework/engine/device/device_compare.h)
 * against the host's (skytune_verify_floats), on the test machine's OpenCL
 * device: the same report, field for field, for outputs that pass, fail,
 * hold NaN and infinities, sit at an offset in their buffer and span more
 * elements than the kernel has work-items; outputs that do not fit their
 * buffer refused; a reference copied to the device once, until forgotten. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cl_device.h"
#include "device_compare.h"

static cl_device_entry *devices;
static size_t n_devices, chosen;
static cl_context context;
static cl_command_queue queue;
static device_compare *dc;

static void set_up(void)
{
    skytune_error err = {0};
    cr_assert_eq(cl_devices_list(&devices, &n_devices, &err), 0, "%s", err.message);
    cr_assert_eq(cl_device_select(devices, n_devices, NULL, &chosen, &err), 0, "%s",
                 err.message);
    cl_int rc;
    context = clCreateContext(NULL, 1, &devices[chosen].device, NULL, NULL, &rc);
    cr_assert_eq(rc, CL_SUCCESS);
    queue = clCreateCommandQueue(context, devices[chosen].device, 0, &rc);
    cr_assert_eq(rc, CL_SUCCESS);
    cr_assert_eq(device_compare_open(context, devices[chosen].device, &dc, &err), 0,
                 "the test device cannot compare: %s", err.message);
}

static void tear_down(void)
{
    device_compare_close(dc);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
    free(devices);
}

TestSuite(device_compare, .init = set_up, .fini = tear_down, .timeout = 120);

/* A buffer holding `offset` floats of filler, then `n` of `got`. */
static cl_mem output_buffer(const float *got, size_t n, size_t offset)
{
    float *all = malloc((offset + n) * sizeof *all);
    cr_assert_not_null(all);
    for (size_t k = 0; k < offset; k++) all[k] = -12345.0f;
    memcpy(all + offset, got, n * sizeof *got);
    cl_int rc;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   (offset + n) * sizeof *all, all, &rc);
    cr_assert_eq(rc, CL_SUCCESS);
    free(all);
    return buffer;
}

/* A reference of positive, negative and zero values and an output close to
 * it, with `wrong` elements in every 1000 far off (NaN, infinities, zero
 * against zero and against a small value among them). */
static void make_arrays(float *want, float *got, size_t n, unsigned wrong, unsigned seed)
{
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t k = 0; k < n; k++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(state >> 11) / 9007199254740992.0; /* [0, 1) */
        want[k] = (float)((u - 0.3) * 1000.0);
        if (k % 97 == 0) want[k] = 0.0f;
        /* A relative error of a few parts in 10^7: within 1e-6. */
        got[k] = want[k] * (float)(1.0 + (u - 0.5) * 4e-7);
        unsigned slot = (unsigned)(k % 1000);
        if (slot < wrong) {
            switch (k % 5) {
            case 0: got[k] = NAN; break;
            case 1: got[k] = INFINITY; break;
            case 2: got[k] = want[k] == 0.0f ? 1e-3f : -want[k]; break;
            case 3: got[k] = want[k] * 1.01f + 0.5f; break;
            default: got[k] = -INFINITY; break;
            }
        }
    }
}

static void expect_same(const skytune_output_report *device, const skytune_output_report *host,
                        const char *what)
{
    cr_expect_str_eq(device->name, host->name, "%s: name", what);
    cr_expect_eq(device->count, host->count, "%s: count", what);
    cr_expect_eq(device->passed, host->passed, "%s: passed %d on the device, %d on the host",
                 what, device->passed, host->passed);
    cr_expect_eq(device->mismatches, host->mismatches, "%s: %lld mismatches on the device, %lld "
                 "on the host", what, (long long)device->mismatches,
                 (long long)host->mismatches);
    cr_expect_eq(device->first_mismatch, host->first_mismatch,
                 "%s: first mismatch %lld on the device, %lld on the host", what,
                 (long long)device->first_mismatch, (long long)host->first_mismatch);
    cr_expect_eq(device->max_abs_error, host->max_abs_error,
                 "%s: max abs error %.17g on the device, %.17g on the host", what,
                 device->max_abs_error, host->max_abs_error);
    cr_expect_eq(device->max_rel_error, host->max_rel_error,
                 "%s: max rel error %.17g on the device, %.17g on the host", what,
                 device->max_rel_error, host->max_rel_error);
    cr_expect_eq(device->abs_tol, host->abs_tol, "%s: abs_tol", what);
    cr_expect_eq(device->rel_tol, host->rel_tol, "%s: rel_tol", what);
}

/* The device's report and the host's for the same arrays. */
static void compare_both(size_t n, size_t offset, unsigned wrong, double abs_tol,
                         double rel_tol, const char *what)
{
    float *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    cr_assert(want && got);
    make_arrays(want, got, n, wrong, (unsigned)n);
    cl_mem buffer = output_buffer(got, n, offset);
    skytune_device_output o = {.name = "spectra", .buffer = buffer, .offset = offset,
                               .count = n, .reference = want, .abs_tol = abs_tol,
                               .rel_tol = rel_tol};
    skytune_output_report on_device;
    skytune_error err = {0};
    cr_assert_eq(device_compare_output(dc, queue, &o, &on_device, &err), 0, "%s: %s", what,
                 err.message);
    skytune_verify_report host = {0};
    skytune_verify_floats(&host, "spectra", got, want, n, abs_tol, rel_tol);
    expect_same(&on_device, &host.outputs[0], what);
    /* The reference's copy belongs to this array, freed below. */
    device_compare_forget(dc);
    clReleaseMemObject(buffer);
    free(want);
    free(got);
}

Test(device_compare, agrees_with_the_host_on_outputs_that_pass)
{
    compare_both(1000, 0, 0, 0.0, 1e-6, "1000 close elements");
    compare_both(1, 3, 0, 0.0, 1e-6, "one element at an offset");
}

Test(device_compare, agrees_with_the_host_on_outputs_that_fail)
{
    compare_both(1000, 0, 3, 0.0, 1e-6, "1000 elements, 3 far off");
    compare_both(4099, 17, 1, 1e-3, 0.0, "4099 elements at an offset, an absolute tolerance");
    compare_both(777, 0, 1000, 0.5, 1e-2, "every element far off");
}

/* More elements than the kernel's work-items (1024 groups of up to 256):
 * each work-item compares many, and the first mismatch is still the
 * first. */
Test(device_compare, agrees_with_the_host_on_outputs_larger_than_its_grid)
{
    compare_both(600011, 5, 1, 0.0, 1e-6, "600011 elements, 1 in 1000 far off");
    compare_both(600011, 0, 0, 1e-4, 1e-6, "600011 close elements");
}

Test(device_compare, an_output_that_does_not_fit_its_buffer_is_refused)
{
    float want[64] = {0}, got[64] = {0};
    cl_mem buffer = output_buffer(got, 64, 0);
    skytune_output_report report;
    skytune_error err = {0};
    skytune_device_output o = {.name = "out", .buffer = buffer, .count = 65, .reference = want};
    cr_expect_eq(device_compare_output(dc, queue, &o, &report, &err), 1);
    cr_expect(strstr(err.message, "65 floats from element 0 do not fit its buffer of 64"),
              "%s", err.message);
    o = (skytune_device_output){.name = "out", .buffer = buffer, .offset = 60, .count = 5,
                                .reference = want};
    cr_expect_eq(device_compare_output(dc, queue, &o, &report, &err), 1);
    cr_expect(strstr(err.message, "do not fit"), "%s", err.message);
    o = (skytune_device_output){.name = "out", .buffer = NULL, .count = 4, .reference = want};
    cr_expect_eq(device_compare_output(dc, queue, &o, &report, &err), 1);
    cr_expect(strstr(err.message, "no buffer or no reference"), "%s", err.message);
    clReleaseMemObject(buffer);
}

/* The copy is made once per reference array, not per comparison: a plugin's
 * reference does not change between configurations, and copying
 * gigabytes for each would undo what comparing on the device saves. */
Test(device_compare, a_reference_is_copied_once_until_forgotten)
{
    float want[512], got[512];
    for (size_t k = 0; k < 512; k++) want[k] = got[k] = (float)k;
    cl_mem buffer = output_buffer(got, 512, 0);
    skytune_device_output o = {.name = "out", .buffer = buffer, .count = 512, .reference = want};
    skytune_output_report report;
    skytune_error err = {0};
    cr_assert_eq(device_compare_output(dc, queue, &o, &report, &err), 0, "%s", err.message);
    cr_expect(report.passed);
    want[100] = -1.0f; /* the host array changes; the device's copy does not */
    cr_assert_eq(device_compare_output(dc, queue, &o, &report, &err), 0, "%s", err.message);
    cr_expect(report.passed, "the reference was copied again");
    device_compare_forget(dc);
    cr_assert_eq(device_compare_output(dc, queue, &o, &report, &err), 0, "%s", err.message);
    cr_expect_not(report.passed, "the reference was not copied again after forgetting");
    cr_expect_eq(report.first_mismatch, 100);
    cr_expect_eq(report.mismatches, 1);
    clReleaseMemObject(buffer);
}

Test(device_compare, an_empty_output_passes_without_a_launch)
{
    skytune_device_output o = {.name = "none", .count = 0};
    skytune_output_report report;
    skytune_error err = {0};
    cr_assert_eq(device_compare_output(dc, queue, &o, &report, &err), 0, "%s", err.message);
    cr_expect(report.passed);
    cr_expect_eq(report.first_mismatch, -1);
}

/* OpenCL leaves what a kernel reads from a write-only buffer undefined. */
Test(device_compare, a_write_only_buffer_is_refused)
{
    float want[16] = {0};
    cl_int rc;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof want, NULL, &rc);
    cr_assert_eq(rc, CL_SUCCESS);
    skytune_device_output o = {.name = "out", .buffer = buffer, .count = 16, .reference = want};
    skytune_output_report report;
    skytune_error err = {0};
    cr_expect_eq(device_compare_output(dc, queue, &o, &report, &err), 1);
    cr_expect(strstr(err.message, "CL_MEM_WRITE_ONLY"), "%s", err.message);
    clReleaseMemObject(buffer);
}
