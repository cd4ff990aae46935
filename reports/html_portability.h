/* The portability matrix of a plugin's campaigns: for each problem and
 * pair of devices, the share of one device's optimum that the other
 * device's best configuration keeps there (html_portability.c). Internal to
 * html_across.c. */
#ifndef SKYTUNE_HTML_PORTABILITY_H
#define SKYTUNE_HTML_PORTABILITY_H

#include <stdio.h>

#include "report.h"

/* The subsection for `plugin`, its headings' ids starting with anchor. */
void html_portability_write(FILE *f, const report_data *d, const char *anchor,
                            const char *plugin);

#endif
