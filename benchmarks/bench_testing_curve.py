"""The whole curve in ``assert_private`` (issue 38, item 3): detections and false alarms of the
curve test with its fixed cover (ε = 0, δ = 0.5/0.3/0.2, the decades) and its data-chosen point.

Scenarios (false alarm 10^-6, ``max_runs`` 200,000 unless said):

* ``laplace_gdp``: ``LaplaceMechanism(1)`` on (0, 1) claimed ``GDP(0.9)``; above the claim only
  for ε ∈ [0, 0.64] (δ(ε) > 0.16).  Oracle: the betting e-process at α on the single best
  (ε, threshold event) known in advance (exact Laplace CDFs), simulated per seed.
* ``notch``: the Gaussian mechanism σ = 1 on (0, 1) claimed a profile equal to its exact
  1-GDP curve except on [ε(10^-1.1), ε(10^-1.6)) (``notch_claim``): wrong only between the
  decades 10^-1 and 10^-2 (largest gap at ε = 1.49: δ 0.058 against the claimed 0.025).
  Oracle as above (exact normal CDFs).
* ``dpsgd_wrong_q``: ``DPSGDCanary(q=0.1, σ=1, T=20, "all")`` claimed the PLD accountant's
  profile for q = 0.09 (the wrong sampling rate).
* false-alarm controls, each at its exact (tight) curve or claim: Gaussian σ = 1.5 vs
  ``GDP(1/1.5)``, Laplace(1) vs its exact profile 1 − e^{(ε−1)/2}, randomized response
  (ε₀ = 1) vs its exact profile, and Laplace(1) vs ``PureDP(1)`` (the classic one-point test).

Run ``python -m benchmarks.bench_testing_curve --label after`` (this branch) and, with
``PYTHONPATH`` at the code before the change, ``--label before --parts detect``; results are
merged into ``benchmarks/results/testing_curve.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import laplace, norm

import ltheory
from ltheory.privacy.claims import GDP, ProfileClaim, PureDP
from ltheory.privacy.mechanisms import LaplaceMechanism, RandomizedResponse
from ltheory.testing import PrivacyViolation, assert_private
from ltheory.testing.gap_events import growth_rate
from ltheory.testing.sequential import BettingEProcess

OUT = Path(__file__).resolve().parent / "results" / "testing_curve.json"
ALPHA = 1e-6


class Gauss:
    """value + σ·N(0, 1) on a count (sensitivity 1)."""

    def __init__(self, sigma: float) -> None:
        self.sigma = sigma
        self.name = f"gaussian(sigma={sigma:g})"

    def __call__(self, d: float, rng: np.random.Generator) -> float:
        return float(d) + self.sigma * rng.standard_normal()

    def sample(self, d: float, n: int, rng: np.random.Generator) -> np.ndarray:
        return float(d) + self.sigma * rng.standard_normal(n)


def notch_claim() -> ProfileClaim:
    """The exact 1-GDP curve, except that from ε_1 = ε(10^-1.1) it falls along a line to
    δ(ε_2), ε_2 = ε(10^-1.6), reached a third of the way, and stays there until ε_2: continuous,
    non-increasing, wrong only between the decades 10^-1 and 10^-2 (largest gap 0.033 at
    ε = 1.49, off the grid's δ levels)."""
    g1 = GDP(1.0)
    e1, e2 = g1.epsilon_at(10 ** -1.1), g1.epsilon_at(10 ** -1.6)
    d1, lo = float(g1.delta_at(e1)), float(g1.delta_at(e2))
    em = e1 + (e2 - e1) * 0.3

    def profile(e: np.ndarray) -> np.ndarray:
        e = np.asarray(e, dtype=float)
        base = g1.delta_at(e)
        line = d1 - (d1 - lo) * (e - e1) / (em - e1)
        return np.where((e >= e1) & (e < e2), np.maximum(lo, np.minimum(base, line)), base)

    return ProfileClaim(profile, name="1-GDP with a notch between 1e-1.1 and 1e-1.6")


def laplace_profile(e: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, 1.0 - np.exp((np.asarray(e, dtype=float) - 1.0) / 2.0))


P_RR = math.e / (1 + math.e)


def rr_profile(e: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, P_RR - np.exp(np.asarray(e, dtype=float)) * (1 - P_RR))


RR = (((0, 0),), ((0, 1),))


def scenario(name: str) -> tuple:
    """(mechanism, d0, d1, claim, exact tails (pa(t), pb(t)) of the violating direction for the
    oracle, or None)."""
    if name == "laplace_gdp":
        # violation: P[M(0) ≤ t] > e^ε P[M(1) ≤ t] + δ(ε)
        return (LaplaceMechanism(1.0), 0, 1, GDP(0.9),
                (lambda t: laplace.cdf(t), lambda t: laplace.cdf(t - 1.0)))
    if name == "notch":
        # violation: P[M(1) ≥ t] > e^ε P[M(0) ≥ t] + δ(ε)
        return (Gauss(1.0), 0.0, 1.0, notch_claim(),
                (lambda t: norm.sf(t - 1.0), lambda t: norm.sf(t)))
    if name == "dpsgd_wrong_q":
        from ltheory.privacy.mechanisms import DPSGDCanary, dpsgd_accountant
        m = DPSGDCanary(q=0.1, sigma=1.0, steps=20, release="all")
        return (m, (), ("canary",), ProfileClaim(dpsgd_accountant(0.09, 1.0, 20),
                                                 name="pld(q=0.09)"), None)
    if name == "gauss_tight":
        return Gauss(1.5), 0.0, 1.0, GDP(1 / 1.5), None
    if name == "laplace_tight":
        return (LaplaceMechanism(1.0), 0, 1, ProfileClaim(laplace_profile, name="laplace_exact"),
                None)
    if name == "rr_tight":
        return (RandomizedResponse(1.0), *RR, ProfileClaim(rr_profile, name="rr_exact"), None)
    if name == "laplace_pure":
        return LaplaceMechanism(1.0), 0, 1, PureDP(1.0), None
    raise ValueError(name)


def run(name: str, seed: int, max_runs: int, built: dict) -> dict:
    if name not in built:
        built[name] = scenario(name)
    mech, d0, d1, claim, _ = built[name]
    t0 = time.perf_counter()
    try:
        r = assert_private(mech, d0, d1, claim=claim, max_runs=max_runs, seed=seed,
                           verify_neighbours=False, arithmetic="real")
        out = {"verdict": "passed", "log10_e": r.log10_e_value}
    except PrivacyViolation as v:
        rep = v.report
        at = rep.refuted_at or {}
        out = {"verdict": "violation", "runs": rep.runs_to_decision,
               "epsilon": at.get("epsilon"), "claimed_delta": at.get("claimed_delta"),
               "certified_delta": at.get("certified_delta"), "point": at.get("point")}
    out["seed"] = seed
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def oracle(name: str, seeds: list[int], built: dict) -> dict:
    """The betting e-process at α on the best (ε, threshold event) known in advance: its
    runs (both datasets) to reach 1/α, per seed (simulated pairs X ~ B(pa), Y ~ B(pb))."""
    if name not in built:
        built[name] = scenario(name)
    claim, tails = built[name][3], built[name][4]
    t = np.linspace(-6, 8, 2801)
    pa_t, pb_t = tails[0](t), tails[1](t)
    best = (0.0, 0.0, 0.0, 0.0, 0.0)
    for e in np.linspace(0, 4, 801):
        d = float(claim.delta_at(e))
        g = growth_rate(pa_t, pb_t, float(e), d)
        i = int(np.argmax(g))
        if g[i] > best[0]:
            best = (float(g[i]), float(e), d, float(pa_t[i]), float(pb_t[i]))
    g, e, d, pa, pb = best
    runs = []
    for s in seeds:
        rng = np.random.default_rng(10_000 + s)
        proc = BettingEProcess(np.array([e]), d, ALPHA)
        n = 0
        while True:
            x, y = rng.random(4096) < pa, rng.random(4096) < pb
            hit = proc.first_crossing(x, y)
            if hit is not None:
                runs.append(2 * (n + hit + 1))
                break
            proc.update(np.bincount(2 * x.astype(int) + y.astype(int), minlength=4))
            n += 4096
    return {"epsilon": e, "claimed_delta": d, "pa": pa, "pb": pb, "growth_per_pair": g,
            "runs": runs, "median_runs": statistics.median(runs)}


def summarise(rows: list[dict]) -> dict:
    det = [r for r in rows if r["verdict"] == "violation"]
    return {"seeds": len(rows), "detected": len(det),
            "median_runs": statistics.median([r["runs"] for r in det]) if det else None,
            "points": {k: sum(r.get("point") == k for r in det)
                       for k in ("fixed", "data-chosen")},
            "mean_seconds": round(statistics.mean(r["seconds"] for r in rows), 3),
            "rows": rows}


def code_version() -> str:
    root = Path(ltheory.__file__).resolve().parent.parent
    try:
        return subprocess.check_output(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                                       text=True).strip() + f" ({root})"
    except (OSError, subprocess.CalledProcessError):
        return str(root)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="after")
    ap.add_argument("--parts", default="detect,false")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--false-seeds", type=int, default=200)
    ap.add_argument("--false-runs", type=int, default=50_000)
    ap.add_argument("--max-runs", type=int, default=200_000)
    args = ap.parse_args()
    res = json.loads(OUT.read_text()) if OUT.exists() else {}
    lab = res.setdefault(args.label, {})
    lab["code"] = code_version()
    built: dict = {}
    parts = args.parts.split(",")
    if "detect" in parts:
        for name in ("laplace_gdp", "notch", "dpsgd_wrong_q"):
            rows = [run(name, s, args.max_runs, built) for s in range(args.seeds)]
            lab[name] = {"max_runs": args.max_runs, **summarise(rows)}
            print(name, lab[name]["detected"], "/", args.seeds, "median",
                  lab[name]["median_runs"], lab[name]["points"], file=sys.stderr)
    if "oracle" in parts:
        res["oracle"] = {n: oracle(n, list(range(args.seeds)), built)
                         for n in ("laplace_gdp", "notch")}
        print({n: v["median_runs"] for n, v in res["oracle"].items()}, file=sys.stderr)
    if "false" in parts:
        for name in ("gauss_tight", "laplace_tight", "rr_tight", "laplace_pure"):
            rows = [run(name, 1000 + s, args.false_runs, built) for s in range(args.false_seeds)]
            s = summarise(rows)
            s["max_log10_e"] = max(r.get("log10_e") or -math.inf for r in rows
                                   if r["verdict"] == "passed")
            s["rows"] = [r for r in rows if r["verdict"] == "violation"]   # only the failures
            lab[f"false_{name}"] = {"max_runs": args.false_runs, **s}
            print(name, "false alarms", s["detected"], "/", args.false_seeds, "max log10 e",
                  round(s["max_log10_e"], 2), "s/test", s["mean_seconds"], file=sys.stderr)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(res, indent=1, default=float) + "\n")


if __name__ == "__main__":
    main()
