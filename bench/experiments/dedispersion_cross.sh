#!/bin/sh
# The cross-measurement pass of Sclocco et al.'s experiment: the five best
# configurations of every instance (campaign) of a preset in DB, measured in
# each of the given instances, so that every instance has figures for the
# same candidate fixed configurations. A configuration outside an
# instance's space (e.g. more DMs per work-group than the instance has) is
# left out there. Measurements already in DB are reused.
#   usage: dedispersion_cross.sh SKYTUNE DB PRESET DMS...
set -eu
skytune=$1 db=$2 preset=$3
shift 3
# The preset's problem, e.g. channels=32,samples=200000,dms=256,...: the
# instances are the campaigns with this problem and any number of DMs.
problem=$("$skytune" plugins show dedispersion | awk -v p="$preset" '$1 == p {getline; print $1}')
[ -n "$problem" ] || { echo "dedispersion has no preset '$preset'" >&2; exit 2; }
# The five best configurations of each instance, as one restriction.
restriction=$(python3 - "$db" "$problem" <<'PY'
import re, sqlite3, sys
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
    (re.sub(r"\bdms=[0-9]+", "dms=%", sys.argv[2]) + "%",)).fetchall()
if not rows:
    sys.exit("no successful measurements of campaigns with problem " + sys.argv[2])
terms = ["(" + " and ".join(kv.replace("=", " == ") for kv in text.split(",")) + ")" for (text,) in rows]
print(" or ".join(terms))
PY
)
for dms in "$@"; do
  "$skytune" run --plugin dedispersion --preset "$preset" --set dms="$dms" \
      --strategy exhaustive --restrict "$restriction" --seed 1 --db "$db" --quiet | tail -n 1
done
