#include "compiler_inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"

typedef struct include_walk {
    char **search;          /* the -I folders, in order */
    size_t n_search;
    char *seen[COMPILER_INPUT_MAX_FILES]; /* canonical paths already digested */
    size_t n_seen;
    uint64_t digest;
    bool any;
} include_walk;

static void walk_free(include_walk *w)
{
    for (size_t k = 0; k < w->n_search; k++) free(w->search[k]);
    free(w->search);
    for (size_t k = 0; k < w->n_seen; k++) free(w->seen[k]);
}

static void mix(include_walk *w, const char *label, const void *data, size_t len)
{
    w->digest = hash_fnv1a(w->digest, label, strlen(label) + 1);
    w->digest = hash_fnv1a(w->digest, data, len);
    w->any = true;
}

/* The -I folders of `options`: "-Idir" or "-I dir", a folder in double
 * quotes taken without them. */
static int search_folders(include_walk *w, const char *options, skytune_error *err)
{
    if (!options) return 0;
    const char *p = options;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (p[0] != '-' || p[1] != 'I') {
            while (*p && *p != ' ' && *p != '\t' && *p != '\n') p++;
            continue;
        }
        p += 2;
        while (*p == ' ' || *p == '\t') p++;
        const char *start = p, *end;
        if (*p == '"') {
            start = ++p;
            while (*p && *p != '"') p++;
            end = p;
            if (*p) p++;
        } else {
            while (*p && *p != ' ' && *p != '\t' && *p != '\n') p++;
            end = p;
        }
        if (end == start) continue;
        char **grown = realloc(w->search, (w->n_search + 1) * sizeof *grown);
        if (!grown) return err_set(err, "out of memory");
        w->search = grown;
        if (!(w->search[w->n_search] = strndup(start, (size_t)(end - start))))
            return err_set(err, "out of memory");
        w->n_search++;
    }
    return 0;
}

/* folder/name when it exists (lstat: a link counts as what it is, not where
 * it points), malloc'd; NULL otherwise. */
static char *existing(const char *folder, const char *name)
{
    size_t len = strlen(folder) + 1 + strlen(name) + 1;
    char *path = malloc(len);
    if (!path) return NULL;
    snprintf(path, len, "%s/%s", folder, name);
    struct stat st;
    if (lstat(path, &st) == 0) return path;
    free(path);
    return NULL;
}

static char *resolve(const include_walk *w, const char *name, bool quoted, const char *including)
{
    if (name[0] == '/') {
        struct stat st;
        return lstat(name, &st) == 0 ? strdup(name) : NULL;
    }
    char *path = NULL;
    if (quoted && including) path = existing(including, name);
    for (size_t k = 0; !path && k < w->n_search; k++) path = existing(w->search[k], name);
    if (!path) path = existing(".", name);
    return path;
}

static int walk_text(include_walk *w, const char *text, size_t len, const char *folder,
                     unsigned depth, skytune_error *err);

/* Digest the file at `path` (found for #include `name`) and what it
 * includes. */
static int walk_file(include_walk *w, const char *name, const char *path, unsigned depth,
                     skytune_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        mix(w, "dangling", path, strlen(path));
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        /* A FIFO, a device or a folder: its name and kind count, and it is
         * never opened (a FIFO would block). */
        char kind[32];
        snprintf(kind, sizeof kind, "special %o", (unsigned)(st.st_mode & S_IFMT));
        mix(w, kind, path, strlen(path));
        return 0;
    }
    char canonical[PATH_MAX];
    if (!realpath(path, canonical)) snprintf(canonical, sizeof canonical, "%s", path);
    for (size_t k = 0; k < w->n_seen; k++)
        if (strcmp(w->seen[k], canonical) == 0) return 0; /* an include guard's second visit */
    if (w->n_seen == COMPILER_INPUT_MAX_FILES)
        return err_set(err, "#include \"%s\": more than %d included files", name,
                       COMPILER_INPUT_MAX_FILES);
    if ((uint64_t)st.st_size > COMPILER_INPUT_MAX_BYTES)
        return err_set(err, "#include \"%s\": %s is larger than %u MiB", name, path,
                       COMPILER_INPUT_MAX_BYTES >> 20);
    if (!(w->seen[w->n_seen] = strdup(canonical))) return err_set(err, "out of memory");
    w->n_seen++;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        mix(w, "unreadable", canonical, strlen(canonical));
        return 0;
    }
    size_t size = (size_t)st.st_size;
    char *text = malloc(size + 1);
    if (!text) {
        close(fd);
        return err_set(err, "out of memory");
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, text + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    text[got] = '\0';
    mix(w, "file", canonical, strlen(canonical));
    mix(w, "text", text, got);
    char *folder = strdup(canonical);
    if (!folder) {
        free(text);
        return err_set(err, "out of memory");
    }
    char *slash = strrchr(folder, '/');
    if (slash) *slash = '\0';
    int rc = walk_text(w, text, got, slash ? folder : ".", depth + 1, err);
    free(folder);
    free(text);
    return rc;
}

/* Every #include line of `text`; `folder` is where the text lies (NULL for
 * the source handed to the driver). */
static int walk_text(include_walk *w, const char *text, size_t len, const char *folder,
                     unsigned depth, skytune_error *err)
{
    if (depth > COMPILER_INPUT_MAX_DEPTH)
        return err_set(err, "#include nested more than %d deep", COMPILER_INPUT_MAX_DEPTH);
    const char *end = text + len;
    for (const char *line = text; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol) eol = end;
        const char *p = line;
        line = eol + 1;
        while (p < eol && (*p == ' ' || *p == '\t')) p++;
        if (p == eol || *p != '#') continue;
        p++;
        while (p < eol && (*p == ' ' || *p == '\t')) p++;
        if ((size_t)(eol - p) < 7 || strncmp(p, "include", 7) != 0) continue;
        p += 7;
        while (p < eol && (*p == ' ' || *p == '\t')) p++;
        if (p == eol || (*p != '"' && *p != '<')) continue; /* a macro: not followed */
        char close = *p == '"' ? '"' : '>';
        const char *name_start = ++p;
        while (p < eol && *p != close) p++;
        if (p == eol || p == name_start) continue;
        char name[PATH_MAX];
        snprintf(name, sizeof name, "%.*s", (int)(p - name_start), name_start);
        mix(w, "include", name, strlen(name));
        char *path = resolve(w, name, close == '"', folder);
        if (!path) {
            mix(w, "missing", name, strlen(name));
            continue;
        }
        int rc = walk_file(w, name, path, depth, err);
        free(path);
        if (rc != 0) return -1;
    }
    return 0;
}

int compiler_includes_digest(const char *source, const char *options, uint64_t *digest,
                             skytune_error *err)
{
    *digest = 0;
    if (!strstr(source, "include")) return 0; /* the common case: nothing to read */
    include_walk w = {.digest = HASH_FNV1A_OFFSET};
    int rc = search_folders(&w, options, err);
    if (rc == 0) rc = walk_text(&w, source, strlen(source), NULL, 0, err);
    if (rc == 0 && w.any) *digest = w.digest;
    walk_free(&w);
    return rc;
}
