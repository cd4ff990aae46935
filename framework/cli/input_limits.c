#include "input_limits.h"

#include <string.h>

int input_limits_parse(const cli_args *args, input_limits *out)
{
    memset(out, 0, sizeof *out);
    const char *text;
    if ((text = cli_get(args, "space-work-limit"))) {
        unsigned long long n;
        if (cli_parse_u64("space-work-limit", text, &n) != 0) return -1;
        if (n == 0) {
            cli_error("--space-work-limit must be at least 1 combination");
            return -1;
        }
        out->space_work_limit = n;
    }
    if ((text = cli_get(args, "input-limit")) &&
        cli_parse_size("input-limit", text, &out->max_json_bytes) != 0)
        return -1;
    return 0;
}
