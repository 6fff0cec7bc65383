"""Measured figures for the curve audit (issue 33, part B): ``audit_curve``.

1. Exactly tight mechanisms at 10^7 runs — the Gaussian (σ = 1, Δ = 1; claim: its own
   profile, 1-GDP), randomised response ε = 1, Laplace ε = 1 (claim: 1-DP) and the discrete
   Gaussian (σ = 1, Δ = 1; claim: its exact profile from the pmf, ``exact_claim``): certified
   ε_lb(δ) over the exact ε(δ) at every δ of the grid, beside the *ceiling* — the best any
   event's two Clopper–Pearson bounds can certify at the same certification size and level
   α/(2k), at the expected counts of the Neyman–Pearson events (thresholds; the one cell for
   randomised response), so a ratio below 0.9 that the ceiling shares is out of reach at this
   budget.
2. The half-σ Gaussian (σ half of the classic formula's for (1, 1e-5)) with claim (1, 1e-5)
   at 10^6 runs, 20 seeds: ``audit_curve``'s verdicts (and ``audit``'s, for reference).
3. Soundness: 200 curve audits per tight mechanism; an exceedance is a certified curve above the
   exact profile at any ε (fine grid), judged against Binomial(200, α) at 1%.

The Gaussian is the library's ``GaussianMechanism`` with its exact claim ``GDP``.

Run:  python -m benchmarks.bench_curve_audit [--part tight|half|sound|all] [--quick]
Writes benchmarks/results/curve_audit.{json,md} (the parts run) and curve_audit_half_sigma.png.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.stats import binom, norm

from ltheory.privacy import audit, audit_curve
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.core import exact_distributions, split_runs
from ltheory.privacy.auditing.curve import DELTAS, EVENTS
from ltheory.privacy.auditing.plot import plot_curve
from ltheory.privacy.auditing.projection import projected_interval
from ltheory.privacy.claims import GDP, PureDP
from ltheory.privacy.mechanisms import (
    DiscreteGaussianMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    discrete_gaussian_pmf,
)

OUT = Path(__file__).resolve().parent / "results"
ALPHA = 0.05


# --------------------------------------------------------------------------- references
def laplace_delta(eps, eps0):
    e = np.asarray(eps, dtype=float)
    return np.where(e < eps0, 1 - np.exp((e - eps0) / 2), 0.0)


def gauss_delta(eps, mu):
    return GDP(mu).delta_at(eps)


HALF_SIGMA = math.sqrt(2 * math.log(1.25 / 1e-5)) / 2


def _eps_of(profile, d):
    if float(profile(0.0)) <= d:
        return 0.0
    return float(brentq(lambda e: float(profile(e)) - d, 0.0, 60.0, xtol=1e-12))


def _rr_pair():
    return exact_distributions(RandomizedResponse(1.0), 0, 1)


def _dg_events():
    """Threshold events {x >= c} (c an integer) of the discrete Gaussian σ = 1, Δ = 1:
    (P(N_Z(1, 1) >= c), P(N_Z(0, 1) >= c)) from the pmf."""
    k, p = discrete_gaussian_pmf(1.0, 1)
    sf = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])     # sf[i] = P(X >= k[i])

    def at(c):
        i = np.clip(np.asarray(c, dtype=np.int64) - k[0], 0, len(k))
        return sf[i]

    return lambda t: (at(np.ceil(t) - 1), at(np.ceil(t)))


def cases():
    p0, p1 = _rr_pair()
    dg = DiscreteGaussianMechanism(1.0)
    return [
        ("gaussian sigma=1 (1-GDP)", GaussianMechanism(sigma=1.0), 0.0, 1.0, GDP(1.0),
         lambda e: gauss_delta(e, 1.0),
         lambda t: (norm.sf(t - 1.0), norm.sf(t))),               # events x >= t
        ("randomized_response eps=1", RandomizedResponse(1.0), 0, 1, PureDP(1.0),
         np.vectorize(lambda e: exact_mod.delta_of_epsilon(p0, p1, e)), None),
        ("laplace eps=1", LaplaceMechanism(1.0), 0.0, 1.0, PureDP(1.0),
         lambda e: laplace_delta(e, 1.0),
         lambda t: (np.where(t <= 1, 1 - 0.5 * np.exp(t - 1), 0.5 * np.exp(1 - t)),
                    np.where(t <= 0, 1 - 0.5 * np.exp(t), 0.5 * np.exp(-t)))),
        ("discrete_gaussian sigma=1 (exact profile)", dg, 0, 1, dg.exact_claim,
         dg.exact_claim.delta_at, _dg_events()),
    ]


def ceiling(events, pair, n_cert, k, d):
    """The best ε_lb(δ) of one Neyman–Pearson event at its expected counts (module doc)."""
    if events is None:           # randomised response: the cell {1} (or {0}) is optimal
        pa, pb = np.array([pair[0][0]]), np.array([pair[1][0]])
    else:
        t = np.linspace(-3, 12, 30_001)
        pa, pb = events(t)
    lo, up = projected_interval(pa, pb, n_cert, ALPHA / (2 * k))
    v = np.where(lo > d, np.log(np.maximum(lo - d, 1e-300) / up), -np.inf)
    return float(v.max())


def runs_for(events, pair, k, d, exact, target=0.9):
    """The fewest total runs (selection 10%) whose ceiling with k events reaches
    ``target`` × exact ε at δ = d (bisection on the certification size)."""
    lo, hi = 10**4, 10**4
    while ceiling(events, pair, hi, k, d) < target * exact:
        hi *= 2
        if hi > 10**12:
            return None
    while hi - lo > max(lo // 100, 1):
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ceiling(events, pair, mid, k, d) < target * exact else (lo, mid)
    return int(math.ceil(2 * hi / 0.9))


# --------------------------------------------------------------------------- parts
def tight(runs, seeds):
    rows = []
    _, n_cert = split_runs(runs, 0.1)
    pair = _rr_pair()
    for label, mech, d0, d1, claim, exact, events in cases():
        ex = [_eps_of(exact, d) for d in DELTAS]
        ceil_k = [ceiling(events, pair, n_cert, EVENTS, d) for d in DELTAS]
        ceil_1 = [ceiling(events, pair, n_cert, 1, d) for d in DELTAS]
        need = [runs_for(events, pair, EVENTS, d, x) if c < 0.9 * x else None
                for d, c, x in zip(DELTAS, ceil_k, ex, strict=True)]
        for s in seeds:
            t = time.perf_counter()
            r = audit_curve(mech, d0, d1, claim=claim, runs=runs, seed=s, executor="serial",
                            arithmetic="real")
            rows.append({
                "mechanism": label, "seed": s, "runs": runs, "verdict": r.verdict,
                "events_certified": r.events_certified,
                "deltas": list(DELTAS), "exact_epsilon": ex,
                "certified_epsilon": list(r.epsilon_lower_bound),
                "ratio": [b / x if x > 0 else None
                          for b, x in zip(r.epsilon_lower_bound, ex, strict=True)],
                "ceiling_ratio_k": [c / x for c, x in zip(ceil_k, ex, strict=True)],
                "ceiling_ratio_1_event": [c / x for c, x in zip(ceil_1, ex, strict=True)],
                "runs_for_ceiling_0.9": need,
                "chosen_for": [e["chosen_for"] for e in r.events],
                "seconds": round(time.perf_counter() - t, 2)})
            print(label, s, [round(x, 3) for x in rows[-1]["ratio"]], rows[-1]["seconds"],
                  flush=True)
    return rows


def half_sigma(runs, seeds):
    rows = []
    for s in seeds:
        t = time.perf_counter()
        r = audit_curve(GaussianMechanism(sigma=HALF_SIGMA), 0.0, 1.0, claim=(1.0, 1e-5),
                        runs=runs, seed=s, executor="serial", arithmetic="real")
        sec = time.perf_counter() - t
        a = audit(GaussianMechanism(sigma=HALF_SIGMA), 0.0, 1.0, claimed_epsilon=1.0,
                  claimed_delta=1e-5, runs=runs, seed=s, executor="serial", arithmetic="real")
        rows.append({"seed": s, "verdict": r.verdict, "gap": r.gap,
                     "gap_epsilon": r.gap_epsilon, "gap_event": r.gap_event,
                     "tradeoff_verdict": r.tradeoff_verdict, "seconds": round(sec, 2),
                     "audit_verdict": a.verdict, "audit_epsilon_lb": a.epsilon_lower_bound})
        if s == seeds[0]:
            plot_curve(r, OUT / "curve_audit_half_sigma.png")
        print("half-sigma", s, r.verdict, f"{r.gap:.3g}", r.gap_epsilon, a.verdict, flush=True)
    return rows


def soundness(runs, n, alpha=ALPHA, which=None):
    rows = []
    for label, mech, d0, d1, claim, exact, _ in cases():
        if which is not None and label not in which:
            continue
        t = time.perf_counter()
        bad = 0
        for s in range(n):
            r = audit_curve(mech, d0, d1, claim=claim, runs=runs, seed=100_000 + s,
                            alpha=alpha, executor="serial", arithmetic="real")
            top = max(r.epsilon_lower_bound_at(0.0), 0.0)
            grid = np.linspace(0.0, min(top, 30.0) + 1e-9, 4001)
            bad += bool(np.any(r.delta_lower_bound_at(grid) > exact(grid) + 1e-12))
        rows.append({"mechanism": label, "audits": n, "runs_each": runs, "alpha": alpha,
                     "exceedances": bad, "p_value": float(binom.sf(bad - 1, n, alpha)),
                     "seconds": round(time.perf_counter() - t, 1)})
        print(rows[-1], flush=True)
    return rows


# --------------------------------------------------------------------------- output
def _f(x, nd=3):
    return "—" if x is None else f"{x:.{nd}f}"


def markdown(res):
    out = ["# Curve audit (`audit_curve`, issue 33 part B)", "",
           "Produced by `benchmarks/bench_curve_audit.py`; one core, serial executor. "
           "Gaussian: `GaussianMechanism` with its exact claim `GDP`.", ""]
    if "tight" in res:
        out += ["## 1. Exactly tight mechanisms: certified / exact ε(δ)", "",
                f"{res['tight'][0]['runs']:,} runs, α = {ALPHA}, k ≤ {EVENTS} events. "
                "`ceiling k` is the best ratio one Neyman–Pearson event can certify at the "
                "expected counts with the same certification size and level α/(2k); "
                "`ceiling 1` the same with a single event (α/2 per bound).", "",
                "| mechanism | seed | " + " | ".join(f"δ={d:g}" for d in DELTAS)
                + " | seconds |", "|---|---|" + "---|" * (len(DELTAS) + 1)]
        for r in res["tight"]:
            out.append(f"| {r['mechanism']} | {r['seed']} | "
                       + " | ".join(_f(x) for x in r["ratio"]) + f" | {r['seconds']} |")
        seen = set()
        for r in res["tight"]:
            if r["mechanism"] in seen:
                continue
            seen.add(r["mechanism"])
            out.append(f"| {r['mechanism']} | ceiling k | "
                       + " | ".join(_f(x) for x in r["ceiling_ratio_k"]) + " | |")
            out.append(f"| {r['mechanism']} | ceiling 1 | "
                       + " | ".join(_f(x) for x in r["ceiling_ratio_1_event"]) + " | |")
        for m, r in {r["mechanism"]: r for r in res["tight"]}.items():
            if any(r.get("runs_for_ceiling_0.9") or []):
                out += ["", f"{m}: runs whose {EVENTS}-event ceiling reaches 0.9 — " + ", ".join(
                    f"δ={d:g}: {n:.3g}" for d, n in zip(r["deltas"], r["runs_for_ceiling_0.9"],
                                                        strict=True) if n)]
        out += ["", "Reading: randomised response and Laplace reach ≥ 0.99 of the exact ε at "
                "every δ (their best event does not depend on δ). The Gaussian reaches ≥ 0.94 "
                "down to δ = 10^-3 and sits at its ceiling at δ = 10^-4: no audit certifying "
                f"{EVENTS} events by Clopper–Pearson bounds at α = {ALPHA} can expect 0.9 "
                "there with this budget (the best threshold's expected bound gives the "
                "`ceiling k` row; a single oracle event would give `ceiling 1`), and 10^-5, "
                "10^-6 need ~10^8 and ~10^9 runs. Ceiling rows are at the expected counts, so "
                "a seed can exceed them; randomised response certifies 2 events (duplicates "
                "are dropped on the selection split), so its `ceiling k` (8 events) is "
                "pessimistic. The discrete Gaussian (σ = 1, Δ = 1, against its exact profile "
                "from the pmf) reaches ≥ 0.95 at every δ ≥ 10^-4 on each seed, at its ceiling; "
                "at 10^-5 and 10^-6 it is at its ceiling too (0.75–0.83; 0.9 needs ~6.6·10^7 "
                "runs)."]
        out += ["", "Exact ε(δ): " + "; ".join(
            f"{m}: " + ", ".join(f"{x:.3f}" for x in r["exact_epsilon"])
            for m, r in {r["mechanism"]: r for r in res["tight"]}.items()), ""]
    if "half" in res:
        h = res["half"]
        v = sum(r["verdict"] == "violation" for r in h)
        va = sum(r["audit_verdict"] == "violation" for r in h)
        true = float(gauss_delta(1.0, 1 / HALF_SIGMA))
        out += ["## 2. Half-σ Gaussian, claim (1, 1e-5), 10^6 runs", "",
                f"σ = {HALF_SIGMA:.4f}; true δ(1) = {true:.3g}.  `audit_curve`: "
                f"**{v} of {len(h)}** seeds a violation (`audit`, same runs and seeds: "
                f"{va} of {len(h)}); median seconds {np.median([r['seconds'] for r in h]):.2f}.",
                "", "| seed | verdict | gap | at ε | trade-off | audit |",
                "|---|---|---|---|---|---|"]
        for r in h:
            out.append(f"| {r['seed']} | {r['verdict']} | {r['gap']:.3g} | "
                       f"{_f(r['gap_epsilon'])} | {r['tradeoff_verdict']} | "
                       f"{r['audit_verdict']} |")
        out += ["", "![half-sigma](curve_audit_half_sigma.png)", ""]
    if "sound" in res:
        out += ["## 3. Soundness: exceedances over 200 audits", "",
                "An exceedance: the certified δ_lb(ε) above the exact δ(ε) at some ε of a "
                "4,001-point grid up to the largest certified ε.", "",
                "| mechanism | α | audits | runs each | exceedances | P[Bin(n, α) ≥ count] | "
                "seconds |", "|---|---|---|---|---|---|---|"]
        for r in res["sound"] + res.get("sound_loose", []):
            out.append(f"| {r['mechanism']} | {r['alpha']:g} | {r['audits']} | "
                       f"{r['runs_each']:,} | {r['exceedances']} | {r['p_value']:.3g} | "
                       f"{r['seconds']} |")
        out += ["", "No exceedance at α = 0.05 on 600 audits: the 2k Bonferroni bounds make "
                "the simultaneous guarantee conservative. At α = 0.5 the count stays far "
                "below α·n as well."]
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", default="all", choices=["tight", "half", "sound", "loose", "all"])
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    global OUT
    if a.quick:      # a smoke test never overwrites the committed figures
        OUT = OUT / "quick"
        OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "curve_audit.json"
    res = json.loads(path.read_text()) if path.exists() else {}
    if a.part in ("tight", "all"):
        res["tight"] = tight(10**6 if a.quick else 10**7, [0] if a.quick else [0, 1, 2])
    if a.part in ("half", "all"):
        res["half"] = half_sigma(10**6, list(range(5 if a.quick else 20)))
    if a.part in ("sound", "all"):
        res["sound"] = soundness(20_000 if a.quick else 100_000, 20 if a.quick else 200)
    if a.part in ("loose", "all"):   # at α = 0.5 an exceedance rate above α would show
        res["sound_loose"] = soundness(20_000, 20 if a.quick else 200, 0.5,
                                       ("randomized_response eps=1", "gaussian sigma=1 (1-GDP)"))
    OUT.mkdir(exist_ok=True)
    path.write_text(json.dumps(res, indent=1, default=float))
    (OUT / "curve_audit.md").write_text(markdown(res), encoding="utf-8")


if __name__ == "__main__":
    main()
