#include "read_in_place.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "sqlite_message.h"

/* stat() of PATH-suffix: 0, or -1 with errno. */
static int stat_beside(const char *path, const char *suffix, struct stat *info)
{
    size_t length = strlen(path) + strlen(suffix) + 1;
    char *beside = malloc(length);
    if (!beside) return -1;
    snprintf(beside, length, "%s%s", path, suffix);
    int rc = stat(beside, info);
    free(beside);
    return rc;
}

bool db_wal_has_frames(const char *path)
{
    struct stat info;
    if (stat_beside(path, "-wal", &info) != 0) return errno != ENOENT;
    return info.st_size > 0;
}

/* Whether PATH-suffix exists (or cannot be checked: then yes). */
static bool beside_exists(const char *path, const char *suffix)
{
    struct stat info;
    return stat_beside(path, suffix, &info) == 0 || errno != ENOENT;
}

bool db_may_change(const char *path)
{
    return beside_exists(path, "-wal") || beside_exists(path, "-shm") ||
           beside_exists(path, "-journal");
}

char *db_readonly_uri(const char *path)
{
    const char *query = db_may_change(path) ? "?mode=ro" : "?immutable=1";
    size_t len = strlen("file:") + strlen(query) + 3 * strlen(path) + 1;
    char *uri = malloc(len);
    if (!uri) return NULL;
    size_t used = (size_t)snprintf(uri, len, "file:");
    for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
        bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                     (*c >= '0' && *c <= '9') || strchr("/-_.~", *c);
        used += (size_t)snprintf(uri + used, len - used, plain ? "%c" : "%%%02X", *c);
    }
    snprintf(uri + used, len - used, "%s", query);
    return uri;
}

int db_open_in_place(const char *path, const char *name, sqlite3 **out, skytune_error *err)
{
    *out = NULL;
    if (!db_wal_has_frames(path)) {
        if (sqlite3_open_v2(path, out, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) return 0;
        sqlite3_close(*out);
        *out = NULL;
    }
    if (sqlite3_open_v2(path, out, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) return 0;
    int rc = err_set(err, "%s: cannot open: %s", name,
                     *out ? db_message(*out) : "out of memory");
    sqlite3_close(*out);
    *out = NULL;
    return rc;
}
