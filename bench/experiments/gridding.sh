#!/bin/sh
# The gridding plugin's campaigns (docs/results/gridding.md): at the
# report-like presets (uniform, concentrated) and epic, each variant tuned on
# its own (--only variant=V), so that every variant has a tuned best to
# compare (and, for epic, EPIC's original Romein kernel against the EPIC
# note's); one database per preset in OUT_DIR (gridding-PRESET.db) and the
# whole log in OUT_DIR/gridding.log, with each preset's best per variant and
# its evaluations by status. The sort's share of the tiled and hybrid times
# is in each database's measurement_parts (docs/results/gridding.md has the
# query).
#   usage: gridding.sh OUT_DIR DEVICE_SUBSTRING
# Run from a bundle (bench/experiments/bundle.sh) or from a source tree with
# build/skytune; SKYTUNE=path overrides. Environment, all optional:
#   BUDGET      configurations per variant and preset (default 12)
#   TIME_LIMIT  per variant campaign, after its set-up (default 30s)
#   RUNS        timed runs per configuration (default 5)
#   TIMEOUT_FLOOR  the watchdog's floor per configuration (default 10s)
#   PRESETS     the presets to tune (default "uniform concentrated epic")
#   SET_uniform, SET_concentrated, SET_epic
#               extra "--set NAME=VALUE ..." arguments for that preset (for a
#               smaller problem on a slow device)
# On an H100 (compile workers building ahead, about 50 ms a configuration)
# the defaults keep each preset within about three minutes: four campaigns,
# each a set-up with the CPU reference (seconds) and then at most 12
# configurations or 30 s; the watchdog stops any one configuration after
# 60 s at most.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
device=$2
budget=${BUDGET:-12}
time_limit=${TIME_LIMIT:-30s}
runs=${RUNS:-5}
timeout_floor=${TIMEOUT_FLOOR:-10s}
. "$here/find_skytune.sh"
mkdir -p "$out"
log="$out/gridding${PRESETS:+-$(echo "$PRESETS" | tr ' ' '-')}.log"
: > "$log"
"$sk" devices >> "$log" 2>&1

for preset in ${PRESETS:-uniform concentrated epic}; do
    db="$out/gridding-$preset.db"
    eval "settings=\${SET_$preset:-}"
    # The device's measured peaks, for the fraction of peak and the report's roofline.
    "$sk" devices --probe --device "$device" --db "$db" >> "$log" 2>&1
    for variant in atomic tiled hybrid romein; do
        t0=$(date +%s.%N)
        echo "== $preset, $variant: skytune run --plugin gridding --preset $preset $settings" \
             "--only variant=$variant --strategy bayes --budget $budget --time-limit $time_limit" \
             "--runs $runs --seed 1 --device $device" >> "$log"
        # shellcheck disable=SC2086
        "$sk" run --plugin gridding --preset "$preset" $settings --only "variant=$variant" \
            --strategy bayes --budget "$budget" --time-limit "$time_limit" --runs "$runs" \
            --timeout-floor "$timeout_floor" --timeout-cap 60s --seed 1 --device "$device" --db "$db" >> "$log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" -v rc="$rc" \
            'BEGIN { printf "== exit %d, wall %.1f s\n", rc, b - a }' >> "$log"
    done
    if [ "$preset" = epic ]; then
        # The EPIC note's comparison as such: EPIC's original Romein kernel (8
        # work-items, one polarization each, footprint positions strided over
        # the work-items) against the note's (a work-item per antenna, both
        # polarizations, whole footprints), with either kernel layout.
        echo "== epic: the EPIC note's original and changed kernels" >> "$log"
        # shellcheck disable=SC2086
        "$sk" run --plugin gridding --preset epic $settings --strategy exhaustive \
            --restrict "variant == 'romein' and ((wg_size == 8 and pols_per_item == 1 and romein_loop == 'strided') or (wg_size == 256 and pols_per_item == 2 and romein_loop == 'whole'))" \
            --runs "$runs" --timeout-floor "$timeout_floor" --timeout-cap 60s --seed 1 \
            --device "$device" --db "$db" >> "$log" 2>&1
    fi
    {
        echo "== $preset: the best of each variant's campaign"
        "$sk" best --db "$db"
        echo "== $preset: evaluations by status"
        "$sk" query failures --db "$db"
    } >> "$log" 2>&1
done
cat "$log"
