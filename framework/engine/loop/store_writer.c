#include "store_writer.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One pending record, owned by the writer until it is committed. */
typedef struct pending_record {
    int64_t campaign_id, seq;
    uint64_t hash;
    char *text;
    size_t n_params;
    char **names, **values;
    measurement m;
} pending_record;

struct store_writer {
    store *st;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool has_work, stopping;
    pending_record work;
    int failed;
    skytune_error error;
};

static void pending_clear(pending_record *p)
{
    free(p->text);
    for (size_t k = 0; k < p->n_params; k++) {
        if (p->names) free(p->names[k]);
        if (p->values) free(p->values[k]);
    }
    free(p->names);
    free(p->values);
    measurement_clear(&p->m);
    memset(p, 0, sizeof *p);
}

static void *writer_main(void *arg)
{
    store_writer *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->has_work && !w->stopping) pthread_cond_wait(&w->changed, &w->lock);
        if (!w->has_work) break;
        pending_record *p = &w->work;
        pthread_mutex_unlock(&w->lock);
        skytune_error err = {0};
        int rc = store_record_measurement(w->st, p->campaign_id, p->seq, p->text, p->hash,
                                          (const char *const *)p->names,
                                          (const char *const *)p->values, p->n_params, &p->m,
                                          NULL, &err);
        pending_clear(p);
        pthread_mutex_lock(&w->lock);
        if (rc != 0 && !w->failed) {
            w->failed = 1;
            w->error = err;
        }
        w->has_work = false;
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int store_writer_start(store *st, store_writer **out, skytune_error *err)
{
    store_writer *w = calloc(1, sizeof *w);
    if (!w) return err_set(err, "out of memory");
    w->st = st;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->changed, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->changed);
        free(w);
        return err_set(err, "cannot start the database writer thread");
    }
    *out = w;
    return 0;
}

/* With the lock held: wait until nothing is outstanding; report a failure. */
static int wait_idle_locked(store_writer *w, skytune_error *err)
{
    while (w->has_work) pthread_cond_wait(&w->changed, &w->lock);
    if (w->failed) {
        if (err) *err = w->error;
        return -1;
    }
    return 0;
}

static char *copy_or_null(const char *text, bool *ok)
{
    char *copy = strdup(text ? text : "");
    if (!copy) *ok = false;
    return copy;
}

int store_writer_submit(store_writer *w, int64_t campaign_id, int64_t seq, const char *config_text,
                        uint64_t config_hash, const char *const *names,
                        const char *const *values, size_t n_params, measurement *m,
                        skytune_error *err)
{
    /* Copy outside the lock: the writer may be busy with the previous one. */
    pending_record p = {.campaign_id = campaign_id, .seq = seq, .hash = config_hash,
                        .n_params = n_params};
    bool ok = true;
    p.text = copy_or_null(config_text, &ok);
    p.names = calloc(n_params + 1, sizeof *p.names);
    p.values = calloc(n_params + 1, sizeof *p.values);
    ok = ok && p.names && p.values;
    for (size_t k = 0; ok && k < n_params; k++) {
        p.names[k] = copy_or_null(names[k], &ok);
        p.values[k] = copy_or_null(values[k], &ok);
    }
    if (!ok) {
        pending_clear(&p);
        return err_set(err, "out of memory queueing a measurement for the database");
    }
    p.m = *m;
    measurement_init(m);

    pthread_mutex_lock(&w->lock);
    if (wait_idle_locked(w, err) != 0) {
        pthread_mutex_unlock(&w->lock);
        pending_clear(&p);
        return -1;
    }
    w->work = p;
    w->has_work = true;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    return 0;
}

int store_writer_record_cached(store_writer *w, int64_t campaign_id, int64_t seq,
                               int64_t measurement_id, skytune_error *err)
{
    pthread_mutex_lock(&w->lock);
    int rc = wait_idle_locked(w, err);
    pthread_mutex_unlock(&w->lock);
    if (rc != 0) return -1;
    return store_record_cached(w->st, campaign_id, seq, measurement_id, err);
}

int store_writer_finish(store_writer *w, skytune_error *err)
{
    if (!w) return 0;
    pthread_mutex_lock(&w->lock);
    int rc = wait_idle_locked(w, err);
    w->stopping = true;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->changed);
    free(w);
    return rc;
}
