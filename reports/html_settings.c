#include "html_settings.h"

#include <stdlib.h>
#include <string.h>

#include "html_parts.h"

/* What each key of the settings text means; a key not listed here (a
 * newer skytune's) is shown as it is. */
static const struct {
    const char *key, *label;
} labels[] = {
    {"runs", "timed runs per configuration"},
    {"warm_up", "warm-up runs"},
    {"restrict", "restriction (--restrict)"},
    {"only", "values allowed (--only)"},
    {"part", "part of the space (--part)"},
    {"configs", "configuration list (count:hash)"},
};

static void setting_row(FILE *f, const char *item)
{
    const char *eq = strchr(item, '=');
    if (!eq) {
        html_kv_row(f, "setting", item, true);
        return;
    }
    size_t n = (size_t)(eq - item);
    for (size_t k = 0; k < sizeof labels / sizeof labels[0]; k++)
        if (strlen(labels[k].key) == n && strncmp(item, labels[k].key, n) == 0) {
            html_kv_row(f, labels[k].label, eq + 1, true);
            return;
        }
    html_kv_row(f, item, "", true);
}

/* The strategy's options, "a=1,b=2", as "a = 1, b = 2". */
static void strategy_row(FILE *f, const char *options)
{
    if (!*options) {
        html_kv_row(f, "strategy options", "the strategy's defaults (it has none to set)", false);
        return;
    }
    size_t len = strlen(options);
    char *shown = malloc(3 * len + 1);
    if (!shown) {
        html_kv_row(f, "strategy options", options, true);
        return;
    }
    size_t used = 0;
    for (const char *p = options; *p; p++) {
        if (*p == ',') {
            memcpy(shown + used, ", ", 2);
            used += 2;
        } else if (*p == '=') {
            memcpy(shown + used, " = ", 3);
            used += 3;
        } else {
            shown[used++] = *p;
        }
    }
    shown[used] = '\0';
    html_kv_row(f, "strategy options", shown, true);
    free(shown);
}

void html_settings_rows(FILE *f, const char *settings)
{
    if (!settings) {
        html_kv_row(f, "settings", "not recorded", false);
        return;
    }
    char *copy = strdup(settings);
    if (!copy) {
        html_kv_row(f, "settings", settings, true);
        return;
    }
    /* The strategy's part comes last and may hold any text of its own. */
    static const char mark[] = "strategy:";
    const char *options = NULL;
    char *items = copy; /* the settings before the strategy's */
    char *strategy = strstr(copy, ";strategy:");
    if (strategy) {
        *strategy = '\0';
        options = strategy + 1 + strlen(mark);
    } else if (strncmp(copy, mark, strlen(mark)) == 0) {
        options = copy + strlen(mark);
        items = NULL;
    }
    for (char *item = items, *next; item && *item; item = next) {
        next = strchr(item, ';');
        if (next) *next++ = '\0';
        setting_row(f, item);
    }
    if (options) strategy_row(f, options);
    free(copy);
}
