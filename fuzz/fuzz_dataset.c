/* libFuzzer harness: the recorded-dataset readers of replay
 * (framework/engine/replay/kernel_tuner_cache.c and t4_results.c, the file
 * read by dataset_file.c): Kernel Tuner caches and T4 results, plain or gzip
 * (replay_load tells them apart by content, so one harness serves both;
 * each has its own seed corpus, fuzz/corpus/kernel_tuner and
 * fuzz/corpus/t4).
 *
 * The input is the file. A dataset that loads is replayed over its own
 * space and its recorded space. */
#include <stdint.h>

#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_path("dataset.json");
    fuzz_write_file(path, data, size);
    fuzz_replay_file(path);
    return 0;
}
