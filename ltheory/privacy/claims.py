"""Privacy claims as objects: each gives its privacy profile δ(ε).

A mechanism M is (ε, δ)-DP at a neighbouring pair (D, D') when the hockey-stick divergence
``H_{e^ε}(M(D) ‖ M(D')) = sup_E P[M(D) ∈ E] − e^ε P[M(D') ∈ E]`` is at most δ in both
directions.  The *privacy profile* of a claim is the function ``ε ↦ δ(ε)`` it allows (Balle,
Barthe & Gaboardi 2018, "Privacy amplification by subsampling", Definition 3): a claim holds iff
the mechanism's hockey-stick divergence lies below the profile at every ε ≥ 0.  Every claim
here is a :class:`PrivacyClaim` with

* ``delta_at(epsilon)`` — the profile, vectorised over an array of ε ≥ 0, non-increasing, in [0, 1];
* ``epsilon_at(delta)`` — the smallest ε with ``delta_at(ε) ≤ delta`` (the (ε, δ) a claim
  is usually quoted at);
* ``to_json()`` — a JSON-able description.

:func:`as_claim` turns what a user hands the auditor into a claim: a claim object, a plain
number ε (pure DP) or a pair ``(ε, δ)``.

>>> c = ApproxDP(1.0, 1e-5)
>>> float(c.delta_at(1.0)), float(c.delta_at(2.0))
(1e-05, 1e-05)
>>> round(float(c.delta_at(0.0)), 4)          # implied at ε' = 0: δ + (1 − δ)(e − 1)/(e + 1)
0.4621
>>> as_claim((1.0, 1e-5)) == c
True
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq

from ltheory.errors import InvalidInputError
from ltheory.validation import check_delta, check_epsilon

__all__ = ["ApproxDP", "PrivacyClaim", "PureDP", "as_claim"]


def _epsilons(epsilon: Any) -> np.ndarray:
    """ε values as a float array, each ≥ 0 (a clear error otherwise)."""
    try:
        e = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(f"epsilon must be a number or an array of numbers >= 0, "
                                f"got {epsilon!r}") from None
    if np.any(np.isnan(e)) or np.any(e < 0):
        raise InvalidInputError(f"epsilon must be >= 0 (the profile is defined on ε >= 0), "
                                f"got {epsilon!r}")
    return e


class PrivacyClaim(ABC):
    """A privacy claim, read through its privacy profile δ(ε) (module docstring)."""

    @abstractmethod
    def delta_at(self, epsilon: Any) -> np.ndarray:
        """The profile δ(ε) at each ε ≥ 0 (an array of the shape of ``epsilon``)."""

    def epsilon_at(self, delta: float) -> float:
        """The smallest ε ≥ 0 with ``delta_at(ε) ≤ delta`` (``inf`` if none): found by bisection
        on the non-increasing profile."""
        d = check_delta(delta)
        if float(self.delta_at(0.0)) <= d:
            return 0.0
        hi = 1.0
        while float(self.delta_at(hi)) > d:
            hi *= 2.0
            if hi > 1e4:
                return math.inf
        return float(brentq(lambda e: float(self.delta_at(e)) - d, 0.0, hi, xtol=1e-12))

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """A JSON-able description ``{"kind": ..., parameters...}``."""


@dataclass(frozen=True)
class ApproxDP(PrivacyClaim):
    """(ε, δ)-differential privacy (Dwork, McSherry, Nissim & Smith 2006; Dwork, Kenthapadi,
    McSherry, Mironov & Naor 2006).

    Its profile is the largest hockey-stick divergence of any (ε, δ)-DP pair: δ for ε' ≥ ε and
    ``δ + (1 − δ)(e^ε − e^ε')/(1 + e^ε)`` for ε' < ε, attained by the four-point pair of
    Kairouz, Oh & Viswanath 2015 (Theorem 2.4: every (ε, δ)-DP mechanism is a post-processing
    of it)."""

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, "epsilon"))
        object.__setattr__(self, "delta", check_delta(self.delta, "delta"))

    def delta_at(self, epsilon: Any) -> np.ndarray:
        e = _epsilons(epsilon)
        top = math.exp(self.epsilon)
        below = self.delta + (1 - self.delta) * (top - np.exp(np.minimum(e, self.epsilon))
                                                 ) / (1 + top)
        return np.where(e >= self.epsilon, self.delta, below)

    def epsilon_at(self, delta: float) -> float:
        d = check_delta(delta)
        if d >= self.delta:
            # invert the part below ε: e^ε' = e^ε − (d − δ)(1 + e^ε)/(1 − δ)
            top = math.exp(self.epsilon)
            x = top - (d - self.delta) * (1 + top) / (1 - self.delta)
            return max(0.0, math.log(x)) if x > 0 else 0.0
        return math.inf

    def to_json(self) -> dict[str, Any]:
        return {"kind": "approx_dp", "epsilon": self.epsilon, "delta": self.delta}

    def __str__(self) -> str:
        return f"({self.epsilon:g}, {self.delta:g})-DP"


class PureDP(ApproxDP):
    """ε-differential privacy: :class:`ApproxDP` with δ = 0."""

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon, 0.0)

    def to_json(self) -> dict[str, Any]:
        return {"kind": "pure_dp", "epsilon": self.epsilon}

    def __str__(self) -> str:
        return f"{self.epsilon:g}-DP"


def as_claim(claim: Any) -> PrivacyClaim:
    """A :class:`PrivacyClaim` from a claim object, a number ε (pure DP) or a pair (ε, δ)."""
    if isinstance(claim, PrivacyClaim):
        return claim
    if isinstance(claim, tuple | list) and len(claim) == 2:
        eps, dl = claim
        return PureDP(eps) if check_delta(dl, "delta") == 0 else ApproxDP(eps, dl)
    if isinstance(claim, int | float | np.floating | np.integer) and not isinstance(claim, bool):
        return PureDP(claim)
    raise InvalidInputError(
        f"a privacy claim must be a PrivacyClaim (PureDP, ApproxDP, ZCDP, RDP, GDP, "
        f"ProfileClaim), a number epsilon or a pair (epsilon, delta), got {claim!r}")
