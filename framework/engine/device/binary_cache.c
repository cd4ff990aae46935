#include "binary_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compiler_inputs.h"
#include "hash.h"
#include "quote.h"

/* An entry file: a fixed header, the key text, then the payload (the
 * program binary, or a failure's status and build log). Numbers are little
 * endian, so that a folder shared over a network file system reads the
 * same on every host. */
#define ENTRY_MAGIC "SKYTBIN\n"
#define ENTRY_FORMAT 1
#define HEADER_SIZE 40  /* magic 8, format 4, kind 4, key length 8, payload length 8, checksum 8 */
#define KIND_BINARY 1
#define KIND_FAILURE 2
#define FAILURE_STATUS_SIZE 4

#define ENTRY_SUFFIX ".bin"
#define TEMP_INFIX ".tmp-"
#define TEMP_TEMPLATE TEMP_INFIX "XXXXXX"
/* A writer killed in the middle of a store leaves its temporary file
 * behind; one untouched this long is no longer being written. */
#define STALE_TEMP_S 3600

/* Independent seeds for the two halves of each 128-bit hash. */
#define MURMUR_SEED UINT64_C(0x736b7974756e6521)

struct binary_cache {
    char *dir;
    uint64_t max_bytes;
    /* The size of the folder's entries as of the last scan, plus what this
     * object stored since: the folder is rescanned only when this passes
     * the limit, not on every store. */
    bool dir_sized;
    uint64_t dir_bytes;
    binary_cache_counts counts;
    char distrust[QUOTE_PATH + 96]; /* why the folder is not used; "" when it is */
    char last_error[sizeof ((skytune_error *)0)->message];
    char store_reason[256];     /* why the last store that failed did */
};

/* ------------------------------------------------------------ hashing */

static uint64_t read_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = (v << 8) | p[k];
    return v;
}

static uint32_t read_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void write_le64(unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)(v >> (8 * k));
}

static void write_le32(unsigned char *p, uint32_t v)
{
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}

/* MurmurHash64A (Austin Appleby, public domain), reading its words as
 * little endian so that the hash is the same on every host. A different
 * construction from FNV-1a, so that the two halves of a key's name are
 * independent. */
static uint64_t murmur64a(const void *data, size_t len, uint64_t seed)
{
    const uint64_t m = UINT64_C(0xc6a4a7935bd1e995);
    const int r = 47;
    const unsigned char *p = data;
    uint64_t h = seed ^ ((uint64_t)len * m);
    size_t words = len / 8;
    for (size_t k = 0; k < words; k++) {
        uint64_t w = read_le64(p + 8 * k);
        w *= m;
        w ^= w >> r;
        w *= m;
        h ^= w;
        h *= m;
    }
    const unsigned char *tail = p + 8 * words;
    size_t rest = len & 7;
    if (rest > 0) {
        for (size_t k = rest; k-- > 0;) h ^= (uint64_t)tail[k] << (8 * k);
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

/* Covers the kind, the key and the payload, so that any damaged byte of an
 * entry is seen. */
static uint64_t entry_checksum(uint32_t kind, const void *key, size_t key_len,
                               const void *payload, size_t payload_len)
{
    uint64_t h = murmur64a(key, key_len, MURMUR_SEED ^ kind);
    return murmur64a(payload, payload_len, h);
}

/* ------------------------------------------------------------ errors */

static int cache_fail(binary_cache *c, skytune_error *err, const char *fmt, ...)
    SKYTUNE_PRINTF(3, 4);

static int cache_fail(binary_cache *c, skytune_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->last_error, sizeof c->last_error, fmt, ap);
    va_end(ap);
    c->counts.errors++;
    return err_set(err, "%s", c->last_error);
}

static int store_fail(binary_cache *c, skytune_error *err, const char *reason, const char *fmt,
                      ...) SKYTUNE_PRINTF(4, 5);

/* A store that could not write its entry: the message, as cache_fail's,
 * and the reason alone, which is the same for every entry one cause
 * refuses, so that a run can count them under it. */
static int store_fail(binary_cache *c, skytune_error *err, const char *reason, const char *fmt,
                      ...)
{
    char text[sizeof c->last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(c->store_reason, sizeof c->store_reason, "%s", reason);
    return cache_fail(c, err, "%s", text);
}

/* ------------------------------------------------------------ names */

static bool is_lower_hex(const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!((s[k] >= '0' && s[k] <= '9') || (s[k] >= 'a' && s[k] <= 'f'))) return false;
    return true;
}

static bool is_entry_name(const char *name)
{
    return strlen(name) == BINARY_CACHE_NAME_LEN + strlen(ENTRY_SUFFIX) &&
           is_lower_hex(name, BINARY_CACHE_NAME_LEN) &&
           strcmp(name + BINARY_CACHE_NAME_LEN, ENTRY_SUFFIX) == 0;
}

/* What mkstemp makes of TEMP_TEMPLATE: six letters or digits. */
static bool is_temp_name(const char *name)
{
    size_t prefix = BINARY_CACHE_NAME_LEN + strlen(TEMP_INFIX);
    if (strlen(name) != prefix + 6 || !is_lower_hex(name, BINARY_CACHE_NAME_LEN) ||
        strncmp(name + BINARY_CACHE_NAME_LEN, TEMP_INFIX, strlen(TEMP_INFIX)) != 0)
        return false;
    for (const char *p = name + prefix; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return false;
    return true;
}

/* dir + "/" + a + b, malloc'd. */
static char *join_path(const char *dir, const char *a, const char *b)
{
    size_t len = strlen(dir) + 1 + strlen(a) + strlen(b) + 1;
    char *path = malloc(len);
    if (path) snprintf(path, len, "%s/%s%s", dir, a, b);
    return path;
}

/* ------------------------------------------------------------ the folder */

int binary_cache_default_dir(char **out, skytune_error *err)
{
    const char *own = getenv("SKYTUNE_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    const char *base, *rest;
    if (own && *own) {
        base = own;
        rest = "";
    } else if (xdg && xdg[0] == '/') {
        base = xdg;
        rest = "/skytune/binaries";
    } else if (home && *home) {
        base = home;
        rest = "/.cache/skytune/binaries";
    } else {
        return err_set(err, "no folder for the binary cache: set SKYTUNE_CACHE_DIR, "
                            "XDG_CACHE_HOME (an absolute path) or HOME");
    }
    size_t len = strlen(base) + strlen(rest) + 1;
    *out = malloc(len);
    if (!*out) return err_set(err, "out of memory");
    snprintf(*out, len, "%s%s", base, rest);
    return 0;
}

/* mkdir -p, each folder it creates private to the user. -1 with err, and
 * errno saying why in a word. */
static int make_dirs(const char *dir, skytune_error *err)
{
    char *path = strdup(dir);
    if (!path) {
        err_set(err, "out of memory");
        errno = ENOMEM;
        return -1;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            int e = errno;
            char shown[QUOTE_PATH];
            err_set(err, "cannot create the binary cache folder %s: %s",
                    quote_text(path, shown, sizeof shown), strerror(e));
            free(path);
            errno = e;
            return -1;
        }
        *p = saved;
        if (saved == '\0') break;
    }
    free(path);
    struct stat st;
    char shown[QUOTE_PATH];
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        err_set(err, "the binary cache folder %s is not a folder",
                quote_text(dir, shown, sizeof shown));
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* The files of the folder that belong to the cache: entries and writers'
 * temporary files, regular files only. */
typedef struct cache_file {
    char name[BINARY_CACHE_NAME_LEN + 16];
    bool temp;
    bool special;               /* not a regular file: a FIFO, a link, a socket */
    uint64_t size;
    struct timespec mtime;
} cache_file;

typedef struct cache_listing {
    cache_file *files;
    size_t count, cap;
    uint64_t entries, entry_bytes;
    uint64_t specials;
} cache_listing;

/* A folder that does not exist lists as empty. */
static int list_cache_files(const char *dir, cache_listing *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    char shown[QUOTE_PATH];
    quote_text(dir, shown, sizeof shown);
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) return 0;
        return err_set(err, "cannot list the binary cache folder %s: %s", shown, strerror(errno));
    }
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        bool temp = is_temp_name(de->d_name);
        if (!temp && !is_entry_name(de->d_name)) continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode))
            continue; /* gone since readdir (another process), or a folder: not ours */
        if (out->count == out->cap) {
            size_t cap = out->cap ? 2 * out->cap : 64;
            cache_file *grown = realloc(out->files, cap * sizeof *grown);
            if (!grown) {
                closedir(d);
                free(out->files);
                memset(out, 0, sizeof *out);
                return err_set(err, "out of memory listing %s", shown);
            }
            out->files = grown;
            out->cap = cap;
        }
        cache_file *f = &out->files[out->count++];
        snprintf(f->name, sizeof f->name, "%s", de->d_name);
        f->temp = temp;
        /* Something else at an entry's name (a FIFO, a link) is never an
         * entry, but it is the cache's to show and to clear. */
        f->special = !S_ISREG(st.st_mode);
        f->size = f->special ? 0 : (uint64_t)st.st_size;
        f->mtime = st.st_mtim;
        if (f->special) {
            out->specials++;
        } else if (!temp) {
            out->entries++;
            out->entry_bytes += f->size;
        }
        errno = 0;
    }
    int read_errno = errno;
    closedir(d);
    if (read_errno != 0) {
        free(out->files);
        memset(out, 0, sizeof *out);
        return err_set(err, "cannot list the binary cache folder %s: %s", shown,
                       strerror(read_errno));
    }
    return 0;
}

static int remove_cache_file(const char *dir, const char *name)
{
    char *path = join_path(dir, name, "");
    if (!path) return -1;
    int rc = unlink(path) == 0 || errno == ENOENT ? 0 : -1;
    free(path);
    return rc;
}

int binary_cache_usage(const char *dir, binary_cache_folder_usage *out, skytune_error *err)
{
    cache_listing l;
    if (list_cache_files(dir, &l, err) != 0) return -1;
    out->entries = l.entries;
    out->bytes = l.entry_bytes;
    out->others = l.specials;
    free(l.files);
    return 0;
}

int binary_cache_clear(const char *dir, binary_cache_folder_usage *removed, skytune_error *err)
{
    cache_listing l;
    if (list_cache_files(dir, &l, err) != 0) return -1;
    memset(removed, 0, sizeof *removed);
    int rc = 0;
    for (size_t k = 0; k < l.count; k++) {
        if (remove_cache_file(dir, l.files[k].name) != 0) {
            int why = errno;
            char shown[QUOTE_PATH];
            rc = err_set(err, "cannot remove %s/%s: %s", quote_text(dir, shown, sizeof shown),
                         l.files[k].name, strerror(why));
            break;
        }
        if (l.files[k].special) {
            removed->others++;
        } else if (!l.files[k].temp) {
            removed->entries++;
            removed->bytes += l.files[k].size;
        }
    }
    free(l.files);
    return rc;
}

static int older_first(const void *a, const void *b)
{
    const cache_file *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Measure the folder, and when its entries are over the limit remove the
 * least recently used down to 90 % of it. Also removes temporary files that
 * killed writers left. */
static int size_folder(binary_cache *c, skytune_error *err)
{
    cache_listing l;
    if (list_cache_files(c->dir, &l, err) != 0) return -1;
    time_t now = time(NULL);
    size_t n_entries = 0;
    for (size_t k = 0; k < l.count; k++) {
        if (l.files[k].special) continue; /* no size to count; cleared by hand */
        if (l.files[k].temp) {
            if (l.files[k].mtime.tv_sec + STALE_TEMP_S < now) remove_cache_file(c->dir, l.files[k].name);
        } else {
            l.files[n_entries++] = l.files[k];
        }
    }
    uint64_t total = l.entry_bytes;
    if (c->max_bytes > 0 && total > c->max_bytes) {
        uint64_t target = c->max_bytes - c->max_bytes / 10;
        qsort(l.files, n_entries, sizeof *l.files, older_first);
        for (size_t k = 0; k < n_entries && total > target; k++) {
            if (remove_cache_file(c->dir, l.files[k].name) != 0) {
                int e = errno;
                char shown[QUOTE_PATH];
                quote_text(c->dir, shown, sizeof shown);
                /* The name is the cache's own (is_entry_name). */
                int rc =
                    err_set(err,
                            "cannot remove %s/%s to keep the binary cache under %llu "
                            "bytes: %s",
                            shown, l.files[k].name, (unsigned long long)c->max_bytes, strerror(e));
                free(l.files);
                return rc;
            }
            total -= l.files[k].size;
            c->counts.evicted++;
        }
    }
    free(l.files);
    c->dir_bytes = total;
    c->dir_sized = true;
    return 0;
}

/* ------------------------------------------------------------ trust */

/* Whether a file or folder is one only this user could have put there and
 * only this user can change: owned by the user, writable by no one else. A
 * binary from anywhere else would run as the user's code. */
static bool owned_privately(const struct stat *st, const char *what, const char *path, char *why,
                            size_t len)
{
    char shown[QUOTE_PATH];
    if (st->st_uid != geteuid()) {
        snprintf(why, len, "%s %s belongs to another user (uid %u)", what,
                 quote_text(path, shown, sizeof shown), (unsigned)st->st_uid);
        return false;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, len, "%s %s can be written by other users (mode %04o)", what,
                 quote_text(path, shown, sizeof shown), (unsigned)(st->st_mode & 07777));
        return false;
    }
    return true;
}

bool binary_cache_folder_trusted(const char *dir, char *why, size_t len)
{
    struct stat st;
    if (lstat(dir, &st) != 0) return true; /* created private by the first store */
    if (S_ISLNK(st.st_mode)) {
        char shown[QUOTE_PATH];
        snprintf(why, len, "the binary cache folder %s is a symbolic link",
                 quote_text(dir, shown, sizeof shown));
        return false;
    }
    return owned_privately(&st, "the binary cache folder", dir, why, len);
}

/* ------------------------------------------------------------ the object */

int binary_cache_open(const char *dir, uint64_t max_bytes, binary_cache **out,
                      skytune_error *err)
{
    char *path = NULL;
    if (dir) {
        if (!*dir) return err_set(err, "the binary cache folder is an empty path");
        path = strdup(dir);
        if (!path) return err_set(err, "out of memory");
    } else if (binary_cache_default_dir(&path, err) != 0) {
        return -1;
    }
    struct stat st;
    char shown[QUOTE_PATH];
    quote_text(path, shown, sizeof shown);
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        err_set(err, "the binary cache folder %s exists and is not a folder", shown);
        free(path);
        return -1;
    }
    binary_cache *c = calloc(1, sizeof *c);
    if (!c) {
        free(path);
        return err_set(err, "out of memory");
    }
    c->dir = path;
    c->max_bytes = max_bytes;
    if (!binary_cache_folder_trusted(path, c->distrust, sizeof c->distrust) && !c->distrust[0])
        snprintf(c->distrust, sizeof c->distrust, "the binary cache folder %s is not private",
                 shown);
    *out = c;
    return 0;
}

const char *binary_cache_distrust(const binary_cache *c)
{
    return c->distrust[0] ? c->distrust : NULL;
}

void binary_cache_close(binary_cache *c)
{
    if (!c) return;
    free(c->dir);
    free(c);
}

const char *binary_cache_dir(const binary_cache *c)
{
    return c->dir;
}

void binary_cache_note_rejected(binary_cache *c)
{
    c->counts.rejected++;
}

binary_cache_counts binary_cache_get_counts(const binary_cache *c)
{
    return c->counts;
}

const char *binary_cache_last_error(const binary_cache *c)
{
    return c->last_error;
}

const char *binary_cache_store_reason(const binary_cache *c)
{
    return c->store_reason;
}

/* ------------------------------------------------------------ keys */

int binary_cache_key_make(const skytune_device_info *dev, const char *source,
                          const char *options, binary_cache_key *key, skytune_error *err)
{
    memset(key, 0, sizeof *key);
    size_t source_len = strlen(source);
    /* The source by hash (generated sources are large and differ per
     * configuration); everything else in full. Options come last: they are
     * the one field that may hold a newline. */
    const char *format = "skytune program binary %d\n"
                         "platform %s\ndevice %s\ndevice version %s\ndriver %s\n"
                         "source %016llx%016llx %zu\nincludes %016llx\noptions %s";
    unsigned long long h1 = hash_fnv1a(HASH_FNV1A_OFFSET, source, source_len);
    unsigned long long h2 = murmur64a(source, source_len, MURMUR_SEED);
    /* What the source includes is compiled too: a changed header is
     * another key, never a stale binary or a stale failure. */
    uint64_t includes;
    if (compiler_includes_digest(source, options, &includes, err) != 0) return -1;
    unsigned long long h3 = includes;
    int len = snprintf(NULL, 0, format, ENTRY_FORMAT, dev->platform, dev->name,
                       dev->opencl_version, dev->driver_version, h1, h2, source_len, h3,
                       options);
    if (len < 0) return err_set(err, "cannot format the binary cache key");
    key->text = malloc((size_t)len + 1);
    if (!key->text) return err_set(err, "out of memory");
    snprintf(key->text, (size_t)len + 1, format, ENTRY_FORMAT, dev->platform, dev->name,
             dev->opencl_version, dev->driver_version, h1, h2, source_len, h3, options);
    key->text_len = (size_t)len;
    snprintf(key->name, sizeof key->name, "%016llx%016llx",
             (unsigned long long)hash_fnv1a(HASH_FNV1A_OFFSET, key->text, key->text_len),
             (unsigned long long)murmur64a(key->text, key->text_len, MURMUR_SEED));
    return 0;
}

void binary_cache_key_clear(binary_cache_key *key)
{
    free(key->text);
    memset(key, 0, sizeof *key);
}

/* ------------------------------------------------------------ entries */

void binary_cache_entry_clear(binary_cache_entry *entry)
{
    free(entry->binary);
    free(entry->build_log);
    memset(entry, 0, sizeof *entry);
}

/* 0: read; 1: the file ended first; -1: a read error (errno). */
static int read_fully(int fd, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) return 1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int write_fully(int fd, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Remove a damaged entry, unless a writer has renamed a new one into its
 * place since it was opened. */
static void remove_damaged(const char *path, const struct stat *opened)
{
    struct stat now;
    if (stat(path, &now) == 0 && now.st_dev == opened->st_dev && now.st_ino == opened->st_ino)
        unlink(path);
}

static int load_miss(binary_cache *c)
{
    c->counts.misses++;
    return BINARY_CACHE_MISS;
}

typedef struct entry_header {
    uint32_t kind;
    uint64_t key_len, payload_len, checksum;
} entry_header;

/* The header of an entry file of file_size bytes into *h; false when it is
 * not one of ours, or does not fit the file's size. */
static bool parse_header(const unsigned char *header, uint64_t file_size, entry_header *h)
{
    h->kind = read_le32(header + 12);
    h->key_len = read_le64(header + 16);
    h->payload_len = read_le64(header + 24);
    h->checksum = read_le64(header + 32);
    return memcmp(header, ENTRY_MAGIC, 8) == 0 && read_le32(header + 8) == ENTRY_FORMAT &&
           (h->kind == KIND_BINARY || h->kind == KIND_FAILURE) && h->key_len <= file_size &&
           h->payload_len <= file_size &&
           HEADER_SIZE + h->key_len + h->payload_len == file_size &&
           !(h->kind == KIND_FAILURE && h->payload_len < FAILURE_STATUS_SIZE);
}

/* A checked entry's payload into *entry, which takes it: a program binary,
 * or a failed build's status and log. */
static int hand_out(binary_cache *c, const entry_header *h, unsigned char *payload,
                    binary_cache_entry *entry)
{
    if (h->kind == KIND_BINARY) {
        entry->binary = payload;
        entry->binary_size = h->payload_len;
        c->counts.binary_hits++;
        return BINARY_CACHE_BINARY;
    }
    entry->build_status = (int)(int32_t)read_le32(payload);
    size_t log_len = h->payload_len - FAILURE_STATUS_SIZE;
    memmove(payload, payload + FAILURE_STATUS_SIZE, log_len);
    payload[log_len] = '\0';
    entry->build_log = (char *)payload;
    c->counts.failure_hits++;
    return BINARY_CACHE_FAILURE;
}

int binary_cache_load(binary_cache *c, const binary_cache_key *key, binary_cache_entry *entry,
                      skytune_error *err)
{
    memset(entry, 0, sizeof *entry);
    if (c->distrust[0]) return load_miss(c);
    char *path = join_path(c->dir, key->name, ENTRY_SUFFIX);
    if (!path) return cache_fail(c, err, "out of memory");
    char shown[QUOTE_PATH]; /* the path in messages: the folder is the user's to name */
    quote_text(path, shown, sizeof shown);
    /* Never a link (O_NOFOLLOW), and never a wait: a FIFO at an entry's
     * name would block an open without O_NONBLOCK until a writer came. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR || e == ELOOP) {
            free(path);
            return load_miss(c);
        }
        cache_fail(c, err, "cannot read the binary cache entry %s: %s", shown, strerror(e));
        free(path);
        return -1;
    }
    int rc = -1;
    bool damaged = false;
    unsigned char *stored_key = NULL, *payload = NULL;
    struct stat st;
    unsigned char header[HEADER_SIZE];
    if (fstat(fd, &st) != 0) {
        cache_fail(c, err, "cannot read the binary cache entry %s: %s", shown, strerror(errno));
        goto done;
    }
    char why[256];
    if (!S_ISREG(st.st_mode) || !owned_privately(&st, "the entry", path, why, sizeof why)) {
        /* Not ours to read, nor to remove: a special file or another
         * user's entry is a miss, and the store that follows replaces it
         * with an entry of our own. */
        c->counts.untrusted++;
        rc = load_miss(c);
        goto done;
    }
    int got = read_fully(fd, header, sizeof header);
    if (got < 0) {
        cache_fail(c, err, "cannot read the binary cache entry %s: %s", shown, strerror(errno));
        goto done;
    }
    entry_header h;
    uint64_t file_size = (uint64_t)st.st_size;
    if (got != 0 || !parse_header(header, file_size, &h)) {
        damaged = true;
        goto done;
    }
    /* Another key under this name (a hash collision, or a damaged key) is a
     * miss; the store that follows the miss replaces it. */
    if (h.key_len != key->text_len) {
        rc = load_miss(c);
        goto done;
    }
    stored_key = malloc(h.key_len + 1);
    payload = malloc(h.payload_len + 1);
    if (!stored_key || !payload) {
        cache_fail(c, err, "out of memory reading the binary cache entry %s (%llu bytes)", shown,
                   (unsigned long long)file_size);
        goto done;
    }
    got = read_fully(fd, stored_key, h.key_len);
    if (got == 0 && memcmp(stored_key, key->text, h.key_len) != 0) {
        rc = load_miss(c);
        goto done;
    }
    if (got == 0) got = read_fully(fd, payload, h.payload_len);
    if (got < 0) {
        cache_fail(c, err, "cannot read the binary cache entry %s: %s", shown, strerror(errno));
        goto done;
    }
    if (got != 0 ||
        entry_checksum(h.kind, stored_key, h.key_len, payload, h.payload_len) != h.checksum) {
        damaged = true;
        goto done;
    }
    /* The modification time is the entry's last use, for the size limit;
     * an entry someone else owns stays usable without it. */
    futimens(fd, NULL);
    rc = hand_out(c, &h, payload, entry);
    payload = NULL;

done:
    if (damaged) {
        remove_damaged(path, &st);
        rc = load_miss(c);
    }
    close(fd);
    free(stored_key);
    free(payload);
    free(path);
    return rc;
}

/* Write the entry to a temporary file beside its final name and rename it
 * into place, so that a reader sees the old entry, the new one, or none.
 * There is no fsync: an entry that a power cut damages fails its checksum
 * and reads as a miss, and syncing every store would cost more than the
 * compiles it saves on some file systems. */
static int store_entry(binary_cache *c, const binary_cache_key *key, uint32_t kind,
                       const unsigned char *payload, size_t payload_len, skytune_error *err)
{
    if (c->distrust[0]) return store_fail(c, err, c->distrust, "%s: not stored", c->distrust);
    char *path = join_path(c->dir, key->name, ENTRY_SUFFIX);
    char *temp = join_path(c->dir, key->name, TEMP_TEMPLATE);
    if (!path || !temp) {
        free(path);
        free(temp);
        return store_fail(c, err, "out of memory", "out of memory");
    }
    char shown[QUOTE_PATH]; /* the path in messages: the folder is the user's to name */
    quote_text(path, shown, sizeof shown);
    int fd = mkstemp(temp);
    if (fd < 0 && errno == ENOENT) {
        skytune_error dir_err = {0};
        if (make_dirs(c->dir, &dir_err) != 0) {
            store_fail(c, err, strerror(errno), "%s", dir_err.message);
            free(path);
            free(temp);
            return -1;
        }
        /* Someone else may have made the folder between the two calls. */
        if (!binary_cache_folder_trusted(c->dir, c->distrust, sizeof c->distrust)) {
            store_fail(c, err, c->distrust, "%s: not stored", c->distrust);
            free(path);
            free(temp);
            return -1;
        }
        snprintf(temp, strlen(temp) + 1, "%s/%s%s", c->dir, key->name, TEMP_TEMPLATE);
        fd = mkstemp(temp);
    }
    if (fd < 0) {
        int e = errno;
        char folder[QUOTE_PATH];
        store_fail(c, err, strerror(e), "cannot write to the binary cache folder %s: %s",
                   quote_text(c->dir, folder, sizeof folder), strerror(e));
        free(path);
        free(temp);
        return -1;
    }
    unsigned char header[HEADER_SIZE];
    memcpy(header, ENTRY_MAGIC, 8);
    write_le32(header + 8, ENTRY_FORMAT);
    write_le32(header + 12, kind);
    write_le64(header + 16, key->text_len);
    write_le64(header + 24, payload_len);
    write_le64(header + 32, entry_checksum(kind, key->text, key->text_len, payload, payload_len));
    bool written = write_fully(fd, header, sizeof header) == 0 &&
                   write_fully(fd, key->text, key->text_len) == 0 &&
                   write_fully(fd, payload, payload_len) == 0;
    int write_errno = errno;
    if (close(fd) != 0 && written) {
        written = false;
        write_errno = errno;
    }
    if (!written || rename(temp, path) != 0) {
        if (written) write_errno = errno;
        unlink(temp);
        store_fail(c, err, strerror(write_errno), "cannot write the binary cache entry %s: %s",
                   shown, strerror(write_errno));
        free(path);
        free(temp);
        return -1;
    }
    free(path);
    free(temp);
    c->counts.stores++;
    if (c->max_bytes == 0) return 0;
    uint64_t size = HEADER_SIZE + key->text_len + payload_len;
    if (c->dir_sized && c->dir_bytes + size <= c->max_bytes) {
        c->dir_bytes += size;
        return 0;
    }
    /* The entry is in place whatever the rescan does: a limit that could
     * not be kept is the cache's error, not the store's. */
    skytune_error size_err = {0};
    if (size_folder(c, &size_err) != 0) cache_fail(c, NULL, "stored, but %s", size_err.message);
    return 0;
}

int binary_cache_store_binary(binary_cache *c, const binary_cache_key *key,
                              const unsigned char *binary, size_t size, skytune_error *err)
{
    if (size == 0)
        return store_fail(c, err, "the program binary is empty",
                          "an empty program binary is not worth caching (entry %s)", key->name);
    return store_entry(c, key, KIND_BINARY, binary, size, err);
}

int binary_cache_store_failure(binary_cache *c, const binary_cache_key *key, int build_status,
                               const char *log, skytune_error *err)
{
    size_t log_len = log ? strlen(log) : 0;
    unsigned char *payload = malloc(FAILURE_STATUS_SIZE + log_len);
    if (!payload) return store_fail(c, err, "out of memory", "out of memory");
    write_le32(payload, (uint32_t)(int32_t)build_status);
    if (log_len) memcpy(payload + FAILURE_STATUS_SIZE, log, log_len);
    int rc = store_entry(c, key, KIND_FAILURE, payload, FAILURE_STATUS_SIZE + log_len, err);
    free(payload);
    return rc;
}
