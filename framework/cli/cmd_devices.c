#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_device.h"
#include "cli.h"
#include "db_open.h"
#include "device_peaks.h"
#include "device_probe.h"
#include "quote.h"
#include "store.h"
#include "terminal_text.h"

static const cli_option options[] = {
    {"device", "SEL", false,
     "show (or probe) only the device a run would use with --device SEL; with --set-peaks, a "
     "device of the database: its id or part of its name"},
    {"probe", NULL, false,
     "measure the device's peak memory bandwidth and single-precision FLOP/s with built-in "
     "kernels (a few seconds); with --db, record them for the report's roofline"},
    {"set-peaks", "GFLOPS,GBS", false, "record the device's peaks by hand (needs --db)"},
    {"db", "FILE", false, "result database to record the peaks in"},
    BUSY_TIMEOUT_OPTION,
};

/* "GFLOPS,GBS" as two positive numbers. */
static int parse_peaks(const char *text, double *gflops, double *gbs)
{
    char *end;
    *gflops = strtod(text, &end);
    if (end != text && *end == ',') {
        const char *second = end + 1;
        *gbs = strtod(second, &end);
        if (end != second && *end == '\0' && *gflops > 0 && *gbs > 0) return 0;
    }
    char shown[QUOTE_TEXT];
    cli_error("devices: --set-peaks '%s' is not GFLOPS,GBS with two positive numbers, e.g. "
              "--set-peaks 51000,3350",
              quote_text(text, shown, sizeof shown));
    return -1;
}

/* The driver's names and versions are printed escaped, as all it says:
 * they may hold any bytes. */
static void print_device(const cl_device_entry *e, bool chosen)
{
    const skytune_device_info *d = &e->info;
    /* The short names --device takes besides the driver's own, where the
     * driver's names do not say them already. */
    char platform_short[32] = "", vendor_short[32] = "";
    const char *p_short = cl_short_name(d->platform), *v_short = cl_short_name(d->vendor);
    if (p_short && !strstr(d->platform, p_short))
        snprintf(platform_short, sizeof platform_short, " (%s)", p_short);
    if (v_short && !strstr(d->vendor, v_short))
        snprintf(vendor_short, sizeof vendor_short, " (%s)", v_short);
    terminal_printf("%s %u:%u  %s%s — %s\n", chosen ? "*" : " ", e->platform_index,
                    e->device_index, d->platform, platform_short, d->name);
    /* The versions as the driver gives them, not cut to the device info's
     * 63 bytes. */
    char driver[1024], version[1024];
    cl_device_text(e, CL_DRIVER_VERSION, driver, sizeof driver);
    cl_device_text(e, CL_DEVICE_VERSION, version, sizeof version);
    terminal_printf("      vendor %s%s, %s, driver %s, %s\n", d->vendor, vendor_short,
                    d->is_gpu ? "GPU" : "not a GPU", driver[0] ? driver : d->driver_version,
                    version[0] ? version : d->opencl_version);
    printf("      %lld compute units at %lld MHz\n", (long long)d->compute_units,
           (long long)d->max_clock_mhz);
    printf("      global memory %.1f GiB (largest allocation %.1f GiB), local memory %lld KiB, "
           "constant %lld KiB\n",
           (double)d->global_mem_size / (1 << 30), (double)d->max_mem_alloc_size / (1 << 30),
           (long long)d->local_mem_size / 1024, (long long)d->max_constant_size / 1024);
    printf("      work-group up to %lld, work-item sizes %lld × %lld × %lld\n",
           (long long)d->max_work_group_size, (long long)d->max_work_item_sizes[0],
           (long long)d->max_work_item_sizes[1], (long long)d->max_work_item_sizes[2]);
}

/* The OpenCL device --device selects; prints the error. */
static int select_device(const char *selector, cl_device_entry **list, size_t *n, size_t *chosen)
{
    skytune_error err = {0};
    if (cl_devices_list(list, n, &err) != 0) {
        cli_error("%s", err.message);
        return -1;
    }
    if (cl_device_select(*list, *n, selector, chosen, &err) != 0) {
        cli_error("%s", err.message);
        free(*list);
        *list = NULL;
        return -1;
    }
    return 0;
}

/* Record peaks for an OpenCL device, adding the device to the database
 * when it is not there yet. */
static int record_for_opencl_device(const char *path, double busy_timeout_s,
                                    const skytune_device_info *info, double gflops, double gbs)
{
    store *st;
    skytune_error err = {0};
    if (store_open(path, true, busy_timeout_s, &st, &err) != 0) {
        cli_error("%s", err.message);
        return -1;
    }
    int64_t id;
    char shown[QUOTE_PATH];
    int rc = store_device_id(st, info, &id, &err);
    if (rc == 0) rc = device_peaks_set(store_handle(st), id, gflops, gbs, &err);
    store_close(st);
    if (rc != 0) {
        cli_error("%s: %s", quote_text(path, shown, sizeof shown), err.message);
        return -1;
    }
    terminal_printf("recorded in %s for %s (%s, driver %s)\n",
                    quote_text(path, shown, sizeof shown), info->name, info->platform,
                    info->driver_version);
    return 0;
}

static int probe(const char *selector, const char *path, double busy_timeout_s)
{
    cl_device_entry *list;
    size_t n, chosen;
    if (select_device(selector, &list, &n, &chosen) != 0) return EXIT_FAILED;
    const cl_device_entry *e = &list[chosen];
    terminal_printf("probing %s — %s\n", e->info.platform, e->info.name);
    fflush(stdout);
    device_probe_result r;
    skytune_error err = {0};
    if (device_probe_run(e, NULL, &r, &err) != 0) {
        cli_error("%s", err.message);
        free(list);
        return EXIT_FAILED;
    }
    printf("  memory bandwidth  %.1f GB/s   (triad over 3 × %.0f MiB)\n", r.gbs,
           (double)r.buffer_bytes / (1 << 20));
    printf("  single precision  %.1f GFLOP/s (multiply-add chains, %zu work-items × %ld trips)\n",
           r.gflops, r.work_items, r.iterations);
    int rc = EXIT_OK;
    if (path && record_for_opencl_device(path, busy_timeout_s, &e->info, r.gflops, r.gbs) != 0)
        rc = EXIT_FAILED;
    free(list);
    return rc;
}

static int set_peaks(const char *selector, const char *path, double busy_timeout_s,
                     double gflops, double gbs)
{
    /* This one writes: opened to write, unlike the reading commands. */
    store *st;
    skytune_error err = {0};
    if (store_open(path, false, busy_timeout_s, &st, &err) != 0) {
        cli_error("%s", err.message);
        return EXIT_FAILED;
    }
    int64_t id = 0;
    bool found = false;
    char desc[512];
    int rc = device_peaks_find(store_handle(st), selector, &id, &found, desc, sizeof desc, &err);
    if (rc == 0 && found) rc = device_peaks_set(store_handle(st), id, gflops, gbs, &err);
    store_close(st);
    char shown[QUOTE_PATH];
    quote_text(path, shown, sizeof shown);
    if (rc != 0) {
        cli_error("%s: %s", shown, err.message);
        return EXIT_FAILED;
    }
    if (found) {
        /* desc is quoted already (device_peaks.h). */
        printf("recorded %g GFLOP/s and %g GB/s in %s for %s\n", gflops, gbs, shown, desc);
        return EXIT_OK;
    }
    /* Not in the database yet: the OpenCL device the selector names. */
    cl_device_entry *list;
    size_t n, chosen;
    if (select_device(selector, &list, &n, &chosen) != 0) {
        char given[QUOTE_TEXT];
        cli_error("devices: no device of %s matches%s%s, nor an OpenCL device here", shown,
                  selector ? " " : "", selector ? quote_text(selector, given, sizeof given) : "");
        return EXIT_FAILED;
    }
    rc = record_for_opencl_device(path, busy_timeout_s, &list[chosen].info, gflops, gbs) == 0
             ? EXIT_OK
             : EXIT_FAILED;
    free(list);
    return rc;
}

int cmd_devices(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("devices",
                       "List every OpenCL device; the default for `run` is marked *. --probe "
                       "measures a device's roofline peaks, --set-peaks records them by hand.",
                       options, sizeof options / sizeof options[0], 0, NULL, argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *selector = cli_get(&args, "device");
    const char *path = cli_get(&args, "db");
    const char *peaks = cli_get(&args, "set-peaks");
    double busy_timeout_s;
    if (cli_busy_timeout(&args, &busy_timeout_s) != 0) return EXIT_USAGE;
    if (peaks && cli_flag(&args, "probe")) {
        cli_error("devices: --probe measures the peaks and --set-peaks gives them; use one");
        return EXIT_USAGE;
    }
    if (peaks) {
        double gflops, gbs;
        if (parse_peaks(peaks, &gflops, &gbs) != 0) return EXIT_USAGE;
        if (!path) {
            cli_error("devices: --set-peaks records into a database: give --db FILE");
            return EXIT_USAGE;
        }
        return set_peaks(selector, path, busy_timeout_s, gflops, gbs);
    }
    if (cli_flag(&args, "probe")) return probe(selector, path, busy_timeout_s);
    if (path) {
        cli_error("devices: --db is for --probe or --set-peaks");
        return EXIT_USAGE;
    }
    cl_device_entry *list;
    size_t n, chosen;
    if (select_device(selector, &list, &n, &chosen) != 0) return EXIT_FAILED;
    for (size_t k = 0; k < n; k++) {
        if (selector && k != chosen) continue;
        print_device(&list[k], k == chosen);
    }
    free(list);
    return EXIT_OK;
}
