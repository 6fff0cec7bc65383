"""Utility of the seeds' learners (part A): error against sample size and ε on catalog targets,
with the non-private counterpart beside each private learner.

* ExponentialMechanismLearner on ``thresholds n=64`` and ``conjunctions n=4``; counterpart: a
  consistent ERM (first hypothesis of the version space).
* PrivateDecisionListLearner on ``decision_lists n=4 k=1`` targets (k = 1) and k = 2 features;
  counterpart: RivestDecisionListLearner.
* DPWinnow vs ConfidentWinnow: mistakes on margin-ρ sparse disjunction-like halfspaces, and on
  monotone decision lists through Lemma 4.10 (Theorem 4.11), against the explicit bounds.
* PrivateMultiplicativeWeights: regret vs Theorem 2's αT + ln K/α at the α giving each ε.

Errors are population errors under the uniform distribution on the domain (exact: the domain is
finite), averaged over targets and runs.  ``python benchmarks/bench_learners_a.py [--quick]``.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np

from ltheory.catalog import family
from ltheory.privacy.learners.decision_lists import (
    PrivateDecisionListLearner,
    RivestDecisionListLearner,
)
from ltheory.privacy.learners.exponential import ExponentialMechanismLearner
from ltheory.privacy.learners.multiplicative_weights import PrivateMultiplicativeWeights
from ltheory.privacy.learners.winnow import ConfidentWinnow, DPWinnow, decision_list_halfspace


def _err(table: str, target: str) -> float:
    return sum(a != b for a, b in zip(table, target, strict=True)) / len(target)


def bench_exponential(rng: np.random.Generator, sizes, epss, targets: int, runs: int) -> None:
    for spec, H in (("thresholds n=64", family("thresholds", n=64)),
                    ("conjunctions n=4", family("conjunctions", n=4))):
        tables = H.to_strings()
        print(f"\n## ExponentialMechanismLearner on {spec} (|H|={len(H)}): mean error")
        print("| m | " + " | ".join(f"eps={e:g}" for e in epss) + " | non-private ERM |")
        print("|---|" + "---|" * (len(epss) + 1))
        for m in sizes:
            row = {e: [] for e in epss}
            erm = []
            for _ in range(targets):
                tgt = tables[rng.integers(len(tables))]
                xs = rng.integers(0, H.domain_size, size=m)
                d = tuple((int(x), int(tgt[x])) for x in xs)
                for e in epss:
                    L = ExponentialMechanismLearner(H, e)
                    row[e] += [_err(h, tgt) for h in L.sample(d, runs, rng)]
                errs = ExponentialMechanismLearner(H, 1.0).errors(d)
                erm.append(_err(tables[int(np.argmin(errs))], tgt))
            print(f"| {m} | " + " | ".join(f"{np.mean(row[e]):.3f}" for e in epss)
                  + f" | {np.mean(erm):.3f} |")


def bench_decision_lists(rng: np.random.Generator, sizes, epss, targets: int, runs: int,
                         delta: float = 1e-6) -> None:
    for n, k in ((4, 1), (4, 2)):
        H = family("decision_lists", n=n, k=1)
        tables = H.to_strings()
        print(f"\n## PrivateDecisionListLearner, {k}-DL features on {{0,1}}^{n}, targets from "
              f"decision_lists n={n} k=1, delta={delta:g}: mean error")
        print("| m | " + " | ".join(f"eps={e:g}" for e in epss) + " | Rivest |")
        print("|---|" + "---|" * (len(epss) + 1))
        for m in sizes:
            row = {e: [] for e in epss}
            riv = []
            for _ in range(targets):
                tgt = tables[rng.integers(len(tables))]
                xs = rng.integers(0, 1 << n, size=m)
                d = tuple((int(x), int(tgt[x])) for x in xs)
                for e in epss:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        L = PrivateDecisionListLearner((n, k), e, delta)
                    row[e] += [_err(h, tgt) for h in L.sample(d, runs, rng)]
                riv.append(_err(RivestDecisionListLearner((n, k)).fit(d, rng), tgt))
            print(f"| {m} | " + " | ".join(f"{np.mean(row[e]):.3f}" for e in epss)
                  + f" | {np.mean(riv):.3f} |")


def _halfspace_seq(rng, w, T, rho, d):
    X, ys = [], []
    while len(X) < T:
        x = rng.choice([-1.0, 1.0], size=d)
        m = float(w @ x)
        if abs(m) >= rho:
            X.append(tuple(x))
            ys.append(int(m > 0))
    return tuple(zip(X, ys, strict=True))


def bench_winnow(rng: np.random.Generator, T: int, epss) -> None:
    print(f"\n## DPWinnow vs ConfidentWinnow: mistakes in T={T} rounds (delta=1e-6)")
    print("| target | d | rho | ConfidentWinnow mistakes (updates, Lemma 4.2 bound) | "
          + " | ".join(f"DPWinnow eps={e:g} (bound)" for e in epss) + " |")
    print("|---|---|---|---|" + "---|" * len(epss))
    d = 32
    w = np.zeros(d)
    w[:3] = 1 / 3
    seqs = [("3-of-32 majority", d, 1 / 3, _halfspace_seq(rng, w, T, 1 / 3, d))]
    # Lemma 4.10 / Theorem 4.11: a monotone 1-decision list on 6 variables as a halfspace
    rules = [(0, 1), (1, 0), (2, 1)]
    wdl, margin = decision_list_halfspace(rules, 0, 6)
    X = rng.integers(0, 2, size=(T, 6)).astype(float)
    phi = np.hstack([X, np.ones((T, 1)), -X, -np.ones((T, 1))])
    ys = (phi @ wdl >= 0).astype(int)
    seqs.append((f"1-DL len 3, 2 alternations (Lemma 4.10 margin {margin:.3f})", 14, margin,
                 tuple((tuple(p), int(y)) for p, y in zip(phi, ys, strict=True))))
    for name, dd, rho, seq in seqs:
        cw = ConfidentWinnow(dd, rho)
        out = cw.run(seq)
        cells = []
        for e in epss:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = DPWinnow(dd, rho, e, 1e-6, switches=60, samples=200, horizon=T,
                             threshold=2.0)
            res = [m.run(seq, rng)["mistakes"] for _ in range(3)]
            cells.append(f"{np.mean(res):.0f} ({m.mistake_bound():.3g})")
        print(f"| {name} | {dd} | {rho:.3f} | {out['mistakes']} ({out['updates']}, "
              f"{cw.update_bound():.0f}) | " + " | ".join(cells) + " |")


def bench_pmw(rng: np.random.Generator) -> None:
    print("\n## PrivateMultiplicativeWeights: regret (expected) vs Theorem 2 bound, K=10")
    print("| T | alpha | pure eps = 2 alpha T | approx (12T alpha^2, e^-T alpha) | regret | "
          "bound alpha T + ln K / alpha |")
    print("|---|---|---|---|---|---|")
    K = 10
    for T in (100, 1000):
        r = rng.random((T, K)) * np.linspace(0.3, 0.8, K)
        for alpha in (1 / (2 * T), math.sqrt(math.log(K) / T)):
            m = PrivateMultiplicativeWeights(alpha, T, K)
            P = m.round_probabilities(r)
            regret = float(r.sum(axis=0).max() - np.sum(P * r))
            a = m.claims[1]
            print(f"| {T} | {alpha:.4g} | {m.claim[0]:.3g} | ({a.epsilon:.3g}, {a.delta:.2g}) "
                  f"| {regret:.1f} | {m.regret_bound():.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    targets, runs = (4, 20) if args.quick else (10, 50)
    bench_exponential(rng, (16, 64, 256, 1024), (0.1, 1.0, 10.0), targets, runs)
    bench_decision_lists(rng, (64, 256, 1024, 4096), (0.5, 1.0, 10.0), targets, runs)
    bench_winnow(rng, 2000 if args.quick else 5000, (1.0, 10.0, 100.0))
    bench_pmw(rng)
    print(f"\n(total {time.perf_counter() - t0:.1f}s)")


if __name__ == "__main__":
    main()
