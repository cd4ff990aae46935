/* usable_cpus: the CPUs of the affinity mask bound it (set in a forked
 * child, as taskset does, so the test process keeps its own), and the
 * cgroup v2 cpu.max texts read as CPUs, rounded up. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "usable_cpus.h"

/* usable_cpus() in a child bound to the first `want` CPUs of this
 * process's mask; its answer as the child's exit status. */
static int usable_in_child_bound_to(int want)
{
    cpu_set_t mine, bound;
    cr_assert_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
    CPU_ZERO(&bound);
    int taken = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && taken < want; cpu++)
        if (CPU_ISSET(cpu, &mine)) {
            CPU_SET(cpu, &bound);
            taken++;
        }
    cr_assert_eq(taken, want, "this process may use fewer than %d CPUs", want);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        if (sched_setaffinity(0, sizeof bound, &bound) != 0) _exit(255);
        unsigned n = usable_cpus();
        _exit(n > 250 ? 250 : (int)n);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status));
    cr_assert_neq(WEXITSTATUS(status), 255, "sched_setaffinity failed in the child");
    return WEXITSTATUS(status);
}

Test(usable_cpus, one_cpu_of_the_affinity_mask_is_one)
{
    cr_expect_eq(usable_in_child_bound_to(1), 1);
}

Test(usable_cpus, the_affinity_mask_bounds_it)
{
    cpu_set_t mine;
    cr_assert_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
    int n = CPU_COUNT(&mine);
    unsigned here = usable_cpus();
    cr_expect_geq(here, 1);
    cr_expect_leq(here, (unsigned)n, "more CPUs (%u) than the affinity mask's %d", here, n);
    if (n >= 2) cr_expect_leq(usable_in_child_bound_to(2), 2);
    if (n >= 2) cr_expect_geq(usable_in_child_bound_to(2), 1);
}

Test(usable_cpus, cpu_max_is_quota_over_period_rounded_up)
{
    cr_expect_eq(cpu_max_cpus("max 100000\n"), 0);
    cr_expect_eq(cpu_max_cpus("400000 100000\n"), 4);
    cr_expect_eq(cpu_max_cpus("150000 100000\n"), 2);
    cr_expect_eq(cpu_max_cpus("50000 100000"), 1);
    cr_expect_eq(cpu_max_cpus("1 100000"), 1);
    cr_expect_eq(cpu_max_cpus(""), 0);
    cr_expect_eq(cpu_max_cpus("100000 0"), 0);
    cr_expect_eq(cpu_max_cpus("garbage"), 0);
    cr_expect_eq(cpu_max_cpus(NULL), 0);
}
