#include "build_options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

bool build_options_opencl_word(const char *name)
{
    static const char *const words[] = {
        "read_only", "write_only", "read_write", "__read_only", "__write_only", "__read_write",
        "kernel", "__kernel", "global", "__global", "local", "__local", "constant", "__constant",
        "private", "__private", "generic", "__generic", "uniform", "pipe", "restrict",
        "bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half",
        "float", "double", "size_t", "void", "if", "else", "for", "while", "do", "switch",
        "case", "default", "break", "continue", "return", "goto", "const", "volatile",
        "static", "extern", "struct", "union", "enum", "typedef", "sizeof", "signed",
        "unsigned", "inline", "auto", "register",
    };
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (strcmp(name, words[k]) == 0) return true;
    return false;
}

static size_t append_defines(char *buf, size_t len, size_t used, const skytune_values *v)
{
    for (size_t k = 0; v && k < v->count; k++) {
        if (build_options_opencl_word(v->items[k].name)) continue; /* a #define line */
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

/* "#define NAME value\n" for each parameter of `v` named as a word of
 * OpenCL C, appended to f. */
static void append_define_lines(FILE *f, const skytune_values *v, bool *any)
{
    for (size_t k = 0; v && k < v->count; k++) {
        if (!build_options_opencl_word(v->items[k].name)) continue;
        char text[256];
        format_define(&v->items[k].value, text, sizeof text);
        fprintf(f, "#define %s %s\n", v->items[k].name, text);
        *any = true;
    }
}

char *build_options_source(const skytune_values *problem, const skytune_values *config,
                           const char *source, bool *made)
{
    *made = false;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    bool any = false;
    append_define_lines(f, problem, &any);
    append_define_lines(f, config, &any);
    if (any) fprintf(f, "#line 1\n%s", source);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    if (!any) {
        free(text);
        return (char *)source;
    }
    *made = true;
    return text;
}
