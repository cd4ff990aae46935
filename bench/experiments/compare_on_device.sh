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

# The GPU hosts have Python but no sqlite3 shell: every query goes through
# Python's sqlite3.
query() {
    python3 -c 'import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print(" ".join("NULL" if v is None else str(v) for v in row))' "$@"
}

verdicts() {
    query "$1" "SELECT p.value, m.status, m.max_abs_error, m.max_rel_error
        FROM measurements m JOIN config_params p
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
        query "$db" "SELECT status, COUNT(*), printf('mean verify_s %.4f', AVG(verify_s)),
            printf('max rel error %.3g', MAX(max_rel_error)) FROM measurements GROUP BY status"
        python3 - "$db" <<'EOF'
import sqlite3, statistics, sys
rows = [r[0] for r in sqlite3.connect(sys.argv[1]).execute(
    "SELECT verify_s FROM measurements WHERE status = 'ok' AND verify_s IS NOT NULL")]
if rows:
    print("median verify_s %.4f over %d configurations" % (statistics.median(rows), len(rows)))
EOF
    done
    # Both ways measured the same random configurations (--seed 1): their
    # verdicts and largest errors must be the same, configuration by
    # configuration.
    echo "== dedispersion, configuration by configuration: host against device"
    python3 - "$out/dedispersion-$dms-host.db" "$out/dedispersion-$dms-device.db" <<'EOF'
import sqlite3, sys
def verdicts(path):
    return dict(sqlite3.connect(path).execute(
        "SELECT (SELECT group_concat(name || '=' || value, ',') FROM config_params p"
        " WHERE p.configuration_id = m.configuration_id),"
        " status || ' ' || quote(max_abs_error) || ' ' || quote(max_rel_error)"
        " FROM measurements m"))
host, device = verdicts(sys.argv[1]), verdicts(sys.argv[2])
differ = sorted(k for k in host.keys() | device.keys() if host.get(k) != device.get(k))
print("%d configurations both ways; %d differ in status or largest errors"
      % (len(host.keys() & device.keys()), len(differ)))
for k in differ[:10]:
    print("  %s: host %s, device %s" % (k, host.get(k), device.get(k)))
EOF
} > "$summary" 2>&1
cat "$summary"
