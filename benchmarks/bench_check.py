"""Time of ``ltheory check`` per paper, in quick and full mode (issue 7: full within 10 minutes on
2 cores, ``--quick`` within 2 minutes for CI).

Run:  python -m benchmarks.bench_check [--quick-only] [--json] [--mutants]   (from the
checkout root, so that its proofs_check is the one measured, not an installed copy)

``--mutants`` also runs the mutation harness (:mod:`proofs_check.mutation`) in each mode and
records killed / equivalent (a proof verified over its range) / numerically supported
(grid) / survived (with the declared reason,
or not), the kill rate over the mutants that are false statements, and the seconds.

Prints one table: per paper (seed file), the number of checks and rows, and the seconds spent in
its checks (sum of ``CheckResult.seconds``; the AMSY24 checks share one cached computation, so
their time is charged to the first of them); then the wall-clock total per mode.  Writes
``benchmarks/results/bench_check.json``.  Seconds are wall-clock on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from proofs_check import all_checks
from proofs_check.coverage import PAPERS
from proofs_check.mutation import mutants, run_mutant, summary


def run_mutants(quick: bool) -> dict[str, Any]:
    t0 = time.perf_counter()
    outcomes = [run_mutant(c, m, quick) for c in all_checks() for m in mutants(c)]
    s = summary(outcomes)
    undeclared = [x for x in s["survivors"] if x["declared"] is None]
    return {**s, "undeclared_survivors": len(undeclared),
            "seconds": round(time.perf_counter() - t0, 2)}


def run_mode(quick: bool) -> dict[str, Any]:
    per: dict[str, dict[str, Any]] = defaultdict(lambda: {"checks": 0, "rows": 0, "seconds": 0.0,
                                                          "slowest": ("", 0.0)})
    t0 = time.perf_counter()
    for check in all_checks():
        res = check.run(quick)
        p = per[check.source]
        p["checks"] += 1
        p["rows"] += len(res.rows)
        p["seconds"] += res.seconds
        if res.seconds > p["slowest"][1]:
            p["slowest"] = (check.id, res.seconds)
    total = time.perf_counter() - t0
    return {"total_seconds": round(total, 2),
            "papers": {src: {**v, "seconds": round(v["seconds"], 2),
                             "slowest": [v["slowest"][0], round(v["slowest"][1], 2)]}
                       for src, v in per.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick-only", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--mutants", action="store_true", help="also run the mutation harness")
    args = ap.parse_args()
    out: dict[str, Any] = {"quick": run_mode(True)}
    if not args.quick_only:
        out["full"] = run_mode(False)
    if args.mutants:
        out["mutants"] = {"quick": run_mutants(True)}
        if not args.quick_only:
            out["mutants"]["full"] = run_mutants(False)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for mode, res in out.items():
            if mode == "mutants":
                for m, s in res.items():
                    print(f"\nmutants ({m}): {s['mutants']} generated, {s['equivalent']} "
                          f"equivalent (proof verified over its range), {s['grid']} "
                          f"numerically supported (grid), {s['killed']}/{s['false_statements']} "
                          f"false statements killed ({s['kill_rate']:.1%}), {s['survived']} "
                          f"survived ({s['undeclared_survivors']} undeclared), "
                          f"{len(s['contradictions'])} contradictions, {s['seconds']:.0f} s")
                    for x in s["survivors"]:
                        tag = "declared" if x["declared"] else "UNDECLARED"
                        print(f"  [survived, {tag}] {x['check']}: {x['mutant']}")
                    for x in s["equivalents"]:
                        print(f"  [equivalent] {x['check']}: {x['mutant']}")
                    for x in s["grid_supported"]:
                        print(f"  [numerically supported (grid)] {x['check']}: {x['mutant']} "
                              f"(grid: {x['proof']['grid']})")
                continue
            print(f"\n{mode}: {res['total_seconds']:.1f} s wall-clock")
            print(f"{'paper':60s} {'checks':>6s} {'rows':>5s} {'seconds':>8s}  slowest")
            for src, v in res["papers"].items():
                name = PAPERS.get(src, src)[:58]
                print(f"{name:60s} {v['checks']:6d} {v['rows']:5d} {v['seconds']:8.2f}  "
                      f"{v['slowest'][0]} ({v['slowest'][1]:.2f} s)")
    path = Path(__file__).resolve().parent / "results" / "bench_check.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
