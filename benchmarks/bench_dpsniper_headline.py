"""The suite's headline table (issue 29): DP-Sniper's 20 rows, each audited two ways on several
seeds, every mean judged against the certification ceiling of its pair.

* **search** — ``audit_search(m, base, claimed_epsilon=0.1, total_runs=R, seed=s)``: the planned
  search with the library's defaults (pilots and probe inside the budget);
* **handed** — ``audit(m, d0, d1, claimed_epsilon=0.1, runs=R, seed=s)`` with every setting at its
  default, on the pair the search chose on that seed (the same pair, all R runs to one audit).

Both with ``exact=False`` (no quadrature of 2^10 sparse-vector patterns in every run).  The
**ceiling** of a row-seed is ``certification_ceiling`` of its pair at the number of runs per
dataset the final audit actually certified with (``certification_runs / 2``), expected counts:
what any event on that pair could certify with those runs (the physical limit at that budget;
``ceiling.py``).  It is computed where the pair's output distribution is known exactly or through a
sufficient statistic (the rows of ``bench_dpsniper_ceilings.py``); blank elsewhere.

Run:   python benchmarks/bench_dpsniper_headline.py --runs 2e6 --seeds 2024 1 2 3 4 5 6 7 8
       python benchmarks/bench_dpsniper_headline.py --table      # markdown from the JSON
Writes ``results/dpsniper_headline.json`` (one record per row, budget, seed and mode; rerunning
a record replaces it) and ``results/dpsniper_headline.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.core import audit
from ltheory.privacy.auditing.exact import aligned
from ltheory.privacy.auditing.search import audit_search
from ltheory.privacy.mechanisms import SparseVector, dpsniper_suite

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_dpsniper_ceilings import (  # noqa: E402
    laplace_cells,
    noisy_max_value_cells,
    oriented_count_cells,
)

EPS = 0.1
ALPHA = 0.05
OUT = HERE / "results" / "dpsniper_headline.json"
FINITE = ("TruncatedGeometric", "ReportNoisyMax1", "ReportNoisyMax2", "SVT1", "SVT2", "SVT4")


def pair_cells(name: str, m, a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray] | None:
    """Cell probabilities of the pair (a partition of the outputs, or of a sufficient
    statistic), or None where the row's ceiling is not computed."""
    if name in FINITE:
        mm = SparseVector(0.1, 1, threshold=1.0, c=1) if name == "SVT2" else m
        _, p0, p1 = aligned(mm.output_distribution(a), mm.output_distribution(b))
        return p0, p1
    if name == "Laplace":
        return laplace_cells(abs(float(a[0]) - float(b[0])), 10.0)
    if name == "NoisyHist1":
        moved = [i for i in range(len(a)) if a[i] != b[i]]
        if len(moved) != 1:
            return None
        return laplace_cells(abs(float(a[moved[0]]) - float(b[moved[0]])), 10.0)
    if name == "ReportNoisyMax3":
        return noisy_max_value_cells(a, b, 20.0)
    if name in ("Rappor", "OneTimeRappor"):
        c0, c1, _ = oriented_count_cells(m, int(a[0]), int(b[0]))
        return c0, c1
    return None


def run_one(name: str, runs: int, seed: int, mode: str, pair: tuple | None = None) -> dict:
    m, base = dpsniper_suite(EPS)[name]
    t = time.perf_counter()
    if mode == "search":
        s = audit_search(m, base, claimed_epsilon=EPS, total_runs=runs, seed=seed, alpha=ALPHA,
                         exact=False, arithmetic="real")
        r, a, b, used, pattern = s.report, s.d0, s.d1, s.total_runs, s.pattern
    else:
        a, b, pattern = pair
        r = audit(m, a, b, claimed_epsilon=EPS, runs=runs, seed=seed, alpha=ALPHA, exact=False,
                  arithmetic="real")
        used = r.runs
    secs = time.perf_counter() - t
    n_cert = r.certification_runs / 2
    cells = pair_cells(name, m, tuple(a), tuple(b))
    ceiling = None if cells is None else certification_ceiling(*cells, n_cert, ALPHA)
    return {"mechanism": name, "runs_budget": runs, "seed": seed, "mode": mode,
            "pair": pattern, "d0": list(a), "d1": list(b), "bound": r.epsilon_lower_bound,
            "ceiling": ceiling, "certification_runs": r.certification_runs, "runs_used": used,
            "events": r.events_certified, "event": r.event[:160], "test": r.certification_test,
            "seconds": round(secs, 1)}


def load() -> list[dict]:
    return json.loads(OUT.read_text()) if OUT.exists() else []


def save(rows: list[dict]) -> None:
    OUT.write_text(json.dumps(rows, indent=1, default=float) + "\n")


def key(r: dict) -> tuple:
    return (r["mechanism"], r["runs_budget"], r["seed"], r["mode"])


def table(rows: list[dict]) -> str:
    published = {r["mechanism"]: r for r in json.loads(
        (HERE / "data" / "dpsniper_published.json").read_text())["mechanisms"]}
    out = ["# DP-Sniper's suite: handed pair vs planned search, mean over seeds", "",
           "Claimed ε = 0.1, α = 0.05, `exact=False`.  *search*: `audit_search(total_runs=R)` "
           "with the defaults; *handed*: `audit(d0, d1, runs=R)` with the defaults on the pair "
           "the search chose on the same seed.  Mean ± standard error over the seeds; ceiling "
           "ratio: the mean of bound / ceiling (the ceiling: `certification_ceiling` of the "
           "pair at the runs the final audit certified with, expected counts; blank where the "
           "pair's distribution is not known); DP-Sniper ratio: the mean bound over the larger "
           "of DP-Sniper's published bounds (logistic regression, neural network).  "
           "Generated by `benchmarks/bench_dpsniper_headline.py --table`.", ""]
    for budget in sorted({r["runs_budget"] for r in rows}):
        sub = [r for r in rows if r["runs_budget"] == budget]
        seeds = sorted({r["seed"] for r in sub})
        out += [f"## {budget:.0e} runs ({len(seeds)} seeds: {', '.join(map(str, seeds))})", "",
                "| mechanism | DP-Sniper | search: mean ± se | handed: mean ± se | handed − search "
                "| ceiling ratio (search / handed) | DP-Sniper ratio (search / handed) | "
                "s per seed (search / handed) |", "|---|---|---|---|---|---|---|---|"]
        order = list(dpsniper_suite(EPS))          # the suite's order, whatever was rerun last
        names = sorted(dict.fromkeys(r["mechanism"] for r in sub),
                       key=lambda n: order.index(n) if n in order else len(order))
        for name in names:
            pub = published[name]["best"] if name in published else math.nan
            cols = {}
            for mode in ("search", "handed"):
                rs = [r for r in sub if r["mechanism"] == name and r["mode"] == mode]
                if not rs:
                    cols[mode] = None
                    continue
                bs = [r["bound"] for r in rs]
                se = statistics.stdev(bs) / math.sqrt(len(bs)) if len(bs) > 1 else math.nan
                ratios = [r["bound"] / r["ceiling"] for r in rs if r.get("ceiling")]
                cols[mode] = (statistics.mean(bs), se,
                              statistics.mean(ratios) if ratios else None,
                              statistics.mean(r["seconds"] for r in rs), len(bs))
            s, h = cols["search"], cols["handed"]

            def fmt(c: tuple | None) -> str:
                return "" if c is None else f"{c[0]:.4f} ± {c[1]:.4f} ({c[4]})"

            def ratio(c: tuple | None, i: int) -> str:
                return "–" if c is None or c[i] is None else f"{c[i]:.3f}"

            diff = "" if s is None or h is None else f"{h[0] - s[0]:+.4f}"
            dps = "–" if math.isnan(pub) else (
                f"{(s[0] / pub if s else math.nan):.3f} / {(h[0] / pub if h else math.nan):.3f}")
            secs = f"{s[3] if s else math.nan:.0f} / {h[3] if h else math.nan:.0f}"
            out.append(f"| {name} | {pub:.4f} | {fmt(s)} | {fmt(h)} | {diff} | "
                       f"{ratio(s, 2)} / {ratio(h, 2)} | {dps} | {secs} |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", nargs="+", type=float, default=[2e6])
    ap.add_argument("--seeds", nargs="+", type=int, default=[2024])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--modes", nargs="+", default=["search", "handed"])
    ap.add_argument("--table", action="store_true")
    args = ap.parse_args()
    if not args.table:
        names = args.only or list(dpsniper_suite(EPS))
        rows = load()
        for runs in (int(r) for r in args.runs):
            for seed in args.seeds:
                for name in names:
                    done = {key(r): r for r in rows}
                    rec = run_one(name, runs, seed, "search") if "search" in args.modes \
                        else done[(name, runs, seed, "search")]
                    recs = [rec] if "search" in args.modes else []
                    if "handed" in args.modes:
                        recs.append(run_one(name, runs, seed, "handed",
                                            (rec["d0"], rec["d1"], rec["pair"])))
                    for r in recs:
                        rows = [x for x in rows if key(x) != key(r)] + [r]
                        print(f"{name:18s} {runs:.0e} seed {seed:5d} {r['mode']:7s} "
                              f"{r['bound']:.4f} ceiling {r['ceiling'] or float('nan'):.4f} "
                              f"{r['seconds']:6.1f}s {r['pair']}", flush=True)
                    save(rows)
    (HERE / "results" / "dpsniper_headline.md").write_text(table(load()) + "\n")
    print(table(load()))


if __name__ == "__main__":
    main()
