"""Exact privacy of a pair from the mechanism's output distributions.

For distributions P0, P1 on a finite set, the hockey-stick divergence
``δ(ε) = max(Σ_o [P0(o) − e^ε P1(o)]_+, Σ_o [P1(o) − e^ε P0(o)]_+)`` is the smallest δ for which
the pair satisfies (ε, δ)-DP (Barthe & Olmedo 2013; Balle & Wang 2018, Theorem 2).  The exact ε
at a given δ is the smallest ε ≥ 0 with δ(ε) ≤ δ; for δ = 0 it is ``max_o |ln P0(o)/P1(o)|``,
and ∞ when the supports differ.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from ltheory.privacy.auditing.outputs import MechanismError


def _key(o: Any) -> Hashable:
    if isinstance(o, np.ndarray):
        return tuple(o.ravel().tolist())
    if isinstance(o, np.generic):
        return o.item()
    return o


def aligned(p0: Mapping, p1: Mapping) -> tuple[list, np.ndarray, np.ndarray]:
    """The union of supports and the two probability vectors on it (validated)."""
    d0 = {_key(k): float(v) for k, v in p0.items()}
    d1 = {_key(k): float(v) for k, v in p1.items()}
    for name, d in (("d0", d0), ("d1", d1)):
        vals = np.array(list(d.values()), dtype=float)
        if vals.size == 0 or np.any(~np.isfinite(vals)) or np.any(vals < -1e-12) \
                or abs(vals.sum() - 1.0) > 1e-6:
            raise MechanismError(f"output_distribution({name}) is not a probability "
                                 f"distribution (total {vals.sum():.6g}); expected "
                                 "{output: probability} summing to 1")
    keys = list(dict.fromkeys(list(d0) + list(d1)))
    a = np.clip(np.array([d0.get(k, 0.0) for k in keys]), 0, None)
    b = np.clip(np.array([d1.get(k, 0.0) for k in keys]), 0, None)
    return keys, a, b


def delta_of_epsilon(p0: np.ndarray, p1: np.ndarray, epsilon: float) -> float:
    """The hockey-stick divergence δ(ε) in both directions (module docstring)."""
    if epsilon >= 700:
        return max(float(np.sum(p0[p1 == 0])), float(np.sum(p1[p0 == 0])))
    e = math.exp(epsilon)
    return float(max(np.sum(np.clip(p0 - e * p1, 0, None)),
                     np.sum(np.clip(p1 - e * p0, 0, None))))


def exact_epsilon(p0: np.ndarray, p1: np.ndarray, delta: float = 0.0, tol: float = 1e-12) -> float:
    """The smallest ε ≥ 0 with δ(ε) ≤ δ (∞ if none)."""
    mism = max(float(np.sum(p0[p1 == 0])), float(np.sum(p1[p0 == 0])))
    if mism > delta + tol:
        return math.inf
    both = (p0 > 0) & (p1 > 0)
    if not both.any():
        return 0.0
    # difference of logs: the ratio itself can overflow when p1 is subnormal
    top = float(np.max(np.abs(np.log(p0[both]) - np.log(p1[both]))))
    if delta <= 0:
        return top
    if delta_of_epsilon(p0, p1, 0.0) <= delta:
        return 0.0
    lo, hi = 0.0, top
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if delta_of_epsilon(p0, p1, mid) <= delta:
            hi = mid
        else:
            lo = mid
        if hi - lo < tol:
            break
    return hi
