#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nearest.h"
#include "quantity.h"
#include "quote.h"
#include "terminal_text.h"

/* Written as every message is (terminal_text.h). */
void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    terminal_vmessage(fmt, ap);
    va_end(ap);
}

static void print_help(const char *command, const char *summary, const cli_option *options,
                       size_t n, const char *positional_help)
{
    printf("usage: skytune %s%s%s [options]\n\n%s\n\noptions:\n", command,
           positional_help ? " " : "", positional_help ? positional_help : "", summary);
    for (size_t k = 0; k < n; k++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", options[k].name, options[k].metavar ? " " : "",
                 options[k].metavar ? options[k].metavar : "");
        printf("  %-26s %s%s\n", left, options[k].help, options[k].repeatable ? " (repeatable)" : "");
    }
    printf("  %-26s %s\n", "--help", "show this help");
}

int cli_parse(const char *command, const char *summary, const cli_option *options, size_t n,
              size_t max_positional, const char *positional_help, int argc, char **argv,
              cli_args *out)
{
    memset(out, 0, sizeof *out);
    if (n > CLI_MAX_OPTIONS) {
        cli_error("%s: %zu options are more than the parser's %d", command, n, CLI_MAX_OPTIONS);
        return EXIT_FAILED;
    }
    out->options = options;
    out->n_options = n;
    for (int k = 0; k < argc; k++) {
        const char *arg = argv[k];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help(command, summary, options, n, positional_help);
            return -1;
        }
        if (strncmp(arg, "--", 2) != 0) {
            if (out->n_positional >= max_positional || out->n_positional >= CLI_MAX_POSITIONAL) {
                char shown[QUOTE_TEXT];
                cli_error("%s: unexpected argument '%s' (see skytune %s --help)", command,
                          quote_text(arg, shown, sizeof shown), command);
                return EXIT_USAGE;
            }
            out->positional[out->n_positional++] = arg;
            continue;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        size_t found = n;
        for (size_t j = 0; j < n; j++)
            if (strlen(options[j].name) == len && strncmp(options[j].name, name, len) == 0)
                found = j;
        if (found == n) {
            char shown[QUOTE_TEXT];
            char *unknown = strndup(name, len);
            const char *names[CLI_MAX_OPTIONS + 1];
            for (size_t j = 0; j < n; j++) names[j] = options[j].name;
            names[n] = "help";
            const char *near = nearest_name(unknown, names, n + 1);
            cli_error("%s: unknown option '--%s' (%s%s%ssee skytune %s --help)", command,
                      quote_text(unknown ? unknown : "", shown, sizeof shown),
                      near ? "did you mean '--" : "", near ? near : "", near ? "'? " : "",
                      command);
            free(unknown);
            return EXIT_USAGE;
        }
        const char *value = "";
        if (options[found].metavar) {
            if (eq)
                value = eq + 1;
            else if (k + 1 < argc)
                value = argv[++k];
            else {
                cli_error("%s: option --%s needs a value %s", command, options[found].name,
                          options[found].metavar);
                return EXIT_USAGE;
            }
        } else if (eq) {
            cli_error("%s: option --%s takes no value", command, options[found].name);
            return EXIT_USAGE;
        }
        if (!options[found].repeatable) out->counts[found] = 0;
        if (out->counts[found] >= CLI_MAX_VALUES) {
            cli_error("%s: option --%s given more than %d times", command, options[found].name,
                      CLI_MAX_VALUES);
            return EXIT_USAGE;
        }
        out->values[found][out->counts[found]++] = value;
    }
    return 0;
}

static size_t option_index(const cli_args *a, const char *name)
{
    for (size_t k = 0; k < a->n_options; k++)
        if (strcmp(a->options[k].name, name) == 0) return k;
    return a->n_options;
}

const char *cli_get(const cli_args *a, const char *name)
{
    size_t k = option_index(a, name);
    return k < a->n_options && a->counts[k] ? a->values[k][a->counts[k] - 1] : NULL;
}

bool cli_flag(const cli_args *a, const char *name)
{
    return cli_get(a, name) != NULL;
}

size_t cli_all(const cli_args *a, const char *name, const char *const **values)
{
    size_t k = option_index(a, name);
    if (k == a->n_options) {
        *values = NULL;
        return 0;
    }
    *values = a->values[k];
    return a->counts[k];
}

int cli_parse_u64(const char *option, const char *text, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (*text == '-' || *text == '\0') goto bad;
    *out = strtoull(text, &end, 10);
    if (errno == 0 && *end == '\0') return 0;
bad:;
    char shown[QUOTE_TEXT];
    cli_error("--%s '%s' is not a non-negative whole number", option,
              quote_text(text, shown, sizeof shown));
    return -1;
}

int cli_parse_size(const char *option, const char *text, uint64_t *out)
{
    if (quantity_size(text, out) == 0) return 0;
    char shown[QUOTE_TEXT];
    cli_error("--%s '%s' is not " QUANTITY_SIZE_HELP, option, quote_text(text, shown, sizeof shown));
    return -1;
}

int cli_parse_duration(const char *option, const char *text, double *seconds)
{
    if (quantity_duration(text, seconds) == 0) return 0;
    char shown[QUOTE_TEXT];
    cli_error("--%s '%s' is not " QUANTITY_DURATION_HELP, option,
              quote_text(text, shown, sizeof shown));
    return -1;
}

int cli_check_choice(const char *what, const char *text, const char *const *choices, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(text, choices[k]) == 0) return 0;
    char list[512] = "";
    size_t used = 0;
    for (size_t k = 0; k < n && used < sizeof list; k++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "",
                                 choices[k]);
    char shown[QUOTE_TEXT], hint[128];
    cli_error("%s '%s' is not one of: %s%s", what, quote_text(text, shown, sizeof shown), list,
              nearest_hint(text, choices, n, NULL, hint, sizeof hint));
    return -1;
}

int cli_check_readable(const char *option, const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        int why = errno;
        char shown[QUOTE_PATH];
        cli_error("--%s %s: %s (give %s)", option, quote_text(path, shown, sizeof shown),
                  strerror(why), what);
        return -1;
    }
    fclose(f);
    return 0;
}
