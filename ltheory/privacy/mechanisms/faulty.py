"""Faulty mechanisms with a known leak, the negative controls of the violation zoo
(``ltheory.privacy.zoo``): a rare far output only one dataset reaches, or a noise clamp applied
relative to the true value."""

from __future__ import annotations

import math

import numpy as np

from ltheory.privacy.mechanisms.base import Dataset, Mechanism, count_query

__all__ = ["ClampedNoiseLaplace", "TailLeakGaussian", "TailLeakLaplace"]


class TailLeakGaussian(Mechanism):
    """``f(D) + N(0, σ²)``, except that on datasets with ``f(D) = leak_at`` a fraction ``p`` of
    the runs outputs the exact point ``atom`` (a rare, far output only one dataset has: ε = ∞
    at δ < p)."""

    def __init__(self, p: float, atom: float = 10.0, sigma: float = 1.0,
                 leak_at: float = 1.0) -> None:
        self.p, self.atom, self.sigma, self.leak_at = float(p), float(atom), float(sigma), leak_at
        self.epsilon, self.delta = math.inf, 0.0
        self.name = f"gaussian_atom_leak(p={self.p:g})"

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        f = count_query(dataset)
        y = f + rng.normal(0.0, self.sigma, size=n)
        leak = rng.random(n) < self.p
        if f == self.leak_at:
            y[leak] = self.atom
        return y


class TailLeakLaplace(Mechanism):
    """``f(D) + Lap(b)``, except that on datasets with ``f(D) = leak_at`` a fraction ``p`` of
    the runs lands in an isolated cluster ``lo + U(0, width)`` far beyond the noise."""

    def __init__(self, p: float, lo: float = 20.0, width: float = 1.0, b: float = 1.0,
                 leak_at: float = 1.0) -> None:
        self.p, self.lo, self.width, self.b, self.leak_at = float(p), lo, width, b, leak_at
        self.epsilon, self.delta = math.inf, 0.0
        self.name = f"laplace_cluster_leak(p={self.p:g})"

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        f = count_query(dataset)
        y = f + rng.laplace(0.0, self.b, size=n)
        leak = rng.random(n) < self.p
        u = self.lo + self.width * rng.random(n)
        if f == self.leak_at:
            y = np.where(leak, u, y)
        return y


class ClampedNoiseLaplace(Mechanism):
    """``f(D) + max(Z, −c)``, Z ~ Lap(b): a noise clamp applied *relative to the true value*
    (a bug), so each dataset has an output atom at ``f(D) − c`` the other cannot reach."""

    def __init__(self, b: float = 1.0, clamp: float = 3.0) -> None:
        self.b, self.clamp = float(b), float(clamp)
        self.epsilon, self.delta = 1.0 / self.b, 0.0
        self.true_epsilon = math.inf
        self.name = f"laplace_noise_clamped_at_-{self.clamp:g}"

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        return count_query(dataset) + np.maximum(rng.laplace(0.0, self.b, size=n), -self.clamp)
