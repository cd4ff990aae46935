#!/usr/bin/env python3
"""Where a campaign's time goes, from `skytune run --trace FILE`.

usage: trace_summary.py TRACE.json [more.json ...]

For each trace: the wall time from the first to the last span; the engine's
steps (set-up, campaign, closing); the spans of each kind summed per track
kind (engine, measuring workers, compile workers) with their count and
median; and, on the device's critical path, how each configuration's turn in
the engine splits into what the measuring worker did for it and the rest.
"""
import json
import statistics
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        text = f.read()
    text = text.rstrip()
    # A killed campaign leaves the array open; the format allows it.
    if not text.endswith("]"):
        text = text.rstrip(",") + "]"
    return json.loads(text)


def summarise(path):
    events = load(path)
    kinds = {}
    for e in events:
        if e.get("ph") == "M" and e["name"] == "process_name":
            name = e["args"]["name"]
            kinds[e["pid"]] = name.rsplit(" ", 1)[0]
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        print(f"{path}: no spans")
        return
    t0 = min(e["ts"] for e in spans)
    t1 = max(e["ts"] + e["dur"] for e in spans)
    print(f"== {path}: {len(spans)} spans, wall {1e-6 * (t1 - t0):.2f} s")
    by = defaultdict(list)
    for e in spans:
        by[(kinds.get(e["pid"], "?"), e["name"])].append(e["dur"] * 1e-3)
    print(f"  {'track':<18} {'span':<40} {'count':>6} {'sum s':>9} {'median ms':>10}")
    for (kind, name), durs in sorted(by.items(), key=lambda kv: (kv[0][0], -sum(kv[1]))):
        print(f"  {kind:<18} {name:<40} {len(durs):>6} {sum(durs) / 1e3:>9.2f} "
              f"{statistics.median(durs):>10.2f}")
    # The engine's turns: 'evaluate' spans hold the configuration's text;
    # the measuring worker's 'configuration' span of the same text is the
    # worker's share of it; what is left is messages, waits and process
    # switches between them.
    engine_eval = {}
    for e in spans:
        if kinds.get(e["pid"]) == "engine" and e["name"] == "evaluate":
            engine_eval[e["args"]["configuration"]] = e
    worker_cfg = {}
    for e in spans:
        if kinds.get(e["pid"]) == "measuring worker" and e["name"] == "configuration":
            worker_cfg[e["args"]["configuration"]] = e
    gaps = []
    for text, ev in engine_eval.items():
        w = worker_cfg.get(text)
        if not w:
            continue
        # Only the part of the worker's span inside the engine's wait is on
        # the critical path (a spare builds before it is asked for).
        start = max(ev["ts"], w["ts"])
        end = min(ev["ts"] + ev["dur"], w["ts"] + w["dur"])
        gaps.append((ev["dur"] - max(0.0, end - start)) * 1e-3)
    if gaps:
        print(f"  engine 'evaluate' beyond the worker's configuration span: median "
              f"{statistics.median(gaps):.2f} ms, sum {sum(gaps) / 1e3:.2f} s over {len(gaps)}")
    turns = sorted((e for e in spans if kinds.get(e["pid"]) == "engine" and
                    e["name"] in ("strategy", "look up and claim", "evaluate",
                                  "record and report")), key=lambda e: e["ts"])
    if turns:
        busy = sum(e["dur"] for e in turns) * 1e-6
        camp = [e for e in spans if kinds.get(e["pid"]) == "engine" and e["name"] == "campaign"]
        if camp:
            print(f"  campaign {camp[0]['dur'] * 1e-6:.2f} s; the engine's turns cover "
                  f"{busy:.2f} s of it")


for p in sys.argv[1:]:
    summarise(p)
