#!/bin/sh
# A configuration whose build never ends (the hostile test plugin's `defines`
# callback hangs for x = BAD of x = 0 .. 5), on one device, under a compile
# limit of 15 s, in three cases:
#   workers-last:   the default compile workers, BAD = 5: on PoCL they reach
#                   it before the measuring worker does, so a compile worker hangs;
#   workers-of-40:  the same with x = 0 .. 39 and BAD = 39: compile workers that
#                   start after the measuring worker (NVIDIA's contexts take a
#                   second or two) get ahead of it too;
#   workers-third:  the default compile workers, BAD = 2: whichever gets there first;
#   no-workers:     --compile-jobs 0, BAD = 2: the measuring worker builds it.
# Each run's output and its wall time go to OUT; a fresh binary cache each time.
#   usage: bench/experiments/compile_hang.sh OUT DEVICE
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
skytune=${SKYTUNE:-$here/skytune}
plugin=${HOSTILE:-$here/bench/hostile.so}
out=$1
device=$2
mkdir -p "$out"
for case in workers-last workers-of-40 workers-third no-workers; do
    set -- --compile-timeout 15s --cache-dir "$out/cache-$case"
    case $case in
        workers-last) set -- "$@" --set bad=5 ;;
        workers-of-40) set -- "$@" --set values=40 --set bad=39 ;;
        workers-third) set -- "$@" --set bad=2 ;;
        no-workers) set -- "$@" --set bad=2 --compile-jobs 0 ;;
    esac
    rm -f "$out/hang-$case.db"
    start=$(date +%s.%N)
    status=0
    "$skytune" run --plugin "$plugin" --device "$device" --strategy exhaustive \
        --db "$out/hang-$case.db" --no-confirm --runs 3 --seed 1 \
        --set fault=hang --set where=defines "$@" > "$out/hang-$case.txt" 2>&1 || status=$?
    end=$(date +%s.%N)
    echo "$case: wall $(awk "BEGIN {printf \"%.1f\", $end - $start}") s, exit $status" |
        tee -a "$out/hang-walls.txt"
    grep -h "timeout  " "$out/hang-$case.txt" | tee -a "$out/hang-walls.txt"
    rm -rf "$out/cache-$case"
done
