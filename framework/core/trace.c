#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One event line; a configuration's text is at most a few hundred bytes,
 * and a longer one is cut (the span stays). */
#define TRACE_LINE_MAX 2048

struct trace {
    int fd;
    int pid;
    bool failed;
    char reason[160];
};

/* Appends `text` as the inside of a JSON string: quotes, backslashes and
 * control characters escaped. Returns the bytes used, stopping short of
 * `room` (a cut text stays valid JSON). */
static size_t json_escaped(char *out, size_t room, const char *text)
{
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        char piece[8];
        size_t n;
        if (*p == '"' || *p == '\\') {
            piece[0] = '\\';
            piece[1] = (char)*p;
            n = 2;
        } else if (*p < 0x20) {
            n = (size_t)snprintf(piece, sizeof piece, "\\u%04x", *p);
        } else {
            piece[0] = (char)*p;
            n = 1;
        }
        if (used + n >= room) break;
        memcpy(out + used, piece, n);
        used += n;
    }
    out[used] = '\0';
    return used;
}

static void write_line(trace *t, const char *line, size_t len)
{
    if (!t || t->failed) return;
    /* One write: O_APPEND puts it whole at the end of the file, after
     * whatever the other processes wrote. */
    ssize_t n = write(t->fd, line, len);
    if (n != (ssize_t)len) {
        t->failed = true;
        snprintf(t->reason, sizeof t->reason, "%s",
                 n < 0 ? strerror(errno) : "a short write (the disk may be full)");
    }
}

static void name_process(trace *t, const char *process)
{
    char name[256];
    json_escaped(name, sizeof name, process);
    char line[512];
    int len = snprintf(line, sizeof line,
                       "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                       "\"args\":{\"name\":\"%s %d\"}},\n",
                       t->pid, t->pid, name, t->pid);
    write_line(t, line, (size_t)len);
}

static int open_trace(const char *path, const char *process, int flags, trace **out,
                      skytune_error *err)
{
    trace *t = calloc(1, sizeof *t);
    if (!t) return err_set(err, "out of memory");
    t->fd = open(path, flags | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
    if (t->fd < 0) {
        int e = errno;
        free(t);
        return err_set(err, "cannot open the trace file '%s': %s", path, strerror(e));
    }
    t->pid = (int)getpid();
    if (flags & O_TRUNC) write_line(t, "[\n", 2);
    name_process(t, process);
    *out = t;
    return 0;
}

int trace_create(const char *path, const char *process, trace **out, skytune_error *err)
{
    return open_trace(path, process, O_CREAT | O_TRUNC, out, err);
}

int trace_append(const char *path, const char *process, trace **out, skytune_error *err)
{
    return open_trace(path, process, 0, out, err);
}

void trace_span(trace *t, const char *name, const char *category, double start_s, double end_s,
                const char *config)
{
    if (!t || t->failed) return;
    char line[TRACE_LINE_MAX];
    double dur_us = end_s > start_s ? 1e6 * (end_s - start_s) : 0.0;
    int len = snprintf(line, sizeof line,
                       "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
                       "\"ts\":%.3f,\"dur\":%.3f",
                       name, category, t->pid, t->pid, 1e6 * start_s, dur_us);
    size_t used = (size_t)len;
    if (config) {
        static const char head[] = ",\"args\":{\"configuration\":\"";
        memcpy(line + used, head, sizeof head - 1);
        used += sizeof head - 1;
        /* room for the closing "}} and ",\n" */
        used += json_escaped(line + used, sizeof line - used - 8, config);
        memcpy(line + used, "\"}", 2);
        used += 2;
    }
    memcpy(line + used, "},\n", 3);
    used += 3;
    write_line(t, line, used);
}

void trace_instant(trace *t, const char *name, double at_s)
{
    if (!t || t->failed) return;
    char line[512];
    int len = snprintf(line, sizeof line,
                       "{\"name\":\"%s\",\"ph\":\"i\",\"s\":\"p\",\"pid\":%d,\"tid\":%d,"
                       "\"ts\":%.3f},\n",
                       name, t->pid, t->pid, 1e6 * at_s);
    write_line(t, line, (size_t)len);
}

bool trace_failed(const trace *t, const char **reason)
{
    if (!t || !t->failed) return false;
    *reason = t->reason;
    return true;
}

void trace_close(trace *t, bool finish)
{
    if (!t) return;
    if (finish) {
        /* The last element carries no comma, so the array is valid JSON. */
        char line[160];
        int len = snprintf(line, sizeof line,
                           "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                           "\"args\":{\"sort_index\":0}}\n]\n",
                           t->pid, t->pid);
        write_line(t, line, (size_t)len);
    }
    close(t->fd);
    free(t);
}
