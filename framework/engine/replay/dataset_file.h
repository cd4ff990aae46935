/* A recorded dataset's file, read with limits: a gzip file of a megabyte
 * can inflate to gigabytes, and the parsed JSON takes several times the
 * text's size. Gzip and SQLite files are told by their first bytes. */
#ifndef SKYTUNE_DATASET_FILE_H
#define SKYTUNE_DATASET_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* JSON text (a dataset or a T1 file, after decompression) read at most
 * unless the caller allows more. The recorded datasets of real kernels are
 * a few megabytes. */
#define REPLAY_DEFAULT_MAX_JSON_BYTES ((uint64_t)256 << 20)

/* Read a JSON file, plain or gzip (told by its magic bytes), into a jansson
 * value the caller releases with json_decref. Shared by the dataset and T1
 * loaders. Fails with "FILE: truncated or corrupt gzip data", "FILE: not
 * JSON: <reason> (line L, column C)", or when the text (decompressed) is
 * longer than max_json_bytes (0: REPLAY_DEFAULT_MAX_JSON_BYTES), before
 * more than that is read. A Kernel Tuner cache left unterminated by a killed
 * run is read closed, as Kernel Tuner itself reads it. */
struct json_t;
int replay_read_json(const char *path, uint64_t max_json_bytes, struct json_t **out,
                     skytune_error *err);

/* How many first bytes of a file tell a SQLite database. */
#define DATASET_FILE_SQLITE_MAGIC 16

/* The first `len` bytes of a file (*got: fewer when it is shorter); -1 with
 * *open_errno when it cannot be opened. */
int dataset_file_start(const char *path, unsigned char *buf, size_t len, size_t *got,
                       int *open_errno);

/* Whether the bytes start as every SQLite 3 database file does. */
bool dataset_file_is_sqlite(const unsigned char *data, size_t length);

#endif
