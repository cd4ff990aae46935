/* Fixtures for the replay tests: a fresh temporary folder per test, the
 * shared convolution datasets (skipped, naming the path, when absent), and
 * small helpers to write files and inspect datasets. */
#ifndef SKYTUNE_TEST_REPLAY_FIXTURES_H
#define SKYTUNE_TEST_REPLAY_FIXTURES_H

#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_load.h"
#include "value.h"

static char replay_tmp_dir[64];

static inline void replay_make_tmp_dir(void)
{
    snprintf(replay_tmp_dir, sizeof replay_tmp_dir, "/tmp/skytune_test_replay_XXXXXX");
    cr_assert_not_null(mkdtemp(replay_tmp_dir));
}

static inline void replay_remove_tmp_dir(void)
{
    DIR *d = opendir(replay_tmp_dir);
    if (!d) return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", replay_tmp_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(replay_tmp_dir);
}

/* A path in the temporary folder; each call has its own buffer among a few. */
static inline const char *replay_tmp_path(const char *name)
{
    static char paths[4][512];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, sizeof paths[0], "%s/%s", replay_tmp_dir, name);
    return path;
}

/* Number of files in the temporary folder: loaders only read, so a test
 * that wrote N files must find N. */
static inline size_t replay_tmp_file_count(void)
{
    DIR *d = opendir(replay_tmp_dir);
    cr_assert_not_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

static inline void replay_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static inline void replay_write_text(const char *path, const char *text)
{
    replay_write_file(path, text, strlen(text));
}

/* The whole file in a malloc'd buffer. */
static inline unsigned char *replay_read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    cr_assert_geq(size, 0);
    rewind(f);
    unsigned char *data = malloc((size_t)size + 1);
    cr_assert_not_null(data);
    cr_assert_eq(fread(data, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *len = (size_t)size;
    return data;
}

/* ../shared/data/replay/convolution/NAME beside the source tree; the test
 * is skipped, naming what is missing, when it is not there. */
static inline const char *shared_dataset(const char *name)
{
    static char paths[4][1024];
    static int next;
    const char *source = getenv("SKYTUNE_SOURCE_DIR");
    char *path = paths[next++ % 4];
    snprintf(path, sizeof paths[0], "%s/../shared/data/replay/convolution/%s",
             source && *source ? source : ".", name);
    if (access(path, R_OK) != 0) {
        /* Criterion reports skips only with --verbose; say it anyway, in
         * the form tools/run-tests.sh counts. */
        fprintf(stderr, "[SKIP] replay: shared dataset %s is missing\n", path);
        /* A skipped test does not reach the suite's .fini. */
        replay_remove_tmp_dir();
        cr_skip_test("shared dataset %s is missing (set SKYTUNE_SOURCE_DIR to the source tree "
                     "that has ../shared beside it)", path);
    }
    return path;
}

static inline replay_dataset *load_dataset(const char *path)
{
    replay_dataset *d = NULL;
    skytune_error err = {0};
    cr_assert_eq(replay_load(path, 0, &d, &err), 0, "%s", err.message);
    cr_assert_not_null(d);
    return d;
}

/* "16,1,1,..." of an entry's values, as a Kernel Tuner cache keys it. */
static inline void entry_key(const replay_dataset *d, const replay_entry *e, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < d->n_params && used < len; k++) {
        char text[64];
        value_format(&e->values[k], text, sizeof text);
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? "," : "", text);
    }
}

static inline const replay_entry *find_entry(const replay_dataset *d, const char *key)
{
    char text[512];
    for (size_t e = 0; e < d->n_entries; e++) {
        entry_key(d, &d->entries[e], text, sizeof text);
        if (strcmp(text, key) == 0) return &d->entries[e];
    }
    return NULL;
}

#endif
