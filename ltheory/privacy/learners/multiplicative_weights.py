"""Private multiplicative weights for online learning with experts (seed 004 §2; Dwork & Roth
2014, Chapter 11; Arora, Hazan & Kale 2012, Theorem 2.4).

Algorithm MW (seed 004 §2).  K experts, T rounds, learning rate α.  Start with y uniform on
{1..K}; in round t sample expert i_t ~ y, observe the rewards r_t(1..K) ∈ [0, 1], multiply y(i)
by e^{α r_t(i)} and renormalise.  Hence i_t is drawn with probability

    P[i_t = i] = exp(α·U_t(i)) / Z_t,   U_t(i) = Σ_{t' < t} r_{t'}(i),

an exponential mechanism with the 1-Lipschitz utility U_t (seed 004 §2).

Privacy, as seed 004 states it, with respect to the database (r_1, ..., r_T) (neighbours: one
row r_t replaced by another vector in [0,1]^K; output: the whole sequence (i_1, ..., i_T)):

1. *pure*: each i_t is 2α-DP, and as a product of T outputs MW is **2αT-differentially
   private**;
2. *approximate*: "by Theorem 4 from Lecture 4", MW is **(12Tα², e^{−Tα})-differentially
   private** (and Theorem 3: for ε ≤ 1, (ε, e^{−Ω(√(Tε))})-DP with ε = 12Tα²).

Both are exposed: ``privacy_claim`` is the one chosen by ``claim=`` ("pure" by default) and
``claims`` lists both.  Utility (seed 004, Theorem 2, needs 0 < α ≤ 1.79): E[Σ r_t(i_t)] ≥
Σ r_t(i) − αT − ln K/α for every expert i.

Ranges: α > 0 (InvalidInputError otherwise); α > 1.79 runs with a ``UserWarning`` (Theorem 2's
regret bound does not hold there; the privacy claims do not depend on it); rewards must lie in
[0, 1] (InvalidInputError: the sensitivity argument needs it); the database must have exactly T
rows of K rewards.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Hashable
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.learners.base import LearnerAuditCase, PrivacyClaim, PrivateLearner

__all__ = ["AUDIT_CASES", "PrivateMultiplicativeWeights", "exact_delta_two_experts"]

SOURCE_PURE = ("seed 004 §2 (lecture notes on Dwork & Roth 2014 ch. 11): each i_t is 2α-DP "
               "(exponential mechanism), MW is 2αT-DP as a product of T outputs")
SOURCE_APPROX = ("seed 004 §2: 'by Theorem 4 from Lecture 4, MW is (12Tα², e^{−Tα})-"
                 "differentially private' (used for Theorem 3)")
MAX_EXACT = 1 << 14


class PrivateMultiplicativeWeights(PrivateLearner):
    """MW over ``experts`` experts for ``rounds`` rounds at learning rate ``alpha`` (see
    the module `ltheory.privacy.learners.multiplicative_weights`).  A dataset is the reward
    database: ``rounds`` rows of ``experts`` numbers in [0, 1].  ``fit`` returns the chosen experts
    (i_1, ..., i_T) as a tuple of indices 0..K−1; ``output_distribution`` is exact (the i_t are
    independent given the database) for K^T ≤ 16384 outcomes.

    Worst case (measured, ``benchmarks/results/learners_worst_case.md``).  Pure claim 2αT at
    α = 0.25, T = 3, K = 3: the exact maximum over all pairs of reward rows in {0, 1}^3 is
    0.69, 0.46 of 1.5.  The claim counts T draws, but i_1 is drawn from the uniform y_1 and the
    last row r_T is never used, so a changed row moves at most T − 1 draws (≤ 2α(T − 1) = 1.0);
    and a draw loses the full 2α only if the changed row raises the chosen expert's utility
    while lowering every other's, which with rewards in [0, 1] and K = 3 experts leaves the
    normaliser partly unchanged.  Approximate claim (12Tα², e^{−Tα}) = (2.16, 0.30) at
    α = 0.15, T = 8, K = 2: at δ = 0.30 every pair found has ε = 0 (neighbours' output
    distributions are within total variation δ), and the worst pure ε found is 1.28."""

    neighbour_relation = "reward row substitution (one round's reward vector replaced)"

    def __init__(self, alpha: float, rounds: int, experts: int, *, claim: str = "pure") -> None:
        try:
            a = float(alpha)
        except (TypeError, ValueError):
            raise InvalidInputError(f"alpha must be a number > 0, got {alpha!r}") from None
        if not math.isfinite(a) or a <= 0:
            raise InvalidInputError(f"alpha must be a finite number > 0, got {alpha!r}")
        for nm, v in (("rounds", rounds), ("experts", experts)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InvalidInputError(f"{nm} must be an integer >= 1, got {v!r}")
        if claim not in ("pure", "approx"):
            raise InvalidInputError(f"claim must be 'pure' or 'approx', got {claim!r}")
        if a > 1.79:
            warnings.warn(f"alpha={a:g} > 1.79: seed 004 Theorem 2 (regret αT + ln K/α) needs "
                          "0 < α ≤ 1.79; the learner runs, the privacy claims still apply",
                          UserWarning, stacklevel=2)
        self.alpha, self.rounds, self.experts, self.which = a, rounds, experts, claim
        if claim == "approx" and experts == 2 and rounds >= 2:
            eps, delta = 12 * rounds * a * a, math.exp(-rounds * a)
            # the exact delta on one neighbouring pair (rewards (1, 0) vs (0, 1) in round 1)
            two = exact_delta_two_experts(a, rounds, eps)
            if two > delta:
                warnings.warn(
                    f"seed 004's approximate claim ({eps:.3g}, {delta:.3g})-DP does not hold at "
                    f"alpha={a:g}, T={rounds}: the exact delta at epsilon={eps:.3g} on one "
                    f"neighbouring pair is {two:.3g} (exact_delta_two_experts); the pure claim "
                    f"(2αT = {2 * a * rounds:.3g}, 0) holds", UserWarning, stacklevel=2)

    # ------------------------------------------------------------------ claims
    @property
    def claims(self) -> list[PrivacyClaim]:
        a, T = self.alpha, self.rounds
        return [PrivacyClaim(2 * a * T, 0.0, SOURCE_PURE, "(2αT, 0)-DP"),
                PrivacyClaim(12 * T * a * a, math.exp(-T * a), SOURCE_APPROX,
                             "(12Tα², e^{−Tα})-DP")]

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return self.claims[0 if self.which == "pure" else 1]

    @property
    def name(self) -> str:
        return f"PrivateMultiplicativeWeights[{self.which}]"

    # ------------------------------------------------------------------ data
    def rewards(self, dataset: Any) -> np.ndarray:
        """The database as a (T, K) float array; raises InvalidInputError when malformed."""
        try:
            r = np.asarray(dataset, dtype=float)
        except (TypeError, ValueError):
            raise InvalidInputError("the database is a sequence of T reward vectors of K "
                                    "numbers in [0, 1]") from None
        if r.shape != (self.rounds, self.experts):
            raise InvalidInputError(f"the database has shape {r.shape}, expected "
                                    f"(T, K) = ({self.rounds}, {self.experts})")
        if not np.isfinite(r).all() or (r < 0).any() or (r > 1).any():
            raise InvalidInputError("rewards must lie in [0, 1] (the 1-Lipschitz utility of the "
                                    "privacy argument needs it)")
        return r

    def record_space(self) -> tuple:
        """The reward rows with every reward 0 or 1 (the vertices of [0, 1]^K)."""
        return tuple(tuple(float(v) for v in row)
                     for row in itertools.product((0.0, 1.0), repeat=self.experts))

    def are_neighbours(self, d0: Any, d1: Any) -> bool:
        try:
            a, b = self.rewards(d0), self.rewards(d1)
        except InvalidInputError:
            return False
        return int(np.any(a != b, axis=1).sum()) == 1

    def round_probabilities(self, dataset: Any) -> np.ndarray:
        """(T, K): row t is the distribution y_t from which i_t is drawn."""
        r = self.rewards(dataset)
        U = np.vstack([np.zeros((1, self.experts)), np.cumsum(r, axis=0)[:-1]])
        s = self.alpha * U
        w = np.exp(s - s.max(axis=1, keepdims=True))
        return w / w.sum(axis=1, keepdims=True)

    # ------------------------------------------------------------------ runs
    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> list[Hashable]:
        P = self.round_probabilities(dataset)
        cdf = np.cumsum(P, axis=1)
        u = rng.random((int(n), self.rounds))
        picks = np.empty((int(n), self.rounds), dtype=np.int64)
        for t in range(self.rounds):
            picks[:, t] = np.minimum(np.searchsorted(cdf[t], u[:, t] * cdf[t, -1],
                                                     side="right"), self.experts - 1)
        return [tuple(int(v) for v in row) for row in picks]

    def fit(self, dataset: Any, rng: np.random.Generator) -> Hashable:
        return self.sample(dataset, 1, rng)[0]

    def output_distribution(self, dataset: Any) -> dict[Hashable, float]:
        if self.experts ** self.rounds > MAX_EXACT:
            raise NotImplementedError(f"exact distribution offered for K^T <= {MAX_EXACT}")
        P = self.round_probabilities(dataset)
        dist: dict[tuple[int, ...], float] = {(): 1.0}
        for t in range(self.rounds):
            dist = {s + (i,): p * float(P[t, i]) for s, p in dist.items()
                    for i in range(self.experts)}
        return dict(dist)

    def regret_bound(self) -> float:
        """Theorem 2 of seed 004: αT + ln K/α (valid for 0 < α ≤ 1.79)."""
        return self.alpha * self.rounds + math.log(self.experts) / self.alpha


class _ReleaseWeightsMW(PrivateMultiplicativeWeights):
    """Broken variant (negative control): releases the weight vectors y_1..y_T themselves
    (rounded to 1e−9) instead of one sample from each — deterministic, so not ε-DP for any ε,
    while still claiming 2αT."""

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> list[Hashable]:
        P = np.round(self.round_probabilities(dataset), 9)
        out = tuple(tuple(float(v) for v in row) for row in P)
        return [out] * int(n)

    def output_distribution(self, dataset: Any) -> dict[Hashable, float]:
        return {self.sample(dataset, 1, np.random.default_rng(0))[0]: 1.0}


def exact_delta_two_experts(alpha: float, rounds: int, epsilon: float) -> float:
    """Exact δ(ε) of MW with K = 2 experts at the neighbouring pair r_1 = (1, 0) vs (0, 1) (all
    later rewards 0).  Rounds 2..T then draw expert 1 independently with probability
    p = e^α/(1+e^α) under the first database and 1 − p under the second, so the privacy loss is
    α·(2B − (T−1)) with B ~ Bin(T−1, p); δ(ε) = Σ_b P0(b)·max(0, 1 − e^{ε − loss(b)})
    (computed in log space).  Used to check the (12Tα², e^{−Tα}) claim at small α."""
    from scipy.stats import binom

    m = rounds - 1
    p = 1.0 / (1.0 + math.exp(-alpha))
    b = np.arange(m + 1)
    loss = alpha * (2 * b - m)
    logp0 = binom.logpmf(b, m, p)
    keep = loss > epsilon
    return float(np.sum(np.exp(logp0[keep]) * -np.expm1(epsilon - loss[keep])))


def _cases() -> list[LearnerAuditCase]:
    # K=3 experts, T=3 rounds; the first row moves one unit of reward from experts 2,3 to 1
    d0 = ((1.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    d1 = ((0.0, 1.0, 1.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    pure = LearnerAuditCase(
        name="pmw/pure-alpha0.25-T3-K3",
        make=lambda: PrivateMultiplicativeWeights(0.25, 3, 3),
        d0=d0, d1=d1, runs=400_000,
        setting="K=3 experts, T=3 rounds, alpha=0.25, claim (2alphaT, 0) = (1.5, 0); d0/d1 "
                "differ in row 1: (1,0,0) vs (0,1,1)",
        broken=lambda: _ReleaseWeightsMW(0.25, 3, 3),
        broken_note="releases the weight vectors y_t instead of a sample i_t ~ y_t")
    # approximate claim: alpha=0.15, T=8, K=2 -> (12*8*0.0225, e^-1.2) = (2.16, 0.301)
    e0 = ((1.0, 0.0),) + ((0.0, 0.0),) * 7
    e1 = ((0.0, 1.0),) + ((0.0, 0.0),) * 7
    approx = LearnerAuditCase(
        name="pmw/approx-alpha0.15-T8-K2",
        make=lambda: PrivateMultiplicativeWeights(0.15, 8, 2, claim="approx"),
        d0=e0, d1=e1, runs=200_000,
        setting="K=2, T=8, alpha=0.15, claim (12T alpha^2, e^{-T alpha}) = (2.16, 0.301); "
                "row 1 (1,0) vs (0,1)",
        broken=lambda: _ReleaseWeightsMW(0.15, 8, 2, claim="approx"),
        broken_note="releases the weight vectors y_t instead of a sample i_t ~ y_t")
    return [pure, approx]


AUDIT_CASES: list[LearnerAuditCase] = _cases()
