"""One-run audits: ε lower bounds from the guesses on m canaries of **one** training run.

The model (Steinke, Nasr & Jagielski 2023, "Privacy Auditing with One (1) Training Run",
Section 3): m canaries, each included independently with probability 1/2 — the inclusions
``S ∈ {−1, +1}^m`` are uniform — one run of the mechanism ``Y = M(S)``, and a guesser that
reads ``Y`` (here: the canaries' scores, and nothing of ``S``) and guesses "in" (+1) on some
canaries, "out" (−1) on others, and abstains on the rest.  ``M`` is (ε, δ)-DP *in each
canary*: changing one ``S_i`` with the others fixed changes the law of ``Y`` by at most
(ε, δ).  With ``c`` guesses (fixed in advance), the number ``W`` of correct guesses is small:

* **Steinke et al. (2023), their main theorem (δ = 0: ``W`` is stochastically dominated by
  ``Binomial(c, q)``) and its extension to δ > 0**: with
  ``q = e^ε/(1 + e^ε)`` and ``B ~ Binomial(c, q)``,
  ``P[W ≥ v] ≤ P[B ≥ v] + 2mδ · max_{1≤i≤v} P[v − i ≤ B < v] / i``
  ([`steinke_p_value`][ltheory.privacy.auditing.one_run.steinke_p_value]);
* **Mahloujifar, Melis & Chaudhuri (2024), "Auditing f-Differential Privacy in One Run"
  (arXiv:2410.22235), the one-run guessing-game theorem and its recursive test**: for a
  mechanism f-DP in each canary, with ``g(t) = inf{x : 1 − f(x) ≥ t}`` (the smallest type I
  error of a test of power t), the observation of v correct among c guesses is impossible at
  level α when the recursion of [`fdp_rejects`][ltheory.privacy.auditing.one_run.fdp_rejects] ends
  above ``c/m``.  It holds for any
  trade-off function f;
  [`epsdelta_inverse_power`][ltheory.privacy.auditing.one_run.epsdelta_inverse_power] is the (ε,
  δ)-DP one,
  ``f_{ε,δ}(x) = max(0, 1 − δ − e^ε x, e^{−ε}(1 − δ − x))`` (Kairouz, Oh & Viswanath 2015;
  Dong, Roth & Su 2022, Proposition 2.5), so the bound refutes (ε, δ)-DP itself;
  [`gdp_inverse_power`][ltheory.privacy.auditing.one_run.gdp_inverse_power] is the μ-GDP one, ``g(t)
  = Φ(Φ⁻¹(t) − μ)``, which refutes μ-GDP
  only — an ε read off the refuted Gaussian is *not* an (ε, δ) lower bound unless the
  mechanism's trade-off curve is assumed Gaussian (what ``jax_privacy``'s
  ``epsilon_one_run_fdp`` reports).

**The choice of the guesses** (how many to guess): the guesser guesses "in" on the ``k``
highest scores and "out" on the ``k`` lowest (``c = 2k``; or only the ``k`` highest,
``c = k``), for every ``k`` of a grid fixed by ``m`` alone
([`k_grid`][ltheory.privacy.auditing.one_run.k_grid], geometric), and the
bound is the largest over the grid, each test at level α/|grid| (Bonferroni).  Each guess
vector is a function of the scores with a number of guesses fixed in advance, so each test is
the theorem's, and all of them hold together with probability ≥ 1 − α: choosing the best k
after seeing the outcome costs only the Bonferroni factor (no split of the canaries, no
assumption that the theorems allow a data-dependent number of guesses).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import ndtr, ndtri
from scipy.stats import binom, norm

__all__ = ["ANALYSES", "GRID_GROWTH", "best_over_grid", "epsdelta_inverse_power",
           "fdp_rejects", "gdp_epsilon", "gdp_inverse_power", "k_grid", "largest_rejected",
           "steinke_p_value"]

#: the analyses of one guess count: Steinke et al.'s tail bound, and Mahloujifar et al.'s
#: recursion with the (ε, δ) trade-off curve (both refute (ε, δ)-DP); "gdp" (Mahloujifar et
#: al.'s recursion with the Gaussian curve) refutes μ-GDP only: the ε of the refuted
#: Gaussian is an (ε, δ) lower bound only for mechanisms whose trade-off curve is Gaussian.
ANALYSES = ("fdp", "steinke", "gdp")
#: consecutive guess counts of [`k_grid`][ltheory.privacy.auditing.one_run.k_grid] are at most this
#: factor apart.  The bound
#: changes slowly with k near its best and the Bonferroni factor is paid in full at every k,
#: so a coarse grid wins: on Gaussian scores (μ ∈ {1, 2, 4}, 10^3–10^4 canaries per side, 6
#: seeds) the f-DP bound rose from growth 1.05 (|grid| ≈ 110) to 2 (|grid| ≈ 10–14), e.g.
#: μ = 1, 10^3: 1.61 → 1.73, μ = 4: 5.17 → 5.26, and Steinke's much more (1.08 → 1.70).
GRID_GROWTH = 2.0
#: the largest ε (and μ) searched
EPS_MAX = 64.0


def k_grid(m: int, two_sided: bool = True, growth: float | None = None) -> np.ndarray:
    """The guess counts k tried on m canaries: 1, 2, … consecutive ones at most ``growth``
    apart, up to m/2 (top and bottom k: 2k ≤ m) or m (top k only).  A function of m alone.

    Examples:
        >>> k_grid(40, growth=1.5).tolist()
        [1, 2, 3, 4, 6, 9, 13, 19]
        >>> k_grid(2000).tolist()
        [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    """
    top = m // 2 if two_sided else m
    growth = GRID_GROWTH if growth is None else growth
    out, k = [], 1
    while k <= top:
        out.append(k)
        k = max(k + 1, int(k * growth))
    return np.asarray(out, dtype=np.int64)


def steinke_p_value(m: int, c: int, v: int, eps: float, delta: float) -> float:
    """Steinke, Nasr & Jagielski (2023), main theorem and its δ > 0 extension: an upper bound on the
    probability of at least ``v`` correct of ``c`` guesses on ``m`` canaries under an (ε, δ)-DP
    mechanism (see [`ltheory.privacy.auditing.one_run`][ltheory.privacy.auditing.one_run])."""
    if v <= 0:
        return 1.0
    q = 1.0 / (1.0 + math.exp(-eps)) if eps < 700 else 1.0
    tail = float(binom.sf(v - 1, c, q))
    if delta == 0:
        return tail
    i = np.arange(1, v + 1)
    between = binom.sf(v - i - 1, c, q) - tail       # P[v − i ≤ B < v]
    return min(1.0, tail + float(np.max(between / i)) * 2 * m * delta)


def epsdelta_inverse_power(eps: float, delta: float) -> Callable[[float], float]:
    """``g(t)``: the smallest false-positive rate of a test of power ``t`` against an
    (ε, δ)-DP pair, ``max(0, (t − δ)e^{−ε}, 1 − δ − e^ε(1 − t))`` (the inverse of
    ``t = 1 − f_{ε,δ}(x)``)."""
    a, b = math.exp(-min(eps, 700.0)), math.exp(min(eps, 700.0))

    def g(t: float) -> float:
        return max(0.0, (t - delta) * a, 1.0 - delta - b * (1.0 - t))
    return g


def gdp_inverse_power(mu: float) -> Callable[[float], float]:
    """``g(t) = Φ(Φ⁻¹(t) − μ)``: the smallest false-positive rate of a test of power t
    against the μ-GDP pair N(0, 1) / N(μ, 1)."""
    def g(t: float) -> float:
        return float(ndtr(ndtri(min(max(t, 0.0), 1.0)) - mu))
    return g


def fdp_rejects(m: int, c: int, v: int, alpha: float, g: Callable[[float], float]) -> bool:
    """Whether ``v`` correct of ``c`` guesses on ``m`` canaries refute, at level ``alpha``,
    a mechanism f-DP in each canary, with ``g`` its inverse power function (see
    above; Mahloujifar, Melis & Chaudhuri 2024).

    Their recursion, in probability mass per canary: start from ``r = α·v/m`` (the mass of
    the correct guesses needed at level α) and ``h = α·(c − v)/m`` (of the wrong ones); for
    ``i = v − 1, …, 0`` raise ``h`` to ``g(r)`` (the wrong-guess mass f-DP forces beside
    ``r`` correct) and ``r`` by ``i/(c − i)`` times the increase; the outcome is impossible
    when the masses exceed the guessing budget, ``r + h > c/m``."""
    if v <= 0 or c <= 0:
        return False
    if v > c:
        raise ValueError(f"{v} correct of {c} guesses")
    r = alpha * v / m
    h = alpha * (c - v) / m
    for i in range(v - 1, -1, -1):
        h_new = max(h, g(r))
        if h_new == h:
            break                       # neither r nor h changes any more
        r = min(r + (i / (c - i)) * (h_new - h), 1.0)
        h = h_new
    return r + h > c / m


def largest_rejected(rejects: Callable[[float], bool], start: float = 0.0,
                     top: float = EPS_MAX, tol: float = 1e-4) -> float:
    """The largest parameter ≥ ``start`` rejected by the monotone predicate ``rejects``
    (rejected at x implies rejected below x), by doubling and bisection; ``start`` when
    even ``start`` (or a hair above 0) is not rejected."""
    lo = max(start, 1e-9)
    if not rejects(lo):
        return start
    hi = max(1.0, 2 * lo)
    while hi < top and rejects(hi):
        lo, hi = hi, 2 * hi
    if hi >= top and rejects(top):
        return top
    while hi - lo > tol * max(1.0, lo):
        mid = 0.5 * (lo + hi)
        if rejects(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _eps_for(analysis: str, m: int, c: int, v: int, level: float, delta: float,
             start: float) -> float:
    if analysis == "steinke":
        return largest_rejected(lambda e: steinke_p_value(m, c, v, e, delta) <= level, start)
    if analysis == "fdp":
        return largest_rejected(
            lambda e: fdp_rejects(m, c, v, level, epsdelta_inverse_power(e, delta)), start)
    if analysis == "gdp":
        return largest_rejected(lambda mu: fdp_rejects(m, c, v, level, gdp_inverse_power(mu)),
                                start, top=40.0)
    raise ValueError(f"unknown one-run analysis {analysis!r}")


def best_over_grid(analysis: str, m: int, counts: list[tuple[int, int, int]], level: float,
                   delta: float) -> tuple[float, int]:
    """The largest parameter (ε; μ for ``"gdp"``) refuted at ``level`` by one of ``counts``
    — ``(k, guesses c, correct v)`` per k of the grid — and the index of its k (−1: none).
    Each count is tested at ``level`` (the caller has divided α by the grid's size).  Counts
    that cannot beat the best so far are skipped with one test."""
    best, where = 0.0, -1
    order = sorted(range(len(counts)), key=lambda j: -(counts[j][2] + 1) / (counts[j][1] + 2))
    for j in order:
        _, c, v = counts[j]
        if v <= c / 2:
            continue                    # no better than chance: refutes nothing
        e = _eps_for(analysis, m, c, v, level, delta, best)
        if e > best:
            best, where = e, j
    return best, where


def gdp_epsilon(mu: float, delta: float) -> float:
    """The ε at which the μ-GDP curve has δ: the solution of
    ``Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) = δ`` (Dong, Roth & Su 2022, Corollary 2.13); 0
    when δ is already above the curve at ε = 0, ∞ at δ = 0 (μ > 0)."""
    if mu <= 0:
        return 0.0
    if delta <= 0:
        return math.inf

    def d(e: float) -> float:
        return float(norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2))
    if d(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while d(hi) > delta:
        lo, hi = hi, 2 * hi
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if d(mid) > delta:
            lo = mid
        else:
            hi = mid
    return lo
