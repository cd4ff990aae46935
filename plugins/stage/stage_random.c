#include "stage_random.h"

#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include <pcg32.h>

/* Below this many floats per thread a thread costs more than it saves. */
#define FILL_MIN_PER_THREAD ((size_t)1 << 20)
#define FILL_THREADS_MAX 16

typedef struct fill_part {
    float *out;
    size_t first, end;
    uint64_t seed;
} fill_part;

static void *fill(void *arg)
{
    const fill_part *part = arg;
    pcg32 rng;
    pcg32_seed(&rng, part->seed, 0);
    /* One pcg32_float is one output of the generator; 2u - 1 is exact for
     * its 24-bit floats. */
    pcg32_advance(&rng, part->first);
    for (size_t i = part->first; i < part->end; i++)
        part->out[i] = 2.0f * pcg32_float(&rng) - 1.0f;
    return NULL;
}

void stage_fill_signed_uniform(float *out, size_t n, uint64_t seed)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cpus < 1 ? 1 : (size_t)cpus;
    if (threads > FILL_THREADS_MAX) threads = FILL_THREADS_MAX;
    if (threads > n / FILL_MIN_PER_THREAD) threads = n / FILL_MIN_PER_THREAD;
    if (threads < 1) threads = 1;
    fill_part parts[FILL_THREADS_MAX];
    pthread_t ids[FILL_THREADS_MAX];
    bool started[FILL_THREADS_MAX] = {false};
    for (size_t k = 0; k < threads; k++) {
        parts[k] = (fill_part){out, n * k / threads, n * (k + 1) / threads, seed};
        /* The first part is this thread's; a part whose thread cannot start
         * is drawn here too (below). */
        if (k > 0) started[k] = pthread_create(&ids[k], NULL, fill, &parts[k]) == 0;
    }
    for (size_t k = 0; k < threads; k++)
        if (!started[k]) fill(&parts[k]);
    for (size_t k = 1; k < threads; k++)
        if (started[k]) pthread_join(ids[k], NULL);
}
