#!/bin/sh
# skytune and Kernel Tuner side by side on a CPU device (PoCL), issue 26 and
# docs/benchmarks.md ("Close to the device's limit"): vector_add, a 2-D
# stencil and a matrix multiplication, each tuned exhaustively by both tools
# from the same T1 file (the same kernel source, tuning parameters,
# conditions, build options, launch geometry and arguments; Kernel Tuner
# through pocl_kt/kt_t1.py), with fresh caches every run (skytune's binary
# cache, PoCL's kernel cache; Kernel Tuner keeps none), alternating which
# tool goes first, N pairs. Prints each run's wall time, the medians and the
# ratio skytune / Kernel Tuner.
#   usage: pocl_vs_kernel_tuner.sh OUT_DIR
# Environment:
#   N              pairs per kernel (default 3)
#   CPUS           a taskset CPU list every run is bound to, e.g. 0,1
#   KERNELS        a choice of vector_add stencil matmul (default all three)
#   RUNS           timed runs per configuration, both tools (default 7,
#                  Kernel Tuner's default iterations)
#   MATMUL_N       matmul's problem size, both dimensions (default the T1
#                  file's, 512)
#   SKYTUNE        the skytune to time (default: find_skytune.sh's)
#   SKYTUNE_BEFORE another skytune (today's engine) timed in the same pairs
#   KT_WHEELS      a folder of Kernel Tuner's wheels for a host without
#                  network (../shared/kernel_tuner/README.md); otherwise pip
#                  installs kernel_tuner and pyopencl, unless importable
#   KT_SITE        where they are installed (default OUT_DIR/kt-site)
#   PLATFORM       the OpenCL platform both use (default: PoCL's)
# Runs from the source tree or from a bundle (bench/experiments/bundle.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/find_skytune.sh"
out=${1:?usage: pocl_vs_kernel_tuner.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
pairs=${N:-3}
runs=${RUNS:-7}
kernels=${KERNELS:-vector_add stencil matmul}
before=${SKYTUNE_BEFORE:-}
pin=""
[ -n "${CPUS:-}" ] && pin="taskset -c $CPUS"
kt="$here/pocl_kt"
# The examples' T1 files: the copies a bundle carries, else the source tree's.
if [ -f "$kt/matmul.json" ]; then t1="$kt"; else t1="$here/../../examples/t1"; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$out/runs.tsv"
summary="$out/summary.txt"
printf 'kernel\ttool\tpair\twall_s\texit\n' > "$log"

# Kernel Tuner: importable, else from the carried wheels, else from the index.
site=${KT_SITE:-$out/kt-site}
if ! python3 -c "import kernel_tuner, pyopencl" 2>/dev/null; then
    if [ ! -d "$site/kernel_tuner" ]; then
        if [ -n "${KT_WHEELS:-}" ]; then
            python3 -m pip install -q --no-index --no-deps --find-links "$KT_WHEELS" \
                --target "$site" kernel_tuner pyopencl python-constraint2 jsonschema attrs \
                jsonschema-specifications referencing rpds-py xmltodict pytools platformdirs \
                typing_extensions siphash24 packaging || exit 1
        else
            python3 -m pip install -q --target "$site" kernel_tuner pyopencl || exit 1
        fi
    fi
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
platform=${PLATFORM:-Portable}
# pyopencl's platform index, for Kernel Tuner's `platform` (kt_t1.py reads KT_PLATFORM).
KT_PLATFORM=$(python3 -c "import pyopencl as cl; print([i for i, p in enumerate(cl.get_platforms()) if '$platform' in p.name][0])") ||
    { echo "no OpenCL platform named '$platform'" >&2; exit 1; }
export KT_PLATFORM

# t1_file KERNEL; sizes KERNEL: the T1 file and problem-size settings.
t1_file() {
    case $1 in
        stencil) echo "$kt/stencil.json" ;;
        *) echo "$t1/$1.json" ;;
    esac
}
sizes() {
    if [ "$1" = matmul ] && [ -n "${MATMUL_N:-}" ]; then
        echo "problem_size_0=$MATMUL_N problem_size_1=$MATMUL_N"
    fi
}

# timed KERNEL TOOL PAIR CMD...: one run with fresh caches; its wall time
# goes to runs.tsv, its output to OUT_DIR/logs.
mkdir -p "$out/logs"
timed() {
    kernel=$1 tool=$2 pair=$3
    shift 3
    rm -rf "$work/sk" "$work/pocl" "$work/db"*
    mkdir -p "$work/pocl"
    started=$(date +%s.%N)
    SKYTUNE_CACHE_DIR="$work/sk" POCL_CACHE_DIR="$work/pocl" $pin "$@" \
        > "$out/logs/$kernel-$tool-$pair.log" 2>&1
    rc=$?
    ended=$(date +%s.%N)
    wall=$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.2f", b - a }')
    printf '%s\t%s\t%s\t%s\t%s\n' "$kernel" "$tool" "$pair" "$wall" "$rc" >> "$log"
    echo "$kernel $tool pair $pair: $wall s (exit $rc)"
}

skytune_run() {
    kernel=$1 tool=$2 pair=$3 bin=$4
    sets=""
    for s in $(sizes "$kernel"); do sets="$sets --set $s"; done
    # shellcheck disable=SC2086
    timed "$kernel" "$tool" "$pair" "$bin" run --t1 "$(t1_file "$kernel")" --device "$platform" \
        --strategy exhaustive --runs "$runs" --db "$work/db" --quiet $sets
}

kt_run() {
    kernel=$1 pair=$2
    # shellcheck disable=SC2046
    timed "$kernel" kernel_tuner "$pair" python3 "$kt/kt_t1.py" "$(t1_file "$kernel")" "$runs" \
        $(sizes "$kernel")
}

{
    echo "skytune: $sk"
    [ -n "$before" ] && echo "skytune before: $before"
    echo "Kernel Tuner: $(python3 -c 'import kernel_tuner; print(kernel_tuner.__version__)' 2>/dev/null)"
    echo "CPUs: ${CPUS:-all} of $(nproc --all); pairs $pairs; runs $runs"
} | tee "$summary"

pair=1
while [ "$pair" -le "$pairs" ]; do
    for kernel in $kernels; do
        # Alternate which tool goes first, so that neither always meets the
        # machine as the other left it.
        if [ $((pair % 2)) -eq 1 ]; then
            skytune_run "$kernel" skytune "$pair" "$sk"
            [ -n "$before" ] && skytune_run "$kernel" skytune_before "$pair" "$before"
            kt_run "$kernel" "$pair"
        else
            kt_run "$kernel" "$pair"
            [ -n "$before" ] && skytune_run "$kernel" skytune_before "$pair" "$before"
            skytune_run "$kernel" skytune "$pair" "$sk"
        fi
    done
    pair=$((pair + 1))
done

# Medians per kernel and tool, and skytune's ratio to Kernel Tuner.
python3 - "$log" <<'PY' | tee -a "$summary"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
kernels = list(dict.fromkeys(r["kernel"] for r in rows))
tools = list(dict.fromkeys(r["tool"] for r in rows))
print("%-11s" % "kernel" + "".join("%16s" % t for t in tools) + "%18s" % "skytune / KT")
for k in kernels:
    med = {}
    for t in tools:
        walls = [float(r["wall_s"]) for r in rows if r["kernel"] == k and r["tool"] == t]
        failed = sum(1 for r in rows if r["kernel"] == k and r["tool"] == t and r["exit"] != "0")
        med[t] = statistics.median(walls) if walls else None
        if failed: print("  %s %s: %d runs failed (see logs/)" % (k, t, failed))
    ratio = med["skytune"] / med["kernel_tuner"] if med.get("skytune") and med.get("kernel_tuner") else None
    print("%-11s" % k + "".join("%16s" % ("%.2f s" % med[t] if med[t] is not None else "-") for t in tools)
          + "%18s" % ("%.3f" % ratio if ratio else "-"))
PY
