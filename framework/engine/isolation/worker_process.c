/* memfd_create, for the workers' output files. */
#define _GNU_SOURCE
#include "worker_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "quote.h"

static const char *const role_names[] = {"measure", "compile"};

const char *worker_role_name(worker_role role)
{
    return (unsigned)role < 2 ? role_names[role] : "unknown";
}

int worker_role_parse(const char *name)
{
    for (int k = 0; k < 2; k++)
        if (strcmp(name, role_names[k]) == 0) return k;
    return -1;
}

void worker_process_clear(worker_process *w)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->output_fd = -1;
}

/* A file in memory for the worker's output, opened for appending: the
 * worker's writes always land at its end, also after the engine has
 * emptied it. */
static int open_output_file(skytune_error *err)
{
    int fd = memfd_create("skytune-worker-output", MFD_CLOEXEC);
    if (fd < 0) return err_set(err, "cannot create a file for a worker's output: %s", strerror(errno));
    if (fcntl(fd, F_SETFL, O_APPEND) != 0) {
        int saved = errno;
        close(fd);
        return err_set(err, "cannot open a worker's output file for appending: %s", strerror(saved));
    }
    return fd;
}

int worker_process_spawn(const char *exe, worker_role role, worker_process *w,
                         skytune_error *err)
{
    worker_process_clear(w);
    int output = open_output_file(err);
    if (output < 0) return -1;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        close(output);
        return err_set(err, "cannot create a pipe for a worker: %s", strerror(errno));
    }
    char *argv[] = {(char *)exe, "worker", (char *)worker_role_name(role), NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(pair[0]);
        close(pair[1]);
        close(output);
        return err_set(err, "cannot start a worker process: %s", strerror(errno));
    }
    if (pid == 0) {
        /* Only async-signal-safe calls from here to exec. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        /* Both move above the descriptors they are copied onto first:
         * either may be one of them (the first worker's output file is fd 3
         * when the parent holds nothing else), and a dup2 onto it would
         * close it, sending the worker's output into the protocol. */
        int fd = fcntl(pair[1], F_DUPFD_CLOEXEC, 10);
        int out = fcntl(output, F_DUPFD_CLOEXEC, 10);
        if (fd < 0 || out < 0 || dup2(fd, WORKER_FD) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
            dup2(out, STDERR_FILENO) < 0)
            _exit(127);
        execv(exe, argv);
        _exit(127);
    }
    close(pair[1]);
    w->pid = pid;
    w->fd = pair[0];
    w->output_fd = output;
    w->role = role;
    return 0;
}

char *worker_process_take_output(worker_process *w)
{
    struct stat st;
    if (w->output_fd < 0 || fstat(w->output_fd, &st) != 0 || st.st_size <= 0) return NULL;
    size_t size = (size_t)st.st_size;
    size_t keep = size < WORKER_OUTPUT_KEEP ? size : WORKER_OUTPUT_KEEP;
    char *text = malloc(keep + 64);
    ssize_t got = text ? pread(w->output_fd, text, keep, 0) : -1;
    /* Emptied whether or not it could be read: what follows belongs to the
     * next job. */
    if (ftruncate(w->output_fd, 0) != 0) { /* the next take reads it again */ }
    if (got <= 0) {
        free(text);
        return NULL;
    }
    size_t len = (size_t)got;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--;
    if (size > (size_t)got)
        len += (size_t)snprintf(text + len, 64, "\n... (%zu more bytes)", size - (size_t)got);
    text[len] = '\0';
    if (len == 0) {
        free(text);
        return NULL;
    }
    return text;
}

void worker_output_notice(char *output, const char *who,
                          void (*on_notice)(void *ctx, const char *text), void *ctx)
{
    if (output && on_notice) {
        char shown[QUOTE_TEXT * 2], line[QUOTE_TEXT * 2 + 128];
        snprintf(line, sizeof line, "%s wrote: %s", who, quote_text(output, shown, sizeof shown));
        on_notice(ctx, line);
    }
    free(output);
}

void worker_process_discard_output(worker_process *w)
{
    if (w->output_fd >= 0 && ftruncate(w->output_fd, 0) != 0) { /* read with the next job's */ }
}

int worker_process_start(const char *exe, worker_role role, const worker_setup *setup,
                         worker_process *w, skytune_error *err)
{
    if (worker_process_spawn(exe, role, w, err) != 0) return -1;
    worker_message msg;
    worker_message_init(&msg, WORKER_MSG_SETUP);
    worker_put_setup(&msg, (uint32_t)role, setup);
    int rc = worker_process_send(w, &msg, err);
    worker_message_free(&msg);
    if (rc != 0) worker_process_end(w, 0, NULL, 0);
    return rc;
}

int worker_process_receive(worker_process *w, double timeout_s, worker_message *msg,
                           skytune_error *err)
{
    double deadline = timeout_s >= 0 ? clock_monotonic_s() + timeout_s : 0;
    for (;;) {
        int wait_ms = -1;
        if (timeout_s >= 0) {
            double left = deadline - clock_monotonic_s();
            wait_ms = left > 0 ? (int)(left * 1e3) + 1 : 0;
        }
        struct pollfd p = {.fd = w->fd, .events = POLLIN};
        int r = poll(&p, 1, wait_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return err_set(err, "waiting for a worker: %s", strerror(errno));
        if (r == 0) {
            if (timeout_s >= 0 && clock_monotonic_s() >= deadline) return 0;
            continue;
        }
        int got = worker_receive(w->fd, msg, err);
        if (got == 0) return err_set(err, "the worker closed its pipe");
        return got < 0 ? -1 : 1;
    }
}

int worker_process_send(worker_process *w, const worker_message *msg, skytune_error *err)
{
    return worker_send(w->fd, msg, err);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGXCPU: return "SIGXCPU";
    default: return "signal";
    }
}

void worker_process_end(worker_process *w, double grace_s, char *how, size_t len)
{
    worker_process_end_with_output(w, grace_s, how, len, NULL);
}

/* The output file goes with the process: read last, once the worker has
 * ended and written all it will. */
static void close_output(worker_process *w, char **output)
{
    if (output) *output = worker_process_take_output(w);
    if (w->output_fd >= 0) close(w->output_fd);
    w->output_fd = -1;
}

void worker_process_end_with_output(worker_process *w, double grace_s, char *how, size_t len,
                                    char **output)
{
    if (how && len) how[0] = '\0';
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    if (w->pid <= 0) {
        close_output(w, output);
        return;
    }
    int status = 0;
    /* A worker that already ended is reaped as it is, so its own signal or
     * exit status is what gets reported; one still running is killed. */
    pid_t r;
    while ((r = waitpid(w->pid, &status, WNOHANG)) < 0 && errno == EINTR) {}
    if (r == 0) {
        /* It may be ending on its own just now (the pipe closes before the
         * process is gone): give it the grace asked for before killing it. */
        for (double waited = 0; waited < grace_s && r == 0; waited += 0.002) {
            struct timespec pause = {0, 2000000};
            nanosleep(&pause, NULL);
            r = waitpid(w->pid, &status, WNOHANG);
        }
        if (r == 0) {
            kill(w->pid, SIGKILL);
            while ((r = waitpid(w->pid, &status, 0)) < 0 && errno == EINTR) {}
        }
    }
    if (how && len && r == w->pid) {
        if (WIFSIGNALED(status))
            snprintf(how, len, "killed by signal %d (%s)", WTERMSIG(status),
                     signal_name(WTERMSIG(status)));
        else if (WIFEXITED(status))
            snprintf(how, len, "exit status %d", WEXITSTATUS(status));
    }
    w->pid = 0;
    w->stopped = false;
    close_output(w, output);
}

void worker_process_pause(worker_process *w)
{
    if (w->pid > 0 && !w->stopped && kill(w->pid, SIGSTOP) == 0) w->stopped = true;
}

/* What a reaping thread is given: the process and how long it may take to
 * end on its own before it is killed. */
typedef struct {
    pid_t pid;
    double grace_s;
} reaping;

static void *reap(void *arg)
{
    reaping r = *(reaping *)arg;
    free(arg);
    pid_t got = 0;
    for (double waited = 0; waited < r.grace_s && got == 0; waited += 0.002) {
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
        got = waitpid(r.pid, NULL, WNOHANG);
    }
    if (got == 0) {
        kill(r.pid, SIGKILL);
        while (waitpid(r.pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    return NULL;
}

/* Reap the worker (after its grace, then SIGKILL) in a detached thread. */
static void reap_in_background(worker_process *w, double grace_s)
{
    reaping *r = malloc(sizeof *r);
    bool reaping_started = false;
    if (r) {
        *r = (reaping){w->pid, grace_s};
        pthread_attr_t attr;
        pthread_t thread;
        reaping_started = pthread_attr_init(&attr) == 0 &&
                          pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
                          pthread_create(&thread, &attr, reap, r) == 0;
        pthread_attr_destroy(&attr);
        if (!reaping_started) free(r);
    }
    /* No thread: killed and reaped here, as worker_process_end would. */
    if (!reaping_started) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR) {}
    }
}

void worker_process_abandon(worker_process *w, char **output)
{
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        reap_in_background(w, 0);
    }
    w->pid = 0;
    w->stopped = false;
    close_output(w, output);
}

void worker_process_let_go(worker_process *w, double grace_s, char **output)
{
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    if (w->pid > 0) {
        if (w->stopped) kill(w->pid, SIGCONT);
        reap_in_background(w, grace_s);
    }
    w->pid = 0;
    w->stopped = false;
    close_output(w, output);
}

void worker_process_resume(worker_process *w)
{
    if (w->pid > 0 && w->stopped) kill(w->pid, SIGCONT);
    w->stopped = false;
}
