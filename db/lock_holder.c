#include "lock_holder.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "quote.h"

/* Processes named at most: a lock that blocks a writer is held by one
 * writer, or by the few readers of a rollback journal. */
#define MAX_HOLDERS 4

/* The files SQLite locks for a database, as /proc/locks names them:
 * device and inode. */
typedef struct locked_file {
    unsigned major, minor;
    unsigned long inode;
    bool main_file; /* the database file itself, not one beside it */
} locked_file;

static size_t database_files(const char *db_path, locked_file *files)
{
    static const char *const suffixes[] = {"", "-shm", "-wal", "-journal"};
    size_t n = 0;
    for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
        char path[4200];
        struct stat info;
        if ((size_t)snprintf(path, sizeof path, "%s%s", db_path, suffixes[k]) >= sizeof path ||
            stat(path, &info) != 0)
            continue;
        files[n++] = (locked_file){.major = major(info.st_dev), .minor = minor(info.st_dev),
                                   .inode = (unsigned long)info.st_ino, .main_file = k == 0};
    }
    return n;
}

/* One line of /proc/locks, "1: POSIX  ADVISORY  WRITE 4242 fe:00:1234 120 120": whether it
 * is a lock held (not one waited for, "1: -> POSIX ...") on one of the files, by whom and
 * whether for writing. */
static bool parse_lock(const char *line, const locked_file *files, size_t n_files, int *pid,
                       bool *write, bool *on_main_file)
{
    char kind[16], mode[16], access[16];
    unsigned major_number, minor_number;
    unsigned long inode;
    if (sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%lu", kind, mode, access, pid, &major_number,
               &minor_number, &inode) != 7 ||
        strcmp(kind, "->") == 0 || *pid <= 0)
        return false;
    for (size_t k = 0; k < n_files; k++)
        if (files[k].major == major_number && files[k].minor == minor_number &&
            files[k].inode == inode) {
            *write = strcmp(access, "WRITE") == 0;
            *on_main_file = files[k].main_file;
            return true;
        }
    return false;
}

/* The holders of the database's locks, other than this process: writers,
 * else readers of the database file itself. */
static size_t find_holders(const char *db_path, int *pids)
{
    locked_file files[4];
    size_t n_files = database_files(db_path, files);
    if (n_files == 0) return 0;
    FILE *f = fopen("/proc/locks", "r");
    if (!f) return 0;
    int writers[MAX_HOLDERS], readers[MAX_HOLDERS];
    size_t n_writers = 0, n_readers = 0;
    char line[256];
    int self = (int)getpid();
    while (fgets(line, sizeof line, f)) {
        int pid;
        bool write, on_main_file;
        if (!parse_lock(line, files, n_files, &pid, &write, &on_main_file) || pid == self)
            continue;
        int *list = write ? writers : on_main_file ? readers : NULL;
        size_t *n = write ? &n_writers : &n_readers;
        if (!list) continue;
        bool known = false;
        for (size_t k = 0; k < *n; k++) known |= list[k] == pid;
        if (!known && *n < MAX_HOLDERS) list[(*n)++] = pid;
    }
    fclose(f);
    size_t n = n_writers ? n_writers : n_readers;
    memcpy(pids, n_writers ? writers : readers, n * sizeof *pids);
    return n;
}

/* "4242 (sqlite3 results.db)", or "4242" when its command line cannot be
 * read (another user's process, or one that has ended). */
static void describe_process(int pid, char *buf, size_t len)
{
    char path[64], cmdline[1024];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(cmdline, 1, sizeof cmdline - 1, f) : 0;
    if (f) fclose(f);
    /* Arguments end in NUL bytes: shown as the spaces between them. */
    while (n > 0 && cmdline[n - 1] == '\0') n--;
    for (size_t k = 0; k < n; k++)
        if (cmdline[k] == '\0') cmdline[k] = ' ';
    cmdline[n] = '\0';
    if (n == 0) {
        snprintf(buf, len, "%d", pid);
        return;
    }
    char shown[QUOTE_TEXT];
    snprintf(buf, len, "%d (%s)", pid, quote_text(cmdline, shown, sizeof shown));
}

size_t lock_holder_text(const char *db_path, char *buf, size_t len)
{
    if (len) buf[0] = '\0';
    int pids[MAX_HOLDERS];
    size_t n = db_path && *db_path ? find_holders(db_path, pids) : 0;
    size_t used = 0;
    for (size_t k = 0; k < n && used < len; k++) {
        char process[QUOTE_TEXT + 32];
        describe_process(pids[k], process, sizeof process);
        used += (size_t)snprintf(buf + used, len - used, "%sprocess %s", k ? ", " : "", process);
    }
    return n;
}
