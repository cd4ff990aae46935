/* What the fuzz harnesses share: the readers take a path, so each input is
 * written to a file in a folder of this process's own, and a loaded dataset
 * is taken through what a replayed run does with it. Test code only: none of
 * it is built into skytune. */
#ifndef SKYTUNE_FUZZ_SUPPORT_H
#define SKYTUNE_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include <skytune/plugin_types.h>

/* Limits that keep one execution short: a file this large is refused, a
 * space needing more checks than this too (both are tested elsewhere). */
#define FUZZ_MAX_JSON_BYTES ((uint64_t)1 << 20)
#define FUZZ_SPACE_WORK ((uint64_t)10000)

/* `name` in this process's scratch folder (made on first use, removed at
 * exit). The returned text is valid until the next call. */
const char *fuzz_path(const char *name);

/* Writes the bytes to `path`, replacing it; aborts when it cannot. */
void fuzz_write_file(const char *path, const uint8_t *data, size_t size);

/* Aborts when a message holds what docs/security.md says a message never
 * shows: a control character (C0, DEL or C1) or bytes that are not UTF-8,
 * which an input's text quoted unescaped would bring into it. A message is
 * cut at its buffer's size, so a character cut at the very end is allowed. */
void fuzz_check_message(const skytune_error *err);

/* Loads the dataset at `path`; one that loads is replayed over its own
 * space and its recorded space, each with an evaluator, the optimum and
 * every configuration's recorded objective: what `skytune run --replay` and
 * `bench-strategies` do with a dataset. */
void fuzz_replay_file(const char *path);

#endif
