"""Ceilings for DP-Sniper's suite: the largest bound *any* event on *any* pair of the neighbour
search space (the extended StatDP patterns around the suite's base input, as
``bench_dpsniper_suite`` searches them) would certify with n certification runs per dataset,
computed from exact probabilities, with the counts at their expectations (n·p): what any auditor
that certifies with Clopper–Pearson (α/2 per side) or the Poisson conditional test (α) can expect
at that budget.  Budgets: n = runs/2 (every run spent on certification, the most generous
reading of a 2·10^6 or 2·10^7 budget) and the suite's own certification size (7.9·10^5,
7.9·10^6 per dataset, after pilots and the selection split).

Why the maximum over *all* events: both certified bounds g(x, y) increase with the event's
probability x under the larger side and decrease with its probability y under the other, and for
every event E (also a randomised one) y(E) ≥ F(x(E)), where F is the Neyman–Pearson frontier: the
cumulative probabilities of the outputs sorted by likelihood ratio, linearly interpolated
(Neyman–Pearson lemma).  So max_E g ≤ max_x g(x, F(x)), and on each grid interval [u, v] of the
frontier g(x, F(x)) ≤ g(v, F(u)) (monotonicity): ``frontier_ceiling`` returns the largest such
g(v, F(u)) over a fine grid, a rigorous upper bound — a *proof* that no event reaches a target
above it at these expected counts.

Exact probabilities per mechanism (``scope`` in the results):

* finite outputs with ``output_distribution`` (truncated geometric, report noisy max 1/2, SVT1,
  SVT4, and SVT2, which with c = 1 has SVT1's distribution at threshold 1: the same ρ ~ Lap(cΔ/ε1)
  and ν ~ Lap(2cΔ/ε1) scales, and ρ's redraw after the one ⊤ is never used) — exact (quadrature
  to ~1e-11), every pair;
* one-dimensional sufficient statistics — Laplace and NoisyHist1 (the moved coordinate; the
  others are independent of the pair), RAPPOR and one-time RAPPOR (the oriented count of the
  Bloom bits set for one value only, with the implementation's MurmurHash3 Bloom filters of each
  pair), LaplaceParallel (sign count: not sufficient, so a ceiling for that family only);
* report noisy max 3 (the maximum of 5 Laplace variables): the distribution of the maximum on a
  grid of width 0.01 over ±600 (cells are a partition, so this is a lower approximation of the
  continuous frontier; halving the grid moves it by < 1e-4), every pair.

SVT3, SVT34Parallel, NumericalSVT (real-valued releases after data-dependent stopping), PrefixSum,
NoisyHist2, ReportNoisyMax4, SVT5 and SVT6 are not covered (the last five are beaten by far).
``infeasible`` marks a ceiling below DP-Sniper's published bound at n = runs/2: out of reach at
α = 0.05 for any sound auditor of this search space with that budget (expected counts).

Run:  python benchmarks/bench_dpsniper_ceilings.py [--only NAME ...]
      (writes results/dpsniper_ceilings.json; --only recomputes those rows and merges)
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
from scipy.stats import binom

from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.exact import aligned, exact_epsilon
from ltheory.privacy.auditing.search import query_patterns
from ltheory.privacy.mechanisms import Rappor, SparseVector, dpsniper_suite

ALPHA = 0.05
HERE = Path(__file__).resolve().parent
BUDGETS = {"1e+06": 1e6, "1e+07": 1e7, "7.9e+05": 7.9e5, "7.9e+06": 7.9e6}


def frontier_ceiling(p0: np.ndarray, p1: np.ndarray, n: float) -> float:
    return certification_ceiling(p0, p1, n, ALPHA)


def _pairs(base: tuple[float, ...]) -> list[tuple[str, tuple, tuple]]:
    return query_patterns(list(base), 1.0, 0, extended=len(base) > 2)


def finite(m, base, ns: dict) -> dict:
    """Every neighbouring pair of the search space, exact distributions."""
    out = {k: (-math.inf, "") for k in ns}
    top_eps = (-math.inf, "")
    for pn, a, b in _pairs(base):
        if not m.are_neighbours(a, b):
            continue
        _, p0, p1 = aligned(m.output_distribution(a), m.output_distribution(b))
        e = exact_epsilon(p0, p1)
        top_eps = max(top_eps, (e, pn))
        for k, n in ns.items():
            out[k] = max(out[k], (frontier_ceiling(p0, p1, n), pn))
    return {"ceiling": {k: v[0] for k, v in out.items()}, "pair": {k: v[1] for k, v in out.items()},
            "max_exact_epsilon": top_eps[0], "max_exact_epsilon_pair": top_eps[1],
            "scope": "all events, all pairs (exact distributions)"}


def laplace_cells(shift: float, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Cells of width 0.01 for Lap(0, scale) against Lap(shift, scale) (plus the two tails)."""
    t = np.arange(-60 * scale, 60 * scale + shift, 0.01)

    def cdf(x: np.ndarray) -> np.ndarray:
        return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / scale),
                        1 - 0.5 * np.exp(-np.maximum(x, 0) / scale))

    f0, f1 = cdf(t), cdf(t - shift)
    return np.diff(np.r_[0.0, f0, 1.0]), np.diff(np.r_[0.0, f1, 1.0])


def noisy_max_value_cells(a: tuple, b: tuple, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """P(max_i (q_i + Lap(scale)) in cell), cells of width 0.01 over ±600 (and the tails)."""
    t = np.arange(-600.0, 600.0, 0.05)

    def cdf_max(q: tuple) -> np.ndarray:
        out = np.ones_like(t)
        for qi in q:
            x = t - qi
            out *= np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / scale),
                            1 - 0.5 * np.exp(-np.maximum(x, 0) / scale))
        return out

    return np.diff(np.r_[0.0, cdf_max(a), 1.0]), np.diff(np.r_[0.0, cdf_max(b), 1.0])


def oriented_count_cells(r: Rappor, v0: int, v1: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Distribution of the sufficient statistic (bits set only for v0 that are 1, plus bits set
    only for v1 that are 0) under v0 and v1, and the pair's exact ε."""
    q1, q0 = r.bit_probabilities()
    b0, b1 = r.bloom(v0), r.bloom(v1)
    u, w = int((b0 & ~b1).sum()), int((b1 & ~b0).sum())
    k = np.arange(u + w + 1)

    def dist(pu: float, pw: float) -> np.ndarray:     # P(bit = 1) on u-bits and on w-bits
        a = binom.pmf(np.arange(u + 1), u, pu)
        c = binom.pmf(np.arange(w + 1), w, 1 - pw)       # w-bits that are 0
        return np.convolve(a, c)[: len(k)]

    per_bit = max(math.log(q1 / q0), math.log((1 - q0) / (1 - q1)))
    return dist(q1, q0), dist(q0, q1), (u + w) * per_bit


def ceilings(only: set[str] | None = None) -> dict:
    suite = dpsniper_suite()
    out: dict[str, dict] = {}

    def want(*names: str) -> bool:
        return only is None or bool(only & set(names))

    for name in ("TruncatedGeometric", "ReportNoisyMax1", "ReportNoisyMax2", "SVT1", "SVT4"):
        if not want(name):
            continue
        t = time.perf_counter()
        m, base = suite[name]
        out[name] = finite(m, base, BUDGETS)
        out[name]["seconds"] = round(time.perf_counter() - t, 1)
    if want("SVT2"):
        t = time.perf_counter()
        out["SVT2"] = finite(SparseVector(0.1, 1, threshold=1.0, c=1), suite["SVT2"][1],
                             BUDGETS)
        out["SVT2"]["scope"] += "; SVT2 with c = 1 has SVT1's distribution at threshold 1"
        out["SVT2"]["seconds"] = round(time.perf_counter() - t, 1)
    if want("Laplace", "NoisyHist1"):
        out.update(_laplace())
    if want("ReportNoisyMax3"):
        out["ReportNoisyMax3"] = _noisy_max_value(suite)
    for name in ("Rappor", "OneTimeRappor"):
        if want(name):
            out[name] = _rappor(suite, name)
    if want("LaplaceParallel"):
        out["LaplaceParallel"] = _laplace_parallel()
    return out


def _laplace() -> dict:
    p0, p1 = laplace_cells(1.0, 10.0)
    lap = {"ceiling": {k: frontier_ceiling(p0, p1, n) for k, n in BUDGETS.items()},
           "pair": {k: "one above / one below (equivalent)" for k in BUDGETS},
           "max_exact_epsilon": 0.1, "max_exact_epsilon_pair": "one above",
           "scope": "all events, all pairs (the moved coordinate is sufficient; cells 0.01)"}
    return {"Laplace": lap, "NoisyHist1": dict(lap)}


def _noisy_max_value(suite: dict) -> dict:
    best = {k: (-math.inf, "") for k in BUDGETS}
    top = (-math.inf, "")
    for pn, a, b in _pairs(suite["ReportNoisyMax3"][1]):
        c0, c1 = noisy_max_value_cells(a, b, 20.0)
        ok = (c0 > 1e-9) & (c1 > 1e-9)     # far tails: rounding, not the ratio
        top = max(top, (float(np.max(np.abs(np.log(c0[ok]) - np.log(c1[ok])))), pn))
        for k, n in BUDGETS.items():
            best[k] = max(best[k], (frontier_ceiling(c0, c1, n), pn))
    return {"ceiling": {k: v[0] for k, v in best.items()},
            "pair": {k: v[1] for k, v in best.items()},
            "max_exact_epsilon": top[0], "max_exact_epsilon_pair": top[1],
            "scope": "all events, all pairs (maximum on a 0.05 grid)"}


def _rappor(suite: dict, name: str) -> dict:
    m, base = suite[name]
    best = {k: (-math.inf, "") for k in BUDGETS}
    top = (-math.inf, "")
    for pn, a, b in _pairs(base):
        c0, c1, e = oriented_count_cells(m, int(a[0]), int(b[0]))
        top = max(top, (e, pn))
        for k, n in BUDGETS.items():
            best[k] = max(best[k], (frontier_ceiling(c0, c1, n), pn))
    return {"ceiling": {k: v[0] for k, v in best.items()},
            "pair": {k: v[1] for k, v in best.items()},
            "max_exact_epsilon": top[0], "max_exact_epsilon_pair": top[1],
            "scope": "all events, all pairs (sufficient statistic: the oriented count of the "
                     "differing Bloom bits)"}


def _laplace_parallel() -> dict:
    q0 = 0.5 * math.exp(-0.0025)
    kk = np.arange(21)
    c0, c1 = binom.pmf(kk, 20, 1 - q0), binom.pmf(kk, 20, q0)
    return {"ceiling": {k: frontier_ceiling(c0, c1, n) for k, n in BUDGETS.items()},
            "pair": {k: "one above" for k in BUDGETS},
            "max_exact_epsilon": 0.1, "max_exact_epsilon_pair": "one above",
            "scope": "sign-count events only (not sufficient)"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=None,
                    help="recompute these mechanisms and merge into the existing results")
    args = ap.parse_args()
    pub = {r["mechanism"]: r["best"] for r in
           json.loads((HERE / "data" / "dpsniper_published.json").read_text())["mechanisms"]}
    target_file = HERE / "results" / "dpsniper_ceilings.json"
    res = ceilings(set(args.only) if args.only else None)
    for name, r in res.items():
        target = pub[name]
        r["dpsniper_best"] = target
        full = r["scope"].startswith("all events")
        r["infeasible"] = {}
        for runs, k in (("2e+06", "1e+06"), ("2e+07", "1e+07")):
            bad = full and r["ceiling"][k] < target
            why = None
            if bad and r["max_exact_epsilon"] < target:
                why = (f"no pair of the search space has ε above {target:.4f} (largest exact "
                       f"ε {r['max_exact_epsilon']:.5f}): no sound auditor certifies it "
                       "except with probability ≤ α")
            elif bad:
                why = (f"every event on every pair certifies at most {r['ceiling'][k]:.4f} < "
                       f"{target:.4f} at the expected counts of {k} runs per dataset")
            r["infeasible"][runs] = why
    if args.only and target_file.exists():
        old = json.loads(target_file.read_text()).get("mechanisms", {})
        res = {**old, **res}
    doc = __doc__.split("\n\n")
    out = {"alpha": ALPHA, "note": " ".join(doc[0].split()),
           "per_dataset_runs": {k: {name: {"ceiling": r["ceiling"][k], "pair": r["pair"][k],
                                           "scope": r["scope"]}
                                    for name, r in res.items()} for k in BUDGETS},
           "mechanisms": res}
    target_file.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    for name, r in res.items():
        print(f"{name:20s} " + " ".join(f"{k}:{v:.4f}" for k, v in r["ceiling"].items())
              + f"  maxeps {r['max_exact_epsilon']:.4f}  DP-Sniper {r['dpsniper_best']:.4f}  "
              + str({k: bool(v) for k, v in r["infeasible"].items()}))


if __name__ == "__main__":
    main()
