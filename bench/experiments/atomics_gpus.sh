#!/bin/sh
# seeds_gpu.sh's atomics part spread over the host's NVIDIA GPUs: each
# (preset, variant) pair of the gridding variants that update with atomics
# runs on a GPU of its own (with that GPU's share of the cores), tuned by
# bayes with float_atomics=cas and then =native apart, into
# OUT_DIR/atomics-K.db; the summary (seeds_summary.py atomics) goes to
# OUT_DIR/atomics-summary.txt.
#   usage: atomics_gpus.sh OUT_DIR
# Environment: RUNS (default 3), ATOMICS_BUDGET (default 16).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
. "$here/find_skytune.sh"
. "$here/nvidia_gpus.sh"
mkdir -p "$out"
[ "$ngpus" -ge 1 ] || { echo "atomics_gpus.sh: no NVIDIA GPU in \`skytune devices\`" >&2; exit 2; }
share=$(($(nproc) / ngpus))
k=0
for pair in uniform:atomic uniform:romein concentrated:atomic concentrated:romein; do
    preset=${pair%%:*} variant=${pair#*:}
    gpu=$(echo "$gpus" | sed -n "$((k % ngpus + 1))p")
    first=$(((k % ngpus) * share))
    (for atomics in cas native; do
        echo "== $preset $variant $atomics on $gpu"
        taskset -c "$first-$((first + share - 1))" "$sk" run --plugin gridding --preset "$preset" \
            --only variant="$variant" --only float_atomics=$atomics --strategy bayes \
            --budget "${ATOMICS_BUDGET:-16}" --runs "${RUNS:-3}" --timeout-cap 60s --seed 1 \
            --device "$gpu" --db "$out/atomics-$k.db" --quiet
        echo "== exit $?"
    done > "$out/atomics-$k.log" 2>&1) &
    k=$((k + 1))
    # More pairs than GPUs: wait for this round before the next.
    [ $((k % ngpus)) -eq 0 ] && wait
done
wait
python3 "$here/seeds_summary.py" atomics "$out"/atomics-*.db > "$out/atomics-summary.txt" 2>&1
cat "$out/atomics-summary.txt"
