#include "binary_keeping.h"

#include <stdlib.h>
#include <string.h>

#include "cl_device.h"

bool binary_keeping_worthwhile(const skytune_device_info *dev)
{
    const char *platform = cl_short_name(dev->platform);
    if (dev->is_gpu || !platform || strcmp(platform, "PoCL") != 0) return true;
    /* With PoCL's kernel cache off nothing else keeps a build, and a
     * binary at least saves the bitcode compile. */
    const char *kernel_cache = getenv("POCL_KERNEL_CACHE");
    return kernel_cache && strcmp(kernel_cache, "0") == 0;
}
