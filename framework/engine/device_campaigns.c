/* `--devices`: one campaign per device, at once. Each device's campaign is
 * an ordinary tuning_run in a thread of its own (its own measuring worker,
 * compile workers and connection to the database); the callbacks the caller
 * gave are serialised here, so the caller never sees two at once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_device.h"
#include "device_campaigns.h"

typedef struct shared_callbacks {
    pthread_mutex_t lock;
    const tuning_request *rq;
    void (*on_start)(void *ctx, const tuning_started *s);
    void *start_ctx;
} shared_callbacks;

typedef struct device_job {
    shared_callbacks *shared;
    tuning_request rq;
    char selector[32];
    char label[160];
    tuning_device_outcome *result;
} device_job;

static void locked_event(void *ctx, const tuning_loop_event *ev)
{
    device_job *job = ctx;
    pthread_mutex_lock(&job->shared->lock);
    job->shared->rq->on_event(job->shared->rq->event_ctx, ev);
    pthread_mutex_unlock(&job->shared->lock);
}

static void locked_activity(void *ctx, const tuning_loop_activity *a)
{
    device_job *job = ctx;
    pthread_mutex_lock(&job->shared->lock);
    job->shared->rq->on_activity(job->shared->rq->activity_ctx, a);
    pthread_mutex_unlock(&job->shared->lock);
}

static void locked_notice(void *ctx, const char *text)
{
    device_job *job = ctx;
    char labelled[1400];
    snprintf(labelled, sizeof labelled, "[%s] %s", job->label, text);
    pthread_mutex_lock(&job->shared->lock);
    job->shared->rq->on_notice(job->shared->rq->notice_ctx, labelled);
    pthread_mutex_unlock(&job->shared->lock);
}

static void locked_start(void *ctx, const tuning_started *s)
{
    device_job *job = ctx;
    pthread_mutex_lock(&job->shared->lock);
    job->shared->on_start(job->shared->start_ctx, s);
    pthread_mutex_unlock(&job->shared->lock);
}

static void *run_device(void *arg)
{
    device_job *job = arg;
    job->result->status = tuning_run(&job->rq, job->shared->on_start ? locked_start : NULL, job,
                                     &job->result->outcome, &job->result->error);
    return NULL;
}

/* The devices named by `devices`, as indices into list, each once. */
static int resolve_devices(const cl_device_entry *list, size_t count, const char *devices,
                           size_t *chosen, size_t *n_chosen, skytune_error *err)
{
    *n_chosen = 0;
    if (strcmp(devices, "all") == 0) {
        for (size_t k = 0; k < count; k++) chosen[(*n_chosen)++] = k;
        return 0;
    }
    char *copy = strdup(devices);
    if (!copy) return err_set(err, "out of memory");
    int rc = 0;
    char *save = NULL;
    for (char *part = strtok_r(copy, ",", &save); part && rc == 0;
         part = strtok_r(NULL, ",", &save)) {
        size_t index;
        if (cl_device_select(list, count, part, &index, err) != 0) {
            rc = err_prefix(err, "--devices");
            break;
        }
        for (size_t k = 0; k < *n_chosen; k++)
            if (chosen[k] == index)
                rc = err_set(err, "--devices names %u:%u (%s) twice", list[index].platform_index,
                             list[index].device_index, list[index].info.name);
        if (rc == 0) chosen[(*n_chosen)++] = index;
    }
    free(copy);
    if (rc == 0 && *n_chosen == 0)
        rc = err_set(err, "--devices '%s' names no device: use 'all' or a comma-separated list "
                          "of --device selectors",
                     devices);
    return rc;
}

int tuning_run_devices(const tuning_request *rq, const char *devices,
                       void (*on_start)(void *ctx, const tuning_started *s), void *start_ctx,
                       tuning_device_outcome **outcomes, size_t *n, skytune_error *err)
{
    *outcomes = NULL;
    *n = 0;
    if (rq->replay) return err_set(err, "--devices measures on devices; a --replay has none");
    if (rq->device) return err_set(err, "--device and --devices contradict each other");
    cl_device_entry *list = NULL;
    size_t count = 0;
    if (cl_devices_list(&list, &count, err) != 0) return -1;
    size_t *chosen = calloc(count + 1, sizeof *chosen);
    size_t n_chosen = 0;
    int rc = chosen ? resolve_devices(list, count, devices, chosen, &n_chosen, err)
                    : err_set(err, "out of memory");
    tuning_device_outcome *results = rc == 0 ? calloc(n_chosen, sizeof *results) : NULL;
    device_job *jobs = rc == 0 ? calloc(n_chosen, sizeof *jobs) : NULL;
    pthread_t *threads = rc == 0 ? calloc(n_chosen, sizeof *threads) : NULL;
    if (rc == 0 && (!results || !jobs || !threads)) rc = err_set(err, "out of memory");
    shared_callbacks shared = {.rq = rq, .on_start = on_start, .start_ctx = start_ctx};
    pthread_mutex_init(&shared.lock, NULL);
    size_t started = 0;
    for (size_t k = 0; rc == 0 && k < n_chosen; k++) {
        const cl_device_entry *dev = &list[chosen[k]];
        device_job *job = &jobs[k];
        job->shared = &shared;
        job->result = &results[k];
        snprintf(job->selector, sizeof job->selector, "%u:%u", dev->platform_index,
                 dev->device_index);
        snprintf(job->label, sizeof job->label, "%s %s", job->selector, dev->info.name);
        snprintf(results[k].label, sizeof results[k].label, "%s", job->label);
        snprintf(results[k].device, sizeof results[k].device, "%s %s %s", job->selector,
                 dev->info.platform, dev->info.name);
        job->rq = *rq;
        job->rq.device = job->selector;
        job->rq.label = job->label;
        /* One display cannot show several spaces being built. */
        job->rq.on_space_progress = NULL;
        if (rq->on_event) {
            job->rq.on_event = locked_event;
            job->rq.event_ctx = job;
        }
        if (rq->on_notice) {
            job->rq.on_notice = locked_notice;
            job->rq.notice_ctx = job;
        }
        if (rq->on_activity) {
            job->rq.on_activity = locked_activity;
            job->rq.activity_ctx = job;
        }
        if (pthread_create(&threads[k], NULL, run_device, job) != 0) {
            rc = err_set(err, "cannot start a thread for device %s", job->label);
            break;
        }
        started++;
    }
    for (size_t k = 0; k < started; k++) pthread_join(threads[k], NULL);
    pthread_mutex_destroy(&shared.lock);
    free(threads);
    free(jobs);
    free(chosen);
    free(list);
    if (rc != 0) {
        free(results);
        return -1;
    }
    *outcomes = results;
    *n = n_chosen;
    return 0;
}
