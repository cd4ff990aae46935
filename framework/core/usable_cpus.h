/* How many CPUs this process may use: the CPUs of its affinity mask
 * (taskset, a batch system's binding) and its cgroup v2 CPU quota
 * (cpu.max of its cgroup and of every cgroup above it, quota / period
 * rounded up), the smallest of these; at least 1. Defaults that size worker
 * pools by the machine use it, so that a job given 4 CPUs of a 64-core node
 * runs 4 processes' worth of work, not 64. */
#ifndef SKYTUNE_USABLE_CPUS_H
#define SKYTUNE_USABLE_CPUS_H

/* The CPUs this process may use now. */
unsigned usable_cpus(void);

/* The CPUs a cgroup v2 cpu.max text allows ("QUOTA PERIOD", in
 * microseconds: QUOTA / PERIOD rounded up, at least 1); 0 for "max" (no
 * limit) or a text that is not one. */
unsigned cpu_max_cpus(const char *text);

#endif
