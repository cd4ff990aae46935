#include "layout.h"

#include <string.h>

/* The innermost loop copies one row of the destination (its layout's last
 * letter, contiguous there) from wherever the source keeps it. Elements of
 * the common sizes are copied with a constant-size memcpy, which compilers
 * turn into one load and one store; a call per element would dominate the
 * conversion of the arrays the LOFAR presets use (10^8 elements). */
#define COPY_ROW(size)                                                                   \
    for (int64_t i = 0; i < count; i++) memcpy(to + i * (size), from + i * step, (size))

static void copy_row(unsigned char *to, const unsigned char *from, int64_t count, int64_t step,
                     size_t element_size)
{
    switch (element_size) {
    case 1: COPY_ROW(1); break;
    case 2: COPY_ROW(2); break;
    case 4: COPY_ROW(4); break;
    case 8: COPY_ROW(8); break;
    case 16: COPY_ROW(16); break;
    default:
        for (int64_t i = 0; i < count; i++)
            memcpy(to + (size_t)i * element_size, from + i * step, element_size);
    }
}

int layout_permute(void *dst, const char *dst_layout, const void *src, const char *src_layout,
                   const char *letters, const int64_t *sizes, size_t element_size)
{
    int64_t dst_strides[LAYOUT_MAX_DIMS], src_strides[LAYOUT_MAX_DIMS];
    if (!dst || !src || element_size == 0 ||
        layout_strides(dst_layout, letters, sizes, dst_strides) != 0 ||
        layout_strides(src_layout, letters, sizes, src_strides) != 0)
        return -1;
    const int n = (int)strlen(letters);
    /* Sizes and source strides in bytes, in the destination's order
     * (outermost first): walking the destination in that order writes it
     * front to back. */
    int64_t extent[LAYOUT_MAX_DIMS] = {0}, step[LAYOUT_MAX_DIMS] = {0};
    int64_t elements = 1;
    for (int k = 0; k < n; k++) {
        const int d = layout_position(letters, dst_layout[k]);
        extent[k] = sizes[d];
        elements *= sizes[d]; /* fits: layout_strides checked the product */
        if (src_strides[d] > INT64_MAX / (int64_t)element_size) return -1;
        step[k] = src_strides[d] * (int64_t)element_size;
    }
    if (elements > INT64_MAX / (int64_t)element_size) return -1;

    const int inner = n - 1;
    const int64_t row_bytes = extent[inner] * (int64_t)element_size;
    int64_t index[LAYOUT_MAX_DIMS] = {0};
    int64_t from = 0; /* byte offset in src of the current row's first element */
    unsigned char *to = dst;
    const unsigned char *source = src;
    for (int64_t done = 0; done < elements; done += extent[inner]) {
        copy_row(to, source + from, extent[inner], step[inner], element_size);
        to += row_bytes;
        /* Next row: an odometer over the outer dimensions. */
        for (int k = inner - 1; k >= 0; k--) {
            from += step[k];
            if (++index[k] < extent[k]) break;
            from -= step[k] * extent[k];
            index[k] = 0;
        }
    }
    return 0;
}
