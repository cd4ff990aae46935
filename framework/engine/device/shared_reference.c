#include "shared_reference.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Magic, then the number of arrays, each array's size, and the arrays. */
static const char MAGIC[8] = "SKREF01";

int shared_reference_load(const char *path, const skytune_region *regions, size_t count,
                          skytune_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return err_set(err, "no shared reference at %s: %s", path, strerror(errno));
    char magic[8];
    uint64_t n = 0;
    int rc = 0;
    if (fread(magic, 1, sizeof magic, f) != sizeof magic || memcmp(magic, MAGIC, 8) != 0 ||
        fread(&n, sizeof n, 1, f) != 1 || n != count) {
        rc = err_set(err, "the shared reference %s is not this plugin's", path);
        goto done;
    }
    for (size_t k = 0; k < count; k++) {
        uint64_t bytes = 0;
        if (fread(&bytes, sizeof bytes, 1, f) != 1 || bytes != regions[k].bytes) {
            rc = err_set(err, "the shared reference %s: array %zu differs in size", path, k);
            goto done;
        }
    }
    for (size_t k = 0; k < count; k++)
        if (fread(regions[k].data, 1, regions[k].bytes, f) != regions[k].bytes) {
            rc = err_set(err, "the shared reference %s is short", path);
            goto done;
        }
done:
    fclose(f);
    return rc;
}

int shared_reference_save(const char *path, const skytune_region *regions, size_t count,
                          skytune_error *err)
{
    char tmp[4200];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid()) >= sizeof tmp)
        return err_set(err, "the shared reference's path is too long");
    FILE *f = fopen(tmp, "wb");
    if (!f) return err_set(err, "cannot write the shared reference %s: %s", tmp, strerror(errno));
    uint64_t n = count;
    int ok = fwrite(MAGIC, 1, sizeof MAGIC, f) == sizeof MAGIC && fwrite(&n, sizeof n, 1, f) == 1;
    for (size_t k = 0; ok && k < count; k++) {
        uint64_t bytes = regions[k].bytes;
        ok = fwrite(&bytes, sizeof bytes, 1, f) == 1;
    }
    for (size_t k = 0; ok && k < count; k++)
        ok = fwrite(regions[k].data, 1, regions[k].bytes, f) == regions[k].bytes;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return err_set(err, "cannot write the shared reference %s: %s", path, strerror(e));
    }
    return 0;
}
