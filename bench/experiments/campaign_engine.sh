#!/bin/sh
# The campaign engine's figures (docs/benchmarks.md, "Campaigns on a GPU
# host"): exhaustive campaigns cold and with skytune's binary cache warm,
# the cost of isolation per configuration, and on a CPU device the timings
# of one space with and without compile workers.
#   usage: campaign_engine.sh OUT_DIR [GPU_SELECTOR [CPU_SELECTOR]]
# Run from a bundle (bench/experiments/bundle.sh). Every cold figure has
# NVIDIA's own compilation cache off, or "cold" would mean the driver's
# cache answering.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
gpu=${2:-NVIDIA}
cpu=${3:-Portable}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
sk="$here/skytune"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary="$out/campaign-engine.txt"
: > "$summary"

# campaign LABEL CACHE_DIR ARGS...: one `skytune run`, timed; its summary
# lines and wall time go to the summary file, its log to the archive.
campaign() {
    label=$1
    cache=$2
    shift 2
    t0=$(date +%s.%N)
    SKYTUNE_CACHE_DIR="$cache" "$sk" run "$@" > "$work/$label.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    {
        echo "== $label: exit $rc, wall $wall s"
        echo "   skytune run $*"
        grep -E '^(campaign|  status|  workers|  compiled|  time|best)' "$work/$label.log" | sed 's/^/   /'
    } >> "$summary"
}

export CUDA_CACHE_DISABLE=1
nproc >> "$summary"
"$sk" devices >> "$summary" 2>&1

# Correlator, the thesis problem, exhaustive, 5 timed runs: cold, then
# warm (a new database, skytune's cache from the cold run). LOFAR's input
# layout only: the space these figures have always been taken on (all 24
# layouts would make the campaign 24 times as long).
campaign correlator-cold "$work/cache-c" --plugin correlator --preset thesis --strategy exhaustive \
    --only in_layout=CTSP --runs 5 --device "$gpu" --db "$work/c-cold.db" --quiet
campaign correlator-warm "$work/cache-c" --plugin correlator --preset thesis --strategy exhaustive \
    --only in_layout=CTSP --runs 5 --device "$gpu" --db "$work/c-warm.db" --quiet
# Dedispersion, the small problem, exhaustive, 10 timed runs: cold, warm.
campaign dedispersion-cold "$work/cache-d" --plugin dedispersion --preset small \
    --strategy exhaustive --device "$gpu" --db "$work/d-cold.db" --quiet
campaign dedispersion-warm "$work/cache-d" --plugin dedispersion --preset small \
    --strategy exhaustive --device "$gpu" --db "$work/d-warm.db" --quiet
cp "$work/c-cold.db" "$work/correlator-cold.db"

# The cost of isolation: the engine's overhead per configuration of a
# trivial kernel in this process and in a supervised worker. Builds are
# taken off the turn, so the driver's cache may answer them.
unset CUDA_CACHE_DISABLE
for mode in in-process isolated; do
    if [ $mode = isolated ]; then extra="--isolated $sk $here/bench/trivial.so"; else extra=""; fi
    echo "== overhead, $mode: bench_overhead 300 10 $extra" >> "$summary"
    # shellcheck disable=SC2086
    SKYTUNE_DEVICE="$gpu" "$here/bench/bench_overhead" 300 10 $extra >> "$summary" 2>&1
done

# A CPU device: the same space measured with and without compile workers,
# alternately, twice each; every configuration's median is kept.
for round in 1 2; do
    for jobs in 0 8; do
        label="pocl-jobs$jobs-round$round"
        campaign "$label" "$work/cache-$label" --plugin vector_add --strategy exhaustive --runs 20 \
            --compile-jobs $jobs --device "$cpu" --db "$work/$label.db" --quiet
        "$sk" export --db "$work/$label.db" --format csv --out "$work/$label.csv"
    done
done
# Only a few files come back from a device machine: the summary, and the
# rest (logs, the per-configuration CSVs, the cold correlator database) in
# one archive.
tar -czf "$out/campaign-engine-detail.tar.gz" -C "$work" \
    $(cd "$work" && ls *.log *.csv correlator-cold.db 2>/dev/null)
cat "$summary"
