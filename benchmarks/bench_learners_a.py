"""Utility of the seeds' learners (part A): error against sample size and ε on catalog targets,
with the non-private counterpart beside each private learner.

* ExponentialMechanismLearner on ``thresholds n=64`` and ``conjunctions n=4``; counterpart: a
  consistent ERM (first hypothesis of the version space).
* PrivateDecisionListLearner on ``decision_lists n=4 k=1`` targets (k = 1) and k = 2 features;
  counterpart: RivestDecisionListLearner.
* DPWinnow vs ConfidentWinnow: mistakes on margin-ρ sparse disjunction-like halfspaces, and on
  monotone decision lists through Lemma 4.10 (Theorem 4.11), against the explicit bounds.
* PrivateMultiplicativeWeights: regret vs Theorem 2's αT + ln K/α at the α giving each ε.
* LazyBB (seed 003) with DP-1R and DP-TopDown against sample size and ε on ``decision_lists n=5
  k=1`` targets (uniform examples on {0,1}^5, the 5 bits as features), beside non-private 1R,
  non-private LazyBB over 1R and AdaBoost over one-rules (50 rounds); hyper-parameters as in
  ``bench_boosting.py`` (τ = 5; λ, κ = 0.5, 0.35 for DP-1R and 0.4, 0.3 for DP-TopDown).

Errors are population errors under the uniform distribution on the domain (exact: the domain is
finite), averaged over targets and runs.

Run:  python -m benchmarks.bench_learners_a [--quick] [--seed S]
Writes benchmarks/results/learners_a.{json,md} (``--quick``: benchmarks/results/quick/, git-ignored,
so a smoke test never overwrites the committed full results).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ltheory.catalog import family
from ltheory.privacy.learners.decision_lists import (
    PrivateDecisionListLearner,
    RivestDecisionListLearner,
)
from ltheory.privacy.learners.exponential import ExponentialMechanismLearner
from ltheory.privacy.learners.multiplicative_weights import PrivateMultiplicativeWeights
from ltheory.privacy.learners.winnow import ConfidentWinnow, DPWinnow, decision_list_halfspace

RESULTS = Path(__file__).resolve().parent / "results"


class Report:
    """Markdown lines (printed as they come) and JSON records of one run."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.data: dict[str, list[dict]] = {}

    def md(self, line: str = "") -> None:
        self.lines.append(line)
        print(line, flush=True)

    def rec(self, section: str, **row: object) -> None:
        self.data.setdefault(section, []).append(row)


def _err(table: str, target: str) -> float:
    return sum(a != b for a, b in zip(table, target, strict=True)) / len(target)


def bench_exponential(R: Report, rng: np.random.Generator, sizes, epss, targets: int,
                      runs: int) -> None:
    for spec, H in (("thresholds n=64", family("thresholds", n=64)),
                    ("conjunctions n=4", family("conjunctions", n=4))):
        tables = H.to_strings()
        R.md(f"\n## ExponentialMechanismLearner on {spec} (|H|={len(H)}): mean error")
        R.md("| m | " + " | ".join(f"eps={e:g}" for e in epss) + " | non-private ERM |")
        R.md("|---|" + "---|" * (len(epss) + 1))
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
            R.md(f"| {m} | " + " | ".join(f"{np.mean(row[e]):.3f}" for e in epss)
                 + f" | {np.mean(erm):.3f} |")
            R.rec("exponential", target_family=spec, m=m,
                  error={str(e): float(np.mean(row[e])) for e in epss},
                  erm_error=float(np.mean(erm)), targets=targets, runs=runs)


def bench_decision_lists(R: Report, rng: np.random.Generator, sizes, epss, targets: int,
                         runs: int, delta: float = 1e-6) -> None:
    for n, k in ((4, 1), (4, 2)):
        H = family("decision_lists", n=n, k=1)
        tables = H.to_strings()
        R.md(f"\n## PrivateDecisionListLearner, {k}-DL features on {{0,1}}^{n}, targets from "
             f"decision_lists n={n} k=1, (eps, delta={delta:g}) under substitution: mean error")
        R.md("| m | " + " | ".join(f"eps={e:g}" for e in epss) + " | Rivest |")
        R.md("|---|" + "---|" * (len(epss) + 1))
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
            R.md(f"| {m} | " + " | ".join(f"{np.mean(row[e]):.3f}" for e in epss)
                 + f" | {np.mean(riv):.3f} |")
            R.rec("decision_lists", features=f"{k}-DL on {{0,1}}^{n}", delta=delta,
                  relation="substitution", m=m,
                  error={str(e): float(np.mean(row[e])) for e in epss},
                  rivest_error=float(np.mean(riv)), targets=targets, runs=runs)


def _halfspace_seq(rng, w, T, rho, d):
    X, ys = [], []
    while len(X) < T:
        x = rng.choice([-1.0, 1.0], size=d)
        m = float(w @ x)
        if abs(m) >= rho:
            X.append(tuple(x))
            ys.append(int(m > 0))
    return tuple(zip(X, ys, strict=True))


def bench_winnow(R: Report, rng: np.random.Generator, T: int, epss) -> None:
    R.md(f"\n## DPWinnow vs ConfidentWinnow: mistakes in T={T} rounds (delta=1e-6; DPWinnow: "
         "mean of 3 runs, S=60 switches, N=200 draws, L=2)")
    R.md("| target | d | rho | ConfidentWinnow mistakes (updates, Lemma 4.2 bound) | "
         + " | ".join(f"DPWinnow eps={e:g} (bound)" for e in epss) + " |")
    R.md("|---|---|---|---|" + "---|" * len(epss))
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
        dp = {}
        for e in epss:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = DPWinnow(dd, rho, e, 1e-6, switches=60, samples=200, horizon=T,
                             threshold=2.0)
            res = [m.run(seq, rng) for _ in range(3)]
            mist = float(np.mean([r["mistakes"] for r in res]))
            cells.append(f"{mist:.0f} ({m.mistake_bound():.3g})")
            dp[str(e)] = {"mistakes": mist,
                          "updates": float(np.mean([r["updates"] for r in res])),
                          "mistake_bound": m.mistake_bound()}
        R.md(f"| {name} | {dd} | {rho:.3f} | {out['mistakes']} ({out['updates']}, "
             f"{cw.update_bound():.0f}) | " + " | ".join(cells) + " |")
        R.rec("winnow", target=name, d=dd, rho=rho, T=T,
              confident_winnow={"mistakes": out["mistakes"], "updates": out["updates"],
                                "update_bound": cw.update_bound()}, dp_winnow=dp)


def bench_lazybb(R: Report, rng: np.random.Generator, sizes, epss, targets: int,
                 reps: int) -> None:
    from ltheory.privacy.learners import (
        BoostedStumps,
        DPOneRule,
        DPTopDown,
        LazyBB,
        OneRule,
    )

    n = 5
    N = 1 << n
    cube = ((np.arange(N)[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1).astype(np.int8)
    tables = family("decision_lists", n=n, k=1).to_strings()
    private = {
        "LazyBB+DP-1R": lambda e: LazyBB(DPOneRule(), rounds=5, learning_rate=0.5,
                                         smoothness=0.35, epsilon=e),
        "LazyBB+DP-TopDown": lambda e: LazyBB(DPTopDown(internal_nodes=1), rounds=5,
                                              learning_rate=0.4, smoothness=0.3, epsilon=e),
    }
    public = {"1R": OneRule(),
              "LazyBB+1R": LazyBB(OneRule(), rounds=5, learning_rate=0.5, smoothness=0.35),
              "BoostedStumps": BoostedStumps(rounds=50)}
    cols = [f"{k} eps={e:g}" for k in private for e in epss] + [f"{k} (non-private)"
                                                                 for k in public]
    R.md(f"\n## LazyBB (pure eps-DP, Theorems 7 / 10) on decision_lists n={n} k=1 targets: "
         f"mean population error ({targets} targets x {reps} runs)")
    R.md("| m | " + " | ".join(cols) + " |")
    R.md("|---|" + "---|" * len(cols))
    for m in sizes:
        errs: dict[str, list[float]] = {c: [] for c in cols}
        for _ in range(targets):
            tgt = tables[rng.integers(len(tables))]
            truth = np.array([int(c) for c in tgt], dtype=np.int8)
            xs = rng.integers(0, N, size=m)
            d = tuple((tuple(int(v) for v in cube[x]), int(truth[x])) for x in xs)
            for k, make in private.items():
                for e in epss:
                    L = make(e)
                    errs[f"{k} eps={e:g}"] += [
                        float(np.mean(L.fit_model(d, rng).predict(cube) != truth))
                        for _ in range(reps)]
            for k, L in public.items():
                errs[f"{k} (non-private)"].append(
                    float(np.mean(L.fit_model(d, rng).predict(cube) != truth)))
        R.md(f"| {m} | " + " | ".join(f"{np.mean(errs[c]):.3f}" for c in cols) + " |")
        R.rec("lazybb", target_family=f"decision_lists n={n} k=1", m=m,
              error={c: float(np.mean(v)) for c, v in errs.items()}, targets=targets,
              reps=reps)


def bench_pmw(R: Report, rng: np.random.Generator) -> None:
    R.md("\n## PrivateMultiplicativeWeights: regret (expected) vs Theorem 2 bound, K=10")
    R.md("| T | alpha | pure eps = 2 alpha T | approx (12T alpha^2, e^-T alpha) | regret | "
         "bound alpha T + ln K / alpha |")
    R.md("|---|---|---|---|---|---|")
    K = 10
    for T in (100, 1000):
        r = rng.random((T, K)) * np.linspace(0.3, 0.8, K)
        for alpha in (1 / (2 * T), math.sqrt(math.log(K) / T)):
            m = PrivateMultiplicativeWeights(alpha, T, K)
            P = m.round_probabilities(r)
            regret = float(r.sum(axis=0).max() - np.sum(P * r))
            a = m.claims[1]
            R.md(f"| {T} | {alpha:.4g} | {m.claim[0]:.3g} | ({a.epsilon:.3g}, {a.delta:.2g}) "
                 f"| {regret:.1f} | {m.regret_bound():.1f} |")
            R.rec("pmw", T=T, K=K, alpha=alpha, pure_epsilon=m.claim[0],
                  approx=[a.epsilon, a.delta], regret=regret, bound=m.regret_bound())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer targets/runs (smoke test)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    global RESULTS
    if args.quick:  # a smoke test: never overwrite the committed full results
        RESULTS = RESULTS / "quick"
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    targets, runs = (4, 20) if args.quick else (10, 50)
    T = 2000 if args.quick else 5000
    R = Report()
    R.md(f"# Utility of the seeds' learners, part A{' (--quick)' if args.quick else ''}")
    R.md("")
    R.md(f"Generated by `python -m benchmarks.bench_learners_a{' --quick' if args.quick else ''}"
         f"` (seed {args.seed}; {targets} targets x {runs} runs per cell).  Errors: population "
         "error under the uniform distribution on the domain (exact), mean over targets and "
         "runs.")
    bench_exponential(R, rng, (16, 64, 256, 1024), (0.1, 1.0, 10.0), targets, runs)
    # ε ≤ 2 under substitution: the learner refuses ε₁ = ε/2 > 1 (Theorem 3.5's range, issue 41)
    bench_decision_lists(R, rng, (64, 256, 1024, 4096), (0.5, 1.0, 2.0), targets, runs)
    bench_winnow(R, rng, T, (1.0, 10.0, 100.0))
    bench_pmw(R, rng)
    bench_lazybb(R, rng, (64, 256) if args.quick else (64, 256, 1024, 4096),
                 (0.5, 2.0, 10.0), targets, 2 if args.quick else 3)
    seconds = time.perf_counter() - t0
    R.md(f"\n(total {seconds:.1f} s on a shared, loaded machine)")
    doc = {"quick": args.quick, "seed": args.seed, "targets": targets, "runs": runs,
           "winnow_T": T, "seconds": round(seconds, 1), "python": platform.python_version(),
           "argv": sys.argv[1:], **R.data}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "learners_a.json").write_text(json.dumps(doc, indent=1) + "\n")
    (RESULTS / "learners_a.md").write_text("\n".join(R.lines) + "\n")
    print(f"wrote {RESULTS / 'learners_a.md'} and .json")


if __name__ == "__main__":
    main()
