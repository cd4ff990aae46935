/*
 * stage_macros — the macros a stage's kernel source is compiled with, listed
 * once and given to the compiler two ways.
 *
 * A stage plugin (ppf, beamformer, correlator) is built by the engine, which
 * passes every problem and tuning parameter as `-D name=value`; what the
 * stage derives from them (the strides of its layouts, say) its `defines`
 * callback appends. A pipeline compiles several stages into ONE program, so
 * the same names (`stations`, `wg_size`) take other values in each stage:
 * there every stage's source becomes a section, its macros `#define`d before
 * it and `#undef`'d after it. Both ways start from the one list a stage
 * module makes for a problem and a configuration, so a stage's kernel sees
 * the same macros in its plugin and in a pipeline.
 *
 * Each macro says whether it is one of the stage's parameters (which the
 * engine passes by itself in the stage's plugin) or derived.
 *
 * Pure C, no OpenCL. Functions return 0, or -1 with the list or buffer as
 * it was.
 */
#ifndef SKYTUNE_PLUGINS_STAGE_MACROS_H
#define SKYTUNE_PLUGINS_STAGE_MACROS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STAGE_MAX_MACROS 48
#define STAGE_MACRO_NAME_LEN 40
#define STAGE_MACRO_VALUE_LEN 40

typedef struct stage_macro {
    char name[STAGE_MACRO_NAME_LEN];   /* an identifier */
    char value[STAGE_MACRO_VALUE_LEN]; /* a token: what follows the name */
    bool derived;                      /* false: a parameter of the stage's plugin */
} stage_macro;

typedef struct stage_macros {
    size_t count;
    stage_macro items[STAGE_MAX_MACROS];
} stage_macros;

void stage_macros_init(stage_macros *m);

/* An integer macro, written in decimal as the engine writes integer and
 * boolean parameters. -1 when the name is not an identifier, is already in
 * the list, or the list is full. */
int stage_macros_add_int(stage_macros *m, const char *name, int64_t value, bool derived);

/* A macro whose value is an identifier: a name the source uses that
 * stands for another (a kernel renamed, so that two sections of one source
 * can live in one program). -1 as above, or when the token is not an
 * identifier. */
int stage_macros_add_token(stage_macros *m, const char *name, const char *token, bool derived);

/* One derived macro per letter: <prefix>_STRIDE_<letter> = the letter's
 * stride in elements when an array of sizes[k] elements along letters[k]
 * is stored in `layout` (layout_strides). -1, the list as it was, when the
 * layout or sizes are refused or the list would overflow. */
int stage_macros_add_strides(stage_macros *m, const char *prefix, const char *layout,
                             const char *letters, const int64_t *sizes);

/* The value of `name`, or NULL. */
const char *stage_macros_find(const stage_macros *m, const char *name);

/* Append " -D NAME=VALUE" for every macro (or only the derived ones) to the
 * NUL-terminated text in buf[len]: the build options of a stage plugin's
 * `defines` callback. */
int stage_macros_append_options(const stage_macros *m, bool derived_only, char *buf,
                                size_t len);

/* `source` as a section of a program that holds several stages: for every
 * macro "#undef NAME" and "#define NAME VALUE" (an undef first, so that a
 * name the program defined before cannot clash), then the source, then
 * "#undef NAME" for every macro, so that nothing of the stage's macros
 * reaches the next section. A malloc'd string, or NULL when out of memory. */
char *stage_macros_section(const stage_macros *m, const char *source);

#endif
