/* A worker process as the engine sees it: a child running `skytune worker
 * ROLE`, joined to the engine by a socket pair (a two-way pipe) on the
 * child's file descriptor 3, and how it ended when it did.
 *
 * The child is killed with the engine (PR_SET_PDEATHSIG), so no worker
 * outlives a killed campaign, and it inherits no descriptor of the engine's
 * but its own end of the pipe: a pipe held open by a sibling would hide a
 * worker's death. Its standard output goes to standard error, so a plugin
 * that prints cannot corrupt anything. */
#ifndef SKYTUNE_WORKER_PROCESS_H
#define SKYTUNE_WORKER_PROCESS_H

#include <stdbool.h>
#include <sys/types.h>

#include "error.h"
#include "worker_protocol.h"

/* The descriptor the child talks on. */
#define WORKER_FD 3

typedef enum worker_role {
    WORKER_ROLE_MEASURE = 0,   /* builds, verifies and times, one configuration at a time */
    WORKER_ROLE_COMPILE = 1    /* builds into the binary cache, ahead of the device */
} worker_role;

const char *worker_role_name(worker_role role); /* "measure", "compile" */
/* -1 when the name is not a role. */
int worker_role_parse(const char *name);

typedef struct worker_process {
    pid_t pid;        /* 0 when not running */
    int fd;           /* the engine's end of the pipe */
    int output_fd;    /* the worker's standard output and error (a memory file); -1: none */
    worker_role role;
    bool stopped;     /* SIGSTOPped by worker_process_pause */
} worker_process;

/* No process: pid 0, no descriptors. */
void worker_process_clear(worker_process *w);

/* Output kept of what a worker wrote at once; the rest is counted. */
#define WORKER_OUTPUT_KEEP 2048

/* What the worker wrote since the last call (at most WORKER_OUTPUT_KEEP
 * bytes of it, then how many more there were), malloc'd, without trailing
 * newlines; NULL when it wrote nothing. What was read is removed. */
char *worker_process_take_output(worker_process *w);
/* Output of a worker that belongs to no configuration (its set-up, its
 * exit), as one line for on_notice: "WHO wrote: TEXT", its control
 * characters escaped. Frees output; nothing when it or on_notice is NULL. */
void worker_output_notice(char *output, const char *who,
                          void (*on_notice)(void *ctx, const char *text), void *ctx);

/* Forget what the worker wrote so far (before it starts a new job). */
void worker_process_discard_output(worker_process *w);

/* Start `exe worker ROLE`. */
int worker_process_spawn(const char *exe, worker_role role, worker_process *w,
                         skytune_error *err);

/* Start `exe worker ROLE` and send it its SETUP (READY comes later); on a
 * failure nothing is left running. */
int worker_process_start(const char *exe, worker_role role, const worker_setup *setup,
                         worker_process *w, skytune_error *err);

/* Wait up to timeout_s (< 0: forever) for a message. 1: *msg holds one;
 * 0: the time passed; -1: the worker is gone or spoke nonsense (err says
 * which). */
int worker_process_receive(worker_process *w, double timeout_s, worker_message *msg,
                           skytune_error *err);

int worker_process_send(worker_process *w, const worker_message *msg, skytune_error *err);

/* Reap the worker, killing it (SIGKILL) if it has not ended within grace_s
 * (0 for a worker that is being killed: a hung one), and describe how it
 * ended: "killed by signal 11 (SIGSEGV)", "exit status 3". `how` may be
 * NULL. */
void worker_process_end(worker_process *w, double grace_s, char *how, size_t len);
/* The same, and what the worker wrote until it ended into *output (as
 * worker_process_take_output; output may be NULL to forget it). */
void worker_process_end_with_output(worker_process *w, double grace_s, char *how, size_t len,
                                    char **output);

/* SIGSTOP / SIGCONT, so that compiling does not compete with a CPU
 * device's timed runs. */
void worker_process_pause(worker_process *w);
void worker_process_resume(worker_process *w);
/* End a worker whose end says nothing (an idle compile worker when the
 * campaign is over): SIGKILL, what it wrote into *output (may be NULL),
 * and its reaping left to a thread of its own, so that the caller does not
 * wait for its driver's tear down (0.9 s for 14 compile workers' GPU
 * contexts on the H200 host). */
void worker_process_abandon(worker_process *w, char **output);
/* End a worker that was asked to quit without waiting for it: it has
 * grace_s to tear down and exit on its own, timed by a detached thread that
 * kills and reaps it after that; *output (may be NULL) is what it wrote so
 * far. The measuring worker's driver tear down takes over a second on the
 * H200 host, and nothing of the campaign waits on it. If the engine exits
 * first, PR_SET_PDEATHSIG ends the worker with it. */
void worker_process_let_go(worker_process *w, double grace_s, char **output);

#endif
