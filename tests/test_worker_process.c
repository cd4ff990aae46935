/* A worker's descriptors: whatever the engine holds when it spawns a
 * worker, the worker's standard output and error go to its output file and
 * only the protocol reaches the protocol's descriptor. The first worker an
 * engine with nothing else open spawns gets its output file at fd 3, the
 * protocol's own number; a dup2 onto fd 3 used to close it and send
 * everything the worker printed (a compiler's error count, a kernel's
 * printf) into the protocol, which ended the worker.
 *
 * The "worker" here is a shell script that writes a line to each of its
 * standard output, standard error and fd 3, so the test sees exactly where
 * each line went. The spawning happens in a child process that first closes
 * every descriptor from 3 up, as a fresh engine would have them: Criterion
 * keeps descriptors of its own open in the test process. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "worker_process.h"

static char script[] = "/tmp/skytune-worker-fds-XXXXXX";

static void write_script(void)
{
    int fd = mkstemp(script);
    cr_assert_geq(fd, 0);
    const char *text = "#!/bin/sh\n"
                       "echo 'to standard output'\n"
                       "echo 'to standard error' >&2\n"
                       "echo 'to the protocol' >&3\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    cr_assert_eq(fchmod(fd, 0700), 0);
    close(fd);
}

/* In the child: spawn the script with every descriptor from 3 up closed
 * (so the output file is fd 3), read the protocol to its end, then the
 * output file; report both through `report`, as "PROTOCOL\0OUTPUT". */
static void spawn_with_fd_3_free(int report)
{
    int keep = fcntl(report, F_DUPFD, 200);
    for (int fd = 3; fd < 200; fd++) close(fd);
    worker_process w;
    skytune_error err = {0};
    if (worker_process_spawn(script, WORKER_ROLE_MEASURE, &w, &err) != 0) _exit(2);
    if (w.output_fd != 3) _exit(3); /* not the case this test is about */
    char protocol[256] = "";
    size_t used = 0;
    ssize_t got;
    while (used + 1 < sizeof protocol &&
           (got = read(w.fd, protocol + used, sizeof protocol - 1 - used)) > 0)
        used += (size_t)got;
    protocol[used] = '\0';
    char how[128];
    char *output = NULL;
    worker_process_end_with_output(&w, 5.0, how, sizeof how, &output);
    dprintf(keep, "%s%c%s", protocol, '\0', output ? output : "");
    free(output);
    _exit(0);
}

Test(worker_process, output_never_reaches_the_protocol_when_the_output_file_is_fd_3)
{
    write_script();
    int pipe_fds[2];
    cr_assert_eq(pipe(pipe_fds), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(pipe_fds[0]);
        spawn_with_fd_3_free(pipe_fds[1]);
    }
    close(pipe_fds[1]);
    char buf[4096];
    size_t used = 0;
    ssize_t got;
    while (used < sizeof buf - 1 && (got = read(pipe_fds[0], buf + used, sizeof buf - 1 - used)) > 0)
        used += (size_t)got;
    buf[used] = '\0';
    close(pipe_fds[0]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    unlink(script);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the spawning child failed (exit status %d)", WEXITSTATUS(status));
    const char *protocol = buf;
    const char *output = buf + strlen(buf) + 1;
    cr_assert_str_eq(protocol, "to the protocol\n",
                     "the protocol received \"%s\"", protocol);
    cr_assert_not_null(strstr(output, "to standard output"), "output file: \"%s\"", output);
    cr_assert_not_null(strstr(output, "to standard error"), "output file: \"%s\"", output);
}
