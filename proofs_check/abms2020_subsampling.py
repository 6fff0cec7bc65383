"""Lemma 3.12 of Alon, Beimel, Moran & Stemmer 2020 (seed ``001_ed369e7bc84e5ca0.txt``; quoted
from Bun, Nissim, Stemmer & Vadhan 2015) on its own: an algorithm A' that draws m examples *with
repetitions* from its input of 9m examples and runs an (ε, δ)-DP algorithm A on them is
(ε, δ)-DP — stated for every ε.

Evaluated exactly.  A is the truncated geometric count at ε (``GeometricMechanism`` with clamp
0..m; ε-DP, and the inner learner of the issue-14 scenario of ``PrivateAgnosticLearner``).  The
neighbouring inputs are D = 9m examples labelled 0 and D' = D with one label set to 1.  Under D
the sub-sample's count is 0; under D' it is K ~ Bin(m, 1/(9m)), the number of times the changed
example is drawn.  The output distributions are therefore G_0 and Σ_k P[K = k]·G_k, G_k the
library's exact output distribution of A at count k, and their exact ε (the library's
``exact_epsilon``) is compared with the claimed ε.

The lemma fails for large ε: the changed example is drawn k ≥ 2 times with probability ≈ 1/162
(m ≥ 2), which costs kε by group privacy, so ε' ≈ 2ε − ln 162 > ε once ε > ln 162 ≈ 5.1.  The
smallest witness is m = 2 (with m = 1 the ratio is at most 8/9 + e^ε/9 < e^ε), at the smallest ε
where the exact ε' exceeds ε (found by bisection): ε ≈ 5.667; the threshold falls with m (4.59 at
m = 3, 4.04 at 5, 3.73 at 10, 3.55 at 30).  This is the false step behind the finding of
``privacy.claims.abms20`` (Lemma 5.3 and Theorem 6.1 use it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import sympy
from scipy.stats import binom

from proofs_check.base import Check, Evidence, evaluate_bound, tight

SOURCE = "001_ed369e7bc84e5ca0.txt"
_eps = sympy.Symbol("epsilon", positive=True)
#: Lemma 3.12: A' is (ε, δ)-DP — the claimed ε of the sub-sampled algorithm
LEMMA312_EPSILON = _eps
#: the input has 9m examples
FACTOR = 9


def subsampled_epsilon(eps: float, m: int, factor: int = FACTOR) -> float:
    """Exact ε of "draw m of factor·m examples with replacement, run the ε-DP truncated geometric
    count (clamp 0..m)" on the neighbours all-0 vs one 1."""
    from ltheory.privacy.auditing.exact import aligned, exact_epsilon
    from ltheory.privacy.mechanisms import GeometricMechanism

    A = GeometricMechanism(eps, clamp=(0, m))
    N = factor * m
    b = binom.pmf(np.arange(m + 1), m, 1.0 / N)
    G = [A.output_distribution(float(k)) for k in range(m + 1)]
    p0 = G[0]
    p1 = {o: float(sum(b[k] * G[k].get(o, 0.0) for k in range(m + 1))) for o in range(m + 1)}
    _, a, c = aligned(p0, p1)
    return float(max(exact_epsilon(a, c), exact_epsilon(c, a)))


def smallest_failing_epsilon(m: int, lo: float = 0.5, hi: float = 20.0) -> float:
    """The smallest ε (to 1e-6) at which the sub-sampled ε exceeds the declared claim, by
    bisection (the excess is increasing in ε on [lo, hi] for these m)."""

    def excess(e: float) -> float:
        return subsampled_epsilon(e, m) - float(evaluate_bound(LEMMA312_EPSILON, epsilon=e))

    if excess(hi) <= 0 or excess(lo) > 0:
        raise ValueError(f"no sign change of the excess on [{lo}, {hi}] at m = {m}")
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if excess(mid) > 0 else (mid, hi)
    return hi


def _rows(quick: bool) -> Iterator[Evidence]:
    grid = [(m, e) for m in (1, 2, 3) for e in (1.0, 5.0, 10.0)] if quick else [
        (m, e) for m in (1, 2, 3, 5, 10) for e in (0.5, 1.0, 2.0, 5.0, 8.0, 10.0, 15.0)]
    for m, e in grid:
        claimed = float(evaluate_bound(LEMMA312_EPSILON, epsilon=e))
        exact = subsampled_epsilon(e, m)
        ok = exact <= claimed + 1e-9
        yield Evidence("truncated geometric count, m draws with replacement from 9m examples",
                       {"m": m, "9m": FACTOR * m, "epsilon": e},
                       {"exact ε of A'": exact}, claimed, ok, claimed - exact,
                       None if ok else _witness(m, e, exact),
                       "" if ok else _NOTE, tight(exact, claimed))
    try:
        e_star = smallest_failing_epsilon(2)
    except ValueError:                           # the claim holds on the whole search range
        yield Evidence("the smallest witness: m = 2, ε in [0.5, 20]", {"m": 2}, {}, None, True,
                       note="no ε in [0.5, 20] where A' exceeds the claim", tightness=None)
        return
    e = math.ceil(e_star * 1000) / 1000
    exact = subsampled_epsilon(e, 2)
    claimed = float(evaluate_bound(LEMMA312_EPSILON, epsilon=e))
    ok = exact <= claimed + 1e-9
    yield Evidence("the smallest witness: m = 2, the smallest ε where A' exceeds ε",
                   {"m": 2, "9m": 2 * FACTOR, "epsilon": e},
                   {"exact ε of A'": exact, "threshold ε (bisection)": e_star}, claimed,
                   ok, claimed - exact, None if ok else _witness(2, e, exact), _NOTE,
                   tight(exact, claimed))


_NOTE = ("the changed example is drawn k times with probability P[Bin(m, 1/(9m)) = k]; k ≥ 2 "
         "copies cost kε (group privacy), so the sub-sampled algorithm is not ε-DP for large ε: "
         "Lemma 3.12, stated for every ε, is false from ε ≈ 5.67 at m = 2 (it is the false step "
         "of Theorem 6.1 and Lemma 7.2 at large ε)")


def _witness(m: int, e: float, exact: float) -> dict:
    return {"A": f"GeometricMechanism(epsilon={e}, clamp=(0, {m})) on the count of label-1 "
                 "examples", "m": m, "input size": FACTOR * m,
            "D": f"{FACTOR * m} examples labelled 0", "D'": "D with one label set to 1",
            "exact epsilon of A'": exact}


CHECKS = [
    Check("abms20.lemma3.12", SOURCE, "Lemma 3.12 (sub-sampling with replacement)",
          "If A is (ε, δ)-DP, the algorithm A' that draws m examples with repetitions from its "
          "9m examples and returns A on them is (ε, δ)-DP.", LEMMA312_EPSILON, _rows,
          kind="privacy",
          falsifiable="exact: fails where the sub-sampled truncated geometric count has exact "
                      "ε above ε — it does for m ≥ 2 from ε ≈ 5.67 at m = 2 (4.59 at m = 3) on (a "
                      "finding, smallest witness m = 2, 18 examples)"),
]
