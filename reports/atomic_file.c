#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quote.h"

static void release(atomic_file *af)
{
    free(af->path);
    free(af->tmp);
    memset(af, 0, sizeof *af);
}

int atomic_file_open(atomic_file *af, const char *path, skytune_error *err)
{
    memset(af, 0, sizeof *af);
    char name[QUOTE_PATH]; /* the file as messages name it */
    quote_text(path, name, sizeof name);
    size_t len = strlen(path) + 48;
    af->path = strdup(path);
    af->tmp = malloc(len);
    if (!af->path || !af->tmp) {
        release(af);
        return err_set(err, "%s: out of memory", name);
    }
    /* O_EXCL with a name unique to this process and attempt: never reuse a
     * file someone else is writing. */
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        snprintf(af->tmp, len, "%s.tmp.%ld.%d", path, (long)getpid(), attempt);
        fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        int e = errno;
        err_set(err, "cannot write %s: %s (its folder must exist and be writable)", name,
                strerror(e));
        release(af);
        return -1;
    }
    af->f = fdopen(fd, "w");
    if (!af->f) {
        close(fd);
        unlink(af->tmp);
        release(af);
        return err_set(err, "cannot write %s: out of memory", name);
    }
    return 0;
}

int atomic_file_commit(atomic_file *af, skytune_error *err)
{
    int failed = ferror(af->f) != 0;
    int e = failed ? EIO : 0;
    if (fclose(af->f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    af->f = NULL;
    if (!failed && rename(af->tmp, af->path) != 0) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        unlink(af->tmp);
        char name[QUOTE_PATH];
        err_set(err, "writing %s failed: %s; the file is as it was",
                quote_text(af->path, name, sizeof name), strerror(e));
        release(af);
        return -1;
    }
    release(af);
    return 0;
}

void atomic_file_abort(atomic_file *af)
{
    if (af->f) fclose(af->f);
    if (af->tmp) unlink(af->tmp);
    release(af);
}
