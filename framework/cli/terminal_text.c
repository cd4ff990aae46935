#include "terminal_text.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quote.h"

/* One line, without its line break. */
static void write_line(FILE *f, const char *line, size_t n)
{
    /* Room for every byte escaped as \xNN, so that nothing is cut. */
    size_t room = 4 * n + 1;
    char small[1024];
    char *buf = room <= sizeof small ? small : malloc(room);
    if (!buf) {
        fputs("(a message too long for the memory left)", f);
        return;
    }
    fputs(quote_span(line, n, buf, room), f);
    if (buf != small) free(buf);
}

void terminal_write(FILE *f, const char *text)
{
    if (!text) return;
    for (;;) {
        const char *end = strchr(text, '\n');
        write_line(f, text, end ? (size_t)(end - text) : strlen(text));
        if (!end) return;
        fputc('\n', f);
        text = end + 1;
    }
}

/* The formatted text whole: in small when it fits, else malloc'd (*grown,
 * to free). */
static const char *format(char *small, size_t len, char **grown, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, len, fmt, ap);
    *grown = n >= 0 && (size_t)n >= len ? malloc((size_t)n + 1) : NULL;
    if (*grown) vsnprintf(*grown, (size_t)n + 1, fmt, again);
    va_end(again);
    return *grown ? *grown : small;
}

void terminal_message(const char *text)
{
    /* One message, not interleaved with another thread's. */
    flockfile(stderr);
    fputs("skytune: ", stderr);
    terminal_write(stderr, text);
    fputc('\n', stderr);
    funlockfile(stderr);
}

void terminal_vmessage(const char *fmt, va_list ap)
{
    char small[2048], *grown;
    terminal_message(format(small, sizeof small, &grown, fmt, ap));
    free(grown);
}

static void terminal_vfprintf(FILE *f, const char *fmt, va_list ap)
{
    char small[2048], *grown;
    terminal_write(f, format(small, sizeof small, &grown, fmt, ap));
    free(grown);
}

void terminal_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    terminal_vfprintf(stdout, fmt, ap);
    va_end(ap);
}

void terminal_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    terminal_vfprintf(f, fmt, ap);
    va_end(ap);
}

FILE *terminal_data_begin(terminal_data *d)
{
    d->text = NULL;
    d->len = 0;
    d->f = isatty(fileno(stdout)) ? open_memstream(&d->text, &d->len) : NULL;
    /* Out of memory: the data as it is rather than none. */
    return d->f ? d->f : stdout;
}

int terminal_data_end(terminal_data *d)
{
    if (!d->f) return ferror(stdout) ? -1 : 0;
    int rc = fclose(d->f);
    terminal_write(stdout, d->text);
    free(d->text);
    d->f = NULL;
    d->text = NULL;
    return rc != 0 || ferror(stdout) ? -1 : 0;
}
