#include "run_pace.h"

void run_pace_init(run_pace *p, unsigned ahead)
{
    *p = (run_pace){.ahead = ahead};
}

void run_pace_add(run_pace *p, double elapsed_s, double wall_s)
{
    if (p->measured++ == 0) p->began_s = elapsed_s - wall_s;
    if (p->measured == run_pace_round(p)) p->round_done_s = elapsed_s;
    p->last_done_s = elapsed_s;
}

uint64_t run_pace_round(const run_pace *p)
{
    return (uint64_t)p->ahead + 1;
}

bool run_pace_settled(const run_pace *p)
{
    return p->measured >= 2 * run_pace_round(p);
}

double run_pace_seconds(const run_pace *p)
{
    if (p->measured == 0) return 0;
    if (run_pace_settled(p))
        return (p->last_done_s - p->round_done_s) / (double)(p->measured - run_pace_round(p));
    return (p->last_done_s - p->began_s) / (double)p->measured;
}
