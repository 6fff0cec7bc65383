"""Checks of seed ``004_5635bafb29a98a47.txt`` (lecture notes: private PAC learning), §1.

Theorem 1: for every class C, f in C and distribution D, with n = 2 ln|C| / α i.i.d. examples
(x_i, f(x_i)), x_i ~ D, every h in C consistent with the sample has Pr_{r~D}[h(r) = f(r)] >= 1 - α,
with probability at least 1 - e^{-αn/2}.

Checked by simulation: D is uniform on the (finite) domain, so the error of every h is exact;
each trial draws a sample and asks whether some consistent h has error > α.  The failure
probability is estimated with a two-sided 95% Clopper–Pearson interval (scipy); the statement
"holds" unless the interval's lower end exceeds the bound.  n is rounded up, which the proof
allows (its bound |C|(1-α)^n <= e^{ln|C| - αn} <= e^{-αn/2} for n >= 2 ln|C|/α).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import sympy
from scipy.stats import beta

from ltheory import catalog
from ltheory.core.hypothesis_class import HypothesisClass
from proofs_check.base import Check, Evidence

SOURCE = "004_5635bafb29a98a47.txt"
_alpha, _n = sympy.symbols("alpha n", positive=True)


def _failure_rate(H: HypothesisClass, target: int, alpha: float, n: int, trials: int,
                  rng: np.random.Generator) -> tuple[int, int]:
    M = H.matrix.astype(bool)
    f = M[target]
    err = (M != f[None, :]).mean(axis=1)            # exact error under uniform D
    bad = err > alpha
    X = H.domain_size
    fails = 0
    for _ in range(trials):
        xs = rng.integers(0, X, size=n)
        consistent = (M[:, xs] == f[xs][None, :]).all(axis=1)
        fails += bool((consistent & bad).any())
    return fails, trials


def _thm1(quick: bool) -> Iterator[Evidence]:
    rng = np.random.default_rng(2024)
    trials = 400 if quick else 4000
    classes = [("thresholds", {"n": 32}, catalog.family("thresholds", n=32)),
               ("intervals", {"n": 16}, catalog.family("intervals", n=16, empty=True)),
               ("points", {"n": 20}, catalog.family("points", n=20, zero=True)),
               ("random", {"m": 64, "n": 12, "seed": 1},
                catalog.family("random", m=64, n=12, p=0.5, seed=1))]
    for name, params, H in classes:
        for alpha in (0.25, 0.1) if quick else (0.3, 0.2, 0.1, 0.05):
            n = math.ceil(2 * math.log(len(H)) / alpha)
            target = int(rng.integers(len(H)))
            k, T = _failure_rate(H, target, alpha, n, trials, rng)
            bound = math.exp(-alpha * n / 2)
            lo = float(beta.ppf(0.025, k, T - k + 1)) if k > 0 else 0.0
            hi = float(beta.ppf(0.975, k + 1, T - k)) if k < T else 1.0
            holds = lo <= bound
            yield Evidence(name, {**params, "alpha": alpha, "samples": n, "target": target},
                           {"failures": k, "trials": T, "rate": k / T, "95% CI": [lo, hi],
                            "|C|(1-alpha)^n": len(H) * (1 - alpha) ** n},
                           bound, holds, bound - k / T, None if holds else {"target": target},
                           "bound = e^{-alpha n / 2}; holds unless the CI lies above it")


CHECKS = [
    Check("pac.thm1", SOURCE, "Theorem 1 (consistent learners)",
          "With n = 2 ln|C|/α samples, every consistent h has error <= α with probability "
          ">= 1 - e^{-αn/2}.", sympy.exp(-_alpha * _n / 2), _thm1, kind="simulation"),
]
