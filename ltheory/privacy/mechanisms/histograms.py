"""Histogram releases: the Laplace histogram, the stability-based histogram and MWEM's synthetic
histogram."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.mechanisms.base import Dataset, Mechanism
from ltheory.validation import check_delta, check_epsilon

__all__ = ["Histogram", "MultiplicativeWeights", "StableHistogram"]


def _bin_counts(dataset: Dataset, bins: int) -> np.ndarray:
    counts = np.zeros(bins)
    try:
        for x, _ in dataset:
            i = int(x)
            if not 0 <= i < bins:
                raise InvalidInputError(f"point {x!r} outside the bins 0..{bins - 1}")
            counts[i] += 1
    except (TypeError, ValueError):
        raise InvalidInputError("histograms expect a tuple of (x, y) pairs, x a bin "
                                "index") from None
    return counts


class Histogram(Mechanism):
    """Laplace histogram of the records' points x over ``bins`` cells (Dwork, McSherry, Nissim &
    Smith 2006; Dwork & Roth 2014, Section 3.3).  Under substitution two cells change by 1 (ℓ1
    sensitivity 2), so ``Lap(2/ε)`` per cell gives ε-DP; under ``relation="add_remove"`` one cell
    changes and ``Lap(1/ε)`` suffices.  ``wrong_scale=True`` is the INCORRECT variant (negative
    control) that uses the add/remove scale ``Lap(1/ε)`` while claiming ε under substitution:
    truly 2ε-DP."""

    name = "histogram"

    def __init__(self, epsilon: float = 1.0, bins: int = 4, wrong_scale: bool = False,
                 relation: str = "substitution") -> None:
        self.epsilon = check_epsilon(epsilon)
        self.bins = int(bins)
        if relation not in ("substitution", "add_remove"):
            raise InvalidInputError(f"relation must be 'substitution' or 'add_remove', got "
                                    f"{relation!r}")
        self.neighbour_relation = relation
        self.wrong_scale = bool(wrong_scale) and relation == "substitution"
        self.scale = (1.0 if self.wrong_scale or relation == "add_remove" else 2.0) / self.epsilon
        self.true_epsilon = 2 * self.epsilon if self.wrong_scale else self.epsilon
        if self.wrong_scale:
            self.name = "histogram_wrong_scale"

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        return _bin_counts(dataset, self.bins)[None, :] + rng.laplace(0, self.scale,
                                                                      (n, self.bins))

    def default_pair(self) -> tuple[Dataset, Dataset]:
        if self.neighbour_relation == "add_remove":
            return (((0, 0), (1, 0)), ((1, 0),))
        return (((0, 0), (1, 0)), ((1, 0), (1, 0)))


class StableHistogram(Mechanism):
    """Stability-based histogram (Korolova, Kenthapadi, Mishra & Ntoulas 2009; Bun, Nissim & Vadhan
    2016; Vadhan 2017 "The Complexity of Differential Privacy", Section 3.3): add Lap(2/ε) to every
    *non-empty* cell and release only cells whose noisy count is ≥ τ = 1 + 2·ln(2/δ)/ε; output the
    vector of released counts (0 = suppressed).  (ε, δ)-DP under substitution."""

    name = "stable_histogram"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-3, bins: int = 4) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        if self.delta == 0:
            raise InvalidInputError("the stable histogram needs delta > 0")
        self.bins = int(bins)
        self.tau = 1 + 2 * math.log(2 / self.delta) / self.epsilon
        self.true_epsilon = None

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        counts = _bin_counts(dataset, self.bins)
        noisy = counts[None, :] + rng.laplace(0, 2.0 / self.epsilon, (n, self.bins))
        return np.where((counts[None, :] > 0) & (noisy >= self.tau), noisy, 0.0)

    def default_pair(self) -> tuple[Dataset, Dataset]:
        """A new cell with count 1 appears: released with probability below δ."""
        return (((0, 0),) * 20, ((0, 0),) * 19 + ((1, 0),))


class MultiplicativeWeights(Mechanism):
    """MWEM (Hardt, Ligett & McSherry 2012, Algorithm 1) for counting queries on a histogram over
    ``bins`` cells: T rounds, each selecting a query with the exponential mechanism at ε/(2T)
    (score |q(A) − q(D)|, sensitivity 1) and measuring it with Lap(2T/ε), then a multiplicative
    weights update.  ε-DP by sequential composition.  Output: the final synthetic histogram
    (counts, rounded to 1e−6).  Default queries: all prefix ranges [0, j)."""

    name = "mwem"

    def __init__(self, epsilon: float = 1.0, bins: int = 4, rounds: int = 2,
                 queries: Any = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        for name, v in (("bins", bins), ("rounds", rounds)):
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
                raise InvalidInputError(f"multiplicative weights: {name} must be an integer "
                                        f">= 1, got {v!r}")
        self.bins = int(bins)
        self.rounds = int(rounds)
        self.Q = ((np.arange(self.bins)[None, :] <= np.arange(self.bins)[:, None]).astype(float)
                  if queries is None else np.asarray(queries, dtype=float))
        self.true_epsilon = None

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        h = _bin_counts(dataset, self.bins)
        total = max(h.sum(), 1.0)
        a = np.full((n, self.bins), total / self.bins)
        e0 = self.epsilon / (2 * self.rounds)
        true_ans = self.Q @ h
        for _ in range(self.rounds):
            score = np.abs(a @ self.Q.T - true_ans[None, :])
            g = rng.gumbel(size=score.shape)          # Gumbel-max = exponential mechanism
            pick = np.argmax(e0 * score / 2 + g, axis=1)
            meas = true_ans[pick] + rng.laplace(0, 1 / e0, size=n)
            qv = self.Q[pick]
            err = meas - np.sum(a * qv, axis=1)
            # a ← a·exp(q·err/(2·total)), renormalised to total: in log space (no overflow)
            with np.errstate(divide="ignore"):               # a cell at 0 stays at 0
                la = np.log(a) + qv * err[:, None] / (2 * total)
            la -= la.max(axis=1, keepdims=True)
            a = np.exp(la)
            a = a * (total / a.sum(axis=1, keepdims=True))
        return np.round(a, 6)

    def default_pair(self) -> tuple[Dataset, Dataset]:
        return (((0, 0), (1, 0)), ((self.bins - 1, 0), (1, 0)))
