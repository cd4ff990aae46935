/* A small result database with hand-chosen measurements, for the report,
 * query and export tests: every figure a report shows can be worked out by
 * hand from the tables below.
 *
 * Plugin "toy" 1.0 with tuning parameters wg (32, 64, 128) and mode
 * ("plain" or REPORT_FIXTURE_HOSTILE, a value made of markup that a report
 * must escape). Problem parameters n and batch; two instances, A
 * "n=1000,batch=2" and B "n=4000,batch=2" (n varies, batch does not), on one
 * device "Fixture GPU 9000". Instance A does 2e6 FLOP and moves 1e6 bytes per
 * run, instance B four times as much, so GFLOP/s = FLOP / median_ns.
 *
 *   config   wg   mode     A: status, median ns, GFLOP/s   B: status, median ns, GFLOP/s
 *   c1       32   plain    ok  1000  2000                  ok  4000   2000
 *   c2       64   plain    ok   500  4000                  ok  2500   3200
 *   c3      128   plain    ok   800  2500                  ok  2000   4000
 *   c4       32   hostile  ok  2000  1000                  ok 10000    800
 *   c5       64   hostile  compile                         compile
 *   c6      128   hostile  wrong_result                    ok  4000   2000
 *
 * Campaign 1 (instance A, strategy "random", seed 7) evaluates, in order,
 * c1 c4 c5 c2 c6 c3. Campaign 2 (instance B, "random", seed 7) evaluates
 * c3 c1 c2 c4 c5 c6. Campaign 3 (instance B, "exhaustive", seed 1) finds c3
 * and c1 already measured and reuses them (cached evaluations).
 *
 * Every ok measurement has the five samples median-10, median, median,
 * median+10, median+20 (so min = median-10). Every measurement spent
 * build 1 s, verify 0.5 s, bench 0.25 s and overhead 0.125 s. */
#ifndef SKYTUNE_TESTS_REPORT_FIXTURE_H
#define SKYTUNE_TESTS_REPORT_FIXTURE_H

#include <stdbool.h>

#include "error.h"

#define REPORT_FIXTURE_PLUGIN "toy"
#define REPORT_FIXTURE_DEVICE "Fixture GPU 9000"
#define REPORT_FIXTURE_HOSTILE "<script>alert(\"x&y\")</script>"
#define REPORT_FIXTURE_PROBLEM_A "n=1000,batch=2"
#define REPORT_FIXTURE_PROBLEM_B "n=4000,batch=2"
#define REPORT_FIXTURE_PEAK_GFLOPS 10000.0
#define REPORT_FIXTURE_PEAK_GBS 5000.0

/* Create the fixture database at path (which must not exist). with_peaks:
 * also record the device's roofline peaks (above). */
int report_fixture_create(const char *path, bool with_peaks, skytune_error *err);

/* A second fixture, for noisy configurations: plugin "toy" on the same
 * device, one campaign (problem A, "random", seed 7) of four configurations
 * whose timed runs (in ms) are
 *
 *   config        runs                                median  sd/median  noisy
 *   wg=32,plain   1.2 1.5 2.9 3.07 3.3 5.4 6.0         3.07    58.8 %     yes (the best)
 *   wg=64,plain   3.45 3.48 3.5 3.5 3.5 3.52 3.55      3.5      0.9 %     no
 *   wg=128,plain  3.62 4.0 4.38                        4.0      9.5 %     no
 *   wg=32,hostile 4.0275 4.5 4.9725                    4.5     10.5 %     yes
 *
 * so that the best configuration is the noisy one the issue describes
 * (median 3.07 ms, sd 1.8 ms), and the threshold (sd above 10 % of the
 * median) lies between the last two. */
#define REPORT_FIXTURE_NOISY_BEST "wg=32,mode=plain"

/* A third fixture, for the independence of parameters: plugin "toy", two
 * exhaustive campaigns over wg (32, 64, 128) and mode ("plain", "fast"),
 * one sample each (ns):
 *
 *   campaign 1 (problem A)   wg=32  wg=64  wg=128      campaign 2 (problem B)
 *     plain                   1000   2000   3000          1000   2000   3000
 *     fast                    1500   3000   4500          4500   3000   1500
 *
 * In campaign 1 wg ranks the same under both modes (independent); in
 * campaign 2 its order under fast is the reverse of that under plain. */
int report_fixture_create_grid(const char *path, skytune_error *err);
int report_fixture_create_noisy(const char *path, skytune_error *err);

#endif
