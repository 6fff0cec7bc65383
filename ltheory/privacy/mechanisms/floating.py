"""Noise added in floating point: textbook samplers whose float64 output leaks the dataset
(Mironov 2012), and Mironov's snapping mechanism, which does not."""

from __future__ import annotations

import math

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.mechanisms.base import Dataset, Mechanism, count_query

__all__ = ["FloatNoise", "SnappedLaplace"]


class FloatNoise(Mechanism):
    """``f(D) + noise`` computed naively in float64 with one of several textbook samplers
    (the floating-point leak of Mironov 2012; Jin, McMurtry, Rubinstein & Ohrimenko 2022;
    Delta-Siege, Lokna et al. 2023):

    * ``"numpy_normal"`` — ``f + rng.normal(0, σ)`` (numpy's ziggurat, scaled);
    * ``"ziggurat"`` — ``f + σ · rng.standard_normal()``;
    * ``"polar"`` — Marsaglia's polar method: ``u·sqrt(−2 ln s / s)``, s = u² + v² < 1;
    * ``"numpy_laplace"`` — ``f + rng.laplace(0, b)``;
    * ``"inversion_laplace"`` — ``f + b·ln(2u)`` for u < ½, ``f − b·ln(2 − 2u)`` otherwise.

    Over the reals each is the Gaussian (σ) or Laplace (b) mechanism; in floating point the final
    addition leaks: for f = 1 an output y with |y| < ½ is ``1 + x`` computed exactly, a multiple
    of 2^-53, while for f = 0 the output is x itself, whose low bits are random."""

    SAMPLERS = ("numpy_normal", "ziggurat", "polar", "numpy_laplace", "inversion_laplace")

    def __init__(self, sampler: str, scale: float, epsilon: float = math.inf,
                 delta: float = 0.0) -> None:
        if sampler not in self.SAMPLERS:
            raise InvalidInputError(f"sampler must be one of {', '.join(self.SAMPLERS)}, "
                                    f"got {sampler!r}")
        self.sampler, self.scale = sampler, float(scale)
        self.epsilon, self.delta = epsilon, delta
        self.name = f"float_{sampler}(scale={self.scale:.6g})"

    def noise(self, n: int, rng: np.random.Generator) -> np.ndarray:
        s = self.scale
        if self.sampler == "numpy_normal":
            return rng.normal(0.0, s, size=n)
        if self.sampler == "ziggurat":
            return s * rng.standard_normal(n)
        if self.sampler == "numpy_laplace":
            return rng.laplace(0.0, s, size=n)
        if self.sampler == "inversion_laplace":
            u = rng.random(n)
            u = np.where(u == 0.0, 2.0 ** -54, u)
            with np.errstate(divide="ignore"):
                return s * np.where(u < 0.5, np.log(2.0 * u), -np.log(2.0 - 2.0 * u))
        out = np.empty(n)                      # polar: accept-reject, vectorised in rounds
        done = 0
        while done < n:
            m = int((n - done) * 1.3) + 16
            u = 2.0 * rng.random(m) - 1.0
            v = 2.0 * rng.random(m) - 1.0
            q = u * u + v * v
            ok = (q < 1.0) & (q > 0.0)
            z = u[ok] * np.sqrt(-2.0 * np.log(q[ok]) / q[ok])
            k = min(z.size, n - done)
            out[done:done + k] = s * z[:k]
            done += k
        return out

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        return count_query(dataset) + self.noise(int(n), rng)


class SnappedLaplace(Mechanism):
    """Mironov's snapping mechanism (Mironov 2012, "On significance of the least significant
    bits for differential privacy", Section 5.2): ``clamp_B(⌊clamp_B(f(D)) ⊕ S·λ⊗ln(U)⌉_Λ)``
    with U uniform on the doubles of (0, 1], S a fair sign, Λ the smallest power of two ≥ λ and
    ⌊·⌉_Λ rounding to the nearest multiple of Λ.  Theorem 1 there: for a query of sensitivity 1
    with λ < B < 2^46·λ it is ``(1/λ + 2^-49·B/λ)``-DP in floating point (given a
    correctly rounded ln; numpy's log is accurate to within an ulp — the usual caveat).
    ``claim_epsilon`` is that ε."""

    def __init__(self, lam: float = 1.0, bound: float = 10.0) -> None:
        if not (0 < lam < bound < 2.0 ** 46 * lam):
            raise InvalidInputError(f"the snapping mechanism needs 0 < λ < B < 2^46 λ, got "
                                    f"λ={lam!r}, B={bound!r}")
        self.lam, self.bound = float(lam), float(bound)
        self.grid = 2.0 ** math.ceil(math.log2(self.lam))
        self.epsilon = 1.0 / self.lam + 2.0 ** -49 * self.bound / self.lam
        self.delta = 0.0
        self.name = f"snapped_laplace(lambda={self.lam:g}, B={self.bound:g})"

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        f = min(max(count_query(dataset), -self.bound), self.bound)
        u = 1.0 - rng.random(n)                                 # uniform on (0, 1], 53 bits
        sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        y = f + sign * self.lam * np.log(u)
        y = np.round(y / self.grid) * self.grid                 # Λ is a power of two: exact
        return np.clip(y, -self.bound, self.bound)
