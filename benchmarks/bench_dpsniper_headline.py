"""The suite's headline table (issue 29): DP-Sniper's 20 rows, each audited two ways on several
seeds, every mean judged against the certification ceiling of its pair.

* **search** — ``audit_search(m, base, claimed_epsilon=0.1, total_runs=R, seed=s)``: the planned
  search with the library's defaults (pilots and probe inside the budget);
* **handed** — ``audit(m, d0, d1, claimed_epsilon=0.1, runs=R, seed=s)`` with every setting at its
  default, on the pair the search chose on that seed (the same pair, all R runs to one audit).

Both with ``exact=False`` (no quadrature of 2^10 sparse-vector patterns in every run).  Each
row-seed carries two **ceilings**, ``certification_ceiling`` of its pair at expected counts
(what any event on that pair could certify; ``ceiling.py``): ``ceiling_budget`` with the whole
budget certifying (R/2 runs per dataset — the limit for that budget, which no choice of split
can move: issue 42's yardstick) and ``ceiling`` with the runs the final audit actually certified
with (``certification_runs / 2``).  They are computed where the pair's output distribution is
known exactly or through a sufficient statistic: the finite-output rows (``output_distribution``,
SVT5 and SVT6 included), the one-coordinate Laplace rows, the noisy-max values (ReportNoisyMax3
Laplace, ReportNoisyMax4 exponential, on a grid), RAPPOR's oriented count, and the summed
log-likelihood ratio of independent Laplace coordinates (NoisyHist2, PrefixSum,
LaplaceParallel: ``bench_dpsniper_ceilings.laplace_llr_sum_cells``), SVT3's (first ⊤,
released value) cells (``svt3_cells``), NumericalSVT's (codes, summed value ratios)
(``numerical_svt_cells``).  SVT34Parallel's (SVT3 with c = 2: two released values tied to the
comparisons) are Monte Carlo estimates from the exact likelihood ratio of each output
(``estimated_ceiling``, 10^6 outputs per side) with a bootstrap interval for the whole-budget
ceiling (``ceiling_budget_interval``).

Run:   python -m benchmarks.bench_dpsniper_headline --runs 2e6 --seeds 2024 1 2 3 4 5 6 7 8
       python -m benchmarks.bench_dpsniper_headline --table      # markdown from the JSON
       python -m benchmarks.bench_dpsniper_headline --ceilings   # both ceilings of the stored
                                                                  # records, then the table
Writes ``results/dpsniper_headline.json`` (one record per row, budget, seed and mode; rerunning
a record replaces it) and ``results/dpsniper_headline.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_dpsniper_ceilings import (
    estimated_ceiling,
    laplace_cells,
    laplace_llr_sum_cells,
    noisy_max_value_cells,
    numerical_svt_cells,
    oriented_count_cells,
    svt3_cells,
    svt34_parallel_llr,
)
from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.core import audit
from ltheory.privacy.auditing.exact import aligned
from ltheory.privacy.auditing.search import audit_search
from ltheory.privacy.mechanisms import SparseVector, dpsniper_suite

HERE = Path(__file__).resolve().parent
EPS = 0.1
ALPHA = 0.05
OUT = HERE / "results" / "dpsniper_headline.json"
FINITE = ("TruncatedGeometric", "ReportNoisyMax1", "ReportNoisyMax2", "SVT1", "SVT2", "SVT4",
          "SVT5", "SVT6")


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
    if name == "ReportNoisyMax4":
        return noisy_max_value_cells(a, b, 20.0, "exponential")
    if name == "NoisyHist2":                    # Laplace of scale ε = 0.1 per coordinate
        return laplace_llr_sum_cells([y - x for x, y in zip(a, b, strict=True)], m.scale)
    if name == "PrefixSum":                     # a bijection of 10 noisy answers, Lap(Δ/ε)
        return laplace_llr_sum_cells([y - x for x, y in zip(a, b, strict=True)], 10.0)
    if name == "SVT3":                          # (first ⊤, released value) on a grid
        return svt3_cells(m, a), svt3_cells(m, b)
    if name == "NumericalSVT":                  # (codes, summed value ratios), exact
        return numerical_svt_cells(m, a, b)
    if name == "LaplaceParallel":               # 20 copies of one answer, each Lap(200)
        return laplace_llr_sum_cells([float(b[0]) - float(a[0])] * 20, 200.0)
    if name in ("Rappor", "OneTimeRappor"):
        c0, c1, _ = oriented_count_cells(m, int(a[0]), int(b[0]))
        return c0, c1
    return None


#: SVT34Parallel's ceilings are Monte Carlo estimates (``estimated_ceiling``): outputs per side
#: and bootstrap resamples of the whole-budget ceiling
ESTIMATE_SAMPLES, ESTIMATE_BOOTS = 1_000_000, 10


def estimated_ceilings(m, a: tuple, b: tuple, ns: list[float], boot_ns: list[float]) -> dict:
    """SVT34Parallel: the estimated ceilings at ``ns`` runs per dataset, intervals at
    ``boot_ns`` (``bench_dpsniper_ceilings.estimated_ceiling``)."""
    return estimated_ceiling(m, a, b, svt34_parallel_llr(m, a, b), ns,
                             samples=ESTIMATE_SAMPLES, boots=ESTIMATE_BOOTS, boot_ns=boot_ns)


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
    whole = None if cells is None else certification_ceiling(*cells, runs / 2, ALPHA)
    interval = None
    if name == "SVT34Parallel":
        est = estimated_ceilings(m, tuple(a), tuple(b), [n_cert, runs / 2], [runs / 2])
        ceiling, whole = est["ceiling"][n_cert], est["ceiling"][runs / 2]
        interval = est["interval"][runs / 2]
    return {"mechanism": name, "runs_budget": runs, "seed": seed, "mode": mode,
            "pair": pattern, "d0": list(a), "d1": list(b), "bound": r.epsilon_lower_bound,
            "ceiling": ceiling, "ceiling_budget": whole, "ceiling_budget_interval": interval,
            "certification_runs": r.certification_runs, "runs_used": used,
            "events": r.events_certified, "event": r.event[:160], "test": r.certification_test,
            "seconds": round(secs, 1)}


def recompute_ceilings(rows: list[dict], keep: bool = True) -> list[dict]:
    """Both ceilings of every stored record from its pair (no audit rerun): ``ceiling`` at the
    runs its final audit certified with, ``ceiling_budget`` at the whole budget (runs/2 per
    dataset: every run certifying, the limit no split can move).  ``keep``: a record's stored
    ceilings are kept (recompute a row's after changing its cells with ``keep=False``); each ceiling
    takes a few seconds, so they are cached per pair and number of runs."""
    suite = dpsniper_suite(EPS)
    cells_of: dict[tuple, tuple | None] = {}
    done: dict[tuple, float | None] = {}

    def ceiling(k: tuple, n: float) -> float | None:
        if (k, n) not in done:
            if k not in cells_of:
                cells_of[k] = pair_cells(k[0], suite[k[0]][0], k[1], k[2])
            cells = cells_of[k]
            done[(k, n)] = None if cells is None else certification_ceiling(*cells, n, ALPHA)
        return done[(k, n)]

    for key_ in {(r["mechanism"], tuple(r["d0"]), tuple(r["d1"])) for r in rows
                 if r["mechanism"] == "SVT34Parallel"}:
        recs = [r for r in rows if (r["mechanism"], tuple(r["d0"]), tuple(r["d1"])) == key_]
        if keep and all(r.get("ceiling_budget") for r in recs):
            continue
        budgets = sorted({r["runs_budget"] / 2 for r in recs})
        ns = sorted({r["certification_runs"] / 2 for r in recs} | set(budgets))
        est = estimated_ceilings(suite[key_[0]][0], key_[1], key_[2], ns, budgets)
        for r in recs:
            r["ceiling"] = est["ceiling"][r["certification_runs"] / 2]
            r["ceiling_budget"] = est["ceiling"][r["runs_budget"] / 2]
            r["ceiling_budget_interval"] = est["interval"][r["runs_budget"] / 2]
        print(f"SVT34Parallel {key_[1:]}: {est['ceiling']} {est['interval']}", flush=True)
    for i, r in enumerate(rows):
        if r["mechanism"] == "SVT34Parallel":
            continue
        k = (r["mechanism"], tuple(r["d0"]), tuple(r["d1"]))
        if not (keep and r.get("ceiling")):
            r["ceiling"] = ceiling(k, r["certification_runs"] / 2)
        if not (keep and r.get("ceiling_budget")):
            r["ceiling_budget"] = ceiling(k, r["runs_budget"] / 2)
        print(f"{i + 1}/{len(rows)} {r['mechanism']} {r['runs_budget']:.0e} {r['seed']} "
              f"{r['mode']}: {r['ceiling']} {r['ceiling_budget']}", flush=True)
    return rows


def load() -> list[dict]:
    return json.loads(OUT.read_text()) if OUT.exists() else []


def save(rows: list[dict]) -> None:
    """Write the records sorted by budget, row, seed and mode (a rerun's diff is its records)."""
    rows = sorted(rows, key=lambda r: (r["runs_budget"], r["mechanism"], r["seed"], r["mode"]))
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
           "ratios: the mean of bound / ceiling, where a ceiling is `certification_ceiling` of "
           "the seed's pair at expected counts — the *whole-budget* ceiling with every run "
           "certifying (R/2 per dataset: the limit for that budget, which no split can move; "
           "its column gives the mean over the seeds' pairs), the *certified-runs* ceiling at "
           "the runs the final audit certified with; blank where the pair's distribution is "
           "not known; SVT34Parallel's are Monte Carlo estimates, with intervals in the JSON); "
           "DP-Sniper ratio: the mean bound over the larger "
           "of DP-Sniper's published bounds (logistic regression, neural network).  "
           "Generated by `benchmarks/bench_dpsniper_headline.py --table`.", ""]
    for budget in sorted({r["runs_budget"] for r in rows}):
        sub = [r for r in rows if r["runs_budget"] == budget]
        seeds = sorted({r["seed"] for r in sub})
        out += [f"## {budget:.0e} runs ({len(seeds)} seeds: {', '.join(map(str, seeds))})", "",
                "| mechanism | DP-Sniper | search: mean ± se | handed: mean ± se | handed − search "
                "| whole-budget ceiling | ratio to it (search / handed) "
                "| certified-runs ceiling ratio (search / handed) | DP-Sniper ratio "
                "(search / handed) | s per seed (search / handed) |",
                "|---|---|---|---|---|---|---|---|---|---|"]
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
                whole = [r["bound"] / r["ceiling_budget"] for r in rs if r.get("ceiling_budget")]
                cols[mode] = (statistics.mean(bs), se,
                              statistics.mean(ratios) if ratios else None,
                              statistics.mean(r["seconds"] for r in rs), len(bs),
                              statistics.mean(whole) if whole else None,
                              statistics.mean(r["ceiling_budget"] for r in rs)
                              if len(whole) == len(rs) else None)
            s, h = cols["search"], cols["handed"]

            def fmt(c: tuple | None) -> str:
                return "" if c is None else f"{c[0]:.4f} ± {c[1]:.4f} ({c[4]})"

            def ratio(c: tuple | None, i: int) -> str:
                return "–" if c is None or c[i] is None else f"{c[i]:.3f}"

            diff = "" if s is None or h is None else f"{h[0] - s[0]:+.4f}"
            dps = "–" if math.isnan(pub) else (
                f"{(s[0] / pub if s else math.nan):.3f} / {(h[0] / pub if h else math.nan):.3f}")
            secs = f"{s[3] if s else math.nan:.0f} / {h[3] if h else math.nan:.0f}"
            wc = next((c[6] for c in (s, h) if c is not None and c[6] is not None), None)
            wcs = "–" if wc is None else f"{wc:.4f}"
            out.append(f"| {name} | {pub:.4f} | {fmt(s)} | {fmt(h)} | {diff} | {wcs} | "
                       f"{ratio(s, 5)} / {ratio(h, 5)} | "
                       f"{ratio(s, 2)} / {ratio(h, 2)} | {dps} | {secs} |")
        out.append("")
    return "\n".join(out)


#: The certifying shares of the runs and the numbers of events of ``reach_table``.
REACH_SHARES, REACH_EVENTS = (0.9, 0.7), (1, 2, 3)


def reach_table(rows: list[dict], names: list[str], runs: int) -> str:
    """What the certification's design reaches on the stored pairs of ``names`` at ``runs``: the
    ceiling of one event certified with a share of the runs (the rest selecting) at the
    Bonferroni level α/k of k events, as a share of the whole-budget ceiling (every run
    certifying one event at α).  Markdown, one line per distinct pair with exact cells."""
    out = ["| row | pair | " + " | ".join(f"{f:.0%}, k = {k}" for f in REACH_SHARES
                                         for k in REACH_EVENTS) + " |",
           "|---|---|" + "---|" * (len(REACH_SHARES) * len(REACH_EVENTS))]
    suite = dpsniper_suite(EPS)
    for name in names:
        seen = set()
        for r in rows:
            if r["mechanism"] != name or r["runs_budget"] != runs or r["pair"] in seen:
                continue
            seen.add(r["pair"])
            cells = pair_cells(name, suite[name][0], tuple(r["d0"]), tuple(r["d1"]))
            if cells is None:
                continue
            whole = certification_ceiling(*cells, runs / 2, ALPHA)
            vals = [certification_ceiling(*cells, f * runs / 2, ALPHA / k) / whole
                    for f in REACH_SHARES for k in REACH_EVENTS]
            out.append(f"| {name} | {r['pair']} | " + " | ".join(f"{v:.3f}" for v in vals)
                       + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", nargs="+", type=float, default=[2e6])
    ap.add_argument("--seeds", nargs="+", type=int, default=[2024])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--modes", nargs="+", default=["search", "handed"])
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--ceilings", action="store_true",
                    help="recompute both ceilings of every stored record, then the table")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: Laplace and SVT1 at 2e5 runs, one seed, into results/quick/")
    ap.add_argument("--out", default=None,
                    help="records file to read and write instead of results/ (parallel runs: "
                         "one file each, then --merge)")
    ap.add_argument("--merge", nargs="*", default=None,
                    help="merge these records files into results/ (later records replace "
                         "earlier ones of the same row, budget, seed and mode), then the table")
    ap.add_argument("--reach", action="store_true",
                    help="the ceilings of one event certified with 90%% / 70%% of the runs at "
                         "the level of k = 1, 2, 3 events, on the stored pairs of --only at "
                         "--runs, as shares of the whole-budget ceiling")
    args = ap.parse_args()
    if args.reach:
        print(reach_table(load(), args.only or list(dpsniper_suite(EPS)), int(args.runs[0])))
        return
    global OUT
    if args.out:
        OUT = Path(args.out)
    if args.merge:
        rows = load()
        for f in args.merge:
            new = json.loads(Path(f).read_text())
            keys = {key(r) for r in new}
            rows = [r for r in rows if key(r) not in keys] + new
        save(rows)
    if args.quick:      # never overwrite the committed figures
        OUT = HERE / "results" / "quick" / "dpsniper_headline.json"
        OUT.parent.mkdir(parents=True, exist_ok=True)
        args.runs, args.seeds, args.only = [2e5], [2024], args.only or ["Laplace", "SVT1"]
    if args.ceilings:
        save(recompute_ceilings(load()))
    elif not args.table and args.merge is None:
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
    OUT.with_suffix(".md").write_text(table(load()) + "\n")
    print(table(load()))


if __name__ == "__main__":
    main()
