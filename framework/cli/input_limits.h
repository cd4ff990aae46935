/* The limits on what reading a recorded file and building a search space
 * may cost, as options of `run` and `bench-strategies`: a file or a space
 * that would take more is refused with a message naming the option that
 * raises the limit. */
#ifndef SKYTUNE_CLI_INPUT_LIMITS_H
#define SKYTUNE_CLI_INPUT_LIMITS_H

#include <stdint.h>

#include "cli.h"

/* The options, for a command's option table; their help gives the defaults
 * (SPACE_DEFAULT_WORK_LIMIT, REPLAY_DEFAULT_MAX_JSON_BYTES). */
#define INPUT_LIMIT_OPTIONS                                                                        \
    {"space-work-limit", "N", false,                                                               \
     "refuse a search space that needs more than N combinations checked to enumerate, naming "     \
     "the constraint that prunes too little (default 1000000000, about a minute)"},                \
    {"input-limit", "SIZE", false,                                                                 \
     "refuse a --replay or --space file with more JSON text than this, after decompression, "     \
     "e.g. 1G (default 256M)"}

typedef struct input_limits {
    uint64_t space_work_limit;   /* 0: the default */
    uint64_t max_json_bytes;     /* 0: the default */
} input_limits;

/* Reads the options; prints the problem and returns -1 on a bad value. */
int input_limits_parse(const cli_args *args, input_limits *out);

#endif
