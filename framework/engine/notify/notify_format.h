/* The body a notification is posted as: the event's JSON document as it is
 * (plain webhooks, scripts), or one line of text for people in the message
 * shape a chat webhook accepts: Slack's incoming webhooks {"text": ...}
 * (also taken by Mattermost, Rocket.Chat and Discord's /slack endpoint)
 * or a Matrix m.text message {"msgtype": "m.text", "body": ...}. */
#ifndef SKYTUNE_NOTIFY_FORMAT_H
#define SKYTUNE_NOTIFY_FORMAT_H

#include <jansson.h>

#include "error.h"

typedef enum notify_format {
    NOTIFY_FORMAT_JSON = 0,
    NOTIFY_FORMAT_SLACK,
    NOTIFY_FORMAT_MATRIX
} notify_format;

/* "json", "slack" or "matrix"; the message lists them otherwise. */
int notify_format_parse(const char *text, notify_format *out, skytune_error *err);

/* The event (notify_event_json's document) as one line for people, e.g.
 * "skytune: new best for vector_add on cpu (problem n=4096): wg=64 — 8.1 µs".
 * malloc'd; NULL when out of memory. */
char *notify_event_text(const json_t *doc);

/* The HTTP body in the chosen shape, compact JSON; malloc'd; NULL when out
 * of memory. */
char *notify_format_body(const json_t *doc, notify_format format);

#endif
