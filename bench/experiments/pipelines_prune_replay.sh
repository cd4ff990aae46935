#!/bin/sh
# The thesis's pruning replayed over exhaustively measured pipelines
# (docs/results/pipelines.md, "How many pipelines pruning measures"): for
# each campaign of an exhaustive database (pipelines.sh's
# pipelines-exhaustive.db) and each prune threshold, the prune strategy runs
# over the recorded pipelines with a budget of the whole space, and the
# table says after how many evaluations its reduced space was searched (the
# count the thesis reports: 60 of 864), at which evaluation it first held
# the best pipeline it found by then, and how that pipeline compares with
# the space's optimum. No device: every time is the recorded one.
#   usage: pipelines_prune_replay.sh EXHAUSTIVE.db [THRESHOLDS] [SEEDS]
#   e.g.   pipelines_prune_replay.sh docs/results/pipelines/pipelines-exhaustive.db "1.5 1.2 1.1" "1 2 3"
set -eu
here=$(cd "$(dirname "$0")" && pwd)
db=$1
thresholds=${2:-1.5 1.2 1.1}
seeds=${3:-1}
sk=${SKYTUNE:-$here/../../build/skytune}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
groups="groups=bf_in_layout,bf_out_layout"
echo "| campaign | problem | space | threshold | seed | sweeps end | reduced space searched after | best found at | best | optimum | best / optimum |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for c in $(sqlite3 "$db" "SELECT id FROM campaigns ORDER BY id"); do
    problem=$(sqlite3 "$db" "SELECT 'pipeline=' || (SELECT value FROM problem_params pp WHERE pp.problem_id = c.problem_id AND name = 'pipeline') || ',fft=' || (SELECT value FROM problem_params pp WHERE pp.problem_id = c.problem_id AND name = 'fft') FROM campaigns c WHERE c.id = $c")
    space=$(sqlite3 "$db" "SELECT COUNT(*) FROM evaluations WHERE campaign_id = $c")
    optimum=$(sqlite3 "$db" "SELECT MIN(m.median_ns) FROM evaluations e JOIN measurements m ON m.id = e.measurement_id WHERE e.campaign_id = $c AND m.status = 'ok'")
    for th in $thresholds; do
        for seed in $seeds; do
            rm -f "$tmp"/r.db*
            "$sk" run --replay "$db:$c" --space recorded --strategy prune --strategy-opt "$groups" \
                --strategy-opt "threshold=$th" --budget "$space" --seed "$seed" --db "$tmp/r.db" \
                > "$tmp/log" 2>&1
            # The phase lines: "from evaluation N, prune: ...".
            sweeps_end=$(grep -m1 "from evaluation .*prune: kept" "$tmp/log" | sed 's/from evaluation \([0-9]*\),.*/\1/')
            climb=$(grep "from evaluation .*hill-climbing" "$tmp/log" | sed 's/from evaluation \([0-9]*\),.*/\1/')
            # The best of the pruning itself: up to the evaluation before the climb.
            last=$(( ${climb:-$((space + 1))} - 1 ))
            sweeps_end=$(( ${sweeps_end:-1} - 1 ))
            found=$(sqlite3 "$tmp/r.db" "SELECT e.seq + 1, m.median_ns FROM evaluations e JOIN measurements m ON m.id = e.measurement_id WHERE e.seq < $last AND m.status = 'ok' ORDER BY m.median_ns, e.seq LIMIT 1")
            at=${found%%|*}
            best=${found#*|}
            ratio=$(awk "BEGIN { printf \"%.3f\", $best / $optimum }")
            printf '| %s | %s | %s | %s | %s | %s | %s | %s | %.1f µs | %.1f µs | %s |\n' "$c" "$problem" \
                "$space" "$th" "$seed" "$sweeps_end" "$last" "$at" \
                "$(awk "BEGIN { print $best / 1000 }")" "$(awk "BEGIN { print $optimum / 1000 }")" "$ratio"
        done
    done
done
