/* What the OpenCL compiler reads besides the source text it is handed: the
 * files its #include lines name. A build's identity (the binary cache's key,
 * a plugin's build hash) covers them, so that editing an included header is
 * a new build and never serves a stale binary or a stale failure.
 *
 * The files are found where the compilers look: a quoted include first in
 * the folder of the file that includes it (not for the source itself, which
 * the driver compiles from a temporary file of its own), then in each -I
 * folder of the build options, in order, then in the current folder (PoCL
 * and NVIDIA's compiler both find it there). Every #include line counts,
 * whatever #if surrounds it, so the digest may change for a header a
 * configuration does not read, never stay the same for one it does. A name
 * found nowhere counts as its name, so that creating the file changes the
 * digest too. An #include whose name is a macro is not followed.
 *
 * Bounds, so that a hostile tree cannot exhaust the engine: each file at
 * most COMPILER_INPUT_MAX_BYTES and a regular file (a FIFO or a device is
 * counted by its name, never opened), at most COMPILER_INPUT_MAX_FILES
 * files, nested at most COMPILER_INPUT_MAX_DEPTH deep. */
#ifndef SKYTUNE_COMPILER_INPUTS_H
#define SKYTUNE_COMPILER_INPUTS_H

#include <stdint.h>

#include "error.h"

#define COMPILER_INPUT_MAX_BYTES (16u << 20)
#define COMPILER_INPUT_MAX_FILES 512
#define COMPILER_INPUT_MAX_DEPTH 32

/* A digest of every file `source` includes (and they include), compiled
 * with `options` (may be NULL); 0 when it includes nothing. Fails only
 * when out of memory or past the bounds above, naming the file. */
int compiler_includes_digest(const char *source, const char *options, uint64_t *digest,
                             skytune_error *err);

#endif
