#include "clock.h"

#include <time.h>

static double seconds(clockid_t which)
{
    struct timespec ts;
    clock_gettime(which, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double clock_monotonic_s(void)
{
    return seconds(CLOCK_MONOTONIC);
}

double clock_wall_s(void)
{
    return seconds(CLOCK_REALTIME);
}
