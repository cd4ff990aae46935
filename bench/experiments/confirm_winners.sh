#!/bin/sh
# How often confirming a campaign's winner changes it (docs/reports.md,
# "Confirmation"): `skytune confirm` over committed campaign databases, each
# campaign's 5 best timed again in 5 interleaved rounds on this host's
# device, and a summary per campaign: whether the winner changed, and the
# gain (the old winner's confirmed median / the new winner's; 1 when it
# stands).
#   usage: confirm_winners.sh OUT_DIR [GPU_SELECTOR [CPU_SELECTOR]]
# e.g. from a bundle in the repository's root:
#   .device-carry/confirm_winners.sh "$OUT/confirm" nvidia pocl
# The databases are the GPU ones of docs/results (PoCL's take many minutes
# each: the gridding ones' kernels run seconds on a CPU; name them in DBS to
# include them) unless DBS names others; each is
# copied into OUT_DIR first (the committed files stay as they are), and the
# copy, with its confirmations, comes back in OUT_DIR. A database measured
# on PoCL (its name holds "pocl") is confirmed on CPU_SELECTOR (default
# pocl), any other on GPU_SELECTOR (default nvidia): the campaign's own
# device name may not match this host's card. TOP, ROUNDS and RUNS change
# the defaults (5, 5, 10). Plugin and problem come from each database; a
# campaign whose plugin gained tuning parameters since it was measured (the
# layouts of beamformer, correlator and ppf) has configurations the plugin's
# space no longer holds, and is skipped with that reason in the summary.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/find_skytune.sh"
out=$1
gpu=${2:-nvidia}
cpu=${3:-pocl}
top=${TOP:-5}
rounds=${ROUNDS:-5}
runs=${RUNS:-10}
# The committed databases: beside the source tree's scripts, or beside a
# bundle (bench/experiments/bundle.sh) in the repository's root.
results=
for d in "$here/../../docs/results" "$here/../docs/results" docs/results; do
    if [ -d "$d" ]; then results=$d; break; fi
done
dbs=${DBS:-$(ls "$results"/*.db | grep -v pocl)}
plugin_dir=
for d in "$here/plugins" "$here/../../build/plugins"; do
    if [ -d "$d" ]; then plugin_dir=$d; break; fi
done
mkdir -p "$out/dbs"
summary="$out/confirm-winners.txt"
{
    echo "# skytune confirm --top $top --rounds $rounds --runs $runs, $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    echo "# database campaign changed gain old_winner -> new_winner"
} > "$summary"
for db in $dbs; do
    name=$(basename "$db" .db)
    copy="$out/dbs/$name.db"
    cp "$db" "$copy"
    case "$name" in *pocl*) device=$cpu ;; *) device=$gpu ;; esac
    t0=$(date +%s)
    "$sk" confirm --db "$copy" --device "$device" --top "$top" --rounds "$rounds" --runs "$runs" \
        ${plugin_dir:+--plugin-dir "$plugin_dir"} > "$out/$name.log" 2>&1
    status=$?
    echo "$name: exit $status in $(( $(date +%s) - t0 )) s" >> "$out/timing.txt"
    "$sk" query confirmations --db "$copy" --format json > "$out/$name.json" 2>> "$out/$name.log"
    python3 - "$name" "$out/$name.json" "$out/$name.log" >> "$summary" <<'PY'
import json, sys
name, path, log = sys.argv[1], sys.argv[2], sys.argv[3]
# Why a campaign was not confirmed, as `skytune confirm` said it.
reasons = [l.strip() for l in open(log, errors="replace")
           if l.startswith("confirmed: no") or l.startswith("skytune")]
try:
    rows = json.load(open(path))
except Exception as e:
    rows = []
by = {}
for r in rows:
    by.setdefault((r["campaign"], r["confirmation"]), []).append(r)
if not by:
    print(f"{name} - skipped - - {'; '.join(reasons) or 'see ' + name + '.log'}")
for (campaign, _), entries in sorted(by.items()):
    old = next(e for e in entries if e["campaign_place"] == 1)
    new = next((e for e in entries if e["confirmed_place"] == 1), None)
    gain = entries[0]["gain"]
    print(f"{name} {campaign} {'yes' if entries[0]['changed'] else 'no'} "
          f"{'-' if gain is None else format(gain, '.4f')} {old['configuration']} -> "
          f"{new['configuration'] if new else '(none passed every visit)'}")
PY
done
python3 - "$summary" >> "$summary" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
done = [r for r in rows if r[2] in ("yes", "no")]
changed = [r for r in done if r[2] == "yes"]
gains = [float(r[3]) for r in changed if r[3] != "-"]
print(f"# {len(changed)} of {len(done)} confirmed campaigns changed their winner"
      + (f"; gain median {sorted(gains)[len(gains) // 2]:.4f}, max {max(gains):.4f}" if gains else ""))
PY
cat "$summary"
