#!/bin/sh
# Runs every libFuzzer harness of a fuzzing build for a given time, each on
# a working copy of its seed corpus (the corpora in the repository stay as
# they are), and prints per harness libFuzzer's closing figures: executions,
# edges covered (cov), features (ft) and corpus size. An input that crashes
# a harness is kept as BUILD/fuzz-artifacts/NAME-crash-* and makes the run
# fail, as does any sanitizer report in a harness's log.
#   usage: fuzz/run.sh BUILD_DIR SECONDS
set -u
build=$1
seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
work="$build/fuzz-work"
artifacts="$build/fuzz-artifacts"
mkdir -p "$work" "$artifacts"
status=0
summary=""
for name in expr t1 kernel_tuner t4 database; do
    mkdir -p "$work/$name"
    log="$work/$name.log"
    echo "== fuzz_$name for $seconds s"
    "$build/fuzz/fuzz_$name" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$artifacts/$name-" -timeout=10 -rss_limit_mb=2048 \
        "$work/$name" "$here/corpus/$name" >"$log" 2>&1
    rc=$?
    # A sanitizer report that let the run go on (a build whose
    # UndefinedBehaviorSanitizer recovers) fails it all the same.
    if [ "$rc" -eq 0 ] && grep -q -E 'runtime error:|^SUMMARY: [A-Za-z]+Sanitizer' "$log"; then
        rc=1
    fi
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    if [ "$rc" -ne 0 ]; then
        status=1
        grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -n 5
        summary="$summary
fuzz_$name: FAILED (exit $rc), see $log"
    else
        summary="$summary
fuzz_$name: ${execs:-?} executions in $seconds s; ${done_line#*DONE }"
    fi
done
echo "$summary"
exit $status
