#!/bin/sh
# The same kernel tuned through --t1 and through its C plugin: plugins/vector_add's kernel,
# described by bench/t1/vector_add.json (which gives the kernel the plugin's problem size n,
# its "small" preset, as the compiler option -D n=65536), over the same 28 configurations on
# the default OpenCL device with `skytune run --strategy exhaustive`, each in its supervised
# worker with one compile worker. The two alternate, each first in every other round, so
# that a load that comes and goes weighs on both alike.
#
# Prints the configurations each finds valid (they must be the same) and the engine's
# overhead per configuration (measurements.overhead_s: the campaign's time for a
# configuration less its build, verification and timed runs), median over every
# configuration of every round, for each, and their ratio. A first round of each fills the
# binary cache and is not counted, so that no round waits for the compiler.
#
# With --no-isolation, both are measured in the engine's own process (no worker, no compile
# worker): the engine's bookkeeping alone, without the messages and the process switches that
# a loaded machine makes noisy.
#
#   usage: bench/t1_overhead.sh [BUILD_DIR [ROUNDS [--no-isolation]]]   (defaults build and 20)
set -eu
build=${1:-build}
rounds=${2:-20}
isolation="--compile-jobs 1"
[ "${3:-}" = --no-isolation ] && isolation="--no-isolation"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skytune="$build/skytune"

run() { # MODE DB
    if [ "$1" = plugin ]; then
        set -- --plugin vector_add --preset small --db "$2"
    else
        set -- --t1 "$here/t1/vector_add.json" --db "$2"
    fi
    # shellcheck disable=SC2086
    "$skytune" run "$@" --strategy exhaustive --runs 10 $isolation \
        --cache-dir "$tmp/cache" --quiet >/dev/null
}

for mode in plugin t1; do run "$mode" "$tmp/warm-$mode.db"; done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
for i in $(seq "$rounds"); do
    order="plugin t1"
    [ $((i % 2)) -eq 0 ] && order="t1 plugin"
    for mode in $order; do
        db="$tmp/$mode-$i.db"
        run "$mode" "$db"
        sqlite3 "$db" "SELECT overhead_s FROM measurements" | tee -a "$tmp/$mode.overhead" |
            median >"$tmp/$mode-$i.median"
        sqlite3 "$db" "SELECT (SELECT group_concat(name || '=' || value, ',') FROM config_params p
                               WHERE p.configuration_id = m.configuration_id
                                 AND p.name IN ('wg_size', 'per_item'))
                       FROM measurements m WHERE m.status = 'ok'" | sort >"$tmp/$mode-$i.valid"
    done
    cmp -s "$tmp/plugin-$i.valid" "$tmp/t1-$i.valid" || {
        echo "round $i: the plugin and --t1 find different configurations valid:"
        diff "$tmp/plugin-$i.valid" "$tmp/t1-$i.valid" || true
        exit 1
    }
    # The two campaigns of a round ran a second apart: their ratio is the
    # least touched by a load that changes from minute to minute.
    awk -v t="$(cat "$tmp/t1-$i.median")" -v p="$(cat "$tmp/plugin-$i.median")" \
        'BEGIN { print t / p }' >>"$tmp/ratios"
done

# The tenth percentile: the cost with the least of the machine's other load in it.
p10() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR - 1) / 10) + 1] }'; }
plugin_p10=$(p10 <"$tmp/plugin.overhead")
t1_p10=$(p10 <"$tmp/t1.overhead")
plugin=$(median <"$tmp/plugin.overhead")
t1=$(median <"$tmp/t1.overhead")
ratio=$(median <"$tmp/ratios")
valid=$(wc -l <"$tmp/plugin-1.valid")
echo "  valid configurations: $valid of 28, the same for the plugin and --t1 in every round"
awk -v p="$plugin" -v t="$t1" -v q="$ratio" -v a="$plugin_p10" -v b="$t1_p10" -v n="$(wc -l <"$tmp/plugin.overhead")" -v r="$rounds" 'BEGIN {
    printf "  engine overhead per configuration, median of %d (%d rounds):\n", n, r
    printf "    --plugin vector_add  %.3f ms\n", p * 1e3
    printf "    --t1 vector_add.json %.3f ms  (%+.1f %%)\n", t * 1e3, (t / p - 1) * 100
    printf "  median over the rounds of (--t1 median / plugin median): %.3f (%+.1f %%)\n", q, (q - 1) * 100
    printf "  tenth percentile: plugin %.3f ms, --t1 %.3f ms (%+.1f %%)\n", a * 1e3, b * 1e3, (b / a - 1) * 100
}'
