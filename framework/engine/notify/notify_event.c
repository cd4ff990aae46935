#include "notify_event.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"

static const char *const kind_names[NOTIFY_KIND_COUNT] = {
    "campaign_started", "new_best", "instance_finished", "campaign_finished", "campaign_failed",
};

const char *notify_kind_name(notify_kind k)
{
    return (unsigned)k < NOTIFY_KIND_COUNT ? kind_names[k] : "unknown";
}

void notify_format_time(double unix_s, char *buf, size_t len)
{
    time_t whole = (time_t)floor(unix_s);
    int ms = (int)((unix_s - (double)whole) * 1000);
    if (ms > 999) ms = 999;
    struct tm tm;
    char date[40];
    if (!gmtime_r(&whole, &tm) || !strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm)) {
        snprintf(buf, len, "unknown");
        return;
    }
    snprintf(buf, len, "%s.%03dZ", date, ms);
}

/* Builds an object, remembering whether anything failed (out of memory), so
 * that the document is checked once at the end. */
typedef struct builder {
    bool failed;
} builder;

/* A JSON string; text that is not UTF-8 (a device name from a driver) has
 * its other bytes replaced by '?', so the document always parses. */
static json_t *text_value(const char *text)
{
    if (!text) return json_null();
    json_t *s = json_string(text);
    if (s) return s;
    char *copy = strdup(text);
    if (!copy) return NULL;
    for (char *c = copy; *c; c++)
        if ((unsigned char)*c >= 0x80) *c = '?';
    s = json_string(copy);
    free(copy);
    return s;
}

static void put(builder *b, json_t *obj, const char *key, json_t *value)
{
    if (!value || json_object_set_new(obj, key, value) != 0) b->failed = true;
}

static json_t *time_value(double unix_s)
{
    if (!(unix_s > 0)) return json_null();
    char text[48];
    notify_format_time(unix_s, text, sizeof text);
    return json_string(text);
}

static json_t *campaign_json(builder *b, const notify_event *ev)
{
    json_t *o = json_object();
    if (!o) return NULL;
    put(b, o, "name", text_value(ev->campaign));
    put(b, o, "database", text_value(ev->database));
    put(b, o, "host", text_value(ev->host));
    put(b, o, "instances", json_integer((json_int_t)ev->instances));
    put(b, o, "started", time_value(ev->campaign_started_at));
    return o;
}

static json_t *instance_json(builder *b, const notify_instance *in)
{
    if (!in) return json_null();
    json_t *o = json_object();
    if (!o) return NULL;
    put(b, o, "index", json_integer((json_int_t)in->index));
    put(b, o, "campaign_id", in->campaign_id > 0 ? json_integer(in->campaign_id) : json_null());
    put(b, o, "plugin", text_value(in->plugin));
    put(b, o, "plugin_version", text_value(in->plugin_version));
    put(b, o, "problem", text_value(in->problem));
    put(b, o, "device", text_value(in->device));
    put(b, o, "platform", text_value(in->platform));
    put(b, o, "strategy", text_value(in->strategy));
    put(b, o, "space_size", json_integer((json_int_t)in->space_size));
    put(b, o, "started", time_value(in->started_at));
    return o;
}

static json_t *counts_json(builder *b, const notify_counts *c)
{
    json_t *o = json_object(), *by = json_object();
    if (!o || !by) {
        json_decref(o);
        json_decref(by);
        return NULL;
    }
    put(b, o, "evaluated", json_integer((json_int_t)c->evaluated));
    put(b, o, "measured", json_integer((json_int_t)c->measured));
    put(b, o, "reused", json_integer((json_int_t)c->reused));
    for (int s = 0; s < MEAS_STATUS_COUNT; s++)
        put(b, by, measurement_status_name(s), json_integer((json_int_t)c->by_status[s]));
    put(b, o, "by_status", by);
    return o;
}

static json_t *best_json(builder *b, const notify_best *best)
{
    if (!best->known) return json_null();
    json_t *o = json_object();
    if (!o) return NULL;
    put(b, o, "config", text_value(best->config));
    put(b, o, "median_ns", json_real(best->median_ns));
    put(b, o, "gflops", best->gflops > 0 && isfinite(best->gflops) ? json_real(best->gflops)
                                                                   : json_null());
    return o;
}

json_t *notify_event_json(const notify_event *ev)
{
    builder b = {0};
    json_t *doc = json_object();
    if (!doc) return NULL;
    put(&b, doc, "schema_version", json_integer(NOTIFY_SCHEMA_VERSION));
    put(&b, doc, "event", json_string(notify_kind_name(ev->kind)));
    put(&b, doc, "time", time_value(ev->time > 0 ? ev->time : clock_wall_s()));
    put(&b, doc, "campaign", campaign_json(&b, ev));
    put(&b, doc, "instance", instance_json(&b, ev->instance));
    put(&b, doc, "counts", counts_json(&b, &ev->counts));
    put(&b, doc, "best", best_json(&b, &ev->best));
    put(&b, doc, "stop", text_value(ev->stop));
    put(&b, doc, "error", text_value(ev->error));
    if (b.failed) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}
