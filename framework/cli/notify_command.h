/* Notifications of the commands that run campaigns (`skytune run --notify`,
 * `skytune campaign run` with the file's `notify`): the options, the
 * notifier of one command with the lines it prints, and the callbacks that
 * feed it alongside the progress output. */
#ifndef SKYTUNE_CLI_NOTIFY_COMMAND_H
#define SKYTUNE_CLI_NOTIFY_COMMAND_H

#include <stddef.h>

#include "cli.h"
#include "progress.h"
#include "notify_run.h"

/* The options `skytune run` and `skytune campaign` list. */
#define RUN_NOTIFY_OPTIONS                                                                         \
    {"notify", "URL", false,                                                                       \
     "post JSON events (campaign started, new best, instance finished, campaign finished or "      \
     "failed) to this http(s) webhook, from a thread of their own; see docs/campaigns.md"},        \
        {"notify-format", "FORMAT", false,                                                         \
         "the events' shape: json (default, the event document), slack ({\"text\": ...}) or "     \
         "matrix ({\"msgtype\": \"m.text\", \"body\": ...})"},                                      \
        {"notify-ca", "FILE", false,                                                               \
         "trust this PEM CA certificate for an https --notify (certificates are always verified)"}, \
        {"notify-best-interval", "DURATION", false,                                                \
         "send new_best at most once per this (default 1m; 0: every improvement); the final "      \
         "best is always sent"}

/* Where notifications go and how. */
typedef struct notify_command_settings {
    const char *url;           /* NULL: no notifications */
    const char *format;        /* NULL: json */
    const char *ca;            /* NULL: the system's CAs */
    const char *best_interval; /* a duration; NULL: the default */
    const char *origin;        /* names the settings in messages: "--notify" or the file's key */
    const char *ca_origin;     /* names the CA file's setting: "--notify-ca" or the file's key */
} notify_command_settings;

/* The --notify options into *s, over `given` (a campaign file's settings;
 * NULL for none): --notify replaces its URL, the other options its format,
 * CA or interval. Prints the problem and returns EXIT_USAGE when they are
 * given without any URL. */
int notify_command_settings_from_args(const cli_args *args, const notify_command_settings *given,
                                  notify_command_settings *s);

typedef struct notify_command {
    notify_sender *notifier;        /* NULL: no notifications */
    notify_run *events; /* NULL: no notifications */
} notify_command;

/* Check the settings and, when they name a URL, start the notifier.
 * command names the campaign in the events; db_path is the result
 * database; instances: how many, 0 when not known beforehand. Returns
 * EXIT_OK or the exit status of a message it printed. */
int notify_command_open(const notify_command_settings *s, const char *command, const char *db_path,
                    size_t instances, notify_command *out);

/* Flush (bounded) and stop; the notifier prints what it gave up. */
void notify_command_close(notify_command *rn);

/* Who hears of a run as it goes: the progress output, and the
 * notifications when there are any. */
typedef struct run_observers {
    progress *progress;
    notify_run *notify; /* NULL: none */
} run_observers;

/* tuning_request.on_start and on_event with a run_observers as ctx. */
void run_observe_start(void *ctx, const tuning_started *s);
void run_observe_event(void *ctx, const tuning_loop_event *ev);

#endif
