"""Private selection: the exponential mechanism over a finite hypothesis class and report noisy
max (with or without the noisy value)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from scipy import integrate

from ltheory.errors import InvalidInputError
from ltheory.privacy.mechanisms.base import Dataset, Mechanism, answer_vector
from ltheory.privacy.mechanisms.basic import check_scale
from ltheory.validation import check_epsilon

__all__ = ["ExponentialMechanism", "NoisyMaxWithValue", "ReportNoisyMax", "thresholds"]


def _hypothesis_matrix(hypotheses: Any) -> tuple[np.ndarray, Any]:
    if hasattr(hypotheses, "matrix") and hasattr(hypotheses, "point_index"):
        return np.asarray(hypotheses.matrix, dtype=np.int8), hypotheses
    if isinstance(hypotheses, Sequence) and hypotheses and isinstance(hypotheses[0], str):
        if any(set(h) - {"0", "1"} or len(h) != len(hypotheses[0]) for h in hypotheses):
            raise InvalidInputError("hypotheses given as strings must be equal-length '0'/'1'")
        return np.array([[c == "1" for c in h] for h in hypotheses], dtype=np.int8), None
    m = np.asarray(hypotheses)
    if m.ndim != 2 or m.size == 0 or not np.isin(m, (0, 1)).all():
        raise InvalidInputError("hypotheses must be a HypothesisClass, a list of bit strings or a "
                                "non-empty 0/1 matrix (one row per hypothesis)")
    return m.astype(np.int8), None


def thresholds(n: int) -> np.ndarray:
    """The class of thresholds on points 0..n−1: h_t(x) = 1 iff x ≥ t, t = 0..n (n+1 rows)."""
    return (np.arange(n)[None, :] >= np.arange(n + 1)[:, None]).astype(np.int8)


class ExponentialMechanism(Mechanism):
    """Exponential mechanism over a finite hypothesis class (McSherry & Talwar 2007; Dwork & Roth
    2014, Theorem 3.10): output hypothesis index h with probability ∝ ``exp(ε·u(D,h)/(2Δ))``,
    where ``u(D, h) = −#errors of h on D`` (Δ = 1 under substitution).  ε-DP.  ``hypotheses`` is a
    ``HypothesisClass``, a list of bit strings, or a 0/1 matrix; records are ``(x, y)`` with x a
    domain index (or a domain label of the HypothesisClass)."""

    name = "exponential"

    def __init__(self, hypotheses: Any = None, epsilon: float = 1.0,
                 sensitivity: float = 1.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.matrix, self._cls = _hypothesis_matrix(thresholds(8) if hypotheses is None
                                                    else hypotheses)
        self.sensitivity = float(sensitivity)
        self.true_epsilon = self.epsilon

    def _point(self, x: Any) -> int:
        if self._cls is not None and not isinstance(x, int | np.integer):
            return int(self._cls.point_index(x))
        i = int(x)
        if not 0 <= i < self.matrix.shape[1]:
            raise InvalidInputError(f"point {x!r} outside the domain 0..{self.matrix.shape[1]-1}")
        return i

    def utilities(self, dataset: Dataset) -> np.ndarray:
        u = np.zeros(self.matrix.shape[0])
        try:
            for x, y in dataset:
                u -= self.matrix[:, self._point(x)] != int(y)
        except (TypeError, ValueError):
            raise InvalidInputError("the exponential mechanism expects a tuple of (x, y) "
                                    "pairs") from None
        return u

    def probabilities(self, dataset: Dataset) -> np.ndarray:
        s = self.epsilon * self.utilities(dataset) / (2 * self.sensitivity)
        w = np.exp(s - s.max())
        return w / w.sum()

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        cdf = np.cumsum(self.probabilities(dataset))
        idx = np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right")
        return np.minimum(idx, len(cdf) - 1).astype(np.int64)

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        return {i: float(p) for i, p in enumerate(self.probabilities(dataset))}

    def default_pair(self) -> tuple[Dataset, Dataset]:
        n = self.matrix.shape[1]
        base = tuple((x, int(self.matrix[-1, x])) for x in range(n))
        return base, ((0, 1 - base[0][1]),) + base[1:]


class ReportNoisyMax(Mechanism):
    """Report noisy max: ``argmax_i q_i + Z_i`` with Z_i ~ Lap(2Δ/ε) or Exponential(2Δ/ε), ε-DP for
    sensitivity-Δ queries (Dwork & Roth 2014, Claim 3.9 and Section 3.3; with exponential noise
    it is permute-and-flip: McKenna & Sheldon 2020, Ding et al. 2021).  Dataset: query answers."""

    name = "noisy_max"
    neighbour_relation = "query_answers"

    def __init__(self, epsilon: float = 1.0, noise: str = "laplace",
                 sensitivity: float = 1.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        if noise not in ("laplace", "exponential"):
            raise InvalidInputError(f"noise must be 'laplace' or 'exponential', got {noise!r}")
        self.noise = noise
        self.sensitivity = check_scale(sensitivity, self.epsilon, "report noisy max")
        self.true_epsilon = self.epsilon

    @property
    def scale(self) -> float:
        return 2 * self.sensitivity / self.epsilon

    def _noise(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        if self.noise == "laplace":
            return rng.laplace(0.0, self.scale, size=shape)
        return rng.exponential(self.scale, size=shape)

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        q = answer_vector(dataset)
        return np.argmax(q[None, :] + self._noise((n, q.size), rng), axis=1).astype(np.int64)

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        q = answer_vector(dataset)
        if q.size > 16:
            raise NotImplementedError("exact distribution only for at most 16 queries")
        # P[i wins] = ∫ g(u) Π_{j≠i} G(u + (q_i − q_j)/b) du with the noise scaled to b = 1
        # (g, G its density and cdf): the integrand is within e^{-60} of 0 past |u| = 60, so the
        # integral runs over [−60, 60] at every scale b (no spike for quad to miss)
        b = self.scale
        if self.noise == "laplace":
            def pdf(z: float) -> float:
                return 0.5 * math.exp(-abs(z))

            def cdf(z: float) -> float:
                return 0.5 * math.exp(z) if z < 0 else 1 - 0.5 * math.exp(-z)
            lo = -60.0
        else:
            def pdf(z: float) -> float:
                return math.exp(-z) if z >= 0 else 0.0

            def cdf(z: float) -> float:
                return -math.expm1(-z) if z >= 0 else 0.0
            lo = 0.0
        probs = []
        for i in range(q.size):
            shift = [(q[i] - q[j]) / b for j in range(q.size)]

            def f(u: float, i: int = i, shift: list[float] = shift) -> float:
                r = pdf(u)
                for j in range(q.size):
                    if j != i:
                        r *= cdf(u + shift[j])
                return r
            pts = sorted({-s_ for s_ in shift if lo < -s_ < 60.0})
            val = integrate.quad(f, lo, 60.0, points=pts or None, limit=400, epsabs=1e-13,
                                 epsrel=1e-11)[0]
            probs.append(val)
        p = np.array(probs)
        return {i: float(v) for i, v in enumerate(p / p.sum())}

    def default_pair(self) -> tuple[Dataset, Dataset]:
        return ((1.0, 1.0, 1.0, 1.0, 1.0), (2.0, 0.0, 0.0, 0.0, 0.0))


class NoisyMaxWithValue(ReportNoisyMax):
    """INCORRECT variant (negative control): report noisy max that also releases the noisy maximum
    value ``(argmax_i, max_i q_i + Z_i)`` with Z_i ~ Lap(2Δ/ε), claiming ε-DP (Ding et al. 2018,
    "NoisyMax with value").  True privacy: the density at (i, v) is ``f(v−q_i)·Π_{j≠i} F(v−q_j)``,
    each of the k factors moving by at most e^{ε/2}, so it is (k·ε/2)-DP and no better when all
    queries move together (left tail): for k ≥ 3 queries the claim is false."""

    name = "noisy_max_value"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0, k: int = 5) -> None:
        super().__init__(epsilon, "laplace", sensitivity)
        self.k = int(k)
        self.true_epsilon = self.k * self.epsilon / 2

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        q = answer_vector(dataset)
        v = q[None, :] + self._noise((n, q.size), rng)
        i = np.argmax(v, axis=1)
        return np.column_stack([i.astype(float), v[np.arange(n), i]])

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        raise NotImplementedError("continuous output")

    def default_pair(self) -> tuple[Dataset, Dataset]:
        return (tuple([0.0] * self.k), tuple([1.0] * self.k))
