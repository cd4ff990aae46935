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
echo "== --t1 against the plugin it describes (bench/t1/vector_add.json, plugins/vector_add)"
sh "$(dirname "$0")/t1_overhead.sh" "$build" 20
sh "$(dirname "$0")/t1_overhead.sh" "$build" 20 --no-isolation
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
# Runs bench-strategies on the synthetic space and sets $seconds to the wall
# time, which includes loading the dataset.
timed() {
    t0=$(date +%s.%N)
    "$build/skytune" bench-strategies --replay "$synthetic" --jobs 1 "$@"
    t1=$(date +%s.%N)
    seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}
# Loading is taken off every command's time below, so it is the median of 3.
loads=""
for i in 1 2 3; do
    timed --strategy random --budget 1 --runs 1 >/dev/null
    loads="$loads $seconds"
done
load=$(printf '%s\n' $loads | sort -n | sed -n 2p)
echo "  load cost (1 run of 1 evaluation, median of 3): $load s, taken off the times below"
# One budget per command: given several, bench-strategies reads the smaller
# budgets off the largest one's runs, and fewer evaluations are made than
# are judged. Apart, every judged evaluation is made.
for s in random exhaustive hill-climbing annealing evolutionary prune bayes; do
    total=0
    for b in 20 50 100 200; do
        timed --strategy "$s" --budget "$b" --runs 100 >/dev/null
        total=$(awk -v a="$total" -v t="$seconds" -v l="$load" 'BEGIN { printf "%.3f", a + t - l }')
    done
    awk -v s="$s" -v t="$total" 'BEGIN { printf "  %s: %s s, %.2f us per evaluation (100 runs x (20+50+100+200) evaluations, one budget at a time)\n", s, t, t * 1e6 / (100 * 370) }'
done
echo "== the whole table on the 10^4-configuration space, budgets together"
timed --strategy all --budget 20,50,100,200 --runs 100
echo "  $seconds s"
echo "== bayes's cost per step on spaces of 10^3, 10^4 and 10^5 configurations"
# 10^3: the space of 10^4 with block_size_x held at one value; 10^5: a
# seventh parameter of 10 values (synthetic_cache's stages).
ninja -C "$build" bench/bench_bayes_step
"$build/bench/synthetic_cache" "$tmp/synthetic-1e5.cache.json" 1 10
"$build/bench/bench_bayes_step" 200 20 "$synthetic" block_size_x=128
"$build/bench/bench_bayes_step" 200 20 "$synthetic"
"$build/bench/bench_bayes_step" 200 20 "$tmp/synthetic-1e5.cache.json"
echo "== what strategies name ahead (strategy_upcoming) on the recorded convolution spaces"
D=../shared/data/replay/convolution
if [ -f "$D/space.t1.json" ]; then
    ninja -C "$build" bench/bench_upcoming
    "$build/bench/bench_upcoming" "$D/space.t1.json" 20 200 "$D/A100.cache.json.gz" \
        "$D/A4000.cache.json.gz" "$D/A6000.cache.json.gz" "$D/MI250X.cache.json.gz" \
        "$D/W6600.cache.json.gz" "$D/W7800.cache.json.gz"
else
    echo "  skipped: $D is missing"
fi
