/* libFuzzer harness: the recorded-dataset readers of replay
 * (framework/engine/replay.c): Kernel Tuner caches and T4 results, plain
 * or gzip (the same reader tells them apart by content, so one harness
 * serves both; each has its own seed corpus, fuzz/corpus/kernel_tuner and
 * fuzz/corpus/t4).
 *
 * The input is the file. A dataset that loads is replayed over its own
 * space and its recorded space. */
#include <stdint.h>

#include "fuzz_support.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_path("dataset.json");
    fuzz_write_file(path, data, size);
    replay_dataset *d = NULL;
    skytune_error err = {0};
    if (replay_load(path, FUZZ_MAX_JSON_BYTES, &d, &err) == 0) {
        fuzz_exercise_dataset(d);
        replay_free(d);
    }
    return 0;
}
