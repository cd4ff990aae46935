#include "device_peaks.h"

#include <ctype.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy_wait.h"
#include "quote.h"

int device_peaks_set(void *db, int64_t device_id, double gflops, double gbs, skytune_error *err)
{
    if (!(gflops > 0) || !(gbs > 0))
        return err_set(err, "peaks must be positive: %g GFLOP/s, %g GB/s", gflops, gbs);
    sqlite3_stmt *s = NULL;
    char why[DB_ERROR_TEXT];
    if (sqlite3_prepare_v2(db, "UPDATE devices SET peak_gflops = ?1, peak_gbs = ?2 WHERE id = ?3",
                           -1, &s, NULL) != SQLITE_OK)
        return err_set(err, "cannot record the peaks: %s", db_error_text(db, why, sizeof why));
    sqlite3_bind_double(s, 1, gflops);
    sqlite3_bind_double(s, 2, gbs);
    sqlite3_bind_int64(s, 3, device_id);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return err_set(err, "cannot record the peaks: %s", db_error_text(db, why, sizeof why));
    if (sqlite3_changes(db) != 1) return err_set(err, "there is no device %lld", (long long)device_id);
    return 0;
}

static bool contains_folded(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n) return true;
    }
    return n == 0;
}

static bool all_digits(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return false;
    return true;
}

int device_peaks_find(void *db, const char *selector, int64_t *id, bool *found, char *desc,
                      size_t desc_len, skytune_error *err)
{
    *found = false;
    sqlite3_stmt *s = NULL;
    char why[DB_ERROR_TEXT];
    if (sqlite3_prepare_v2(db, "SELECT id, platform, name, driver_version FROM devices ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK)
        return err_set(err, "cannot read the devices: %s", db_error_text(db, why, sizeof why));
    size_t matches = 0, total = 0;
    char list[768] = "";
    size_t used = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        long long row_id = sqlite3_column_int64(s, 0);
        const char *platform = (const char *)sqlite3_column_text(s, 1);
        const char *name = (const char *)sqlite3_column_text(s, 2);
        const char *driver = (const char *)sqlite3_column_text(s, 3);
        char both[512], described[512], label[QUOTE_TEXT];
        snprintf(both, sizeof both, "%s %s %s", platform, name, driver);
        /* The driver's names, shown in messages: quoted. */
        snprintf(described, sizeof described, "%s (%s, driver %s)", name, platform, driver);
        quote_text(described, label, sizeof label);
        total++;
        if (used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%lld: %s",
                                     total > 1 ? "; " : "", row_id, label);
        bool match = !selector || !*selector ||
                     (all_digits(selector) ? strtoll(selector, NULL, 10) == row_id
                                           : contains_folded(both, selector));
        if (!match) continue;
        if (matches++ == 0) {
            *id = row_id;
            snprintf(desc, desc_len, "%s", label);
        }
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return err_set(err, "cannot read the devices: %s", db_error_text(db, why, sizeof why));
    char shown[QUOTE_TEXT];
    if (matches > 1)
        return err_set(err, "%s matches %zu devices of the database; choose one with --device ID: %s",
                       selector && *selector ? quote_text(selector, shown, sizeof shown)
                                             : "no --device",
                       matches, list);
    *found = matches == 1;
    return 0;
}
