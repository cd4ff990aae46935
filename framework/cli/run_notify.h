/* `skytune run --notify URL`: the notification options, and the notifier
 * of one run with the lines it prints. */
#ifndef SKYTUNE_CLI_RUN_NOTIFY_H
#define SKYTUNE_CLI_RUN_NOTIFY_H

#include <stddef.h>

#include "cli.h"
#include "run_notifications.h"

/* The options `skytune run` lists (and a future campaign command may). */
#define RUN_NOTIFY_OPTIONS                                                                         \
    {"notify", "URL", false,                                                                       \
     "post JSON events (campaign started, new best, instance finished, campaign finished or "      \
     "failed) to this http(s) webhook, from a thread of their own; see docs/campaigns.md"},        \
        {"notify-format", "FORMAT", false,                                              \
         "the events' shape: json (default, the event document), slack ({\"text\": ...}) or "     \
         "matrix ({\"msgtype\": \"m.text\", \"body\": ...})"},                                      \
        {"notify-ca", "FILE", false,                                                               \
         "trust this PEM CA certificate for an https --notify (certificates are always verified)"}, \
        {"notify-best-interval", "DURATION", false,                                                \
         "send new_best at most once per this (default 1m; 0: every improvement); the final "      \
         "best is always sent"}

typedef struct run_notify {
    notifier *notifier;        /* NULL: no --notify */
    run_notifications *events; /* NULL: no --notify */
} run_notify;

/* Check the --notify options and, when --notify is given, start the
 * notifier. command names the campaign in the events; db_path is the
 * result database; instances: 1, or 0 when not known beforehand. Returns
 * EXIT_OK or the exit status of a message it printed. */
int run_notify_open(const cli_args *args, const char *command, const char *db_path,
                    size_t instances, run_notify *out);

/* Flush (bounded) and stop; prints what could not be delivered. */
void run_notify_close(run_notify *rn);

#endif
