/* libFuzzer harness: the T1 reader (framework/engine/t1/t1.c) and the space it
 * describes (framework/core/space.c).
 *
 * The input is a T1 file. A definition that loads is enumerated under a
 * small work limit; a space that builds must keep its own invariants for a
 * few of its configurations: rank and unrank are inverse, and the canonical
 * text of a configuration parses back to it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "space.h"
#include "t1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_space(const space *sp)
{
    size_t n = space_param_count(sp);
    uint64_t count = space_count(sp);
    if (count == 0) return;
    uint16_t *idx = calloc(n + 1, sizeof *idx), *parsed = calloc(n + 1, sizeof *parsed);
    uint64_t neighbours[64];
    if (!idx || !parsed) abort();
    const uint64_t ranks[] = {0, count / 3, count / 2, count - 1};
    for (size_t k = 0; k < sizeof ranks / sizeof ranks[0]; k++) {
        space_unrank(sp, ranks[k], idx);
        uint64_t rank;
        if (!space_is_valid(sp, idx) || space_rank(sp, idx, &rank) != 0 || rank != ranks[k])
            abort();
        char text[4096];
        skytune_error err = {0};
        if (space_config_text(sp, idx, text, sizeof text) < sizeof text) {
            if (space_parse_config(sp, text, parsed, &err) != 0 ||
                memcmp(idx, parsed, n * sizeof *idx) != 0)
                abort();
        }
        size_t total = space_neighbours(sp, idx, SPACE_HAMMING, neighbours, 64);
        for (size_t j = 0; j < total && j < 64; j++)
            if (neighbours[j] >= count) abort();
    }
    free(idx);
    free(parsed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_path("space.t1.json");
    fuzz_write_file(path, data, size);
    space *definition = NULL, *sp = NULL;
    skytune_error err = {0};
    space_control control = {.work_limit = FUZZ_SPACE_WORK};
    if (t1_load_definition(path, FUZZ_MAX_JSON_BYTES, &definition, &err) == 0 &&
        space_from_definition(definition, &control, &sp, &err) == 0)
        check_space(sp);
    fuzz_check_message(&err);
    space_free(sp);
    space_free(definition);
    return 0;
}
