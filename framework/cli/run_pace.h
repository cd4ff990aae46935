/* The pace of a run's own work, for its estimate and its ETA.
 *
 * Only configurations this run measures count: a resumed or extended
 * campaign first goes through the ones it measured before, which come back
 * from the database at once and say nothing of how long the rest will take.
 *
 * And the pace is how often configurations come out of the pipeline, not
 * what one of them took. The first round — the measuring worker's first
 * configuration and the first of each worker that builds ahead (compile
 * workers, spare measuring workers), built side by side — comes out
 * together and late: it carries what only the start pays (workers
 * starting, a CPU reference, the compiler's first load) and every builder
 * at once, where later each configuration waits for one builder to free.
 * On a compile-bound run on PoCL the first configuration took 16 s and
 * the second came 0.6 s after it, and every one after that about 2 s
 * apart. So the pace is measured from the end of that first round over
 * the configurations after it, once there is a second round's worth; until
 * then it is the time since the first began over the configurations done,
 * which overstates it. */
#ifndef SKYTUNE_RUN_PACE_H
#define SKYTUNE_RUN_PACE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct run_pace {
    unsigned ahead;          /* workers building ahead of the device */
    uint64_t measured;       /* configurations this run measured */
    double began_s;          /* the run's clock when the first of them began */
    double round_done_s;     /* ... when the first round was done */
    double last_done_s;      /* ... when the latest was done */
} run_pace;

void run_pace_init(run_pace *p, unsigned ahead);
/* A configuration this run measured, done at `elapsed_s` on the run's clock
 * after `wall_s` seconds of its own. */
void run_pace_add(run_pace *p, double elapsed_s, double wall_s);
/* Configurations in a round: the measuring worker's and one per worker
 * building ahead. */
uint64_t run_pace_round(const run_pace *p);
/* Whether the pace is measured: two rounds are done. */
bool run_pace_settled(const run_pace *p);
/* Seconds per configuration at the pace so far; 0 before the first. */
double run_pace_seconds(const run_pace *p);

#endif
