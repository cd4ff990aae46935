#!/bin/sh
# Sclocco et al.'s sweep (docs/campaigns/dedispersion-sweep-*.yaml) spread
# over the GPUs of one host: each stream of instances (a setup and its
# delays, real or zero) runs on a GPU of its own, with that GPU's share of
# the host's cores (taskset), every instance searched exhaustively in order
# of DMs (2, 4, 8, ... 4096) until DEADLINE. An instance the deadline cuts
# is left 'interrupted' in its database; running the same command again
# with the databases in OUT_DIR resumes it where it stopped. At the end
# each stream's database OUT_DIR/sweep-STREAM.db is summarised (each
# instance's optimum, whether it was searched whole, and `skytune query
# fixed-vs-tuned` over the instances measured) into OUT_DIR/sweep-summary.txt.
#   usage: dedispersion_sweep_gpus.sh OUT_DIR DEADLINE_SECONDS STREAM...
#   STREAM: apertif, lofar, apertif_zero, lofar_zero; the Nth stream runs on
#           the Nth NVIDIA GPU `skytune devices` lists. Streams joined by a
#           comma run one after the other on one GPU (lofar,lofar_zero), so
#           that a host with fewer GPUs than streams keeps each GPU busy.
#   e.g.   dedispersion_sweep_gpus.sh OUT 520 apertif lofar apertif_zero lofar_zero
#          dedispersion_sweep_gpus.sh OUT 520 apertif,apertif_zero lofar,lofar_zero
# Environment, all optional:
#   RUNS      timed runs per configuration (default 3; racing stops clearly
#             slower configurations early, the best five always get them all)
#   DMS       the instances, in order (default: 2 4 8 ... 4096)
#   DMS_STREAM  the same for one stream (DMS_lofar, say), so that a resumed
#             sweep skips the instances a stream has searched whole
#   BEFORE    a shell command run on the last stream's GPU and CPUs before
#             that stream (e.g. other experiments; the GPU's selector is in
#             $SWEEP_GPU), its time counted against DEADLINE
# Run from a bundle (bench/experiments/bundle.sh) or a source tree with
# build/skytune; SKYTUNE=path overrides.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
deadline=$2
shift 2
runs=${RUNS:-3}
dms_list=${DMS:-2 4 8 16 32 64 128 256 512 1024 2048 4096}
. "$here/find_skytune.sh"
mkdir -p "$out"
start=$(date +%s)

. "$here/nvidia_gpus.sh"
cpus=$(nproc)
if [ "$ngpus" -lt 1 ]; then
    echo "dedispersion_sweep_gpus.sh: no NVIDIA GPU in \`skytune devices\`" >&2
    exit 2
fi
share=$((cpus / ngpus))

# One stream: its instances in order, each exhaustive, until the deadline.
stream() {
    name=$1 gpu=$2 first_cpu=$3
    case $name in
    apertif) preset=apertif zero=false ;;
    lofar) preset=lofar zero=false ;;
    apertif_zero) preset=apertif zero=true ;;
    lofar_zero) preset=lofar zero=true ;;
    *) echo "unknown stream '$name' (apertif, lofar, apertif_zero, lofar_zero)" >&2; return 2 ;;
    esac
    db="$out/sweep-$name.db"
    log="$out/sweep-$name.log"
    cpu_list="$first_cpu-$((first_cpu + share - 1))"
    eval "stream_dms=\${DMS_$name:-\$dms_list}"
    for dms in $stream_dms; do
        left=$((deadline - ($(date +%s) - start)))
        if [ "$left" -lt 15 ]; then
            echo "== deadline: instance $dms DMs and later not started" >> "$log"
            break
        fi
        t0=$(date +%s.%N)
        echo "== $dms DMs on $gpu (CPUs $cpu_list), ${left}s left" >> "$log"
        taskset -c "$cpu_list" "$sk" run --plugin dedispersion --preset "$preset" \
            --set dms="$dms" --set zero_dm="$zero" --strategy exhaustive --runs "$runs" \
            --seed 1 --time-limit "${left}s" --device "$gpu" --db "$db" --quiet >> "$log" 2>&1
        rc=$?
        awk -v a="$t0" -v b="$(date +%s.%N)" -v rc="$rc" \
            'BEGIN { printf "== exit %d, wall %.1f s\n", rc, b - a }' >> "$log"
    done
}

if [ "$#" -gt "$ngpus" ]; then
    echo "dedispersion_sweep_gpus.sh: $# streams for $ngpus GPU(s); join streams with a comma to run them one after the other on one GPU" >&2
    exit 2
fi

# The streams of one argument, one after the other on one GPU.
streams() {
    for one in $(echo "$1" | tr ',' ' '); do
        stream "$one" "$2" "$3"
    done
}

k=0
for names in "$@"; do
    gpu=$(echo "$gpus" | sed -n "$((k + 1))p")
    if [ $((k + 1)) -eq "$#" ] && [ -n "${BEFORE:-}" ]; then
        (SWEEP_GPU=$gpu taskset -c "$((k * share))-$((k * share + share - 1))" sh -c "$BEFORE" \
            > "$out/sweep-before.log" 2>&1; streams "$names" "$gpu" $((k * share))) &
    else
        streams "$names" "$gpu" $((k * share)) &
    fi
    k=$((k + 1))
done
wait

summary="$out/sweep-summary.txt"
: > "$summary"
for name in $(echo "$@" | tr ',' ' '); do
    db="$out/sweep-$name.db"
    [ -f "$db" ] || continue
    python3 "$here/seeds_summary.py" dedispersion "$db" >> "$summary" 2>&1
    grep -E '^== (exit|deadline)|search complete|stopped' "$out/sweep-$name.log" >> "$summary"
    echo "== fixed-vs-tuned, $name (the instances measured so far)" >> "$summary"
    "$sk" query --db "$db" fixed-vs-tuned --format csv >> "$summary" 2>&1
done
cat "$summary"
