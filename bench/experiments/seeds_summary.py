#!/usr/bin/env python3
"""The figures of bench/experiments/seeds_gpu.sh, each beside the seed (the
paper's figure) it is compared with, as text to paste into docs/results.

usage: seeds_summary.py PART DB [DB ...]
  PART: correlator, stations, pipeline, gridding, atomics, transfers, dedispersion,
        sweep

Reads the databases' results_<plugin> views and measurement_parts with
Python's sqlite3; prints nothing it did not read from them but the seeds'
figures, which are quoted from the papers and marked as such.
"""
import sqlite3
import sys


def rows(db, sql, args=()):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def tflops(gflops):
    return f"{gflops:,.0f} GFLOP/s"


def correlator(dbs):
    """Best per cell order, and per cell shape and order."""
    for db in dbs:
        problems = rows(db, "SELECT DISTINCT stations FROM results_correlator ORDER BY 1")
        for (stations,) in problems:
            print(f"-- correlator, {stations} stations ({db})")
            for order in ("column", "row"):
                best = rows(db, "SELECT gflops, median_ns, cell_width, cell_height, wg_size, "
                                "use_local, block_time FROM results_correlator WHERE status = 'ok' "
                                "AND stations = ? AND cell_order = ? ORDER BY median_ns LIMIT 1",
                            (stations, order))
                if best:
                    g, ns, w, h, wg, local, bt = best[0]
                    print(f"  best, {order} order: {w}x{h} cells, wg {wg}, use_local {local}, "
                          f"block_time {bt}: {ns / 1e3:.0f} us, {tflops(g)}")
            shapes = rows(db, "SELECT cell_width, cell_height, cell_order, max(gflops), "
                              "count(*) FROM results_correlator WHERE status = 'ok' AND "
                              "stations = ? GROUP BY 1, 2, 3", (stations,))
            table = {}
            for w, h, order, g, n in shapes:
                table.setdefault((w, h), {})[order] = (g, n)
            print("  cell   column order        row order           (best of each shape, "
                  "configurations ok)")
            for (w, h), by in sorted(table.items(),
                                     key=lambda kv: -max(g for g, _ in kv[1].values())):
                cells = []
                for order in ("column", "row"):
                    g, n = by.get(order, (0.0, 0))
                    cells.append(f"{tflops(g):>14} ({n:>3})" if n else f"{'-':>20}")
                print(f"  {w}x{h:<4} {cells[0]}  {cells[1]}")
            failed = rows(db, "SELECT status, count(*) FROM results_correlator WHERE "
                              "stations = ? AND status != 'ok' GROUP BY 1", (stations,))
            for status, n in failed:
                print(f"  {n} configurations {status}")
    print("  seed (Kis 2013, section 5.3.5, GTX 480): 545 GFLOP/s with 1x6 cells and 320 "
          "work-items at 64 stations; 485 GFLOP/s with 1x5 and 96 at 32 stations")
    print("  seed (the H200 exhaustive campaign, column order, cells up to 4): 1x4 14.5 TFLOP/s, "
          "4x1 31.0 TFLOP/s")


def pipeline(dbs):
    """Each Pipeline 2's default (LOFAR's layouts) against its best, per
    correlator cell order; the gain is the thesis's (default - best) / default."""
    lofar = ("TPSC", "CSTP", "CBTP", "CTBP", "transpose")
    for db in dbs:
        groups = rows(db, "SELECT DISTINCT fft, corr_config FROM results_lofar_pipeline "
                          "WHERE pipeline = 2 ORDER BY 1 DESC, 2")
        for fft, corr in groups:
            ok = rows(db, "SELECT median_ns, fir_layout, fft_layout, bf_in_layout, bf_out_layout, "
                          "corr_layout, scheme FROM results_lofar_pipeline WHERE status = 'ok' AND "
                          "pipeline = 2 AND fft = ? AND corr_config = ? ORDER BY median_ns",
                      (fft, corr))
            default = [r for r in ok if (r[1], r[3], r[4], r[5], r[6]) == lofar]
            print(f"-- Pipeline 2, fft={fft}, corr_config={corr} ({db})")
            if not ok or not default:
                print("  no default or no ok pipeline measured")
                continue
            best, base = ok[0], default[0][0]
            print(f"  default (LOFAR's layouts) {base / 1e6:.3f} ms; best {best[0] / 1e6:.3f} ms "
                  f"(FIR {best[1]}, FFT {best[2]}, BF {best[3]}/{best[4]}, correlator {best[5]}, "
                  f"{best[6]}); gain {100 * (base - best[0]) / base:.1f} %")
    print("  seed (Kis 2013, Tables 7.2-7.3, GTX 480, as docs/results/pipelines.md quotes them): "
          "Pipeline 2 gains 8.8 % with the FFT, 34.5 % without; the H100 before, with 1x4 cells: "
          "6.6 % and 11.7 %")


def gridding(dbs):
    """Each measured configuration with cas against the same with native."""
    keys = ("variant", "wg_size", "tile_size", "groups_per_tile", "tile_registers", "box_radius",
            "tiled_fraction", "pols_per_item", "reorder_kernels", "romein_loop")
    for db in dbs:
        print(f"-- gridding, float_atomics cas against native ({db})")
        ok = rows(db, f"SELECT distribution, {', '.join(keys)}, float_atomics, median_ns, status "
                      "FROM results_gridding")
        pairs = {}
        for r in ok:
            pairs.setdefault(r[:len(keys) + 1], {})[r[-3]] = (r[-2], r[-1])
        for key, by in sorted(pairs.items()):
            cas, native = by.get("cas", (None, "-")), by.get("native", (None, "-"))
            text = ", ".join(f"{k} {v}" for k, v in zip(keys, key[1:]))
            if cas[0] and native[0]:
                print(f"  {key[0]}: {text}: cas {cas[0] / 1e6:.2f} ms, native "
                      f"{native[0] / 1e6:.2f} ms, cas/native {cas[0] / native[0]:.2f}")
            else:
                def shown(m):
                    ns, status = m
                    return f"{ns / 1e6:.2f} ms" if ns else ("not measured" if status == "-"
                                                              else status)
                print(f"  {key[0]}: {text}: cas {shown(cas)}, native {shown(native)}")
    print("  seed (NAG report, Table 2): the atomic kernel on the synthetic set 86 ms on the P100, "
          "188 ms on the K80 (CUDA atomicAdd); H100 before, cas: 199.8 ms (uniform)")
    print("  seed (NAG report, section 3.6): on the P100 tiling the whole active grid always beat "
          "an atomic outer ring (tileFactor 1)")


def atomics(dbs):
    """Each atomic variant's tuned optimum with either kind of float atomic add."""
    for db in dbs:
        print(f"-- gridding, each atomic variant tuned with cas and with native apart ({db})")
        best = rows(db, "SELECT distribution, variant, float_atomics, min(median_ns), count(*) "
                        "FROM results_gridding WHERE status = 'ok' GROUP BY 1, 2, 3 "
                        "ORDER BY 1, 2, 3")
        tuned = {(d, v, a): (ns, n) for d, v, a, ns, n in best}
        for (d, v) in sorted({(d, v) for d, v, _ in tuned}):
            cas, native = tuned.get((d, v, "cas")), tuned.get((d, v, "native"))
            text = " ".join(f"{a} {t[0] / 1e6:.1f} ms (best of {t[1]})"
                            for a, t in (("cas", cas), ("native", native)) if t)
            ratio = f", cas/native {cas[0] / native[0]:.2f}" if cas and native else ""
            print(f"  {d} {v}: {text}{ratio}")
    print("  seed (NAG report, Table 2): the atomic kernel on the synthetic set 86 ms on the P100, "
          "188 ms on the K80 (CUDA atomicAdd)")


def transfers(dbs):
    """The parts of each campaign's best run: the copies' share of the whole."""
    for db in dbs:
        campaigns = rows(db, "SELECT c.id, p.name, pr.text, c.settings FROM campaigns c "
                             "JOIN plugins p ON p.id = c.plugin_id JOIN problems pr ON "
                             "pr.id = c.problem_id ORDER BY c.id")
        for cid, plugin, problem, settings in campaigns:
            best = rows(db, "SELECT id, median_ns FROM measurements WHERE campaign_id = ? AND "
                            "status = 'ok' ORDER BY median_ns LIMIT 1", (cid,))
            if not best:
                continue
            mid, total = best[0]
            parts = rows(db, "SELECT label, median_ns FROM measurement_parts WHERE "
                             "measurement_id = ? ORDER BY part", (mid,))
            whole = sum(ns for _, ns in parts) or 1.0
            copies = sum(ns for label, ns in parts if label.startswith(("upload", "download")))
            on = "transfers" in settings
            print(f"-- {plugin} {problem} ({'with' if on else 'without'} transfers; {db})")
            print(f"  median {total / 1e3:.0f} us; parts: " +
                  ", ".join(f"{label} {ns / 1e3:.0f} us ({100 * ns / whole:.0f} %)"
                            for label, ns in parts))
            if on:
                print(f"  the copies: {copies / 1e3:.0f} us, {100 * copies / whole:.0f} % of the "
                      "whole")
    print("  seed: no paper measures these copies; van der Veldt 2011 counts them out of the "
          "PPF's time, the NAG report's Table 11 counts them in (P100, synthetic: 74 ms)")


def dedispersion(dbs):
    """Each instance's optimum, for the scaling and zero-DM comparisons."""
    for db in dbs:
        print(f"-- dedispersion instances ({db})")
        found = rows(db, "SELECT channels, zero_dm, dms, count(*), max(gflops) FROM "
                         "results_dedispersion WHERE status = 'ok' GROUP BY 1, 2, 3 "
                         "ORDER BY 1, 2, 3")
        for channels, zero, dms, n, g in found:
            best = rows(db, "SELECT wi_samples, wi_dms, el_samples, el_dms, local_mem, unroll "
                            "FROM results_dedispersion WHERE status = 'ok' AND channels = ? AND "
                            "zero_dm = ? AND dms = ? ORDER BY median_ns LIMIT 1",
                        (channels, zero, dms))
            setup = "apertif" if channels == 1024 else "lofar" if channels == 32 else channels
            print(f"  {setup} zero_dm={zero} dms={dms}: {n} configurations ok, best "
                  f"{g:,.0f} GFLOP/s ({', '.join(map(str, best[0]))})")
    print("  seed (Sclocco et al., section V-C): with every DM at 0, Apertif's results change "
          "negligibly and LOFAR's rise to Apertif's level; tuned over fixed about 3x (Apertif, "
          "GPUs) and 1.5x (LOFAR, NVIDIA)")


def sweep(dbs):
    """Sclocco et al.'s sweep (dedispersion_sweep_gpus.sh): each instance's
    optimum and whether its space was searched whole; the best fixed
    configuration (the largest summed GFLOP/s over the instances searched
    whole, among the configurations measured ok in every one of them, as in
    the paper) and what tuning gains over it in each instance."""
    for db in dbs:
        found = rows(db, "SELECT c.id, s.valid, count(m.id), sum(m.status = 'ok'), "
                         "max(m.gflops) FROM campaigns c JOIN campaign_spaces s ON "
                         "s.campaign_id = c.id LEFT JOIN measurements m ON m.campaign_id = c.id "
                         "GROUP BY c.id ORDER BY c.id")
        instances = []
        for cid, valid, measured, ok, best in found:
            dms, zero, channels = rows(db, "SELECT dms, zero_dm, channels FROM "
                                           "results_dedispersion WHERE campaign_id = ? LIMIT 1",
                                       (cid,))[0]
            instances.append((dms, cid, measured == valid, measured, int(valid), ok, best))
        instances.sort()
        setup = "apertif" if channels == 1024 else "lofar" if channels == 32 else channels
        print(f"-- sweep, {setup}, {'zero DMs' if zero else 'real delays'} ({db})")
        whole = [i for i in instances if i[2]]
        per_config = {}
        for dms, cid, *_ in whole:
            for conf, g in rows(db, "SELECT m.configuration_id, m.gflops FROM measurements m "
                                    "WHERE m.campaign_id = ? AND m.status = 'ok'", (cid,)):
                per_config.setdefault(conf, {})[cid] = g
        covering = {c: by for c, by in per_config.items() if len(by) == len(whole)}
        fixed = max(covering, key=lambda c: (sum(covering[c].values()), -c)) if covering else None
        if fixed is not None:
            text = rows(db, "SELECT text FROM configurations WHERE id = ?", (fixed,))[0][0]
            print(f"  best fixed configuration over the {len(whole)} instances searched whole "
                  f"(of {len(covering)} measured ok in all of them): {text}")
        print("  | DMs | searched | optimum GFLOP/s | fixed GFLOP/s | tuned / fixed |")
        print("  | --- | --- | --- | --- | --- |")
        for dms, cid, is_whole, measured, valid, ok, best in instances:
            if is_whole and fixed is not None:
                f = covering[fixed][cid]
                tail = f"{f:,.0f} | {best / f:.2f}"
            else:
                tail = "- | -"
            print(f"  | {dms:,} | {'whole' if is_whole else 'part'}, {measured:,} of {valid:,} "
                  f"| {best:,.0f} | {tail} |")
    print("  seed (Sclocco et al., sections V-B, V-C): tuned over fixed about 3x (Apertif, GPUs) "
          "and 1.5x (LOFAR, NVIDIA); with every DM at 0 Apertif changes negligibly and LOFAR "
          "rises to Apertif's level")


PARTS = {"correlator": correlator, "stations": correlator, "pipeline": pipeline,
         "gridding": gridding, "atomics": atomics, "transfers": transfers, "dedispersion": dedispersion,
         "sweep": sweep}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in PARTS:
        sys.exit(__doc__)
    PARTS[sys.argv[1]](sys.argv[2:])
