"""Confidence bounds for the auditor: Clopper–Pearson intervals and the epsilon lower bound.

For an event E and neighbouring datasets d0, d1, an (ε, δ)-DP mechanism M satisfies
``P[M(d0) ∈ E] ≤ e^ε · P[M(d1) ∈ E] + δ`` (Dwork & Roth 2014, Definition 2.4), hence
``ε ≥ ln((p0 − δ) / p1)``.  With a lower confidence bound on p0 and an upper one on p1 that hold
jointly with probability ≥ 1 − α, ``ε_lb = ln((p0_lower − δ) / p1_upper)`` is a lower bound on ε
that is wrong with probability at most α (the standard auditing bound; Ding et al. 2018 "Detecting
Violations of Differential Privacy", Bichsel et al. 2021 "DP-Sniper", Section 5).

Clopper–Pearson (1934) exact binomial bounds come from beta quantiles (``scipy.stats.beta.ppf``).
No floor is put on p1: zero successes give ``p1_upper = 1 − (α')^{1/n}``, so an output impossible
under d1 pushes the bound as high as the number of runs allows.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import beta

__all__ = [
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "max_certifiable_epsilon",
    "min_runs_to_certify",
    "poisson_epsilon_lower_bound",
]


def clopper_pearson_lower(k: np.ndarray | float, n: np.ndarray | float, a: float) -> np.ndarray:
    """One-sided lower Clopper–Pearson bound: P[p < lower] ≤ a.  ``k`` may be fractional
    (used for projected counts during event selection); lower = 0 when k = 0."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = beta.ppf(a, np.maximum(k, 1e-300), np.maximum(n - k + 1.0, 1e-300))
    return np.where(k <= 0, 0.0, np.nan_to_num(out, nan=0.0))


def clopper_pearson_upper(k: np.ndarray | float, n: np.ndarray | float, a: float) -> np.ndarray:
    """One-sided upper Clopper–Pearson bound: P[p > upper] ≤ a; upper = 1 when k = n."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        # isf(a) rather than ppf(1 - a): 1 - a rounds to 1.0 for a < 1e-16
        out = beta.isf(a, np.maximum(k + 1.0, 1e-300), np.maximum(n - k, 1e-300))
    return np.where(k >= n, 1.0, np.nan_to_num(out, nan=1.0))


def epsilon_lower_bound(k0: np.ndarray | float, n0: np.ndarray | float,
                        k1: np.ndarray | float, n1: np.ndarray | float,
                        a_each: float, delta: float = 0.0) -> np.ndarray:
    """``ln((p0_lower − δ) / p1_upper)`` from counts k0/n0 (under d0) and k1/n1 (under d1), each
    one-sided bound at level ``a_each`` (so the pair holds with prob. ≥ 1 − 2·a_each).
    Returns −inf where p0_lower ≤ δ (nothing certified)."""
    lo = clopper_pearson_lower(k0, n0, a_each) - delta
    up = clopper_pearson_upper(k1, n1, a_each)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.log(np.where(lo > 0, lo, np.nan) / up)
    return np.where(lo > 0, val, -np.inf)


def max_certifiable_epsilon(n: int, a_each: float, delta: float = 0.0) -> float:
    """The largest bound ``n`` certification runs per dataset could ever give (a perfectly
    separating event: all n runs in E under d0, none under d1)."""
    return float(epsilon_lower_bound(n, n, 0, n, a_each, delta))


def min_runs_to_certify(target: float, a_each: float, delta: float = 0.0,
                        limit: int = 1 << 62) -> int:
    """Smallest per-dataset certification size n whose best possible bound exceeds ``target``."""
    lo, hi = 1, 1
    while max_certifiable_epsilon(hi, a_each, delta) <= target:
        hi *= 2
        if hi > limit:
            return limit
    while lo < hi:
        mid = (lo + hi) // 2
        if max_certifiable_epsilon(mid, a_each, delta) > target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def log_ratio(p0: float, p1: float, delta: float = 0.0) -> float:
    """``ln((p0 − δ)/p1)`` with the conventions ln(x/0) = +inf and −inf when p0 ≤ δ."""
    num = p0 - delta
    if num <= 0:
        return -math.inf
    if p1 <= 0:
        return math.inf
    return math.log(num / p1)


def poisson_epsilon_lower_bound(ka: np.ndarray | float, kb: np.ndarray | float,
                                a: float) -> np.ndarray:
    """``ε_lb = logit(π_lower)`` from Poisson counts ``ka ~ Poisson(λ·p_a)``,
    ``kb ~ Poisson(λ·p_b)`` (the same λ): given m = ka + kb, ka ~ Bin(m, π) with
    π = p_a/(p_a + p_b) exactly, so the one-sided Clopper–Pearson bound π_lower at level ``a``
    gives ``ln(p_a/p_b) ≥ ln(π_lower/(1 − π_lower))`` with probability ≥ 1 − a (the conditional
    test for the ratio of two Poisson means; Przyborowski & Wileński 1940, Lehmann & Romano,
    Testing Statistical Hypotheses, Section 4.5).  Counts are Poisson exactly when the number of
    runs on each dataset is itself drawn from Poisson(λ) (``audit(certify="poisson")``).
    One test instead of two Bonferroni-corrected bounds: for events of probability ≲ 0.5 this
    certifies more from the same runs.  Returns −inf where nothing is certified (π_lower ≤ ½
    gives a bound ≤ 0, returned as is)."""
    ka = np.asarray(ka, dtype=float)
    kb = np.asarray(kb, dtype=float)
    m = ka + kb
    lo = clopper_pearson_lower(ka, np.maximum(m, 1e-300), a)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.log(lo) - np.log1p(-lo)
    return np.where((ka > 0) & (lo > 0), np.where(lo < 1, val, np.inf), -np.inf)
