#!/bin/sh
# Sclocco et al.'s experiment: one dedispersion campaign per number of DMs,
# then every instance's best configurations measured in every other
# instance (dedispersion_cross.sh), so that the best fixed configuration can
# be compared with each instance's tuned optimum (skytune report / skytune
# query fixed-vs-tuned).
#   usage: dedispersion_dms.sh SKYTUNE DB PRESET BUDGET DMS...
#   e.g.   dedispersion_dms.sh ./skytune h100.db apertif 80 2 16 128 512 2048 4096
set -eu
skytune=$1 db=$2 preset=$3 budget=$4
shift 4
for dms in "$@"; do
  "$skytune" run --plugin dedispersion --preset "$preset" --set dms="$dms" \
      --strategy hill-climbing --budget "$budget" --seed 1 --db "$db" --quiet | tail -n 1
done
exec "$(dirname "$0")/dedispersion_cross.sh" "$skytune" "$db" "$preset" "$@"
