"""Pooled against per-pair discrete pilots: which pair the planned search chooses, over seeds.

Two measurements, for the DP-Sniper suite rows whose outputs are finite and whose exact
distributions the library computes (truncated geometric, report noisy max 1/2, SVT1, SVT2, SVT4):

* ``--mode simulate`` (the default): the pilots' ranking alone, many seeds.  Each pilot's counts
  are drawn from the pair's *exact* output distribution (multinomial, the plan's pilot runs,
  rungs and survivors of ``audit_search(total_runs=...)``), the pairs are ranked by the
  library's plug-in projection (``pilots.lr_prefix_projection``) of either the pair's own
  counts or the counts pooled per dataset over every pair piloted so far, and the chosen pair is
  scored by its *ceiling* at the final audit's certification size (``ceiling.certification_
  ceiling``: the best bound any event of that pair certifies at expected counts).  The final
  audit's own draw, which adds noise of the same size to both settings, is left out, so a
  thousand seeds separate the rules.  SVT2 with c = 1 has SVT1's distribution at threshold 1
  (``bench_dpsniper_ceilings``), so its exact distributions are SVT1's.
* ``--mode real``: the planned search itself (``audit_search(total_runs=...)``, exact ε off as in
  the suite benchmark) with ``pool_pilots`` on and off, a few seeds: the pair, the certified
  bound and the chosen pair's ceiling.

    python benchmarks/bench_pool_pilots.py                                   # simulate
    python benchmarks/bench_pool_pilots.py --mode real --rows SVT2 --runs 2e7 --seeds 8

Writes ``results/pool_pilots_{mode}.json`` and prints a summary per row, budget and setting.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.core import split_runs
from ltheory.privacy.auditing.exact import aligned
from ltheory.privacy.auditing.pilots import lr_prefix_projection
from ltheory.privacy.auditing.plan import search_plan
from ltheory.privacy.auditing.search import audit_search, query_patterns
from ltheory.privacy.mechanisms import dpsniper_suite

HERE = Path(__file__).resolve().parent
EPS, ALPHA = 0.1, 0.05
ROWS = ["TruncatedGeometric", "ReportNoisyMax1", "ReportNoisyMax2", "SVT1", "SVT2", "SVT4"]
#: DP-Sniper's published bounds (the larger of its two; results/dpsniper_suite.md)
DPSNIPER = {"TruncatedGeometric": 0.1156, "ReportNoisyMax1": 0.0925, "ReportNoisyMax2": 0.0979,
            "SVT1": 0.0858, "SVT2": 0.0859, "SVT4": 0.1696}


def pairs_of(name: str, total: int) -> tuple[list[dict], object, int]:
    """The plan's pairs of ``name`` with their exact distributions and ceilings."""
    suite = dpsniper_suite(EPS)
    m, base = suite[name]
    exact_m = suite["SVT1"][0] if name == "SVT2" else m
    plan = search_plan(m, base, total, claimed_epsilon=EPS, alpha=ALPHA, seed=0)
    n_cert = split_runs(plan.final_runs, 0.1)[1]
    out = []
    for pn, a, b in query_patterns(list(base), 1.0, 0, extended=plan.neighbours == "extended"):
        if not m.are_neighbours(a, b):
            continue
        _, p0, p1 = aligned(exact_m.output_distribution(a), exact_m.output_distribution(b))
        out.append({"pattern": pn, "keys": (repr(a), repr(b)), "p": (p0 / p0.sum(), p1 / p1.sum()),
                    "ceiling": certification_ceiling(p0, p1, n_cert, ALPHA)})
    return out, plan, n_cert


def simulate(pairs: list[dict], plan, n_cert: int, seed: int, pooled: bool) -> dict:
    """One seed of the plan's rungs with pilot counts drawn from the exact distributions."""
    rng = np.random.default_rng([seed, 7])
    own = {i: np.zeros((len(p["p"][0]), 2)) for i, p in enumerate(pairs)}
    n_own = dict.fromkeys(own, 0)
    pool: dict = {}
    alive, pilot = list(own), plan.pilot_runs
    for rung in range(plan.rungs):
        for i in alive:
            n = pilot // 2
            for j, (key, p) in enumerate(zip(pairs[i]["keys"], pairs[i]["p"], strict=True)):
                drawn = rng.multinomial(n, p)
                own[i][:, j] += drawn
                got = pool.setdefault(key, [np.zeros(len(p)), 0])
                got[0] += drawn
                got[1] += n
            n_own[i] += n
        scored = []
        for i in alive:
            if pooled:
                k0, k1 = pairs[i]["keys"]
                c = np.column_stack([pool[k0][0], pool[k1][0]])
                nn = np.array([pool[k0][1], pool[k1][1]], dtype=float)
            else:
                c, nn = own[i], np.array([n_own[i], n_own[i]], dtype=float)
            scored.append((lr_prefix_projection(c, nn, n_cert, ALPHA, "poisson"), i))
        scored.sort(key=lambda t: -t[0])
        alive = [i for _, i in scored]
        if rung < plan.rungs - 1:
            alive = alive[: max(1, -(-len(alive) // 3))]
        pilot *= 3
    best = pairs[alive[0]]
    return {"pattern": best["pattern"], "ceiling": best["ceiling"]}


def real(name: str, total: int, seed: int, pooled: bool, ceilings: dict) -> dict:
    m, base = dpsniper_suite(EPS)[name]
    t = time.perf_counter()
    r = audit_search(m, base, claimed_epsilon=EPS, total_runs=total, seed=seed, alpha=ALPHA,
                     pool_pilots=pooled, exact=False, arithmetic="real")
    return {"pattern": r.pattern, "ceiling": ceilings.get(r.pattern),
            "bound": r.report.epsilon_lower_bound, "event": r.report.event[:120],
            "seconds": round(time.perf_counter() - t, 2)}


def summary(rows: list[dict]) -> list[dict]:
    out = []
    keys = sorted({(r["mechanism"], r["runs"], r["pooled"]) for r in rows},
                  key=lambda k: (ROWS.index(k[0]) if k[0] in ROWS else 99, k[1], not k[2]))
    for name, runs, pooled in keys:
        rs = [r for r in rows if (r["mechanism"], r["runs"], r["pooled"]) == (name, runs, pooled)]
        c = np.array([r["ceiling"] for r in rs], dtype=float)
        best = max(r["best_ceiling"] for r in rs)
        s = {"mechanism": name, "runs": runs, "pooled": pooled, "seeds": len(rs),
             "mean_ceiling": float(c.mean()), "best_ceiling": best,
             "near_best": int(np.sum(c >= best - 0.002)),
             "ceiling_ge_dpsniper": int(np.sum(c >= DPSNIPER[name]))}
        if "bound" in rs[0]:
            b = np.array([r["bound"] for r in rs])
            s.update(mean_bound=float(b.mean()),
                     bound_ge_dpsniper=int(np.sum(b >= DPSNIPER[name])))
        out.append(s)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["simulate", "real"], default="simulate")
    ap.add_argument("--rows", nargs="+", default=ROWS)
    ap.add_argument("--runs", nargs="+", type=float, default=[2e6, 2e7])
    ap.add_argument("--seeds", type=int, default=None,
                    help="seeds per row and budget (simulate: 1000; real: 8)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    seeds = args.seeds or (1000 if args.mode == "simulate" else 8)
    rows = []
    for name in args.rows:
        for total in (int(x) for x in args.runs):
            pairs, plan, n_cert = pairs_of(name, total)
            best = max(p["ceiling"] for p in pairs)
            ceilings = {p["pattern"]: p["ceiling"] for p in pairs}
            for pooled in (True, False):
                t = time.perf_counter()
                for s in range(1, seeds + 1):
                    r = simulate(pairs, plan, n_cert, s, pooled) if args.mode == "simulate" \
                        else real(name, total, s, pooled, ceilings)
                    rows.append({"mechanism": name, "runs": total, "pooled": pooled, "seed": s,
                                 "best_ceiling": best, "n_cert": n_cert, **r})
                print(f"{name} {total:.0e} pooled={pooled}: {seeds} seeds, "
                      f"{time.perf_counter() - t:.0f} s", flush=True)
    summ = summary(rows)
    for s in summ:
        print(json.dumps(s))
    out = Path(args.out or HERE / "results" / f"pool_pilots_{args.mode}.json")
    out.write_text(json.dumps({"mode": args.mode, "epsilon": EPS, "alpha": ALPHA,
                               "summary": summ, "runs": rows}, indent=1) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
