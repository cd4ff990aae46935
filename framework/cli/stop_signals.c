#include "stop_signals.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"

static const int stop_signal_numbers[] = {SIGINT, SIGTERM, SIGUSR1};
#define N_STOP_SIGNALS (sizeof stop_signal_numbers / sizeof stop_signal_numbers[0])

/* 0 until the first stop signal, then its number; the campaign loop checks
 * it between configurations. The one piece of global state, and it belongs
 * to the CLI, with the thread that sets it. */
static volatile sig_atomic_t stop_requested;
static pthread_t receiver;
static bool receiving;
static sigset_t stop_set;
/* What the first signal prints, one text per signal, written before the
 * receiving thread starts: it may only write(). */
static char stop_notice[N_STOP_SIGNALS][400];
static size_t stop_notice_len[N_STOP_SIGNALS];

static void fill_stop_set(void)
{
    sigemptyset(&stop_set);
    for (size_t k = 0; k < N_STOP_SIGNALS; k++) sigaddset(&stop_set, stop_signal_numbers[k]);
}

void stop_signals_block(void)
{
    fill_stop_set();
    /* Fails only for a bad argument. */
    pthread_sigmask(SIG_BLOCK, &stop_set, NULL);
}

void stop_signals_unblock(void)
{
    fill_stop_set();
    pthread_sigmask(SIG_UNBLOCK, &stop_set, NULL);
}

/* The signals are received here with sigwait, so no library's own handler
 * runs: an OpenCL compiler that catches SIGINT would otherwise abort the
 * build in flight, and that configuration would be recorded as a false
 * compile failure. A second signal ends the process at once; the store's
 * transactions keep the database consistent either way. */
static void *receive_stop_signals(void *arg)
{
    (void)arg;
    int signo;
    if (sigwait(&stop_set, &signo) != 0) return NULL;
    stop_requested = signo;
    for (size_t k = 0; k < N_STOP_SIGNALS; k++)
        if (stop_signal_numbers[k] == signo &&
            write(STDERR_FILENO, stop_notice[k], stop_notice_len[k]) < 0) { /* nothing to do */ }
    if (sigwait(&stop_set, &signo) != 0) return NULL;
    _exit(128 + signo);
}

static void write_notice(size_t k, const char *grace)
{
    int signo = stop_signal_numbers[k];
    int n = signo == SIGINT
                ? snprintf(stop_notice[k], sizeof stop_notice[k],
                           "\nskytune: stopping: the configuration in flight has %s to finish "
                           "(--stop-grace), else it is stopped and measured again next time; "
                           "Ctrl-C again stops at once\n",
                           grace)
                : snprintf(stop_notice[k], sizeof stop_notice[k],
                           "\nskytune: stopping (%s): the configuration in flight has %s to "
                           "finish (--stop-grace), else it is stopped and measured again next "
                           "time; a second stop signal (SIGTERM, SIGINT, SIGUSR1) stops at "
                           "once\n",
                           signo == SIGTERM ? "SIGTERM" : "SIGUSR1", grace);
    stop_notice_len[k] =
        n > 0 && (size_t)n < sizeof stop_notice[k] ? (size_t)n : strlen(stop_notice[k]);
}

volatile sig_atomic_t *stop_signals_receive(const char *command, double stop_grace_s)
{
    char grace[32];
    format_wait_s(stop_grace_s, grace, sizeof grace);
    for (size_t k = 0; k < N_STOP_SIGNALS; k++) write_notice(k, grace);
    /* main blocked them before any thread could start: a thread started
     * without them blocked could be handed a signal and die of it. Not
     * blocked here is a command that does not go through main's block. */
    sigset_t current;
    fill_stop_set();
    bool blocked = pthread_sigmask(SIG_BLOCK, NULL, &current) == 0;
    for (size_t k = 0; blocked && k < N_STOP_SIGNALS; k++)
        blocked = sigismember(&current, stop_signal_numbers[k]) == 1;
    if (!blocked) {
        cli_error("%s: the stop signals were not blocked at the start (a bug): cannot stop "
                  "cleanly on SIGINT, SIGTERM or SIGUSR1",
                  command);
        return NULL;
    }
    if (pthread_create(&receiver, NULL, receive_stop_signals, NULL) != 0) {
        cli_error("%s: cannot start the thread that receives Ctrl-C and SIGTERM", command);
        return NULL;
    }
    receiving = true;
    return &stop_requested;
}

void stop_signals_release(void)
{
    if (!receiving) return;
    /* sigwait is a cancellation point: the receiver ends where it waits, and
     * joining it frees its stack and thread-local storage, which a leak
     * checker would otherwise count as lost at exit. */
    pthread_cancel(receiver);
    pthread_join(receiver, NULL);
    receiving = false;
}

int stop_signals_exit_status(void)
{
    return stop_requested > 0 ? 128 + stop_requested : EXIT_INTERRUPTED;
}
