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
