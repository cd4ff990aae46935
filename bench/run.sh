#!/bin/sh
# Build and run every benchmark; figures go to standard output (and are
# recorded with this command in docs/benchmarks.md).
set -eu
build=${1:-build}
ninja -C "$build" bench/bench_enumerate bench/bench_overhead
echo "== space enumeration"
"$build/bench/bench_enumerate"
echo "== engine overhead per configuration"
"$build/bench/bench_overhead" 1000 10
ninja -C "$build" bench/bench_report
echo "== report over 10^5 configurations and 10^6 samples"
"$build/bench/bench_report" 100000
ninja -C "$build" skytune bench/synthetic_cache
echo "== replayed evaluation on a 10^4-configuration space"
# The recorded datasets hold about 4,400 configurations; a made-up kernel's
# cache stands in for a larger space. Its name is the file's up to the dot.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
synthetic="$tmp/synthetic.cache.json"
"$build/bench/synthetic_cache" "$synthetic"
# Runs bench-strategies on the synthetic space (its table is shown) and sets
# $seconds to the wall time, which includes loading the dataset.
timed() {
    t0=$(date +%s.%N)
    "$build/skytune" bench-strategies --replay "$synthetic" --jobs 1 "$@"
    t1=$(date +%s.%N)
    seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}
timed --strategy random --budget 1 --runs 1
echo "  load cost (1 run of 1 evaluation): $seconds s; subtract it from the times below"
for s in random exhaustive hill-climbing annealing evolutionary prune bayes; do
    timed --strategy "$s" --budget 20,50,100,200 --runs 100
    awk -v s="$s" -v t="$seconds" 'BEGIN { printf "  %s: %s s, %.2f us per evaluation (100 runs x (20+50+100+200) evaluations)\n", s, t, t * 1e6 / (100 * 370) }'
done
