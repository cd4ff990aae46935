/* The stop signals of the commands that run campaigns (`skytune run`, with
 * --devices too, and `skytune campaign run|cross`, a shard too): SIGINT
 * (Ctrl-C), SIGTERM (kill, scancel, a batch system's time limit) and
 * SIGUSR1 (SLURM's warning before the time limit, `--signal=B:USR1@S`).
 * All three mean the same: stop after the configuration in flight, which
 * has --stop-grace to finish, release the claims, mark the campaign
 * interrupted, send the final notification, and exit 128 + the signal's
 * number (130, 143, 138). A second stop signal ends the process at once.
 *
 * One mechanism: stop_signals_block() at the start of main, before anything
 * can start a thread (an OpenCL platform's own threads, libcurl's, the
 * notification sender), so that every thread inherits the blocked mask and
 * the kernel can deliver a stop signal to none of them; then one thread of
 * its own receives them with sigwait (stop_signals_receive). The workers
 * the engine starts inherit the blocked mask across exec, and `skytune
 * worker` blocks them too: a Ctrl-C at a terminal reaches the whole process
 * group and SLURM signals every process of a job step, and a worker that
 * died of it would have its configuration recorded as a crash. The engine
 * stops its workers itself (SIGKILL, and the parent-death signal). */
#ifndef SKYTUNE_CLI_STOP_SIGNALS_H
#define SKYTUNE_CLI_STOP_SIGNALS_H

#include <signal.h>

/* Block the stop signals in the calling thread, and so in every thread and
 * process it starts from now on. Call before anything starts a thread. */
void stop_signals_block(void);

/* Unblock them again: for a command that turns out not to run campaigns
 * (`campaign status`), before it has started any thread. */
void stop_signals_unblock(void);

/* Start the thread that receives the stop signals (they stay blocked).
 * Returns the flag the campaign loop watches: 0 until the first stop
 * signal, then that signal's number. The first signal says at once what
 * happens now; stop_grace_s is what it says the configuration in flight
 * has. Returns NULL (message printed, naming command) when it cannot. */
volatile sig_atomic_t *stop_signals_receive(const char *command, double stop_grace_s);

/* At the end of the command: ends and joins the receiving thread. */
void stop_signals_release(void);

/* The exit status of a command that stopped on a stop signal: 128 + the
 * first signal's number (130 for SIGINT, 143 for SIGTERM, 138 for
 * SIGUSR1); EXIT_INTERRUPTED when no signal was received. */
int stop_signals_exit_status(void);

#endif
