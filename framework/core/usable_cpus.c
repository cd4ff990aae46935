#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "usable_cpus.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned cpu_max_cpus(const char *text)
{
    if (!text) return 0;
    char *end;
    while (*text == ' ') text++;
    if (*text < '0' || *text > '9') return 0;   /* "max" */
    unsigned long long quota = strtoull(text, &end, 10);
    if (end == text || *end != ' ') return 0;
    const char *rest = end;
    unsigned long long period = strtoull(rest, &end, 10);
    if (end == rest || period == 0 || (*end != '\0' && *end != '\n')) return 0;
    unsigned long long cpus = (quota + period - 1) / period;
    if (cpus < 1) cpus = 1;
    return cpus > 1u << 20 ? 1u << 20 : (unsigned)cpus;
}

/* The CPUs of the affinity mask; 0 when it cannot be read. */
static unsigned affinity_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    int n = CPU_COUNT(&set);
    return n > 0 ? (unsigned)n : 0;
}

/* The smallest limit of cpu.max in this process's cgroup (v2: the "0::"
 * line of /proc/self/cgroup) and the cgroups above it; 0: none. */
static unsigned cgroup_cpus(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return 0;
    char line[4096], path[4096] = "";
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) == 0) {
            snprintf(path, sizeof path, "%s", line + 3);
            path[strcspn(path, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
    if (path[0] != '/') return 0;
    unsigned least = 0;
    for (;;) {
        char file[4200], text[128];
        snprintf(file, sizeof file, "/sys/fs/cgroup%s/cpu.max", strcmp(path, "/") ? path : "");
        FILE *m = fopen(file, "r");
        if (m) {
            if (fgets(text, sizeof text, m)) {
                unsigned n = cpu_max_cpus(text);
                if (n && (!least || n < least)) least = n;
            }
            fclose(m);
        }
        char *slash = strrchr(path, '/');
        if (!slash || slash == path) {
            if (strcmp(path, "/") == 0) break;
            strcpy(path, "/");
        } else {
            *slash = '\0';
        }
    }
    return least;
}

unsigned usable_cpus(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned n = online > 0 ? (unsigned)online : 1;
    unsigned mask = affinity_cpus(), quota = cgroup_cpus();
    if (mask && mask < n) n = mask;
    if (quota && quota < n) n = quota;
    return n > 0 ? n : 1;
}
