/* Seconds as doubles, with sub-second precision. */
#ifndef SKYTUNE_CLOCK_H
#define SKYTUNE_CLOCK_H

/* A clock that only moves forward, unaffected by changes to the system time:
 * for durations and deadlines. Its zero is arbitrary. */
double clock_monotonic_s(void);

/* Unix time: for timestamps that are recorded or shown, and compared
 * between processes or machines. */
double clock_wall_s(void);

#endif
