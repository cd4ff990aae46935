/* What ruled the rest of a space out, as lines for a person: the
 * constraints by how much of the Cartesian product each rejected first. */
#include "space_rejections.h"

#include <stdio.h>
#include <string.h>

#include "quote.h"

/* Exact while a double holds the count exactly; past that, three figures. */
static void format_combinations(double n, char *buf, size_t len)
{
    if (n < 1e15)
        snprintf(buf, len, "%.0f", n);
    else
        snprintf(buf, len, "%.3g", n);
}

static void format_share(double part, double whole, char *buf, size_t len)
{
    double percent = whole > 0 ? 100.0 * part / whole : 0.0;
    if (percent >= 99.95 && part < whole)
        snprintf(buf, len, ">99.9 %%");
    else if (percent > 0 && percent < 0.1)
        snprintf(buf, len, "<0.1 %%");
    else
        snprintf(buf, len, "%.1f %%", percent);
}

static void describe(const space *s, const space_rejection *r, char *buf, size_t len)
{
    char shown[QUOTE_TEXT];
    if (r->constraint == SPACE_CALLBACK) {
        if (r->text)
            snprintf(buf, len, "the C constraint: %s", quote_text(r->text, shown, sizeof shown));
        else
            snprintf(buf, len, "the C constraint");
        return;
    }
    quote_text(r->text, shown, sizeof shown);
    if (space_constraint_is_added(s, r->constraint))
        snprintf(buf, len, "restriction %s", shown);
    else if (space_constraint_reads(s, r->constraint, "device."))
        snprintf(buf, len, "%s (a device limit)", shown);
    else
        snprintf(buf, len, "%s", shown);
}

size_t space_rejections_text(const space *s, const char *indent, size_t max_lines, char *buf,
                             size_t len)
{
    size_t n;
    const space_rejection *r = space_rejections(s, &n);
    size_t shown_lines = max_lines && max_lines < n ? max_lines - 1 : n;
    double whole = 1.0;
    for (size_t k = 0; k < space_param_count(s); k++) whole *= (double)space_param(s, k)->count;
    char total[32];
    format_combinations(whole, total, sizeof total);
    /* Counts right-aligned, so that the constraints start in one column. */
    int width = 0;
    for (size_t k = 0; k < n; k++) {
        char count[32];
        format_combinations(r[k].combinations, count, sizeof count);
        if ((int)strlen(count) > width) width = (int)strlen(count);
    }
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (size_t k = 0; k < shown_lines; k++) {
        char count[32], share[32], what[QUOTE_TEXT + 64];
        format_combinations(r[k].combinations, count, sizeof count);
        format_share(r[k].combinations, whole, share, sizeof share);
        describe(s, &r[k], what, sizeof what);
        int wrote = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
                             "%s%*s of %s (%s) ruled out by %s\n", indent, width, count, total,
                             share, what);
        if (wrote > 0) used += (size_t)wrote;
    }
    if (shown_lines < n) {
        double rest = 0;
        for (size_t k = shown_lines; k < n; k++) rest += r[k].combinations;
        char count[32], share[32];
        format_combinations(rest, count, sizeof count);
        format_share(rest, whole, share, sizeof share);
        int wrote = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
                             "%s%*s of %s (%s) ruled out by %zu other constraints\n", indent, width,
                             count, total, share, n - shown_lines);
        if (wrote > 0) used += (size_t)wrote;
    }
    return used;
}
