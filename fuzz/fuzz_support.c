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

/* Every configuration's objective under one space, and the optimum. */
static void replay_space(replay_dataset *d, const space *sp)
{
    replay_evaluator *re = NULL;
    skytune_error err = {0};
    if (replay_evaluator_new(d, sp, &re, &err) != 0) return;
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
    if (replay_load(path, FUZZ_MAX_JSON_BYTES, &d, &err) != 0) return;
    space_control control = {.work_limit = FUZZ_SPACE_WORK};
    space *own = NULL, *definition = NULL, *recorded = NULL;
    if (replay_dataset_space(d, &own, &err) == 0) replay_space(d, own);
    if (replay_recorded_definition(d, &definition, &err) == 0 &&
        space_from_definition(definition, &control, &recorded, &err) == 0)
        replay_space(d, recorded);
    space_free(recorded);
    space_free(definition);
    space_free(own);
    replay_free(d);
}
