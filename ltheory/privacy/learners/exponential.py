"""The generic private learner: the exponential mechanism over a finite class.

Definition (Kasiviswanathan, Lee, Nissim, Raskhodnikova & Smith 2011, "What can we learn
privately?", SIAM J. Comput. 40(3), Section 3.1; seed 004 §1; seed 001 §3.2, Proposition 3.13).
Given a finite class H over a finite domain X and a labelled sample S = ((x_1, y_1), ...,
(x_m, y_m)), score every h ∈ H by

    u(S, h) = −|{i : h(x_i) ≠ y_i}|         (minus the number of empirical errors),

which has sensitivity 1 under substitution of one example, and output h with probability

    P[h] = exp(ε·u(S, h)/2) / Σ_{f∈H} exp(ε·u(S, f)/2).

Privacy (as the sources state it): this is ε-differentially private (McSherry & Talwar 2007;
seed 001, Proposition 3.13(i); seed 004 §1: "the exponential mechanism, which chooses hypothesis
h with probability proportional to exp(εu(x, h)/2), is ε-differentially private").

Utility (seed 001, Proposition 3.13(ii); seed 004 §1): P[error_S(h) > min_f error_S(f) + Δ] ≤
|H|·exp(−εΔm/2); in the realizable case m ≥ 8 ln|H| / (α·min{α, ε}) examples suffice for
population error ≤ α with high probability (seed 004 §1).  The mechanism itself is defined on
every sample (realizable or not); privacy holds on all of them, so no realizability check is
made (such a check would itself be a non-private release).

The output is the chosen hypothesis as its truth table (a '0'/'1' string, character j = value on
domain point j), so it is hashable and comparable across runs.  ``output_distribution`` is exact.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import InvalidInputError
from ltheory.privacy.learners.base import (
    LearnerAuditCase,
    PrivacyClaim,
    PrivateLearner,
    check_dataset,
)
from ltheory.validation import check_epsilon

__all__ = ["AUDIT_CASES", "ExponentialMechanismLearner"]

SOURCE = ("Kasiviswanathan, Lee, Nissim, Raskhodnikova & Smith 2011, 'What can we learn "
          "privately?' (generic private learner, Section 3.1); McSherry & Talwar 2007; seed 001 "
          "(Alon et al.), Proposition 3.13(i); seed 004 §1")


def point_indices(hclass: HypothesisClass, dataset: Any) -> tuple[np.ndarray, np.ndarray]:
    """(point indices, labels) of a labelled sample over ``hclass``'s domain.

    A point is an index 0..|X|−1 (int) or a domain label (as in ``hclass.domain``); labels are
    0/1.  Raises ``InvalidInputError`` naming the example at fault."""
    pairs = check_dataset(dataset)      # (x, y) pairs, y in {0, 1}, not empty
    n = hclass.domain_size
    xs = np.empty(len(pairs), dtype=np.int64)
    ys = np.empty(len(pairs), dtype=np.int64)
    for i, (x, y) in enumerate(pairs):
        if isinstance(x, int | np.integer) and not isinstance(x, bool):
            if not 0 <= int(x) < n:
                raise InvalidInputError(f"example {i}: point index {x!r} is outside "
                                        f"0..{n - 1}")
            xs[i] = int(x)
        else:
            try:
                xs[i] = int(hclass.point_index(x))
            except Exception:  # noqa: BLE001 - any lookup failure is bad input
                raise InvalidInputError(f"example {i}: point {x!r} is neither an index in "
                                        f"0..{n - 1} nor a domain label of the class "
                                        f"(e.g. {hclass.domain[0]!r})") from None
        ys[i] = int(y)
    return xs, ys


class ExponentialMechanismLearner(PrivateLearner):
    """Generic ε-DP learner over a finite class ``hclass``
    ([`ltheory.privacy.learners.exponential`][ltheory.privacy.learners.exponential] for the
    definition,
    the claim and its sources).

    ``hclass``: a [`HypothesisClass`][ltheory.HypothesisClass] (or a list of
    equal-length bit strings); ``epsilon`` > 0.  ``fit(dataset, rng)`` returns the truth table of
    the chosen hypothesis; ``sample`` draws n runs at once (Gumbel-free inverse-CDF sampling);
    ``output_distribution`` is exact."""

    #: factor c in exp(c·ε·u); the mechanism of the sources has c = 1/2
    _exponent = 0.5

    def __init__(self, hclass: Any, epsilon: float) -> None:
        if not isinstance(hclass, HypothesisClass):
            try:
                hclass = HypothesisClass.from_strings(list(hclass))
            except Exception as exc:  # noqa: BLE001
                raise InvalidInputError("hclass must be a HypothesisClass or a list of "
                                        f"equal-length '0'/'1' strings ({exc})") from None
        if len(hclass) == 0:
            raise InvalidInputError("hclass is empty; the exponential mechanism needs at least "
                                    "one hypothesis")
        self.hclass = hclass
        self.epsilon = check_epsilon(epsilon)
        self._matrix = np.asarray(hclass.matrix, dtype=np.int8)
        self._tables = tuple(hclass.to_strings())

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, SOURCE,
                            "(ε, 0)-DP: P[h] ∝ exp(ε·u(S,h)/2), u = −#errors (sensitivity 1)")

    def errors(self, dataset: Sequence[tuple[Any, int]]) -> np.ndarray:
        """Empirical errors of every hypothesis of the class on ``dataset`` (= −u(S, ·))."""
        xs, ys = point_indices(self.hclass, dataset)
        return (self._matrix[:, xs] != ys[None, :]).sum(axis=1)

    def probabilities(self, dataset: Sequence[tuple[Any, int]]) -> np.ndarray:
        s = -self._exponent * self.epsilon * self.errors(dataset).astype(float)
        w = np.exp(s - s.max())
        return w / w.sum()

    def fit(self, dataset: Sequence[tuple[Any, int]], rng: np.random.Generator) -> Hashable:
        return self.sample(dataset, 1, rng)[0]

    def sample(self, dataset: Sequence[tuple[Any, int]], n: int,
               rng: np.random.Generator) -> list[Hashable]:
        cdf = np.cumsum(self.probabilities(dataset))
        idx = np.searchsorted(cdf, rng.random(int(n)) * cdf[-1], side="right")
        idx = np.minimum(idx, len(cdf) - 1)
        return [self._tables[i] for i in idx]

    def output_distribution(self, dataset: Sequence[tuple[Any, int]]) -> dict[Hashable, float]:
        return {t: float(p) for t, p in zip(self._tables, self.probabilities(dataset),
                                             strict=True)}

    def record_space(self) -> tuple:
        """Every (x, y): x a domain index, y in {0, 1}."""
        return tuple((x, y) for x in range(self.hclass.domain_size) for y in (0, 1))


class _WrongExponentLearner(ExponentialMechanismLearner):
    """Broken variant (negative control): exp(ε·u) instead of exp(ε·u/2), still claiming ε.
    Its true privacy is 2ε (for classes where some pair of hypotheses is separated by the
    changed example in both directions)."""

    _exponent = 1.0


def _thresholds_case() -> LearnerAuditCase:
    from ltheory.catalog import family

    H = family("thresholds", n=8)
    # d0: 8 examples labelled by the threshold t=4; d1 flips the label of point 0 (now 1)
    d0 = tuple((x, int(x >= 4)) for x in range(8))
    d1 = ((0, 1),) + d0[1:]
    return LearnerAuditCase(
        name="exponential/thresholds-n8-eps1",
        make=lambda: ExponentialMechanismLearner(H, 1.0),
        d0=d0, d1=d1, runs=400_000,
        setting="thresholds n=8, epsilon=1, d0 = the 8 points labelled by x>=4, d1 = point 0 "
                "relabelled 1",
        broken=lambda: _WrongExponentLearner(H, 1.0),
        broken_note="exp(eps*u) instead of exp(eps*u/2), claim still eps=1 (true eps = 2)")


AUDIT_CASES: list[LearnerAuditCase] = [_thresholds_case()]
