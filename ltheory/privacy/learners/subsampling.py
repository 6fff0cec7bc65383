"""Privacy of sub-sampling *with replacement* (substitution neighbours): a sound (ε', δ') for
"draw m records uniformly with replacement from the N records of the input, run an (ε, δ)-DP
algorithm A on them".

Why this module exists.  Seed 001 (Alon, Beimel, Moran & Stemmer 2020) quotes Lemma 3.12 (Bun,
Nissim, Stemmer & Vadhan 2015) as "A' (draw m = N/9 with replacement, run A) is (ε, δ)-DP" and
uses it at every ε (Theorem 6.1, Lemma 7.2).  That fails for large ε: one record drawn K times
changes K records of the sub-sample, which costs Kε by group privacy, and K ~ Binomial(m, 1/N)
takes every value up to m.  Counterexample (tests, issue 14): A = a truncated geometric count at
ε = 10, N = 18, m = 2 — the exact ε of the sub-sampled algorithm inside PrivateAgnosticLearner
is 14.2 > 10.

The bound (derivation).  Let D, D' differ in record i, draw index sequences I ∈ [N]^m, and let
K(I) = #{j : I_j = i} ~ Bin(m, 1/N).  Fix an event E; write a_I = P[A(D_I) ∈ E],
a'_I = P[A(D'_I) ∈ E] (D_I = the sub-sample of D drawn by I), A0 = E[a_I | K = 0]
(= E[a'_I | K = 0], the samples agree when i is not drawn), and for k >= 1,
X_k = E[a_I | K = k] / A0 and Y_k = E[a'_I | K = k] / A0.  For I with K(I) = k:

* D_I and D'_I differ in k positions, so a'_I >= e^{−kε} a_I (group privacy, pure case);
* replacing the k draws of i by independent uniform draws from [N] ∖ {i} gives a sequence J with
  K(J) = 0 differing from D_I (and from D'_I) in k positions, so a_I <= e^{kε} a_J and
  a'_I >= e^{−kε} a_J; and J is uniform on {K = 0} when I is uniform on {K = k}.

Averaging: X_k <= e^{kε}, Y_k >= e^{−kε}·max(1, X_k).  Hence, with b_k = P[K = k],
P[M(D) ∈ E] / P[M(D') ∈ E] <= max over such (X, Y) of (b_0 + Σ b_k X_k) / (b_0 + Σ b_k Y_k).
This linear-fractional program is maximised at X_k ∈ {1, e^{kε}} (Y_k at its least value), and
e^{ε'} is the root R of

    Ψ(R) = Σ_k b_k · φ_R(k) = 0,      φ_R(k) = max(1 − R·e^{−kε}, e^{kε} − R),

(the largest ratio R with some choice of endpoints making (numerator − R·denominator) >= 0;
Ψ is decreasing in R).  By symmetry the same bound holds for D' against D.  It is below the
moment-generating-function bound E[e^{εK}] / E[e^{−εK}] (the relaxation without X_k <= e^{kε}Y_k)
and is the "group privacy with a binomial number of copies" analysis of Balle, Barthe & Gaboardi
2018 ("Privacy amplification by subsampling: tight analyses via couplings and divergences",
Section 5, sampling with replacement under substitution) carried out exactly for pure DP.

With δ > 0: group privacy gives δ_k = min(1, δ·(e^{kε} − 1)/(e^ε − 1)) for k substitutions, the
constraints become a_I <= e^{kε} a_J + δ_k, a'_I >= e^{−kε}(a_I − δ_k), a'_I >= e^{−kε}(a_J − δ_k),
and the same endpoint analysis at e^{ε'} = R* (where the coefficient of A0 is Ψ(R*) = 0) leaves

    δ' = Σ_{k>=1} b_k · δ_k · max(1, e^{ε' − kε}).

Any input size.  A learner that draws m = ⌊N/q⌋ records from N >= q has K ~ Bin(m, 1/N), and
Bernoulli(p) is stochastically below Poisson(−ln(1 − p)) (same mass at 0, and a Bernoulli is at
most 1), so K is stochastically below Poisson(λ), λ = −m·ln(1 − 1/N) <= −ln(1 − 1/q) (the
maximum is at N = q).  Both φ_R(k) and the δ term are increasing in k, so the bound computed with
K ~ Poisson(−ln(1 − 1/q)) holds for every N >= q (`with_replacement_any_size`).  For large
ε it is large (≈ λ(e^ε − 1)): that is the truth for large N, not slack — with m = N/9 draws the
number of copies of one record is ≈ Poisson(1/9), and a count mechanism at ε pays for the copies.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import gammaln

from ltheory.errors import InvalidInputError

__all__ = ["psi", "with_replacement", "with_replacement_any_size", "poisson_rate"]

LOG_CAP = 700.0      # exp() overflow guard; a capped term only makes Ψ more positive (sign-safe)


def _check(epsilon: float, delta: float) -> tuple[float, float]:
    try:
        e, d = float(epsilon), float(delta)
    except (TypeError, ValueError):
        raise InvalidInputError("epsilon and delta must be numbers") from None
    if not (math.isfinite(e) and e > 0):
        raise InvalidInputError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if not 0.0 <= d < 1.0:
        raise InvalidInputError(f"delta must be in [0, 1), got {delta!r}")
    return e, d


def psi(log_pmf: np.ndarray, epsilon: float, log_r: float, log_tail: float = -math.inf) -> float:
    """Ψ(R)/R for R = e^{log_r} (see
    [`ltheory.privacy.learners.subsampling`][ltheory.privacy.learners.subsampling]), for K with log
    P[K = k] = ``log_pmf[k]``;
    ``log_tail`` bounds log Σ_{k beyond the array} P[K = k]·e^{kε} (added as a positive term, so
    the result is an upper bound).  Only its sign is used; terms above e^{700} are capped, which
    keeps the sign right (the negative part of Ψ/R is at least −1)."""
    k = np.arange(len(log_pmf))
    up = np.minimum(log_pmf + k * epsilon - log_r, LOG_CAP)        # log b_k e^{kε}/R
    a = np.exp(up) - np.exp(log_pmf)                                # b_k (e^{kε}/R − 1)
    b = np.exp(np.minimum(log_pmf - log_r, LOG_CAP)) - np.exp(log_pmf - k * epsilon)
    total = float(np.sum(np.maximum(a, b)))
    if log_tail > -math.inf:
        total += math.exp(min(log_tail - log_r, LOG_CAP))
    return total


def _solve(log_pmf: np.ndarray, epsilon: float, log_tail: float) -> float:
    """ln R*: the root of Ψ, by bisection on ln R in [0, ln E[e^{εK}] − ln E[e^{−εK}]]."""
    k = np.arange(len(log_pmf))
    hi_up = np.logaddexp.reduce(log_pmf + k * epsilon)
    if log_tail > -math.inf:
        hi_up = float(np.logaddexp(hi_up, log_tail))
    lo_dn = float(np.logaddexp.reduce(log_pmf - k * epsilon))
    lo, hi = 0.0, float(hi_up - lo_dn) + 1e-9
    if psi(log_pmf, epsilon, lo, log_tail) <= 0:
        return 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if psi(log_pmf, epsilon, mid, log_tail) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return hi


def _delta(log_pmf: np.ndarray, epsilon: float, delta: float, eps_out: float,
           tail: Callable[[], float]) -> float:
    if delta == 0.0:
        return 0.0
    k = np.arange(1, len(log_pmf))
    log_dk = np.minimum(0.0, math.log(delta) + (k * epsilon + np.log1p(-np.exp(-k * epsilon)))
                        - (epsilon + math.log1p(-math.exp(-epsilon))))
    terms = log_pmf[1:] + log_dk + np.maximum(0.0, eps_out - k * epsilon)
    total = float(np.sum(np.exp(np.minimum(terms, LOG_CAP)))) + tail()
    return min(1.0, total)


def with_replacement(epsilon: float, delta: float, draws: int, population: int
                     ) -> tuple[float, float]:
    """(ε', δ') of "draw ``draws`` records with replacement from ``population`` records, run an
    (ε, δ)-DP algorithm on them" under substitution (see
    [`ltheory.privacy.learners.subsampling`][ltheory.privacy.learners.subsampling]), K ~ Bin(m,
    1/N)."""
    e, d = _check(epsilon, delta)
    for name, v in (("draws", draws), ("population", population)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
            raise InvalidInputError(f"{name} must be an integer >= 1, got {v!r}")
    m, N = int(draws), int(population)
    k = np.arange(m + 1)
    log_pmf = (gammaln(m + 1) - gammaln(k + 1) - gammaln(m - k + 1) + k * math.log(1.0 / N)
               + (m - k) * math.log1p(-1.0 / N)) if N > 1 else np.r_[np.full(m, -np.inf), 0.0]
    eps_out = _solve(log_pmf, e, -math.inf)
    return eps_out, _delta(log_pmf, e, d, eps_out, lambda: 0.0)


def poisson_rate(divisor: int) -> float:
    """λ = sup_{N >= q} −⌊N/q⌋·ln(1 − 1/N) = −ln(1 − 1/q) (attained at N = q; see the
    module `ltheory.privacy.learners.subsampling`): K ~ Bin(⌊N/q⌋, 1/N) is stochastically below
    Poisson(λ) for every N >= q."""
    if isinstance(divisor, bool) or not isinstance(divisor, int) or divisor < 2:
        raise InvalidInputError(f"divisor must be an integer >= 2, got {divisor!r}")
    return -math.log1p(-1.0 / divisor)


def with_replacement_any_size(epsilon: float, delta: float, divisor: int = 9
                              ) -> tuple[float, float]:
    """(ε', δ') valid for every population N >= ``divisor`` when ⌊N/divisor⌋ records are drawn
    with replacement (Lemma 3.12's m = N/9): the bound at K ~ Poisson(−ln(1 − 1/divisor)), truncated
    where the terms b_k e^{kε} decay geometrically (ratio <= 1/e) and the tail added as a
    geometric-series bound (see
    [`ltheory.privacy.learners.subsampling`][ltheory.privacy.learners.subsampling])."""
    e, d = _check(epsilon, delta)
    lam = poisson_rate(divisor)
    peak = lam * math.exp(min(e, 600.0))           # b_k e^{kε} peaks near k = λe^ε
    if peak > 5e6:
        # too many terms to sum: the moment-generating-function bound E[e^{εK}] / E[e^{−εK}]
        # (above R*, module docstring) in closed form for Poisson(λ); δ' is then vacuous
        eps_out = lam * (math.expm1(e) - math.expm1(-e))
        return eps_out, (0.0 if d == 0.0 else 1.0)
    K = int(math.ceil(math.e * peak)) + 64
    k = np.arange(K + 1)
    log_pmf = -lam + k * math.log(lam) - gammaln(k + 1)
    # beyond K every ratio b_{k+1}e^{(k+1)ε} / (b_k e^{kε}) = λe^ε/(k+1) <= 1/e: geometric tail
    log_tail = float(log_pmf[-1] + K * e + math.log(1.0 / (1.0 - 1.0 / math.e)))
    eps_out = _solve(log_pmf, e, log_tail)

    def tail() -> float:          # δ_k <= 1 and max(1, e^{ε'−kε}) <= e^{ε'}: <= e^{ε'} Σ b_k
        log_b_tail = float(log_pmf[-1]) + math.log(1.0 / (1.0 - lam / (K + 2)))
        return math.exp(min(log_b_tail + eps_out, LOG_CAP))

    return eps_out, _delta(log_pmf, e, d, eps_out, tail)
