#include "fuzz_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_evaluator.h"
#include "replay_load.h"
#include "replay_recorded.h"
#include "space.h"

static char scratch[64];
static char path_buffer[512];

static void remove_scratch(void)
{
    DIR *d = opendir(scratch);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path_buffer, sizeof path_buffer, "%s/%s", scratch, e->d_name);
        unlink(path_buffer);
    }
    closedir(d);
    rmdir(scratch);
}

const char *fuzz_path(const char *name)
{
    if (!scratch[0]) {
        /* In memory where there is a tmpfs: every execution writes a file. */
        snprintf(scratch, sizeof scratch, "%s/skytune-fuzz-XXXXXX",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        if (!mkdtemp(scratch)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(remove_scratch);
    }
    snprintf(path_buffer, sizeof path_buffer, "%s/%s", scratch, name);
    return path_buffer;
}

void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* The message with every byte outside printable ASCII as \xNN, and abort. */
static void unescaped_message(const unsigned char *m, size_t n, size_t at)
{
    fprintf(stderr, "fuzz: a message shows an unescaped byte at offset %zu: ", at);
    for (size_t k = 0; k < n; k++) {
        if (m[k] >= 0x20 && m[k] < 0x7F && m[k] != '\\')
            fputc(m[k], stderr);
        else
            fprintf(stderr, "\\x%02x", m[k]);
    }
    fputc('\n', stderr);
    abort();
}

void fuzz_check_message(const skytune_error *err)
{
    const unsigned char *m = (const unsigned char *)err->message;
    size_t n = strnlen(err->message, sizeof err->message);
    for (size_t k = 0; k < n;) {
        unsigned char c = m[k];
        if (c < 0x20 || c == 0x7F) unescaped_message(m, n, k);
        if (c < 0x80) {
            k++;
            continue;
        }
        size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
        if (len == 0) unescaped_message(m, n, k);
        if (k + len > n) {
            /* Cut where the buffer ended; anywhere else it is not UTF-8. */
            if (n < sizeof err->message - 1) unescaped_message(m, n, k);
            break;
        }
        for (size_t j = 1; j < len; j++)
            if ((m[k + j] & 0xC0) != 0x80) unescaped_message(m, n, k);
        uint32_t cp = c & (0x7Fu >> len);
        for (size_t j = 1; j < len; j++) cp = cp << 6 | (m[k + j] & 0x3Fu);
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp <= 0x9F))
            unescaped_message(m, n, k);
        k += len;
    }
}

/* Every configuration's objective under one space, and the optimum. */
static void replay_space(replay_dataset *d, const space *sp)
{
    replay_evaluator *re = NULL;
    skytune_error err = {0};
    if (replay_evaluator_new(d, sp, &re, &err) != 0) {
        fuzz_check_message(&err);
        return;
    }
    double best;
    replay_optimum(re, &best);
    uint64_t n = space_count(sp);
    for (uint64_t r = 0; r < n && r < 4096; r++) replay_objective(re, r);
    replay_evaluator_free(re);
}

void fuzz_replay_file(const char *path)
{
    replay_dataset *d = NULL;
    skytune_error err = {0};
    if (replay_load(path, FUZZ_MAX_JSON_BYTES, &d, &err) != 0) {
        fuzz_check_message(&err);
        return;
    }
    space_control control = {.work_limit = FUZZ_SPACE_WORK};
    space *own = NULL, *definition = NULL, *recorded = NULL;
    if (replay_dataset_space(d, &own, &err) == 0) replay_space(d, own);
    if (replay_recorded_definition(d, &definition, &err) == 0 &&
        space_from_definition(definition, &control, &recorded, &err) == 0)
        replay_space(d, recorded);
    fuzz_check_message(&err);
    space_free(recorded);
    space_free(definition);
    space_free(own);
    replay_free(d);
}
