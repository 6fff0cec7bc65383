"""Floating-point leaks found by default (issue 38, item 4): ``audit`` with
``arithmetic="float"`` (default: the bit family of ``ltheory.privacy.auditing.floating``) against
``arithmetic="real"`` (the auditor as it was before: output values only).

Three parts, each a list of rows in ``benchmarks/results/floating.json`` (merged per part):

* ``leaks`` — naive float mechanisms at the classic claims (Gaussian (1, 1e-5), Laplace 1):
  numpy's Gaussian, numpy's Laplace, Laplace by inversion, a polar (Marsaglia) Gaussian,
  numpy's ziggurat normal, ltheory's own ``LaplaceMechanism`` and ``GaussianMechanism``, at
  datasets (0, 1) and (0.1, 1.1), 10^5 / 10^6 / 10^7 runs, seed 0: certified ε real vs float.
* ``controls`` — mechanisms that are DP in floating point, each at its claim, many seeds at
  10^5 runs: snapped twins (clamp, then round to the grid Λ = 2^-20; claim adjusted per
  Mironov 2012, Theorem 1: ε(1 + 2^-49·B/λ)… here ε + 2^-49·B/λ), the geometric mechanism, the
  discrete Gaussian, OpenDP's Laplace and Gaussian: number of violations (must be 0).
* ``power`` — real-arithmetic leaks: mean certified bound over seeds at 2·10^5 and 2·10^6 runs,
  real vs float: snapped Laplace(1) claimed 0.5, snapped NoisyHist1/2 (bit family present but
  no float leak: the pure multiplicity cost), and the naive DP-Sniper rows NoisyHist1/2 (float
  may certify more: a floating-point leak), ReportNoisyMax1 and SVT1 (integer outputs: no bit
  family, identical by construction).

Run:  nice -n 10 python -m benchmarks.bench_floating [--part leaks controls power] [--quick]
      (``--part`` with no names rewrites ``floating.md`` from the JSON)
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from ltheory.privacy import audit
from ltheory.privacy.mechanisms import GeometricMechanism, LaplaceMechanism, SparseVector

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "floating.json"
SIGMA = math.sqrt(2 * math.log(1.25 / 1e-5))        # classic σ for (1, 1e-5), Δ = 1
LAM = 2.0 ** -20                                     # snapping grid
B = 2.0 ** 10                                        # snapping clamp


class _Scalar:
    """A scalar mechanism from a vectorised noise sampler ``noise(n, rng)`` added to ``d``."""

    neighbour_relation = "query_answers"
    sensitivity = 1.0

    def __init__(self, name: str, noise, snap: bool = False) -> None:
        self.name, self.noise, self.snap = name, noise, snap

    def sample(self, d, n, rng):
        q = float(np.asarray(d, dtype=float).ravel()[0])
        y = q + self.noise(n, rng)
        if self.snap:                       # Mironov's snapping: clamp, round to Λ, clamp
            y = np.clip(np.round(np.clip(y, -B, B) / LAM) * LAM, -B, B)
        return y

    def __call__(self, d, rng):
        return float(self.sample(d, 1, rng)[0])


def _inversion_laplace(b: float):
    def f(n, rng):
        u = rng.uniform(-0.5, 0.5, n)
        return -b * np.sign(u) * np.log(1 - 2 * np.abs(u))
    return f


def _polar_gaussian(sigma: float):
    def f(n, rng):
        out = np.empty(0)
        while len(out) < n:
            m = int(1.3 * (n - len(out))) + 16
            u, v = rng.uniform(-1, 1, m), rng.uniform(-1, 1, m)
            s = u * u + v * v
            ok = (s > 0) & (s < 1)
            u, s = u[ok], s[ok]
            out = np.concatenate([out, u * np.sqrt(-2 * np.log(s) / s)])
        return sigma * out[:n]
    return f


def leak_mechanisms() -> dict:
    from ltheory.privacy.mechanisms import GaussianMechanism
    return {
        "numpy Gaussian d+rng.normal(0,σ)": (
            _Scalar("np_gauss", lambda n, r: r.normal(0, SIGMA, n)), (1.0, 1e-5)),
        "numpy Laplace d+rng.laplace(0,1)": (
            _Scalar("np_laplace", lambda n, r: r.laplace(0, 1, n)), (1.0, 0.0)),
        "Laplace by inversion": (_Scalar("inv_laplace", _inversion_laplace(1.0)), (1.0, 0.0)),
        "polar (Marsaglia) Gaussian": (_Scalar("polar_gauss", _polar_gaussian(SIGMA)),
                                       (1.0, 1e-5)),
        "ziggurat d+σ·standard_normal": (
            _Scalar("zig_gauss", lambda n, r: SIGMA * r.standard_normal(n)), (1.0, 1e-5)),
        "ltheory LaplaceMechanism(1)": (LaplaceMechanism(1.0, query=_value), (1.0, 0.0)),
        "ltheory GaussianMechanism(1, 1e-5)": (GaussianMechanism(1.0, 1e-5, query=_value),
                                               (1.0, 1e-5)),
    }


def _value(d):
    return float(np.asarray(d, dtype=float).ravel()[0])


def part_leaks(quick: bool) -> list[dict]:
    rows = []
    sizes = [10**5, 10**6] if quick else [10**5, 10**6, 10**7]
    for name, (m, (eps, delta)) in leak_mechanisms().items():
        for d0, d1 in ((0.0, 1.0), (0.1, 1.1)):
            for runs in sizes:
                row = {"mechanism": name, "d0": d0, "d1": d1, "runs": runs,
                       "claim": [eps, delta]}
                for ar in ("real", "float"):
                    t = time.perf_counter()
                    r = audit(m, d0, d1, claimed_epsilon=eps, claimed_delta=delta, runs=runs,
                              seed=0, arithmetic=ar)
                    row[ar] = {"bound": r.epsilon_lower_bound, "verdict": r.verdict,
                               "floating_point": r.floating_point, "event": r.event[:120],
                               "seconds": round(time.perf_counter() - t, 2)}
                print(json.dumps(row, ensure_ascii=False), flush=True)
                rows.append(row)
    return rows


def control_mechanisms() -> dict:
    from ltheory.privacy.mechanisms import DiscreteGaussianMechanism
    snap_eps = 1.0 + 2.0 ** -49 * B              # Mironov 2012, Thm 1 with λ = 1 (Δ = 1)
    out = {
        "snapped numpy Laplace (Λ=2^-20)": (
            _Scalar("snap_laplace", lambda n, r: r.laplace(0, 1, n), snap=True),
            (snap_eps, 0.0), (0.0, 1.0)),
        "snapped Laplace, claim 1.1 (Λ=2^-20)": (
            _Scalar("snap_laplace", lambda n, r: r.laplace(0, 1, n), snap=True),
            (1.1, 0.0), (0.0, 1.0)),
        "snapped numpy Gaussian (Λ=2^-20)": (
            _Scalar("snap_gauss", lambda n, r: r.normal(0, SIGMA, n), snap=True),
            (1.0 + 2.0 ** -49 * B, 1e-5), (0.0, 1.0)),
        "snapped Laplace by inversion (Λ=2^-20)": (
            _Scalar("snap_inv", _inversion_laplace(1.0), snap=True), (snap_eps, 0.0),
            (0.1, 1.1)),
        "geometric(1)": (GeometricMechanism(1.0, query=_value), (1.0, 0.0), (0.0, 1.0)),
        "discrete Gaussian σ=5": (DiscreteGaussianMechanism(5.0), None,
                                  DiscreteGaussianMechanism(5.0).default_pair()),
    }
    try:
        from ltheory.privacy.adapters.opendp_measurements import OpenDPGaussian, OpenDPLaplace
        lap = OpenDPLaplace(scale=1.0)
        out["OpenDP Laplace (float)"] = (lap, None, lap.default_pair())
        g = OpenDPGaussian(scale=SIGMA, delta=1e-5)
        out["OpenDP Gaussian (float)"] = (g, None, g.default_pair())
    except Exception as exc:  # noqa: BLE001 - optional extra
        print("OpenDP skipped:", exc)
    return out


def part_controls(quick: bool) -> list[dict]:
    rows = []
    seeds = 10 if quick else 50
    for name, (m, claim, (d0, d1)) in control_mechanisms().items():
        eps, delta = claim if claim is not None else m.claim
        n_seeds = min(seeds, 20) if name.startswith("OpenDP") else seeds
        for ar in ("float", "real"):
            t = time.perf_counter()
            bounds, viol, fp = [], 0, 0
            for s in range(n_seeds):
                r = audit(m, d0, d1, claimed_epsilon=eps, claimed_delta=delta, runs=10**5,
                          seed=s, arithmetic=ar, exact=False)
                bounds.append(r.epsilon_lower_bound)
                viol += r.verdict == "violation"
                fp += r.floating_point
            row = {"mechanism": name, "arithmetic": ar, "claim": [eps, delta],
                   "d0": d0, "d1": d1, "runs": 10**5, "seeds": n_seeds,
                   "violations": viol, "bit_event_reported": fp,
                   "mean_bound": float(np.mean(bounds)), "max_bound": float(np.max(bounds)),
                   "seconds": round(time.perf_counter() - t, 1)}
            print(json.dumps(row, ensure_ascii=False), flush=True)
            rows.append(row)
    return rows


class _Snapped:
    """A vector mechanism's outputs snapped to Λ (clamped to ±B): no floating-point leak."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = f"snapped {inner.name}"
        for a in ("neighbour_relation", "sensitivity", "epsilon", "true_epsilon"):
            if hasattr(inner, a):
                setattr(self, a, getattr(inner, a))

    def sample(self, d, n, rng):
        y = self.inner.sample(d, n, rng)
        return np.clip(np.round(np.clip(y, -B, B) / LAM) * LAM, -B, B)

    def __call__(self, d, rng):
        return self.sample(d, 1, rng)[0]


def power_rows() -> dict:
    from ltheory.privacy.mechanisms import NoisyHist, ReportNoisyMax
    five, five0 = (1.0,) * 5, (0.0,) + (1.0,) * 4
    ten, ten1 = (1.0,) * 10, (0.0,) * 5 + (2.0,) * 5
    lap = _Scalar("laplace1", lambda n, r: r.laplace(0, 1, n))
    return {
        "snapped Laplace(1), claim 0.5": (_Scalar("snap_laplace", lambda n, r: r.laplace(0, 1, n),
                                                  snap=True), 0.5, 0.0, 1.0),
        "naive Laplace(1), claim 0.5": (lap, 0.5, 0.0, 1.0),
        "snapped NoisyHist1": (_Snapped(NoisyHist(0.1)), 0.1, five, five0),
        "snapped NoisyHist2": (_Snapped(NoisyHist(0.1, scale=0.1)), 0.1, five, five0),
        "NoisyHist1 (naive float)": (NoisyHist(0.1), 0.1, five, five0),
        "NoisyHist2 (naive float)": (NoisyHist(0.1, scale=0.1), 0.1, five, five0),
        "ReportNoisyMax1": (ReportNoisyMax(0.1, "laplace"), 0.1, five, (2.0,) + (0.0,) * 4),
        "SVT1": (SparseVector(0.1, 1, threshold=0.5, c=1), 0.1, ten, ten1),
    }


def part_power(quick: bool) -> list[dict]:
    rows = []
    seeds = 4 if quick else 10
    for name, (m, eps, d0, d1) in power_rows().items():
        for runs in (2 * 10**5, 2 * 10**6):
            row = {"mechanism": name, "claim": eps, "runs": runs, "seeds": seeds}
            for ar in ("real", "float"):
                t = time.perf_counter()
                rs = [audit(m, d0, d1, claimed_epsilon=eps, runs=runs, seed=s, arithmetic=ar,
                            exact=False) for s in range(seeds)]
                b = [r.epsilon_lower_bound for r in rs]
                row[ar] = {"mean_bound": float(np.mean(b)), "bounds": b,
                           "bit_event_reported": int(sum(r.floating_point for r in rs)),
                           "seconds": round(time.perf_counter() - t, 1)}
            mr, mf = row["real"]["mean_bound"], row["float"]["mean_bound"]
            row["float_over_real"] = mf / mr if mr > 0 else None
            print(json.dumps(row, ensure_ascii=False), flush=True)
            rows.append(row)
    return rows


def markdown(data: dict) -> str:
    """The tables of ``floating.md`` from the JSON."""
    out = ["# Floating-point leaks found by default (issue 38, item 4)", "",
           "`benchmarks/bench_floating.py`; *real* = `arithmetic=\"real\"` (the auditor before: "
           "events on the output's value only), *float* = the default (also the bit family of "
           "`ltheory.privacy.auditing.floating`: likelihood-ratio cells of the pair (exponent, "
           "lowest set bit) of the output).  α = 0.05.", ""]
    if "leaks" in data:
        out += ["## 1. Naive float mechanisms at the classic claims (seed 0)", "",
                "Claims: Gaussians (1, 1e-5) with σ = sqrt(2 ln(1.25/δ))/ε = 4.84 "
                "(ltheory's `GaussianMechanism(1, 1e-5)`: the analytic σ = 3.73); Laplace "
                "scale 1, claim 1.  Certified ε (verdict).", "",
                "| mechanism | pair | runs | real | float |", "|---|---|---|---|---|"]
        for r in data["leaks"]:
            out.append(f"| {r['mechanism']} | ({r['d0']:g}, {r['d1']:g}) | {r['runs']:.0e} | "
                       f"{r['real']['bound']:.3f} ({r['real']['verdict']}) | "
                       f"{r['float']['bound']:.3f} ({r['float']['verdict']}"
                       f"{', floating-point' if r['float']['floating_point'] else ''}) |")
        out.append("")
    if "controls" in data:
        out += ["## 2. Controls: float-safe mechanisms at their claims, 10^5 runs", "",
                "| mechanism | claim (ε, δ) | arithmetic | seeds | violations | bit event "
                "reported | mean bound | max bound |", "|---|---|---|---|---|---|---|---|"]
        for r in data["controls"]:
            e, d = r["claim"]
            out.append(f"| {r['mechanism']} | ({e:.6g}, {d:g}) | {r['arithmetic']} | "
                       f"{r['seeds']} | {r['violations']} | {r['bit_event_reported']} | "
                       f"{r['mean_bound']:.4f} | {r['max_bound']:.4f} |")
        out.append("")
    if "power" in data:
        out += ["## 3. Power on real-arithmetic leaks: mean certified ε over seeds", "",
                "| mechanism | claim | runs | seeds | real | float | float/real | bit event "
                "reported (float) |", "|---|---|---|---|---|---|---|---|"]
        for r in data["power"]:
            ratio = "" if r["float_over_real"] is None else f"{r['float_over_real']:.4f}"
            out.append(f"| {r['mechanism']} | {r['claim']:g} | {r['runs']:.0e} | "
                       f"{r['seeds']} | {r['real']['mean_bound']:.4f} | "
                       f"{r['float']['mean_bound']:.4f} | {ratio} | "
                       f"{r['float']['bit_event_reported']} |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", nargs="*", default=["leaks", "controls", "power"])
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    global OUT
    if a.quick:      # a smoke test never overwrites the committed figures
        OUT = OUT.parent / "quick" / OUT.name
        OUT.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    for part in a.part:
        data[part] = {"leaks": part_leaks, "controls": part_controls,
                      "power": part_power}[part](a.quick)
        OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False))
    OUT.with_suffix(".md").write_text(markdown(data), encoding="utf-8")


if __name__ == "__main__":
    main()
