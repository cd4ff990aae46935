#include <stdio.h>
#include <stdlib.h>

#include "cl_device.h"
#include "cli.h"

static const cli_option options[] = {
    {"device", "SEL", false, "show only the device a run would use with --device SEL"},
};

int cmd_devices(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("devices", "List every OpenCL device; the default for `run` is marked *.",
                       options, sizeof options / sizeof options[0], 0, NULL, argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    cl_device_entry *list;
    size_t n, chosen;
    skytune_error err;
    if (cl_devices_list(&list, &n, &err) != 0) {
        cli_error("%s", err.message);
        return EXIT_FAILED;
    }
    const char *selector = cli_get(&args, "device");
    if (cl_device_select(list, n, selector, &chosen, &err) != 0) {
        cli_error("%s", err.message);
        free(list);
        return EXIT_FAILED;
    }
    for (size_t k = 0; k < n; k++) {
        if (selector && k != chosen) continue;
        const skytune_device_info *d = &list[k].info;
        printf("%s %u:%u  %s — %s\n", k == chosen ? "*" : " ", list[k].platform_index,
               list[k].device_index, d->platform, d->name);
        printf("      vendor %s, %s, driver %s, %s\n", d->vendor, d->is_gpu ? "GPU" : "not a GPU",
               d->driver_version, d->opencl_version);
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
    free(list);
    return EXIT_OK;
}
