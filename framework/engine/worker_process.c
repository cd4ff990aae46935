#include "worker_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

int worker_process_spawn(const char *exe, worker_role role, worker_process *w,
                         skytune_error *err)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return err_set(err, "cannot create a pipe for a worker: %s", strerror(errno));
    char *argv[] = {(char *)exe, "worker", (char *)worker_role_name(role), NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(pair[0]);
        close(pair[1]);
        return err_set(err, "cannot start a worker process: %s", strerror(errno));
    }
    if (pid == 0) {
        /* Only async-signal-safe calls from here to exec. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        int fd = fcntl(pair[1], F_DUPFD_CLOEXEC, 10);
        if (fd < 0 || dup2(fd, WORKER_FD) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            _exit(127);
        execv(exe, argv);
        _exit(127);
    }
    close(pair[1]);
    w->pid = pid;
    w->fd = pair[0];
    w->role = role;
    return 0;
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int worker_process_receive(worker_process *w, double timeout_s, worker_message *msg,
                           skytune_error *err)
{
    double deadline = timeout_s >= 0 ? now_s() + timeout_s : 0;
    for (;;) {
        int wait_ms = -1;
        if (timeout_s >= 0) {
            double left = deadline - now_s();
            wait_ms = left > 0 ? (int)(left * 1e3) + 1 : 0;
        }
        struct pollfd p = {.fd = w->fd, .events = POLLIN};
        int r = poll(&p, 1, wait_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return err_set(err, "waiting for a worker: %s", strerror(errno));
        if (r == 0) {
            if (timeout_s >= 0 && now_s() >= deadline) return 0;
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
    if (how && len) how[0] = '\0';
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    if (w->pid <= 0) return;
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
}

void worker_process_pause(worker_process *w)
{
    if (w->pid > 0 && !w->stopped && kill(w->pid, SIGSTOP) == 0) w->stopped = true;
}

void worker_process_resume(worker_process *w)
{
    if (w->pid > 0 && w->stopped) kill(w->pid, SIGCONT);
    w->stopped = false;
}
