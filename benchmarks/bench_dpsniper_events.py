"""How many events should the suite's final audit certify?  (issue 14, part 2)

Runs ``bench_dpsniper_suite.run_one`` (``audit_search(total_runs=...)``, the library's plan) on
rows × seeds at one budget with each ``events`` setting (1, 2, "auto"), and appends the rows to
results/dpsniper_events_seeds.json (a row per name, seed and setting; later rows replace earlier
ones with the same key).  The pilots, the pair and the certification runs are the same for
every setting of a seed (the seed streams do not depend on it), so the settings are compared on
identical draws.

Run:  nice -n 10 python benchmarks/bench_dpsniper_events.py [--rows Laplace SVT1 ...]
      [--seeds 1 2 ...] [--events 1 2 auto] [--runs 2e7]
      python benchmarks/bench_dpsniper_events.py --table   (the Markdown table of the JSON)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_dpsniper_suite import PUBLISHED, run_one  # noqa: E402

OUT = HERE / "results" / "dpsniper_events_seeds.json"
WHAT = ("1 / 2 / auto certified events in the final audit of audit_search(total_runs=2e7) "
        "(bench_dpsniper_suite.run_one: the library's plan, the suite's settings otherwise), "
        "per row and seed, claimed eps 0.1, alpha 0.05; the pilots, pair and certification "
        "draws of a seed are the same for every setting")
DEFAULT = {"Laplace": range(1, 5), "ReportNoisyMax1": range(1, 9), "SVT1": range(1, 5),
           "SVT2": range(1, 4), "SVT34Parallel": range(1, 6)}


def _cell(cell: dict, key: str, best: float) -> str:
    """One setting's bound / DP-Sniper's (✓ when ≥ 1; auto: with the events it certified)."""
    if key not in cell:
        return ""
    q = cell[key]["bound"] / best
    k = f" ({cell[key]['certified']})" if key == "auto" else ""
    return f"{q:.3f}{' ✓' if q >= 1 else ''}{k}"


def table(data: dict) -> str:
    """One line per (row, seed) with each setting's bound over DP-Sniper's."""
    best = {r["mechanism"]: r["best"] for r in json.loads(PUBLISHED.read_text())["mechanisms"]}
    by: dict = {}
    for r in data["rows"]:
        by.setdefault((r["name"], r["seed"]), {})[str(r["events"])] = r
    lines = ["| row | seed | 1 event | 2 events | auto (k) |", "|---|---|---|---|---|"]
    for (name, seed), cell in sorted(by.items()):
        lines.append(f"| {name} | {seed} | "
                     + " | ".join(_cell(cell, k, best[name]) for k in ("1", "2", "auto")) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", nargs="*", default=list(DEFAULT))
    ap.add_argument("--seeds", nargs="*", type=int, default=None,
                    help="default: the seeds of the round-5 measurement per row")
    ap.add_argument("--events", nargs="*", default=["auto"])
    ap.add_argument("--runs", type=float, default=2e7)
    ap.add_argument("--table", action="store_true", help="print the table of the JSON, run nothing")
    args = ap.parse_args()
    data = json.loads(OUT.read_text()) if OUT.exists() else {"rows": []}
    data["what"] = WHAT
    data.pop("dpsniper_best", None)        # benchmarks/data/dpsniper_published.json has them
    if args.table:
        print(table(data))
        return
    for name in args.rows:
        for seed in args.seeds or DEFAULT.get(name, range(1, 9)):
            for ev in args.events:
                events = ev if ev == "auto" else int(ev)
                r = run_one(name, int(args.runs), seed, events)
                row = {"name": name, "seed": seed, "events": events, "pair": r["pair"],
                       "bound": round(r["bound"], 4), "event": r["event"][:100],
                       "certified": r["events_certified"], "secs": r["seconds"]}
                print(json.dumps(row, ensure_ascii=False), flush=True)
                data["rows"] = [x for x in data["rows"] if (x["name"], x["seed"], x["events"])
                                != (name, seed, events)] + [row]
                OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
