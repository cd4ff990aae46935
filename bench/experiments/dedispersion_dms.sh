#!/bin/sh
# Sclocco et al.'s experiment: one dedispersion campaign per number of DMs,
# then every instance's best configurations measured in every other
# instance, so that the best fixed configuration can be compared with each
# instance's tuned optimum (skytune report / skytune query fixed-vs-tuned).
#   usage: dedispersion_dms.sh SKYTUNE DB PRESET BUDGET DMS...
#   e.g.   dedispersion_dms.sh ./skytune h100.db apertif 80 2 16 128 512 2048 4096
set -eu
skytune=$1 db=$2 preset=$3 budget=$4
shift 4
for dms in "$@"; do
  "$skytune" run --plugin dedispersion --preset "$preset" --set dms="$dms" \
      --budget "$budget" --seed 1 --db "$db" --quiet | tail -n 1
done
# The five best configurations of each instance, as one restriction.
restriction=$(python3 - "$db" "$preset" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""
    WITH ranked AS (
        SELECT c.id AS campaign, cf.text AS config,
               ROW_NUMBER() OVER (PARTITION BY c.id ORDER BY m.median_ns) AS place
        FROM campaigns c JOIN evaluations e ON e.campaign_id = c.id
        JOIN measurements m ON m.id = e.measurement_id
        JOIN configurations cf ON cf.id = m.configuration_id
        JOIN problems pr ON pr.id = c.problem_id
        WHERE m.status = 'ok' AND pr.text LIKE ?)
    SELECT DISTINCT config FROM ranked WHERE place <= 5""",
    ("%samples_per_second=" + ("20000" if sys.argv[2] == "apertif" else "200000") + "%",)).fetchall()
terms = ["(" + " and ".join(kv.replace("=", " == ") for kv in text.split(",")) + ")" for (text,) in rows]
print(" or ".join(terms))
PY
)
for dms in "$@"; do
  "$skytune" run --plugin dedispersion --preset "$preset" --set dms="$dms" \
      --strategy exhaustive --restrict "$restriction" --seed 1 --db "$db" --quiet | tail -n 1
done
