#!/bin/sh
# Comparing outputs on the device (`skytune run --compare device`) against
# comparing them on the host (`--compare host`), on one device:
#   1. verdicts: the hostile test plugin, with a wrong result at x=2 and
#      writes past the output at x=1 and x=4, run both ways; each
#      configuration's status and largest errors side by side;
#   2. time: dedispersion (LOFAR setup) at DMS DMs, the same BUDGET random
#      configurations both ways (fresh databases, the binary cache warm for
#      the second); each run's mean and median verify_s and its wall time.
# Results in OUT_DIR/compare-summary.txt, the databases beside it.
#   usage: compare_on_device.sh OUT_DIR DEVICE [DMS] [BUDGET]
#   e.g.   compare_on_device.sh OUT 1:0 128 150
# Run from a bundle (bench/experiments/bundle.sh) or a source tree with
# build/skytune; SKYTUNE=path overrides.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
device=$2
dms=${3:-128}
budget=${4:-150}
. "$here/find_skytune.sh"
mkdir -p "$out"
summary="$out/compare-summary.txt"
hostile="$here/bench/hostile.so"
[ -f "$hostile" ] || hostile="$here/../../build/hostile.so"

verdicts() {
    sqlite3 "$1" "SELECT p.value || ' ' || m.status || ' ' || quote(m.max_abs_error) || ' ' ||
        quote(m.max_rel_error) FROM measurements m JOIN config_params p
        ON p.configuration_id = m.configuration_id AND p.name = 'x'
        ORDER BY CAST(p.value AS INTEGER), m.id"
}

{
    echo "== device: $("$sk" devices 2>/dev/null | grep -F " $device " | head -1)"
    for fault in "wrong --set bad=2" "near --set bad=1 --set bad2=4"; do
        for where in host device; do
            db="$out/hostile-$(echo "$fault" | cut -d' ' -f1)-$where.db"
            rm -f "$db"
            # shellcheck disable=SC2086
            "$sk" run --plugin "$hostile" --strategy exhaustive --set values=8 \
                --set fault=$fault --runs 3 --no-confirm --quiet --device "$device" \
                --compare "$where" --db "$db" > "$db.log" 2>&1
            echo "== hostile fault=$fault, compared on the $where (exit $?): x status max_abs max_rel"
            verdicts "$db"
        done
    done
    for where in host device; do
        db="$out/dedispersion-$dms-$where.db"
        rm -f "$db"
        t0=$(date +%s.%N)
        "$sk" run --plugin dedispersion --preset lofar --set dms="$dms" --strategy random \
            --budget "$budget" --runs 3 --seed 1 --no-confirm --quiet --device "$device" \
            --compare "$where" --db "$db" > "$db.log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        echo "== dedispersion lofar, $dms DMs, $budget random configurations, compared on the" \
             "$where (exit $rc)"
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "wall %.1f s\n", b - a }'
        sqlite3 "$db" "SELECT status, COUNT(*), printf('mean verify_s %.4f', AVG(verify_s)),
            printf('max rel error %.3g', MAX(max_rel_error)) FROM measurements GROUP BY status"
        python3 - "$db" <<'EOF'
import sqlite3, statistics, sys
rows = [r[0] for r in sqlite3.connect(sys.argv[1]).execute(
    "SELECT verify_s FROM measurements WHERE status = 'ok' AND verify_s IS NOT NULL")]
if rows:
    print("median verify_s %.4f over %d configurations" % (statistics.median(rows), len(rows)))
EOF
    done
} > "$summary" 2>&1
cat "$summary"
