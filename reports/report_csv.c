#include "report_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "csv.h"
#include "quote.h"

int report_csv_save(const report_data *d, const char *dir, skytune_error *err)
{
    char name[QUOTE_PATH]; /* the folder as messages name it */
    quote_text(dir, name, sizeof name);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return err_set(err, "cannot create the CSV folder %s: %s", name, strerror(errno));
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return err_set(err, "%s is not a folder; --csv takes a folder to write CSV files into",
                       name);
    for (size_t k = 0; k < REPORT_N_QUERIES; k++) {
        if (!d->queries[k] || d->tables[k].n_cols == 0) continue;
        size_t len = strlen(dir) + strlen(d->queries[k]->name) + 8;
        char *path = malloc(len);
        if (!path) return err_set(err, "out of memory writing CSV files");
        snprintf(path, len, "%s/%s.csv", dir, d->queries[k]->name);
        atomic_file af;
        if (atomic_file_open(&af, path, err) != 0) {
            free(path);
            return -1;
        }
        free(path);
        csv_write_table(af.f, &d->tables[k]);
        if (atomic_file_commit(&af, err) != 0) return -1;
    }
    return 0;
}
