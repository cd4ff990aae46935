/* Reading a dataset's file: its bytes, refused past the input limit;
 * gzip inflated, also within the limit; the text parsed as JSON. See
 * dataset_file.h. */
#include "dataset_file.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

#include "kernel_tuner_cache.h"
#include "quote.h"

/* The first bytes of every SQLite 3 database file. */
static const char sqlite_magic[DATASET_FILE_SQLITE_MAGIC] = "SQLite format 3";

static bool is_gzip(const unsigned char *data, size_t length)
{
    return length >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

bool dataset_file_is_sqlite(const unsigned char *data, size_t length)
{
    return length >= sizeof sqlite_magic && memcmp(data, sqlite_magic, sizeof sqlite_magic) == 0;
}

typedef struct byte_buffer {
    unsigned char *data;
    size_t length, capacity;
} byte_buffer;

static void byte_buffer_free(byte_buffer *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* Room for at least `extra` more bytes. */
static int byte_buffer_reserve(byte_buffer *b, size_t extra)
{
    if (b->capacity - b->length >= extra) return 0;
    if (extra > SIZE_MAX - b->length) return -1;
    size_t need = b->length + extra;
    size_t capacity = b->capacity ? b->capacity : 4096;
    while (capacity < need) capacity = capacity > SIZE_MAX / 2 ? need : capacity * 2;
    unsigned char *grown = realloc(b->data, capacity);
    if (!grown) return -1;
    b->data = grown;
    b->capacity = capacity;
    return 0;
}

/* "256 MiB", "1 GiB", "1000 bytes": a limit as the user would write it. */
static void format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    size_t unit = 0;
    while (unit + 1 < sizeof units / sizeof units[0] && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        unit++;
    }
    snprintf(buf, len, "%llu %s", (unsigned long long)bytes, units[unit]);
}

static int too_large(const char *path, const char *what, uint64_t limit, skytune_error *err)
{
    char shown[32];
    format_bytes(limit, shown, sizeof shown);
    return err_set(err, "%s: more than %s of JSON text%s, the input limit; a file this large is "
                   "more likely a mistake or a decompression bomb than a dataset, but if it is "
                   "genuine raise the limit (--input-limit, e.g. --input-limit 2G)",
                   path, shown, what);
}

/* The whole file, refused once it is longer than `limit` bytes. `name` is
 * the path as messages quote it. */
static int read_file(const char *path, const char *name, uint64_t limit, byte_buffer *out,
                     skytune_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return err_set(err, "%s: cannot open: %s", name, strerror(errno));
    int rc = 0;
    for (;;) {
        if (out->length > limit) {
            rc = too_large(name, "", limit, err);
            break;
        }
        if (byte_buffer_reserve(out, (size_t)1 << 16) != 0) {
            rc = err_set(err, "%s: out of memory reading the file", name);
            break;
        }
        size_t got = fread(out->data + out->length, 1, out->capacity - out->length, f);
        out->length += got;
        if (got == 0) {
            if (ferror(f)) rc = err_set(err, "%s: cannot read: %s", name, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc != 0) byte_buffer_free(out);
    return rc;
}

int dataset_file_start(const char *path, unsigned char *buf, size_t len, size_t *got,
                       int *open_errno)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *open_errno = errno;
        return -1;
    }
    *got = fread(buf, 1, len, f);
    fclose(f);
    return 0;
}

/* Inflate every gzip member of `in` (gzip -c a b > c makes several). Bytes
 * after the last member that are not another member are ignored, as gzip
 * does. Input that ends inside a member, or does not check out, fails, and
 * so does output longer than `limit`, once a byte more than that is out
 * (the buffer never grows much past the limit). */
static int gunzip(const char *path, const byte_buffer *in, uint64_t limit, byte_buffer *out,
                  skytune_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return err_set(err, "%s: cannot start gzip decompression", path);
    size_t consumed = 0;
    int rc = 0;
    for (;;) {
        if (out->length > limit) {
            rc = too_large(path, " after decompression", limit, err);
            break;
        }
        /* Compressed JSON commonly inflates tenfold; grow by at least the
         * input size so that large files take few reallocations. */
        size_t want = in->length > ((size_t)1 << 16) ? in->length : ((size_t)1 << 16);
        if (byte_buffer_reserve(out, want) != 0) {
            rc = err_set(err, "%s: out of memory decompressing", path);
            break;
        }
        size_t in_left = in->length - consumed;
        size_t out_room = out->capacity - out->length;
        /* One byte past the limit is enough to know it is passed. */
        if (out_room > limit + 1 - out->length) out_room = (size_t)(limit + 1 - out->length);
        zs.next_in = in->data + consumed;
        zs.avail_in = (uInt)(in_left > UINT_MAX ? UINT_MAX : in_left);
        zs.next_out = out->data + out->length;
        zs.avail_out = (uInt)(out_room > UINT_MAX ? UINT_MAX : out_room);
        uInt in_before = zs.avail_in, out_before = zs.avail_out;
        int z = inflate(&zs, Z_NO_FLUSH);
        consumed += in_before - zs.avail_in;
        out->length += out_before - zs.avail_out;
        if (z == Z_STREAM_END) {
            if (is_gzip(in->data + consumed, in->length - consumed) && inflateReset(&zs) == Z_OK)
                continue;
            break;
        }
        if (z == Z_OK) continue;
        /* Z_BUF_ERROR with output room left: the input ended mid-stream. */
        if (z == Z_MEM_ERROR)
            rc = err_set(err, "%s: out of memory decompressing", path);
        else
            rc = err_set(err, "%s: truncated or corrupt gzip data", path);
        break;
    }
    inflateEnd(&zs);
    if (rc != 0) byte_buffer_free(out);
    return rc;
}

/* Kernel Tuner appends each entry to its cache file as it goes ("key":
 * {...},) and writes the two closing braces when the run ends, so a run
 * that was killed leaves the file unterminated. Kernel Tuner reads such a
 * file by closing it, and so does this: a text ending in ',' or '{' gets
 * "}\n}" (the comma dropped). Only a result that is a cache counts. */
static json_t *parse_unterminated_cache(byte_buffer *text)
{
    size_t n = text->length;
    while (n > 0 && isspace(text->data[n - 1])) n--;
    if (n == 0 || (text->data[n - 1] != ',' && text->data[n - 1] != '{')) return NULL;
    if (text->data[n - 1] == ',') n--;
    text->length = n;
    static const char closing[] = "}\n}";
    if (byte_buffer_reserve(text, sizeof closing) != 0) return NULL;
    memcpy(text->data + text->length, closing, sizeof closing - 1);
    text->length += sizeof closing - 1;
    json_t *root = json_loadb((const char *)text->data, text->length, JSON_REJECT_DUPLICATES, NULL);
    if (root && !kernel_tuner_cache_is(root)) {
        json_decref(root);
        root = NULL;
    }
    return root;
}

int replay_read_json(const char *path, uint64_t max_json_bytes, json_t **out,
                     skytune_error *err)
{
    *out = NULL;
    uint64_t limit = max_json_bytes ? max_json_bytes : REPLAY_DEFAULT_MAX_JSON_BYTES;
    /* The limit leaves room for the closing that an unterminated cache gets. */
    if (limit > SIZE_MAX / 2) limit = SIZE_MAX / 2;
    char name[QUOTE_PATH];
    quote_text(path, name, sizeof name);
    byte_buffer raw = {0};
    if (read_file(path, name, limit, &raw, err) != 0) return -1;
    if (is_gzip(raw.data, raw.length)) {
        byte_buffer inflated = {0};
        int rc = gunzip(name, &raw, limit, &inflated, err);
        byte_buffer_free(&raw);
        if (rc != 0) return -1;
        raw = inflated;
    } else if (dataset_file_is_sqlite(raw.data, raw.length)) {
        byte_buffer_free(&raw);
        return err_set(err, "%s: a SQLite database, not a JSON file", name);
    }
    json_error_t jerr;
    memset(&jerr, 0, sizeof jerr);
    /* A key twice (a Kernel Tuner cache's configuration, say) is refused:
     * jansson would keep the last one without a word. */
    json_t *root = json_loadb((const char *)raw.data, raw.length, JSON_REJECT_DUPLICATES, &jerr);
    if (!root && !strstr(jerr.text, "duplicate")) root = parse_unterminated_cache(&raw);
    byte_buffer_free(&raw);
    char reason[QUOTE_TEXT];
    if (!root)
        return err_set(err, "%s: not JSON: %s (line %d, column %d)", name,
                       quote_text(jerr.text, reason, sizeof reason), jerr.line, jerr.column);
    *out = root;
    return 0;
}
