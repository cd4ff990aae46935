/* The constraints that ruled a space's combinations out, as text: one line
 * per constraint (and the C constraint) that rejected any, most first,
 *   "  380 of 384 (99.0 %) ruled out by wg_size * x <= device.max_work_group_size (a device limit)"
 * counting each combination under the constraint it failed first (see
 * space_rejections). Added restrictions read "restriction 'TEXT'". Shown
 * where a space is empty ("no valid configuration") and by `skytune
 * plugins show`. */
#ifndef SKYTUNE_SPACE_REJECTIONS_H
#define SKYTUNE_SPACE_REJECTIONS_H

#include <stddef.h>

#include "space.h"

/* Writes the lines, each starting with indent and ending in '\n', into buf
 * (cut to len, always terminated); returns the length they need, as
 * snprintf does. Nothing (0) when the space rejected nothing. With
 * max_lines > 0 and more buckets than that, the last line sums the rest
 * ("... ruled out by 3 other constraints"). */
size_t space_rejections_text(const space *s, const char *indent, size_t max_lines, char *buf,
                             size_t len);

#endif
