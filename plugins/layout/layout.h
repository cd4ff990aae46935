/*
 * layout — data layouts of multi-dimensional arrays, for plugins whose kernels
 * read or write an array in a tunable order of its dimensions (J. Kis,
 * "Auto-tuning a LOFAR radio astronomy pipeline in JavaCL", VU Amsterdam
 * 2013, chapter 6).
 *
 * A layout is a word of dimension letters, outermost first: over the letters
 * "SCTP" (station, channel, time, polarization), "TCSP" stores an array
 * x[time][channel][station][polarization], so its last letter is the
 * contiguous dimension. Every function takes the letters of the array's
 * dimensions in a fixed order of the caller's choosing (e.g. "SCTP"); sizes
 * and strides are given in that order, whatever the layout.
 *
 * Pure C: no OpenCL, no allocation. Functions return 0 on success and -1 on
 * failure; only layout_check writes a message.
 */
#ifndef SKYTUNE_PLUGINS_LAYOUT_H
#define SKYTUNE_PLUGINS_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* The most dimensions a layout may have: as many letters as a permutation
 * tuning parameter allows. */
#define LAYOUT_MAX_DIMS 8

/* Whether `layout` holds each of `letters` exactly once and nothing else.
 * On failure writes a message into message[message_len] that starts with
 * `name` (the parameter the layout came from, e.g. "in_layout"), quotes the
 * layout, says what is wrong with it and what a valid layout is. Also fails
 * when `letters` itself is not a set of distinct letters, digits or '_'
 * of at most LAYOUT_MAX_DIMS. */
int layout_check(const char *name, const char *layout, const char *letters, char *message,
                 size_t message_len);

/* Position of `letter` in `layout`, 0 for the outermost; -1 when absent. */
int layout_position(const char *layout, char letter);

/* The layout distance (Kis 2013, section 6.3): the sum over the dimensions
 * of how many positions each one moves between `a` and `b`. 0 for equal
 * layouts; CTS against STC is 4 (C and S each move two places); for four
 * letters at most 8 (a layout against its reverse). -1 when `a` and `b` are
 * not orderings of the same distinct letters. */
int layout_distance(const char *a, const char *b);

/* Each dimension's stride in elements when an array of sizes[k] elements
 * along letters[k] is stored in `layout`: strides[k] belongs to letters[k],
 * the layout's last letter has stride 1 and each other letter the product of
 * the sizes after it. -1 (strides untouched) when `layout` is not a
 * permutation of `letters`, a size is below 1, or the element count does
 * not fit in int64_t. */
int layout_strides(const char *layout, const char *letters, const int64_t *sizes,
                   int64_t *strides);

/* Build options that let a kernel index an array stored in `layout` with
 * constants the compiler folds: " -D <prefix>_STRIDE_<letter>=<stride>" for
 * each of `letters` in that order (e.g. " -D IN_STRIDE_S=8400 -D
 * IN_STRIDE_C=1 ..."), so that the kernel's index is
 * `s * IN_STRIDE_S + c * IN_STRIDE_C + ...` whatever the layout (Kis 2013,
 * Algorithm 1). Appended to the NUL-terminated text already in buf, which
 * holds `len` bytes in all. -1, with buf as it was, when the layout or sizes
 * are refused as by layout_strides, `prefix` is not an identifier, or the
 * options do not fit. */
int layout_append_stride_defines(char *buf, size_t len, const char *prefix, const char *layout,
                                 const char *letters, const int64_t *sizes);

/* Copy an array of elements of `element_size` bytes from `src`, stored in
 * `src_layout`, into `dst` in `dst_layout` (both permutations of `letters`,
 * sizes in the order of `letters`): the host-side conversion a CPU
 * reference needs to compare with a kernel that reads or writes a tunable
 * layout, and the transposition between stages whose layouts differ. The
 * arrays must not overlap. Equal layouts copy the array as it is. -1 with
 * dst untouched when a layout or size is refused as by layout_strides, a
 * pointer is NULL, element_size is 0 or the array's bytes do not fit in
 * int64_t. (layout_permute.c) */
int layout_permute(void *dst, const char *dst_layout, const void *src, const char *src_layout,
                   const char *letters, const int64_t *sizes, size_t element_size);

#endif
