#include "notify_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement.h"
#include "nearest.h"
#include "report_format.h"

int notify_format_parse(const char *text, notify_format *out, skytune_error *err)
{
    if (strcmp(text, "json") == 0)
        *out = NOTIFY_FORMAT_JSON;
    else if (strcmp(text, "slack") == 0)
        *out = NOTIFY_FORMAT_SLACK;
    else if (strcmp(text, "matrix") == 0)
        *out = NOTIFY_FORMAT_MATRIX;
    else {
        static const char *const formats[] = {"json", "slack", "matrix"};
        char hint[64];
        return err_set(err, "notification format '%s' is not one of: json (the event's own "
                            "document), slack ({\"text\": ...}), matrix ({\"msgtype\": "
                            "\"m.text\", \"body\": ...})%s",
                       text, nearest_hint(text, formats, 3, NULL, hint, sizeof hint));
    }
    return 0;
}

static const char *text_at(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "?";
}

static long long integer_at(const json_t *obj, const char *key)
{
    return (long long)json_integer_value(json_object_get(obj, key));
}

/* "vector_add on cpu-haswell (problem n=4096)" */
static void write_instance(FILE *f, const json_t *instance)
{
    fprintf(f, "%s on %s (problem %s)", text_at(instance, "plugin"), text_at(instance, "device"),
            text_at(instance, "problem"));
}

/* "12 evaluated (ok 10, compile 2)" */
static void write_counts(FILE *f, const json_t *counts)
{
    fprintf(f, "%lld evaluated", integer_at(counts, "evaluated"));
    const json_t *by = json_object_get(counts, "by_status");
    const char *sep = " (";
    for (int s = 0; s < MEAS_STATUS_COUNT; s++) {
        long long n = integer_at(by, measurement_status_name(s));
        if (!n) continue;
        fprintf(f, "%s%s %lld", sep, measurement_status_name(s), n);
        sep = ", ";
    }
    if (strcmp(sep, ", ") == 0) fputc(')', f);
}

/* lead + "wg=64,per_item=2 — 8.12 µs, 3.4 GFLOP/s", or that none passed
 * (when any configuration was evaluated). */
static void write_best(FILE *f, const char *lead, const json_t *best, const json_t *counts)
{
    if (!json_is_object(best)) {
        if (integer_at(counts, "evaluated") > 0) fputs("; no configuration passed verification", f);
        return;
    }
    char time_text[32];
    report_format_duration_ns(json_number_value(json_object_get(best, "median_ns")), time_text,
                              sizeof time_text);
    fprintf(f, "%s%s \xE2\x80\x94 %s", lead, text_at(best, "config"), time_text);
    const json_t *gflops = json_object_get(best, "gflops");
    if (json_is_number(gflops)) fprintf(f, ", %.3g GFLOP/s", json_number_value(gflops));
}

char *notify_event_text(const json_t *doc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    const char *event = text_at(doc, "event");
    const json_t *campaign = json_object_get(doc, "campaign");
    const json_t *instance = json_object_get(doc, "instance");
    const json_t *counts = json_object_get(doc, "counts");
    const json_t *best = json_object_get(doc, "best");
    bool has_instance = json_is_object(instance);
    fputs("skytune: ", f);
    if (strcmp(event, "campaign_started") == 0) {
        fprintf(f, "campaign started on %s: ", text_at(campaign, "host"));
        if (has_instance) {
            write_instance(f, instance);
            long long size = integer_at(instance, "space_size");
            fprintf(f, ", strategy %s over %lld configuration%s", text_at(instance, "strategy"),
                    size, size == 1 ? "" : "s");
        } else {
            /* Several instances (a sweep, --devices): the campaign's own name
             * says what it is. */
            long long instances = integer_at(campaign, "instances");
            fprintf(f, "%s", text_at(campaign, "name"));
            if (instances > 1) fprintf(f, " (%lld instances)", instances);
        }
    } else if (strcmp(event, "new_best") == 0) {
        fputs("new best", f);
        if (has_instance) {
            fputs(" for ", f);
            write_instance(f, instance);
        }
        write_best(f, ": ", best, counts);
        long long evaluated = integer_at(counts, "evaluated");
        fprintf(f, " after %lld configuration%s", evaluated, evaluated == 1 ? "" : "s");
    } else if (strcmp(event, "instance_finished") == 0) {
        fprintf(f, "instance %lld of %lld ", has_instance ? integer_at(instance, "index") : 0,
                integer_at(campaign, "instances"));
        if (json_is_string(json_object_get(doc, "error")))
            fprintf(f, "failed: %s", text_at(doc, "error"));
        else
            fprintf(f, "finished (%s)", text_at(doc, "stop"));
        if (has_instance) {
            fputs(" \xE2\x80\x94 ", f);
            write_instance(f, instance);
        }
        fputs(": ", f);
        write_counts(f, counts);
        write_best(f, "; best ", best, counts);
    } else {
        bool failed = strcmp(event, "campaign_failed") == 0;
        if (failed)
            fprintf(f, "campaign FAILED on %s: %s; ", text_at(campaign, "host"),
                    text_at(doc, "error"));
        else
            fprintf(f, "campaign finished (%s) on %s: ", text_at(doc, "stop"),
                    text_at(campaign, "host"));
        if (has_instance) {
            write_instance(f, instance);
            fputs(", ", f);
        }
        write_counts(f, counts);
        write_best(f, "; best ", best, counts);
    }
    fprintf(f, "; database %s", text_at(campaign, "database"));
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

char *notify_format_body(const json_t *doc, notify_format format)
{
    if (format == NOTIFY_FORMAT_JSON) return json_dumps(doc, JSON_COMPACT);
    char *text = notify_event_text(doc);
    if (!text) return NULL;
    json_t *message = format == NOTIFY_FORMAT_SLACK
                          ? json_pack("{s:s}", "text", text)
                          : json_pack("{s:s, s:s}", "msgtype", "m.text", "body", text);
    free(text);
    if (!message) return NULL;
    char *body = json_dumps(message, JSON_COMPACT);
    json_decref(message);
    return body;
}
