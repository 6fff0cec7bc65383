"""Exact privacy of a pair from the mechanism's output distributions.

For distributions P0, P1 on a finite set, the hockey-stick divergence
``δ(ε) = max(Σ_o [P0(o) − e^ε P1(o)]_+, Σ_o [P1(o) − e^ε P0(o)]_+)`` is the smallest δ for which
the pair satisfies (ε, δ)-DP (Barthe & Olmedo 2013; Balle & Wang 2018, Theorem 2).  The exact ε
at a given δ is the smallest ε ≥ 0 with δ(ε) ≤ δ; for δ = 0 it is ``max_o |ln P0(o)/P1(o)|``,
and ∞ when the supports differ.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import chi2

from ltheory.privacy.auditing.outputs import MechanismError


def output_key(o: Any) -> Hashable:
    """An output as a hashable key (arrays as tuples of their entries, numpy scalars as Python
    numbers), the form of the keys of ``aligned``."""
    if isinstance(o, np.ndarray):
        return tuple(o.ravel().tolist())
    if isinstance(o, np.generic):
        return o.item()
    return o


class DistributionMismatchWarning(UserWarning):
    """A mechanism's ``output_distribution`` disagrees with the outputs it samples, so the exact
    ε reported beside the certified bound describes another mechanism than the one audited."""


@dataclass(frozen=True)
class Fit:
    """How well a sample agrees with an exact distribution: Pearson's chi-square statistic (cells
    of expected count < 5 pooled), its degrees of freedom and p-value, and the number of sampled
    outputs outside the distribution's support (any such output is a disagreement)."""

    statistic: float
    dof: int
    p_value: float
    outside: int

    def agrees(self, level: float) -> bool:
        return self.outside == 0 and self.p_value >= level


def goodness_of_fit(sample: Iterable, dist: Mapping) -> Fit:
    """Pearson's chi-square test (Pearson 1900) of ``sample`` (outputs) against ``dist``
    (``{output: probability}``); vector outputs are compared as tuples (``output_key``)."""
    probs: dict = {}
    for k, v in dist.items():
        probs[output_key(k)] = probs.get(output_key(k), 0.0) + float(v)
    rows = sample.tolist() if isinstance(sample, np.ndarray) else list(sample)
    counts = Counter(output_key(tuple(o) if isinstance(o, list) else o) for o in rows)
    outside = sum(c for o, c in counts.items() if o not in probs)
    n = len(rows)
    keys = list(probs)
    obs = np.array([counts.get(k, 0) for k in keys], dtype=float)
    exp = np.array([probs[k] for k in keys]) * n
    stat, dof = _pooled_chi_square(obs, exp)
    p = float(chi2.sf(stat, dof)) if dof >= 1 else 1.0
    return Fit(stat, dof, p, int(outside))


def _pooled_chi_square(obs: np.ndarray, exp: np.ndarray) -> tuple[float, int]:
    """Pearson's statistic with cells of expected count < 5 pooled into one (merged into the
    smallest large cell when the pool itself stays below 5)."""
    order = np.argsort(-exp)
    o, e = obs[order], exp[order]
    big = e >= 5
    cells_o, cells_e = list(o[big]), list(e[big])
    if (~big).any():
        cells_o.append(o[~big].sum())
        cells_e.append(e[~big].sum())
    if len(cells_e) > 1 and cells_e[-1] < 5:
        last_o, last_e = cells_o.pop(), cells_e.pop()
        cells_o[-1] += last_o
        cells_e[-1] += last_e
    oe, ee = np.array(cells_o), np.array(cells_e)
    keep = ee > 0
    return float(np.sum((oe[keep] - ee[keep]) ** 2 / ee[keep])), int(keep.sum()) - 1


def aligned(p0: Mapping, p1: Mapping) -> tuple[list, np.ndarray, np.ndarray]:
    """The union of supports and the two probability vectors on it (validated)."""
    d0 = {output_key(k): float(v) for k, v in p0.items()}
    d1 = {output_key(k): float(v) for k, v in p1.items()}
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
    """The hockey-stick divergence δ(ε) in both directions (see
    [`ltheory.privacy.auditing.exact`][ltheory.privacy.auditing.exact])."""
    if epsilon >= 700:
        return max(float(np.sum(p0[p1 == 0])), float(np.sum(p1[p0 == 0])))
    e = math.exp(epsilon)
    return float(max(np.sum(np.clip(p0 - e * p1, 0, None)),
                     np.sum(np.clip(p1 - e * p0, 0, None))))


def _epsilon_one_way(a: np.ndarray, b: np.ndarray, delta: float) -> float:
    """The smallest ε >= 0 with Σ_o [a_o − e^ε b_o]_+ <= δ, in closed form: the sum is
    continuous and decreasing in ε, and between consecutive log-ratios r_(k+1) < ε < r_(k) of the
    outputs sorted by r = ln(a/b) it is m0 + A_k − e^ε B_k (A_k, B_k: the masses of the top k,
    m0: the mass of a where b = 0)."""
    m0 = float(np.sum(a[b == 0]))
    both = (a > 0) & (b > 0)
    if not both.any():
        return 0.0
    r = np.log(a[both]) - np.log(b[both])
    order = np.argsort(-r, kind="stable")
    r, aa, bb = r[order], a[both][order], b[both][order]
    A = np.concatenate([[0.0], np.cumsum(aa)])           # A[k] = mass of the top k under a
    B = np.concatenate([[0.0], np.cumsum(bb)])
    # δ at the breakpoints: D[j] = δ(r_j) = m0 + A[j] − e^{r_j} B[j]  (terms strictly above r_j)
    D = m0 + A[:-1] - np.exp(np.minimum(r, 700.0)) * B[:-1]
    k = int(np.searchsorted(D, delta, side="right"))     # D is non-decreasing: D[:k] <= δ
    if k == 0:                                            # δ(r_1) = m0 > δ
        return math.inf
    num = m0 + A[k] - delta
    if num <= 0 or B[k] <= 0:
        return 0.0
    return max(0.0, math.log(num) - math.log(B[k]))


def exact_epsilon(p0: np.ndarray, p1: np.ndarray, delta: float = 0.0, tol: float = 1e-12) -> float:
    """The smallest ε ≥ 0 with δ(ε) ≤ δ (∞ if none)."""
    mism = max(float(np.sum(p0[p1 == 0])), float(np.sum(p1[p0 == 0])))
    if mism > delta + tol:
        return math.inf
    both = (p0 > 0) & (p1 > 0)
    if not both.any():
        return 0.0
    if delta <= 0:
        # difference of logs: the ratio itself can overflow when p1 is subnormal
        return float(np.max(np.abs(np.log(p0[both]) - np.log(p1[both]))))
    d = delta + tol
    return max(_epsilon_one_way(p0, p1, d), _epsilon_one_way(p1, p0, d))
