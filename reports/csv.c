#include "csv.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A spreadsheet takes a cell that starts with =, +, -, @, a tab or a
 * carriage return as a formula (CSV injection): a plugin name, a string
 * parameter or a message could run one in the reader's spreadsheet. Such a
 * text is written after a single quote, which spreadsheets show as text and
 * CSV readers keep; a number (-1.5, +3e8) is a number and stays as it is. */
static bool reads_as_formula(const char *text)
{
    if (text[0] == '\0' || !strchr("=+-@\t\r", text[0])) return false;
    char *end;
    (void)strtod(text, &end);
    return end == text || *end != '\0';
}

void csv_write_field(FILE *f, const char *text)
{
    if (!text) return;
    bool formula = reads_as_formula(text);
    if (!formula && strpbrk(text, ",\"\r\n") == NULL) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    if (formula) fputc('\'', f);
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
