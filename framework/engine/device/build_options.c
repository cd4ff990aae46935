#include "build_options.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "value.h"

/* A real-valued parameter reaches the kernel as a float literal even when
 * its value is whole (1420 → 1420.0f), so arithmetic on it in the kernel is
 * never integer arithmetic. */
static void format_define(const skytune_value *value, char *text, size_t len)
{
    value_format(value, text, len);
    if (value->type != SKYTUNE_FLOAT || !isfinite(value->f)) return;
    size_t n = strlen(text);
    const char *suffix = strpbrk(text, ".eE") ? "f" : ".0f";
    if (n + strlen(suffix) < len) strcat(text, suffix);
}

static size_t append_defines(char *buf, size_t len, size_t used, const skytune_values *v)
{
    for (size_t k = 0; v && k < v->count; k++) {
        char text[256];
        format_define(&v->items[k].value, text, sizeof text);
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, " -D %s=%s", v->items[k].name, text);
    }
    return used;
}

/* OpenCL C 1.2 is what every OpenCL 1.2 and later driver compiles; a plugin
 * that needs another standard names it in its build_options. */
#define DEFAULT_STANDARD "-cl-std=CL1.2"

int build_options_format(const skytune_plugin *plugin, void *state, const skytune_values *problem,
                         const skytune_values *config, char *buf, size_t len, skytune_error *err)
{
    const char *own = plugin->build_options ? plugin->build_options : "";
    const char *standard = strstr(own, "-cl-std=") ? "" : DEFAULT_STANDARD;
    size_t used = (size_t)snprintf(buf, len, "%s%s%s", standard, *standard && *own ? " " : "",
                                   own);
    used = append_defines(buf, len, used, problem);
    used = append_defines(buf, len, used, config);
    if (plugin->defines && used + 2 < len) {
        buf[used++] = ' ';
        buf[used] = '\0';
        skytune_error perr = {0};
        if (plugin->defines(state, config, buf + used, len - used, &perr) != 0) {
            buf[used] = '\0';
            return err_set(err, "defines: %s",
                           perr.message[0] ? perr.message : "failed without saying why");
        }
        used += strlen(buf + used);
    }
    if (used >= len) return err_set(err, "the build options do not fit in %zu bytes", len);
    return 0;
}
