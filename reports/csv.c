#include "csv.h"

#include <string.h>

void csv_write_field(FILE *f, const char *text)
{
    if (!text) return;
    if (strpbrk(text, ",\"\r\n") == NULL) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (const char *p = text; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

int csv_write_table(FILE *f, const query_table *t)
{
    for (size_t k = 0; k < t->n_cols; k++) {
        if (k) fputc(',', f);
        csv_write_field(f, t->cols[k]);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t k = 0; k < t->n_cols; k++) {
            if (k) fputc(',', f);
            csv_write_field(f, t->cells[r * t->n_cols + k]);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}
