"""Ceilings for DP-Sniper's suite: the bound the *best known event* would certify with n runs per
dataset, computed from exact probabilities (no sampling, no selection): what any auditor that
certifies with Clopper–Pearson (α/2 per side) or the Poisson conditional test (α) can expect at
that budget.  Where the ceiling is below DP-Sniper's published bound, that target cannot be met
with ≤ 2·10^7 runs at α = 0.05 (DP-Sniper used ~2.3·10^8 runs at confidence 0.9).

Exact probabilities: output distributions for finite outputs (truncated geometric, report noisy
max, SVT1 and SVT4 over the extended StatDP patterns, maximised over pairs); closed forms for
Laplace tails, the noisy maximum's left tail, RAPPOR's differing Bloom bits (a product measure)
and LaplaceParallel's sign count (binomial).  Others are not covered.

Run:  python benchmarks/bench_dpsniper_ceilings.py   (writes results/dpsniper_ceilings.json)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from scipy.stats import binom

from ltheory.privacy.auditing.exact import aligned
from ltheory.privacy.auditing.search import query_patterns
from ltheory.privacy.statdp_mechanisms import OneTimeRappor, Rappor, dpsniper_suite
from ltheory.privacy.stats import epsilon_lower_bound, poisson_epsilon_lower_bound

ALPHA = 0.05


def certified(pa: np.ndarray, pb: np.ndarray, n: float) -> float:
    """Best over the given events (probabilities pa under the larger side) of the better test."""
    b = epsilon_lower_bound(pa * n, n, pb * n, n, ALPHA / 2)
    p = poisson_epsilon_lower_bound(pa * n, pb * n, ALPHA)
    return float(np.nanmax(np.maximum(b, p)))


def best_union(p0: np.ndarray, p1: np.ndarray, n: float) -> float:
    out = -np.inf
    for a, b in ((p0, p1), (p1, p0)):
        o = np.argsort(-(np.log(a + 1e-300) - np.log(b + 1e-300)))
        out = max(out, certified(np.cumsum(a[o]), np.cumsum(b[o]), n))
    return out


def finite(name: str, k: int, n: float) -> tuple[float, str]:
    m, _ = dpsniper_suite()[name]
    best, where = -np.inf, ""
    for pn, a, b in query_patterns([1.0] * k, 1.0, 0, extended=k > 2):
        if m.are_neighbours(a, b):
            _, p0, p1 = aligned(m.output_distribution(a), m.output_distribution(b))
            v = best_union(p0, p1, n)
            if v > best:
                best, where = v, pn
    return best, where


def ceilings(n: float) -> dict:
    out = {}
    t = np.linspace(1, 40, 400)                  # Laplace(10) tail {o ≥ t}, t ≥ 1: ratio e^0.1
    a = 0.5 * np.exp(-0.1 * (t - 1))
    out["Laplace"] = out["NoisyHist1"] = (certified(a, a * np.exp(-0.1), n), "tail {o ≥ t}")
    for name, k in (("TruncatedGeometric", 1), ("ReportNoisyMax1", 5), ("ReportNoisyMax2", 5),
                    ("SVT1", 10), ("SVT4", 10)):
        out[name] = finite(name, k, n)
    t = np.linspace(-60, 1, 600)                 # max of 5 Laplace(20): {max ≤ t}, all shifted

    def cdf(x: np.ndarray) -> np.ndarray:
        return np.where(x < 0, 0.5 * np.exp(x / 20), 1 - 0.5 * np.exp(-x / 20))

    out["ReportNoisyMax3"] = (certified(cdf(t) ** 5, cdf(t - 1) ** 5, n), "{max ≤ t}")
    kk = np.arange(7)
    for name, m in (("Rappor", Rappor()), ("OneTimeRappor", OneTimeRappor())):
        q1, q0 = m.bit_probabilities()           # 6 differing Bloom bits between values 0 and 1
        out[name] = (certified(binom.sf(kk - 1, 6, q1), binom.sf(kk - 1, 6, q0), n),
                     "count of the 6 differing bits")
    q0 = 0.5 * np.exp(-0.0025)
    kk = np.arange(21)
    out["LaplaceParallel"] = (certified(binom.sf(kk - 1, 20, 1 - q0), binom.sf(kk - 1, 20, q0),
                                        n), "sign count of the 20 coordinates")
    return {k: {"ceiling": v, "event": e} for k, (v, e) in out.items()}


def main() -> None:
    here = Path(__file__).resolve().parent
    res = {"alpha": ALPHA, "note": __doc__.split("\n\n")[0],
           "per_dataset_runs": {f"{n:.2g}": ceilings(n) for n in (7.9e6, 1e7, 7.9e5)}}
    (here / "results" / "dpsniper_ceilings.json").write_text(json.dumps(res, indent=1,
                                                                        ensure_ascii=False))
    for n, r in res["per_dataset_runs"].items():
        print(n, {k: round(v["ceiling"], 4) for k, v in r.items()})


if __name__ == "__main__":
    main()
