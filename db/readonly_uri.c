#include "readonly_uri.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool db_wal_in_use(const char *path)
{
    size_t len = strlen(path) + 5;
    char *wal = malloc(len);
    if (!wal) return true;
    snprintf(wal, len, "%s-wal", path);
    struct stat info;
    bool used = stat(wal, &info) == 0 && info.st_size > 0;
    free(wal);
    return used;
}

char *db_readonly_uri(const char *path)
{
    const char *query = db_wal_in_use(path) ? "?mode=ro" : "?immutable=1";
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
