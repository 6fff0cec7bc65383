"""Utility of the learners of issue 6 (part c): error against sample size and ε, beside a
non-private counterpart, on catalog targets; plus the audit figures of every AUDIT_CASE.

* PrivateAgnosticLearner (seed 001, Algorithm 4) vs ERM, 10% label noise, uniform marginal.
* ClosureLearn (seed 001, Algorithm 5) for G = OR of two threshold classes vs ERM over G(H, H).
* GloballyStableLearner (seed 002, BLM) vs SOA on the whole sample (realizable), with the
  theory's sample sizes beside the ones used.

Error = P_{x uniform}[h(x) ≠ target(x)] (the excess risk divided by 1 − 2·noise); "⊥" (no
hypothesis released) counts as error 1.  Mean over ``--reps`` repetitions.

Run:  python benchmarks/bench_learners_c.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

from ltheory.catalog import family
from ltheory.dims.soa import StandardOptimalAlgorithm
from ltheory.privacy import audit
from ltheory.privacy.learners.closure import AUDIT_CASES as CLOSURE_CASES
from ltheory.privacy.learners.closure import (
    ClosureLearn,
    ExponentialLearner,
    PrivateAgnosticLearner,
)
from ltheory.privacy.learners.globally_stable import AUDIT_CASES as STABLE_CASES
from ltheory.privacy.learners.globally_stable import FAIL, GloballyStableLearner


def dist(h: str, target: str) -> float:
    if h == FAIL:
        return 1.0
    return float(np.mean([a != b for a, b in zip(h, target, strict=True)]))


def draw(target: str, m: int, noise: float, rng: np.random.Generator) -> tuple:
    xs = rng.integers(0, len(target), size=m)
    flips = rng.random(m) < noise
    return tuple((int(x), int(target[x]) ^ int(f)) for x, f in zip(xs, flips, strict=True))


def erm(rows: list[str], data: tuple) -> str:
    errs = [sum(int(h[x]) != y for x, y in data) for h in rows]
    return rows[int(np.argmin(errs))]


def bench_agnostic(reps: int, sizes: list[int], eps: list[float], rng: np.random.Generator
                   ) -> list[dict]:
    out = []
    for name, params, t in [("thresholds", {"n": 16}, 6), ("points", {"n": 16}, 5),
                            ("intervals", {"n": 8}, 12)]:
        H = family(name, **params)
        rows = H.to_strings()
        target = rows[t]
        for e in eps:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                learner = PrivateAgnosticLearner(H, ExponentialLearner(H, e))
            for m in sizes:
                priv, base = [], []
                for _ in range(reps):
                    data = draw(target, m, 0.1, rng)
                    priv.append(dist(learner.fit(data, rng), target))
                    base.append(dist(erm(rows, data), target))
                out.append({"learner": "PrivateAgnosticLearner", "class": f"{name} {params}",
                            "target": target, "inner_epsilon": e, "claim": learner.claim,
                            "m": m, "error": round(float(np.mean(priv)), 4),
                            "erm_error": round(float(np.mean(base)), 4)})
    return out


def bench_closure(reps: int, sizes: list[int], rng: np.random.Generator) -> list[dict]:
    H = family("thresholds", n=8)
    rows = H.to_strings()
    union = sorted({"".join(str(int(a) | int(b)) for a, b in zip(r, s, strict=True))
                    for r in rows for s in rows})
    target = "00001111"
    out = []
    learner = ClosureLearn("or", [H, H])
    for m in sizes:
        priv, base = [], []
        for _ in range(reps):
            data = draw(target, m, 0.0, rng)
            priv.append(dist(learner.fit(data, rng), target))
            base.append(dist(erm(union, data), target))
        out.append({"learner": "ClosureLearn(or, thresholds n=8 x2)", "target": target,
                    "claim": learner.claim, "m": m, "error": round(float(np.mean(priv)), 4),
                    "erm_error": round(float(np.mean(base)), 4)})
    return out


def soa_output(H: object, data: tuple) -> str:
    soa = StandardOptimalAlgorithm(H)
    soa.run(data)
    return "".join(str(soa.predict(x)) for x in range(H.domain_size))


def bench_stable(reps: int, configs: list[tuple[int, int]], eps: list[float],
                 rng: np.random.Generator) -> list[dict]:
    out = []
    for name, params, target in [("points", {"n": 8}, "00010000"),
                                 ("thresholds", {"n": 3}, "011"),
                                 ("intervals", {"n": 3}, "010")]:
        H = family(name, **params)
        for e in eps:
            for batches, batch in configs:
                learner = GloballyStableLearner(H, e, 1e-3, alpha=0.2, beta=0.2, aux_size=8,
                                                batch_size=batch, batches=batches,
                                                fresh_size=100)
                priv, base, t0 = [], [], time.perf_counter()
                for _ in range(reps):
                    data = draw(target, learner.sample_size, 0.0, rng)
                    priv.append(dist(learner.fit(data, rng), target))
                    base.append(dist(soa_output(H, data[:100]), target))
                th = learner.theory_sample_sizes()
                out.append({"learner": "GloballyStableLearner", "class": f"{name} {params}",
                            "ldim": learner.ldim, "target": target, "epsilon": e,
                            "delta": 1e-3, "batches": batches, "batch_size": batch,
                            "m": learner.sample_size, "error": round(float(np.mean(priv)), 4),
                            "soa_error_100": round(float(np.mean(base)), 4),
                            "theory_total": th["total"], "theory_N": th["budget_N"],
                            "theory_batches": th["batches_k"],
                            "seconds_per_fit": round((time.perf_counter() - t0) / reps, 4)})
    return out


def bench_audits(quick: bool) -> list[dict]:
    out = []
    for case in [*CLOSURE_CASES, *STABLE_CASES]:
        for which in ("honest", "broken"):
            mech = case.make() if which == "honest" else case.broken()
            d0, d1 = (case.d0, case.d1) if which == "honest" else case.broken_pair()
            runs = min(case.runs, 8_000) if quick else case.runs
            eps, delta = mech.claim
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rep = audit(mech, d0, d1, claimed_epsilon=eps, claimed_delta=delta, runs=runs,
                            seed=0)
            out.append({"case": case.name, "variant": which, "claim": [eps, delta],
                        "runs": runs, "bound": round(rep.epsilon_lower_bound, 4),
                        "exact": None if rep.exact_epsilon is None else
                        round(rep.exact_epsilon, 4), "verdict": rep.verdict,
                        "seconds": round(time.perf_counter() - t0, 2)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    reps = 10 if a.quick else 30
    res = {
        "audits": bench_audits(a.quick),
        "private_agnostic": bench_agnostic(reps, [36, 90, 360, 1440] if not a.quick
                                           else [36, 360], [0.5, 1.0, 2.0], rng),
        "closure": bench_closure(reps, [36, 144, 576, 2304] if not a.quick else [36, 576],
                                 rng),
        "globally_stable": bench_stable(reps, [(20, 40), (40, 80), (80, 160)] if not a.quick
                                        else [(20, 40), (80, 160)], [0.5, 0.9], rng),
    }
    if a.json:
        print(json.dumps(res, indent=1))
        return
    for key, rows in res.items():
        print(f"== {key}")
        for r in rows:
            print("  " + ", ".join(f"{k}={v}" for k, v in r.items()))


if __name__ == "__main__":
    main()
