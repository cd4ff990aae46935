/* The last step of every message the command line prints: whatever a
 * message quotes (a path, a plugin's or a driver's name, a library's error
 * that names them) reaches the terminal with its control characters
 * escaped, so that no input can colour, move or retitle it. Texts are
 * quoted where messages are formed (quote.h); this writes a finished
 * message through the same quoting once more, which leaves quoted text as
 * it is and catches what a message took over unquoted. */
#ifndef SKYTUNE_CLI_TERMINAL_TEXT_H
#define SKYTUNE_CLI_TERMINAL_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Writes text to f as quote_text shows it, line by line: the line breaks
 * between its lines stay line breaks, every other control character and
 * every byte that is not UTF-8 is escaped. Nothing is cut. */
void terminal_write(FILE *f, const char *text);

/* "skytune: TEXT\n" on standard error, TEXT written as above; the second
 * formats TEXT first (cli_error). */
void terminal_message(const char *text);
void terminal_vmessage(const char *fmt, va_list ap);

/* printf and fprintf for the lines the commands print for people to read
 * (listings, summaries, progress): formatted, then written as
 * terminal_write. */
void terminal_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void terminal_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Data another program reads (CSV) written to standard output: byte for
 * byte into a file or a pipe, where it is data; written as terminal_write
 * where standard output is a terminal, which would run what a cell holds.
 * terminal_data_begin returns the stream to write the data to; end writes
 * it out and returns -1 on a write error. */
typedef struct terminal_data {
    FILE *f;
    char *text;
    size_t len;
} terminal_data;

FILE *terminal_data_begin(terminal_data *d);
int terminal_data_end(terminal_data *d);

#endif
