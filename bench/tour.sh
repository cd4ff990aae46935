#!/bin/sh
# The README's tour, command by command, as a new user runs it: a fresh
# folder, an empty binary cache and PoCL kernel cache, a new database. Prints
# each command's wall time and the machine's load average before and after
# (the figures in docs/benchmarks.md, "The README tour").
#   sh bench/tour.sh [BUILD]     (BUILD: the build folder, default build)
set -eu
build=$(cd "${1:-build}" && pwd)
source_dir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
ln -s "$build" build
ln -s "$source_dir/examples" examples
export SKYTUNE_CACHE_DIR="$work/cache" POCL_CACHE_DIR="$work/pocl-cache"
echo "$(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
timed() {
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/stderr" || { echo "failed: $*"; cat "$work/stderr"; exit 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v c="$*" 'BEGIN { printf "%7.1f s  %s\n", b - a, c }'
}
timed build/skytune devices
timed build/skytune plugins
timed build/skytune plugins show dedispersion --preset small
timed build/skytune run --plugin dedispersion --preset small --strategy random --budget 50 \
    --seed 7 --db tour.db
timed build/skytune run --plugin dedispersion --preset small --strategy random --budget 80 \
    --seed 7 --db tour.db
timed build/skytune best --db tour.db
timed build/skytune export --db tour.db --format csv --out tour.csv
timed sqlite3 tour.db 'SELECT * FROM results_dedispersion ORDER BY median_ns LIMIT 5'
timed build/skytune report --db tour.db --html tour.html
timed build/skytune run --t1 examples/t1/matmul.json --strategy random --budget 20
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
