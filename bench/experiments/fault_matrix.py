#!/usr/bin/env python3
"""The fault matrix (docs/benchmarks.md, "The fault matrix"): every fault
kind of the test suite's hostile plugin (tests/hostile_plugin.c), each in an
exhaustive campaign of 20 configurations of which two misbehave (x = 3 and
x = 11), on one OpenCL device; and the comparison of two devices' matrices.

  fault_matrix.py run SKYTUNE HOSTILE_SO DEVICE LABEL OUT_DIR
      one campaign per fault into OUT_DIR/LABEL/, and OUT_DIR/LABEL.json
  fault_matrix.py compare A.json B.json > table.md
      both devices' rows side by side; a row matches when the faulty
      configurations' statuses and stages agree and every correct one is ok

Each campaign has its own empty binary cache, --timeout-floor 3s and the
default compile limit (5 min): a kernel that never ends must be a timeout
in the stage it hung in within the kernel's limit, not the compiler's.
"Seconds lost" is the time the campaign recorded for the two faulty
configurations (build, verification, runs and the engine's, including a
confirmation in a fresh worker); "wall" is the whole command's.
"""
import json
import os
import sqlite3
import subprocess
import sys
import time

VALUES = 20
BAD = (3, 11)

# (fault, where, nth, what it is)
CASES = [
    ("none", None, None, "nothing goes wrong (the baseline)"),
    ("segv", "defines", None, "segfault in defines"),
    ("segv", "prepare", None, "segfault in prepare"),
    ("segv", "clear_outputs", None, "segfault in clear_outputs"),
    ("segv", "enqueue", None, "segfault in enqueue"),
    ("segv", "verify", None, "segfault in verify"),
    ("segv", "release", None, "segfault in release"),
    ("segv", "flops", None, "segfault in flops"),
    ("abort", "enqueue", None, "abort() in enqueue"),
    ("exit", "prepare", None, "exit(3) in prepare"),
    ("stack", "verify", None, "stack overflow in verify"),
    ("hang", "prepare", None, "host hang in prepare"),
    ("loop", None, "1", "kernel never ends (verification run)"),
    ("loop", None, "3", "kernel never ends (a timed run)"),
    ("oob", None, "1", "kernel writes 2^40 floats out of bounds"),
    ("near", None, "1", "kernel writes 64 floats past its output"),
    ("corrupt", None, "1", "kernel overwrites its input after reading it"),
    ("wrong", None, None, "kernel computes a wrong result"),
    ("compile", None, None, "kernel does not compile"),
    ("biglog", None, None, "compile failure after thousands of warnings"),
    ("kprintf", None, None, "kernel printf"),
    ("device_fault", None, "1", "the kernel's event reports a failure on the device"),
    ("print", "prepare", None, "host prints to stdout and stderr"),
    ("damage", None, None, "a configuration leaves its worker damaged (the next prepare segfaults)"),
]


def case_name(fault, where, nth):
    return fault + (f"-{where}" if where else "") + (f"-nth{nth}" if nth else "")


def run_case(skytune, plugin, device, folder, fault, where, nth):
    name = case_name(fault, where, nth)
    db = os.path.join(folder, name + ".db")
    cache = os.path.join(folder, name + ".cache")
    cmd = [skytune, "run", "--plugin", plugin, "--device", device, "--strategy", "exhaustive",
           "--set", f"values={VALUES}", "--set", f"bad={BAD[0]}", "--set", f"bad2={BAD[1]}",
           "--set", f"fault={fault}", "--runs", "5", "--seed", "1", "--timeout-floor", "3s",
           "--cache-dir", cache, "--db", db, "--quiet"]
    if where:
        cmd += ["--set", f"where={where}"]
    if nth:
        cmd += ["--set", f"nth={nth}"]
    started = time.monotonic()
    with open(os.path.join(folder, name + ".log"), "w") as log:
        rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT)
    wall = time.monotonic() - started
    row = {"case": name, "fault": fault, "where": where, "nth": nth, "rc": rc,
           "wall_s": round(wall, 2)}
    if not os.path.exists(db):
        row["error"] = "no database"
        return row
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT CAST(p.value AS INTEGER), m.status, COALESCE(m.stage, ''),"
        " COALESCE(m.build_s, 0) + COALESCE(m.verify_s, 0) + COALESCE(m.bench_s, 0)"
        " + COALESCE(m.overhead_s, 0), COALESCE(m.message, '')"
        " FROM measurements m JOIN config_params p ON p.configuration_id = m.configuration_id"
        " AND p.name = 'x' ORDER BY 1").fetchall()
    con.close()
    bad = [r for r in rows if r[0] in BAD]
    good = [r for r in rows if r[0] not in BAD]
    faulty = bad if fault != "none" else []
    correct = good if fault != "none" else rows
    row.update({
        "measured": len(rows),
        "faulty": sorted({f"{r[1]}" + (f" in {r[2]}" if r[2] else "") for r in faulty}),
        "correct_ok": sum(1 for r in correct if r[1] == "ok"),
        "correct": len(correct),
        "seconds_lost": round(sum(r[3] for r in faulty), 2),
        "messages": {str(r[0]): r[4][:300] for r in faulty},
        "other_statuses": sorted({f"x={r[0]}: {r[1]}" for r in correct if r[1] != "ok"}),
    })
    return row


def run(skytune, plugin, device, label, out):
    folder = os.path.join(out, label)
    os.makedirs(folder, exist_ok=True)
    rows = []
    for fault, where, nth, what in CASES:
        row = run_case(skytune, plugin, device, folder, fault, where, nth)
        row["what"] = what
        rows.append(row)
        print(f"{row['case']}: {', '.join(row.get('faulty', [])) or '-'};"
              f" correct ok {row.get('correct_ok')}/{row.get('correct')};"
              f" lost {row.get('seconds_lost')} s; wall {row['wall_s']} s", flush=True)
    with open(os.path.join(out, label + ".json"), "w") as f:
        json.dump({"device": device, "label": label, "rows": rows}, f, indent=1)


def verdict(row):
    return (", ".join(row.get("faulty", [])) or "—") if "error" not in row else row["error"]


def compare(a_path, b_path):
    a = json.load(open(a_path))
    b = json.load(open(b_path))
    by_case = {r["case"]: r for r in b["rows"]}
    print(f"| fault | {a['label']}: faulty configurations | correct ok | seconds lost | "
          f"{b['label']}: faulty configurations | correct ok | seconds lost | match |")
    print("|---|---|---|---|---|---|---|---|")
    matched = 0
    for ra in a["rows"]:
        rb = by_case.get(ra["case"], {})
        same = (verdict(ra) == verdict(rb) and ra.get("correct_ok") == ra.get("correct")
                and rb.get("correct_ok") == rb.get("correct"))
        matched += same
        print(f"| {ra['what']} | {verdict(ra)} | {ra.get('correct_ok')}/{ra.get('correct')} | "
              f"{ra.get('seconds_lost')} | {verdict(rb)} | {rb.get('correct_ok')}/"
              f"{rb.get('correct')} | {rb.get('seconds_lost')} | {'yes' if same else '**no**'} |")
    print(f"\n{matched} of {len(a['rows'])} rows match.")


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "run":
        run(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
