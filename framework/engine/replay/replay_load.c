/* Loading a dataset: which reader a file is for, told by its content, and
 * a database path that names one of its campaigns. See replay_load.h. */
#include "replay_load.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "dataset_file.h"
#include "kernel_tuner_cache.h"
#include "quote.h"
#include "skytune_database.h"
#include "t4_results.h"

/* "A100" from ".../A100.cache.json.gz": the file name up to its first dot
 * (the whole name when it starts with one), quoted since it is shown and
 * recorded as the device's name. */
static char *name_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strcspn(base, ".");
    if (len == 0) len = strlen(base);
    char name[QUOTE_TEXT];
    quote_span(base, len, name, sizeof name);
    return strdup(name);
}

/* "FILE.db:SELECTOR" split at its last colon: FILE.db (malloc'd) and what
 * follows. False when there is no colon with text on both sides. */
static bool split_campaign_suffix(const char *path, char **file, const char **selector)
{
    const char *colon = strrchr(path, ':');
    if (!colon || colon == path || !colon[1]) return false;
    *file = malloc((size_t)(colon - path) + 1);
    if (!*file) return false;
    memcpy(*file, path, (size_t)(colon - path));
    (*file)[colon - path] = '\0';
    *selector = colon + 1;
    return true;
}

/* A path that cannot be opened as it is may be "FILE.db:CAMPAIGN". */
static int load_campaign_suffix(const char *path, const char *name, int open_errno,
                                replay_dataset *d, skytune_error *err)
{
    char *db_file = NULL;
    const char *selector = NULL;
    if (!split_campaign_suffix(path, &db_file, &selector))
        return err_set(err, "%s: cannot open: %s", name, strerror(open_errno));
    unsigned char start[DATASET_FILE_SQLITE_MAGIC];
    size_t got = 0;
    int file_errno = 0;
    char shown_file[QUOTE_TEXT];
    quote_text(db_file, shown_file, sizeof shown_file);
    int rc;
    if (dataset_file_start(db_file, start, sizeof start, &got, &file_errno) != 0) {
        rc = err_set(err, "%s: cannot open: %s; nor can %s, as a database whose campaign is "
                     "chosen with :ID: %s", name, strerror(open_errno), shown_file,
                     strerror(file_errno));
    } else if (!dataset_file_is_sqlite(start, got)) {
        rc = err_set(err, "%s: cannot open: %s; and %s is not a skytune database, whose "
                     "campaigns are chosen with FILE.db:ID", name, strerror(open_errno),
                     shown_file);
    } else {
        d->format = REPLAY_SKYTUNE;
        rc = skytune_database_read(name, db_file, selector, d, err);
    }
    free(db_file);
    return rc;
}

int replay_load(const char *path, uint64_t max_json_bytes, replay_dataset **out,
                skytune_error *err)
{
    *out = NULL;
    if (!path || !*path) return err_set(err, "no dataset file given");
    /* The path as messages quote it; the loaders below only name it. */
    char name[QUOTE_PATH];
    quote_text(path, name, sizeof name);
    replay_dataset *d = calloc(1, sizeof *d);
    if (!d) return err_set(err, "%s: out of memory", name);

    unsigned char start[DATASET_FILE_SQLITE_MAGIC];
    size_t got = 0;
    int open_errno = 0;
    int rc = 0;
    if (dataset_file_start(path, start, sizeof start, &got, &open_errno) != 0) {
        rc = load_campaign_suffix(path, name, open_errno, d, err);
    } else if (dataset_file_is_sqlite(start, got)) {
        d->format = REPLAY_SKYTUNE;
        rc = skytune_database_read(name, path, NULL, d, err);
    } else {
        json_t *root = NULL;
        rc = replay_read_json(path, max_json_bytes, &root, err);
        if (rc == 0) {
            if (kernel_tuner_cache_is(root)) {
                d->format = REPLAY_KERNEL_TUNER;
                rc = kernel_tuner_cache_read(name, root, d, err);
            } else if (t4_results_is(root)) {
                d->format = REPLAY_T4;
                rc = t4_results_read(name, root, d, err);
            } else {
                rc = err_set(err, "%s: neither a Kernel Tuner cache (no \"cache\" object) nor T4 "
                             "results (no \"results\" array)", name);
            }
            json_decref(root);
        }
        if (rc == 0 && !(d->name = name_from_path(path)))
            rc = err_set(err, "%s: out of memory", name);
    }
    if (rc != 0) {
        replay_free(d);
        return -1;
    }
    *out = d;
    return 0;
}
