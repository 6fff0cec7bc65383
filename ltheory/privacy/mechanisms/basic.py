"""The basic mechanisms of one numeric or binary answer: Laplace, geometric (discrete Laplace)
and randomized response."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.mechanisms.base import Dataset, Mechanism, count_query
from ltheory.validation import check_epsilon, check_int

__all__ = ["MIN_GEOMETRIC_RATE", "GeometricMechanism", "LaplaceMechanism", "RandomizedResponse",
           "check_scale"]


class LaplaceMechanism(Mechanism):
    """The Laplace mechanism: ``f(D) + Lap(Δ/ε)``, ε-DP for a query of sensitivity Δ (Dwork,
    McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Theorem 3.6).

    This is the *naive floating-point* implementation, kept as the textbook reference: over the
    reals it is ε-DP, and ``true_epsilon`` records that real-arithmetic value, which is the truth
    for every event on the output's value.  In floating point it is not DP at all (Mironov 2012):
    f(D) + noise is rounded, so some outputs are reachable from one dataset and not from its
    neighbour.  [`audit`][ltheory.privacy.audit] finds this by default (a *floating-point
    violation*, [`floating`][ltheory.privacy.auditing.floating]; ε ≥ 10.6 certified at 10⁶
    runs); ``arithmetic="real"`` audits the real-arithmetic mechanism.  Use the
    [geometric][ltheory.privacy.mechanisms.GeometricMechanism] or a
    [snapping][ltheory.privacy.mechanisms.SnappedLaplace] mechanism where the floating-point
    guarantee matters.

    Args:
        epsilon: The ε of the claim, finite and > 0.
        sensitivity: The L1 sensitivity Δ of ``query``, a finite number > 0.
        query: The query f, ``dataset -> float``; default
            [`count_query`][ltheory.privacy.mechanisms.count_query] (Δ = 1 under substitution).

    Raises:
        InvalidInputError: For ε or Δ that is not a finite number > 0, or a noise scale Δ/ε
            that is not a finite float.

    Examples:
        >>> from ltheory.privacy import audit
        >>> from ltheory.privacy.mechanisms import LaplaceMechanism
        >>> r = audit(LaplaceMechanism(1.0), 0, 1, claimed_epsilon=0.5, runs=100_000, seed=0,
        ...           arithmetic="real")
        >>> r.verdict
        'violation'
    """

    name = "laplace"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0,
                 query: Callable[[Dataset], float] = count_query) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_scale(sensitivity, self.epsilon, "the Laplace mechanism")
        self.query = query
        self.true_epsilon = self.epsilon

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.query(dataset) + rng.laplace(0.0, self.sensitivity / self.epsilon, size=n)


MIN_GEOMETRIC_RATE = 1e-15
"""The smallest ε/Δ of the geometric mechanism: its noise, about Δ/ε, stays far below 2^63."""


def check_scale(sensitivity: Any, epsilon: float, what: str) -> float:
    """``sensitivity`` as a finite number > 0 whose noise scale ``sensitivity/epsilon`` is a finite
    float (a clear error otherwise)."""
    try:
        s = float(sensitivity)
    except (TypeError, ValueError):
        s = math.nan
    if isinstance(sensitivity, bool) or not math.isfinite(s) or s <= 0:
        raise InvalidInputError(f"{what}: sensitivity must be a finite number > 0, got "
                                f"{sensitivity!r}")
    if not math.isfinite(s / epsilon):
        raise InvalidInputError(f"{what}: the noise scale sensitivity/epsilon = {s:g}/{epsilon:g} "
                                f"is not a finite float")
    return s


class GeometricMechanism(Mechanism):
    """Two-sided geometric mechanism: ``f(D) + Z``, ``P[Z = k] ∝ α^{|k|}``, ``α = e^{-ε/Δ}``, for an
    integer query of sensitivity Δ; ε-DP (Ghosh, Roughgarden & Sundararajan 2009, Section 2).
    With ``clamp=(lo, hi)`` the output is clipped (post-processing) and the output distribution is
    finite, so the exact ε is available."""

    name = "geometric"

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1,
                 query: Callable[[Dataset], float] = count_query,
                 clamp: tuple[int, int] | None = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_int(sensitivity, "sensitivity", minimum=1)
        if self.epsilon / self.sensitivity < MIN_GEOMETRIC_RATE:
            raise InvalidInputError(
                f"the geometric mechanism needs epsilon/sensitivity >= {MIN_GEOMETRIC_RATE:g}, got "
                f"{self.epsilon:g}/{self.sensitivity}: its noise (mean about sensitivity/epsilon) "
                f"would overflow 64-bit integers")
        self.query = query
        self.clamp = None if clamp is None else (int(clamp[0]), int(clamp[1]))
        self.true_epsilon = self.epsilon

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        p = -math.expm1(-self.epsilon / self.sensitivity)
        z = rng.geometric(p, size=n) - rng.geometric(p, size=n)
        out = int(round(self.query(dataset))) + z
        if self.clamp is not None:
            out = np.clip(out, *self.clamp)
        return out.astype(np.int64)

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        if self.clamp is None:
            raise NotImplementedError("the unclamped geometric mechanism has infinite support")
        a = math.exp(-self.epsilon / self.sensitivity)
        f = int(round(self.query(dataset)))
        lo, hi = self.clamp

        def point(k: int) -> float:       # P[Z = k]
            return (1 - a) / (1 + a) * a ** abs(k)

        def below(k: int) -> float:       # P[Z <= k]
            return a ** (-k) / (1 + a) if k <= 0 else 1.0 - above(k + 1)

        def above(k: int) -> float:       # P[Z >= k]
            return a ** k / (1 + a) if k >= 0 else 1.0 - below(k - 1)

        dist: dict[Hashable, float] = {}
        for o in range(lo, hi + 1):
            if lo == hi:
                dist[o] = 1.0
            elif o == lo:
                dist[o] = below(o - f)
            elif o == hi:
                dist[o] = above(o - f)
            else:
                dist[o] = point(o - f)
        return dist


class RandomizedResponse(Mechanism):
    """k-ary randomized response on one record's label (Warner 1965; Kairouz, Oh & Viswanath 2014):
    report the true value v with probability ``e^ε/(e^ε + k − 1)``, each other value with
    ``1/(e^ε + k − 1)``.  Exactly ε-DP whenever v differs between the neighbours.  The value is
    the label of record ``index`` of a labelled dataset (or the dataset itself if it is an int)."""

    name = "randomized_response"

    def __init__(self, epsilon: float = 1.0, categories: int = 2, index: int = 0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.k = int(categories)
        if self.k < 2:
            raise InvalidInputError(f"categories must be >= 2, got {categories!r}")
        self.index = int(index)
        self.true_epsilon = self.epsilon

    def _value(self, dataset: Dataset) -> int:
        if isinstance(dataset, int | np.integer):
            v = int(dataset)
        else:
            try:
                v = int(dataset[self.index][1])
            except (TypeError, IndexError, ValueError):
                raise InvalidInputError("randomized response expects a tuple of (x, y) pairs or "
                                        "an int value") from None
        if not 0 <= v < self.k:
            raise InvalidInputError(f"value {v} outside the {self.k} categories 0..{self.k - 1}")
        return v

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        v = self._value(dataset)
        keep = rng.random(n) < self._p_true()
        other = rng.integers(0, self.k - 1, size=n)
        other = other + (other >= v)
        return np.where(keep, v, other).astype(np.int64)

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        v = self._value(dataset)
        p_true = self._p_true()
        p_other = (1.0 - p_true) / (self.k - 1)
        return {o: (p_true if o == v else p_other) for o in range(self.k)}

    def _p_true(self) -> float:
        """``e^ε/(e^ε + k − 1) = 1/(1 + (k − 1)e^{−ε})``: no overflow at any ε."""
        return 1.0 / (1.0 + (self.k - 1) * math.exp(-self.epsilon))
