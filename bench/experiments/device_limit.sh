#!/bin/sh
# How close a campaign comes to the device's limit (docs/benchmarks.md,
# "Close to the device's limit"): exhaustive campaigns of dedispersion
# `small` and the correlator `thesis` with --trace, the settings of compile
# workers and spare measuring workers side by side, and, when Kernel Tuner
# is at hand, Kernel Tuner on the same dedispersion space in the same call.
#   usage: device_limit.sh OUT_DIR [GPU_SELECTOR [CPU_SELECTOR [WHAT]]]
# WHAT: a space-separated choice of traces, grid, pocl-grid, racing, kt
# (default: traces grid). GRID: the grid's spares,compile-workers pairs
# (default "0,14 1,13 2,12 4,10"); KT_MODES: Kernel Tuner with NVIDIA's
# cache "on", "off" or both (default "on off"); NVCACHE_OFF=0 leaves the
# traces' campaign with NVIDIA's cache off out. Run from a bundle (bench/experiments/bundle.sh).
# Every campaign starts from an empty skytune cache and an empty PoCL
# cache; NVIDIA's own cache is on but empty (a new CUDA_CACHE_PATH per
# campaign: what a first campaign meets) unless the label says
# "nvcache-off".
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
gpu=${2:-NVIDIA}
cpu=${3:-Portable}
what=${4:-traces grid}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
sk="$here/skytune"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary="$out/device-limit.txt"
: >> "$summary"
mkdir -p "$work/traces"

# campaign LABEL ARGS...: one `skytune run` with fresh caches, timed; its
# summary lines and wall time go to the summary file.
campaign() {
    label=$1
    shift
    rm -rf "$work/cache-$label" "$work/cuda-$label" "$work/pocl-$label"
    mkdir -p "$work/cuda-$label" "$work/pocl-$label"
    t0=$(date +%s.%N)
    # PoCL keeps a kernel cache of its own too: a fresh one per campaign.
    SKYTUNE_CACHE_DIR="$work/cache-$label" CUDA_CACHE_PATH="$work/cuda-$label" \
        POCL_CACHE_DIR="$work/pocl-$label" \
        "$sk" run "$@" --db "$work/$label.db" --quiet > "$work/$label.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    {
        echo "== $label: exit $rc, wall $wall s"
        echo "   skytune run $*"
        grep -E '^(campaign|  status|  workers|  measured|  compiled|  time|  raced|best)' \
            "$work/$label.log" | sed 's/^/   /'
    } >> "$summary"
}

dedisp="--plugin dedispersion --preset small --strategy exhaustive"
correl="--plugin correlator --preset thesis --strategy exhaustive --only in_layout=CTSP --runs 5"

nproc >> "$summary"
for w in $what; do
    case $w in
    traces)
        campaign dedisp-trace $dedisp --device "$gpu" --trace "$work/traces/dedispersion.json"
        cp "$work/dedisp-trace.db" "$out/dedispersion-h200-exhaustive.db"
        campaign correl-trace $correl --device "$gpu" --trace "$work/traces/correlator.json"
        if [ "${NVCACHE_OFF:-1}" = 1 ]; then
            export CUDA_CACHE_DISABLE=1
            campaign dedisp-nvcache-off $dedisp --device "$gpu" \
                --trace "$work/traces/dedispersion-nvcache-off.json"
            unset CUDA_CACHE_DISABLE
        fi
        python3 "$here/trace_summary.py" "$work/traces"/*.json > "$out/trace-summary.txt" 2>&1
        tar -C "$work/traces" -czf "$out/traces.tar.gz" .
        ;;
    grid)
        # Spares and compile workers: the defaults against the others.
        # GRID: spares,compile-workers pairs, e.g. "0,14 2,14"
        for setting in ${GRID:-0,14 1,13 2,12 4,10}; do
            set -- $(echo "$setting" | tr ',' ' ')
            campaign "dedisp-ahead$1-jobs$2" $dedisp --device "$gpu" --measure-ahead $1 \
                --compile-jobs $2
            campaign "correl-ahead$1-jobs$2" $correl --device "$gpu" --measure-ahead $1 \
                --compile-jobs $2
        done
        ;;
    pocl-grid)
        for setting in "0 0" "0 4" "0 8" "0 15"; do
            set -- $setting
            campaign "pocl-ahead$1-jobs$2" --plugin dedispersion --preset small \
                --strategy random --budget 120 --device "$cpu" --measure-ahead $1 \
                --compile-jobs $2
        done
        ;;
    racing)
        campaign correl-norace $correl --device "$gpu" --no-race
        campaign dedisp-norace $dedisp --device "$gpu" --no-race
        ;;
    kt)
        # Kernel Tuner's wheels, carried in the bundle (../shared/kernel_tuner/README.md)
        kt="$here/kernel_tuner"
        if [ -d "$kt/wheels" ] && [ ! -d "$kt/site" ]; then
            python3 -m pip install -q --no-index --no-deps --find-links "$kt/wheels" \
                --target "$kt/site" kernel_tuner pyopencl python-constraint2 jsonschema attrs \
                jsonschema-specifications referencing rpds-py xmltodict pytools platformdirs \
                typing_extensions siphash24 packaging >> "$summary" 2>&1
        fi
        if [ -d "$kt/site" ]; then
            # The platform index of the GPU, as pyopencl numbers them.
            KT_PLATFORM=$(PYTHONPATH="$kt/site" python3 -c "import pyopencl as cl; print([i for i, p in enumerate(cl.get_platforms()) if '$gpu' in p.name][0])")
            export KT_PLATFORM
            for mode in ${KT_MODES:-on off}; do
                rm -rf "$work/kt-cuda"
                mkdir -p "$work/kt-cuda"
                if [ $mode = off ]; then export CUDA_CACHE_DISABLE=1; fi
                campaign "dedisp-side-by-side-nvcache-$mode" $dedisp --device "$gpu"
                t0=$(date +%s.%N)
                CUDA_CACHE_PATH="$work/kt-cuda" PYTHONPATH="$kt/site" \
                    python3 "$kt/dedispersion_small.py" "$kt/dedispersion.cl" \
                    > "$work/kt-$mode.json" 2> "$work/kt-$mode.err"
                t1=$(date +%s.%N)
                {
                    echo "== kernel-tuner-nvcache-$mode: exit $?, wall $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
                    sed 's/^/   /' "$work/kt-$mode.json"
                    tail -3 "$work/kt-$mode.err" | sed 's/^/   stderr: /'
                } >> "$summary"
                unset CUDA_CACHE_DISABLE
            done
        else
            echo "== kernel tuner: not carried ($kt/site missing)" >> "$summary"
        fi
        ;;
    esac
done
cp "$work"/*.log "$out/" 2>/dev/null
tar -C "$work" -czf "$out/logs.tar.gz" $(cd "$work" && ls *.log) 2>/dev/null
rm -f "$out"/*.log
