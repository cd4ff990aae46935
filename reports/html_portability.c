#include "html_portability.h"

#include <string.h>

#include "html_parts.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool is_plugin(const query_table *t, size_t r, const char *plugin)
{
    const char *cell = query_cell(t, r, "plugin");
    return cell && strcmp(cell, plugin) == 0;
}

void html_portability_write(FILE *f, const report_data *d, const char *anchor,
                            const char *plugin)
{
    const query_table *t = &d->tables[REPORT_PORTABILITY];
    size_t first = 0;
    while (first < t->n_rows && !is_plugin(t, first, plugin)) first++;
    size_t end = first;
    while (end < t->n_rows && is_plugin(t, end, plugin)) end++;
    char id[96];
    snprintf(id, sizeof id, "%s-portability", anchor);
    html_heading(f, 3, id, "Portability between devices");
    if (first == end) {
        html_paragraph(f, NULL,
                       "No problem of this plugin was tuned on two devices, so there is no "
                       "device's best configuration to try on another.");
        html_source_note(f, d->queries[REPORT_PORTABILITY]);
        return;
    }
    html_paragraph(f, NULL,
                   "For each problem tuned on two devices or more: how much of the on device's "
                   "optimum the from device's best configuration keeps there, as the on device's "
                   "best time over that configuration's time on it (1: it is the optimum there "
                   "too; 0.5: it takes twice as long). Where the on device did not measure that "
                   "configuration, or it failed there, the status says so instead: a campaign "
                   "that measures it on that device answers the question.");
    static const html_column cols[] = {
        {"problem", "problem", FORMAT_TEXT, true},
        {"from_device", "best of", FORMAT_TEXT, false},
        {"on_device", "run on", FORMAT_TEXT, false},
        {"from_best", "configuration", FORMAT_TEXT, true},
        {"on_best_ns", "optimum there", FORMAT_TIME_NS, false},
        {"from_best_on_ns", "its time there", FORMAT_TIME_NS, false},
        {"kept", "kept", FORMAT_RATIO, false},
        {"on_status", "status", FORMAT_TEXT, false},
    };
    html_table(f, t, first, end, cols, COUNT(cols));
    html_source_note(f, d->queries[REPORT_PORTABILITY]);
}
