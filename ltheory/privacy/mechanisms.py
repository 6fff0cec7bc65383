"""Vectorised differentially private mechanisms, with their privacy claims as data.

Every mechanism is a callable ``mechanism(dataset, rng) -> output`` and offers
``sample(dataset, n, rng)`` (n independent runs at once, as a numpy array) — the interface the
auditor expects (DESIGN.md, "Python API").  ``output_distribution(dataset)`` returns the exact
``{output: probability}`` where the output space is finite, and raises ``NotImplementedError``
otherwise.  ``claim`` is the (ε, δ) the mechanism *claims*; ``true_epsilon`` is its actual
privacy at the claimed δ where it is known (``math.inf`` for mechanisms that are not ε'-DP for any
finite ε'), so the incorrect variants serve as negative controls.

Neighbour relations (attribute ``neighbour_relation``, checked by ``are_neighbours``):

* ``"substitution"`` — labelled datasets (tuples of ``(x, y)`` pairs) of equal length that differ
  in exactly one pair (DESIGN.md).  Two distinct strings count as one-record datasets; a bare
  number is the query's value itself, so two numbers are neighbours when they differ by at
  most the mechanism's sensitivity Δ.
* ``"query_answers"`` — the dataset *is* the vector of answers of sensitivity-Δ queries, and
  neighbours differ by at most Δ in every coordinate (the setting of Lyu, Su & Li 2017, Ding et al.
  2018 "StatDP" and Bichsel et al. 2021 "DP-Sniper").
* ``"single_entry"`` — answer vectors differing in exactly one coordinate, by at most Δ (a
  histogram where one record moves; StatDP's NoisyHist and one-input mechanisms).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
from scipy import integrate

from ltheory.errors import InvalidInputError
from ltheory.validation import check_delta, check_epsilon, check_int

__all__ = [
    "ExponentialMechanism",
    "GeometricMechanism",
    "Histogram",
    "LaplaceMechanism",
    "Mechanism",
    "MultiplicativeWeights",
    "NoisyMaxWithValue",
    "RandomizedResponse",
    "ReportNoisyMax",
    "SparseVector",
    "TabulatedMechanism",
    "StableHistogram",
    "are_neighbours",
    "count_query",
    "thresholds",
]

Dataset = Any


def count_query(dataset: Dataset) -> float:
    """The counting query: number of records with label y = 1 (a bare number counts itself).
    Sensitivity 1 under substitution."""
    if isinstance(dataset, int | float | np.integer | np.floating):
        return float(dataset)
    try:
        return float(sum(1 for _, y in dataset if int(y) == 1))
    except (TypeError, ValueError):
        raise InvalidInputError("count_query expects a tuple of (x, y) pairs with y in {0, 1} "
                                "or a number") from None


def _is_scalar(d: Any) -> bool:
    return isinstance(d, int | float | str | np.integer | np.floating)


def _canonical(record: Any) -> Any:
    """A comparable form of a record: nested lists, tuples and arrays become nested tuples, numpy
    scalars become Python scalars (so ((0, 1), 1) and (array([0, 1]), 1) compare equal)."""
    if isinstance(record, np.ndarray):
        return tuple(_canonical(v) for v in record.tolist())
    if isinstance(record, (list, tuple)):
        return tuple(_canonical(v) for v in record)
    if isinstance(record, np.generic):
        return record.item()
    return record


def are_neighbours(d0: Dataset, d1: Dataset, relation: str = "substitution",
                   sensitivity: float = 1.0) -> bool:
    """Whether d0 and d1 are distinct neighbours under ``relation`` (see the module docstring)."""
    if relation == "substitution":
        if _is_scalar(d0) and _is_scalar(d1):
            if isinstance(d0, str) or isinstance(d1, str):
                return d0 != d1
            # a bare number is the query's value on the dataset (``count_query``): neighbours
            # move it by at most the sensitivity, so 0 and 100 are not neighbours
            gap = abs(float(d0) - float(d1))
            return 0.0 < gap <= sensitivity + 1e-12
        try:
            a, b = list(d0), list(d1)
        except TypeError:
            return False
        if len(a) != len(b):
            return False
        diff = sum(1 for u, v in zip(a, b, strict=True) if _canonical(u) != _canonical(v))
        return diff == 1
    if relation == "add_remove":
        a, b = list(d0), list(d1)
        if abs(len(a) - len(b)) != 1:
            return False
        long, short = (a, b) if len(a) > len(b) else (b, a)
        return any(long[:i] + long[i + 1:] == short for i in range(len(long)))
    if relation in ("query_answers", "single_entry"):
        try:
            a = np.asarray(d0, dtype=float).ravel()
            b = np.asarray(d1, dtype=float).ravel()
        except (TypeError, ValueError):
            return False
        if a.shape != b.shape or np.array_equal(a, b):
            return False
        moved = np.abs(a - b)
        if relation == "single_entry" and np.count_nonzero(moved) != 1:
            return False
        return bool(moved.max() <= sensitivity + 1e-12)
    raise InvalidInputError(f"unknown neighbour relation {relation!r}; accepted: substitution, "
                            "add_remove, query_answers, single_entry")


class Mechanism:
    """Base class: subclasses implement ``sample``; ``__call__`` draws one output."""

    name: str = "mechanism"
    neighbour_relation: str = "substitution"
    sensitivity: float = 1.0
    epsilon: float
    delta: float = 0.0
    true_epsilon: float | None = None

    @property
    def claim(self) -> tuple[float, float]:
        """The claimed (ε, δ)."""
        return (self.epsilon, self.delta)

    def are_neighbours(self, d0: Dataset, d1: Dataset) -> bool:
        return are_neighbours(d0, d1, self.neighbour_relation, self.sensitivity)

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, dataset: Dataset, rng: np.random.Generator) -> Any:
        out = self.sample(dataset, 1, rng)[0]
        return out.item() if isinstance(out, np.generic) else out

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        raise NotImplementedError(f"{self.name} has no finite output distribution")

    def default_pair(self) -> tuple[Dataset, Dataset]:
        """A neighbouring pair at which the mechanism's privacy loss is worst (used by the CLI)."""
        return (((0, 0),), ((0, 1),))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon})"


def answer_vector(dataset: Dataset) -> np.ndarray:
    """A dataset of query answers as a non-empty float vector of finite numbers (clear error
    otherwise)."""
    try:
        q = np.asarray(dataset, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InvalidInputError("this mechanism expects a dataset that is a vector of query "
                                "answers (numbers)") from None
    if q.size == 0 or not np.all(np.isfinite(q)):
        raise InvalidInputError("query answers must be a non-empty vector of finite numbers")
    return q


# --------------------------------------------------------------------------- numeric queries
class LaplaceMechanism(Mechanism):
    """Laplace mechanism: ``f(D) + Lap(Δ/ε)``, ε-DP for a query of sensitivity Δ (Dwork, McSherry,
    Nissim & Smith 2006; Dwork & Roth 2014, Theorem 3.6).  Default query: ``count_query``.

    This is the *naive floating-point* implementation, kept as the textbook reference: over the
    reals it is ε-DP, and ``true_epsilon`` records that real-arithmetic value, which is the truth
    for every event on the output's value.  In floating point it is not DP at all (Mironov 2012):
    f(D) + noise is rounded, so some outputs are reachable from one dataset and not from its
    neighbour.  ``audit`` finds this by default (``ltheory.privacy.auditing.floating``: a
    *floating-point violation*, ε ≥ 10.6 certified at 10^6 runs, benchmarks/results/floating.md);
    ``arithmetic="real"`` audits the real-arithmetic mechanism.  Use the geometric or a
    snapping mechanism where the floating-point guarantee matters."""

    name = "laplace"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0,
                 query: Callable[[Dataset], float] = count_query) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_scale(sensitivity, self.epsilon, "the Laplace mechanism")
        self.query = query
        self.true_epsilon = self.epsilon

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.query(dataset) + rng.laplace(0.0, self.sensitivity / self.epsilon, size=n)


#: the smallest ε/Δ of the geometric mechanism: its noise, about Δ/ε, stays far below 2^63
MIN_GEOMETRIC_RATE = 1e-15


def check_scale(sensitivity: Any, epsilon: float, what: str) -> float:
    """``sensitivity`` as a finite number > 0 whose noise scale ``sensitivity/epsilon`` is a finite
    float (a clear error otherwise)."""
    try:
        s = float(sensitivity)
    except (TypeError, ValueError):
        s = math.nan
    if isinstance(sensitivity, bool) or not math.isfinite(s) or s <= 0:
        raise InvalidInputError(f"{what}: sensitivity must be a finite number > 0, got "
                                f"{sensitivity!r}")
    if not math.isfinite(s / epsilon):
        raise InvalidInputError(f"{what}: the noise scale sensitivity/epsilon = {s:g}/{epsilon:g} "
                                f"is not a finite float")
    return s


class GeometricMechanism(Mechanism):
    """Two-sided geometric mechanism: ``f(D) + Z``, ``P[Z = k] ∝ α^{|k|}``, ``α = e^{-ε/Δ}``, for an
    integer query of sensitivity Δ; ε-DP (Ghosh, Roughgarden & Sundararajan 2009, Section 2).
    With ``clamp=(lo, hi)`` the output is clipped (post-processing) and the output distribution is
    finite, so the exact ε is available."""

    name = "geometric"

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1,
                 query: Callable[[Dataset], float] = count_query,
                 clamp: tuple[int, int] | None = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_int(sensitivity, "sensitivity", minimum=1)
        if self.epsilon / self.sensitivity < MIN_GEOMETRIC_RATE:
            raise InvalidInputError(
                f"the geometric mechanism needs epsilon/sensitivity >= {MIN_GEOMETRIC_RATE:g}, got "
                f"{self.epsilon:g}/{self.sensitivity}: its noise (mean about sensitivity/epsilon) "
                f"would overflow 64-bit integers")
        self.query = query
        self.clamp = None if clamp is None else (int(clamp[0]), int(clamp[1]))
        self.true_epsilon = self.epsilon

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        p = -math.expm1(-self.epsilon / self.sensitivity)
        z = rng.geometric(p, size=n) - rng.geometric(p, size=n)
        out = int(round(self.query(dataset))) + z
        if self.clamp is not None:
            out = np.clip(out, *self.clamp)
        return out.astype(np.int64)

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        if self.clamp is None:
            raise NotImplementedError("the unclamped geometric mechanism has infinite support")
        a = math.exp(-self.epsilon / self.sensitivity)
        f = int(round(self.query(dataset)))
        lo, hi = self.clamp

        def point(k: int) -> float:       # P[Z = k]
            return (1 - a) / (1 + a) * a ** abs(k)

        def below(k: int) -> float:       # P[Z <= k]
            return a ** (-k) / (1 + a) if k <= 0 else 1.0 - above(k + 1)

        def above(k: int) -> float:       # P[Z >= k]
            return a ** k / (1 + a) if k >= 0 else 1.0 - below(k - 1)

        dist: dict[Hashable, float] = {}
        for o in range(lo, hi + 1):
            if lo == hi:
                dist[o] = 1.0
            elif o == lo:
                dist[o] = below(o - f)
            elif o == hi:
                dist[o] = above(o - f)
            else:
                dist[o] = point(o - f)
        return dist


class RandomizedResponse(Mechanism):
    """k-ary randomized response on one record's label (Warner 1965; Kairouz, Oh & Viswanath 2014):
    report the true value v with probability ``e^ε/(e^ε + k − 1)``, each other value with
    ``1/(e^ε + k − 1)``.  Exactly ε-DP whenever v differs between the neighbours.  The value is
    the label of record ``index`` of a labelled dataset (or the dataset itself if it is an int)."""

    name = "randomized_response"

    def __init__(self, epsilon: float = 1.0, categories: int = 2, index: int = 0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.k = int(categories)
        if self.k < 2:
            raise InvalidInputError(f"categories must be >= 2, got {categories!r}")
        self.index = int(index)
        self.true_epsilon = self.epsilon

    def _value(self, dataset: Dataset) -> int:
        if isinstance(dataset, int | np.integer):
            v = int(dataset)
        else:
            try:
                v = int(dataset[self.index][1])
            except (TypeError, IndexError, ValueError):
                raise InvalidInputError("randomized response expects a tuple of (x, y) pairs or "
                                        "an int value") from None
        if not 0 <= v < self.k:
            raise InvalidInputError(f"value {v} outside the {self.k} categories 0..{self.k - 1}")
        return v

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        v = self._value(dataset)
        keep = rng.random(n) < self._p_true()
        other = rng.integers(0, self.k - 1, size=n)
        other = other + (other >= v)
        return np.where(keep, v, other).astype(np.int64)

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        v = self._value(dataset)
        p_true = self._p_true()
        p_other = (1.0 - p_true) / (self.k - 1)
        return {o: (p_true if o == v else p_other) for o in range(self.k)}

    def _p_true(self) -> float:
        """``e^ε/(e^ε + k − 1) = 1/(1 + (k − 1)e^{−ε})``: no overflow at any ε."""
        return 1.0 / (1.0 + (self.k - 1) * math.exp(-self.epsilon))


# --------------------------------------------------------------------------- selection
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


# --------------------------------------------------------------------------- sparse vector
_SVT_TRUE = {1: "eps", 2: "eps", 3: "inf", 4: "lee", 5: "inf", 6: "inf"}


class SparseVector(Mechanism):
    """AboveThreshold / sparse vector, Algorithms 1–6 of Lyu, Su & Li 2017 ("Understanding the
    Sparse Vector Technique for Differential Privacy", PVLDB 10(6)).  Dataset: query answers;
    output: one code per query, 1 = ⊤ (above), 0 = ⊥, −1 = not answered (after the c-th ⊤).
    With ε1 = ε/2, ε2 = ε − ε1 unless stated:

    1. Lyu et al.'s SVT: ρ ~ Lap(Δ/ε1), ν_i ~ Lap(2cΔ/ε2), stop after c ⊤.  ε-DP.
    2. Dwork & Roth 2014: ρ ~ Lap(cΔ/ε1), ν_i ~ Lap(2cΔ/ε1), ρ redrawn after each ⊤, stop after c.
       ε-DP.
    3. Roth 2011 lecture notes: as 1 with ν_i ~ Lap(cΔ/ε2), but a ⊤ releases the noisy answer
       q_i + ν_i (output: codes then released values, 0 where none).  Not ε'-DP for any ε' (∞).
    4. Lee & Clifton 2014: ε1 = ε/4, ρ ~ Lap(Δ/ε1), ν_i ~ Lap(Δ/ε2), stop after c.
       Only ((1 + 6c)/4)·ε-DP.
    5. Stoddard, Chen & Machanavajjhala 2014: ρ ~ Lap(Δ/ε1), no query noise, no cutoff.  ∞.
    6. Chen, Xu & Zhou 2015: ρ ~ Lap(Δ/ε1), ν_i ~ Lap(Δ/ε2), no cutoff.  ∞.

    Each claims ε-DP; ``true_epsilon`` records the true value (Lyu et al. 2017, Table 1)."""

    name = "sparse_vector"
    neighbour_relation = "query_answers"

    def __init__(self, epsilon: float = 1.0, variant: int = 1, threshold: float = 0.0,
                 c: int = 1, sensitivity: float = 1.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        if int(variant) not in _SVT_TRUE:
            raise InvalidInputError(f"variant must be one of 1..6, got {variant!r}")
        self.variant = int(variant)
        self.threshold = float(threshold)
        self.c = int(c)
        if self.c < 1:
            raise InvalidInputError(f"c must be >= 1, got {c!r}")
        self.sensitivity = float(sensitivity)
        kind = _SVT_TRUE[self.variant]
        self.true_epsilon = (self.epsilon if kind == "eps" else math.inf if kind == "inf"
                             else (1 + 6 * self.c) / 4 * self.epsilon)
        self.name = f"svt{self.variant}"

    def _scales(self) -> tuple[float, float, float | None, bool]:
        """(ρ scale, ρ redraw scale, ν scale or None, has cutoff)."""
        e, d, c, v = self.epsilon, self.sensitivity, self.c, self.variant
        e1 = e / 4 if v == 4 else e / 2
        e2 = e - e1
        if v == 1:
            return d / e1, d / e1, 2 * c * d / e2, True
        if v == 2:
            return c * d / e1, c * d / e2, 2 * c * d / e1, True
        if v == 3:
            return d / e1, d / e1, c * d / e2, True
        if v == 4:
            return d / e1, d / e1, d / e2, True
        if v == 5:
            return d / e1, d / e1, None, False
        return d / e1, d / e1, d / e2, False

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        q = answer_vector(dataset)
        k = q.size
        rs, rs2, ns, cutoff = self._scales()
        rho = rng.laplace(0.0, rs, size=n)
        nu = np.zeros((n, k)) if ns is None else rng.laplace(0.0, ns, size=(n, k))
        codes = np.zeros((n, k), dtype=np.int64)
        values = np.zeros((n, k))
        count = np.zeros(n, dtype=np.int64)
        for i in range(k):
            active = count < self.c if cutoff else np.ones(n, dtype=bool)
            above = active & (q[i] + nu[:, i] >= self.threshold + rho)
            codes[:, i] = np.where(active, above.astype(np.int64), -1)
            values[:, i] = np.where(above, q[i] + nu[:, i], 0.0)
            count += above
            if self.variant == 2 and above.any():
                rho = np.where(above, rng.laplace(0.0, rs2, size=n), rho)
        if self.variant == 3:
            return np.hstack([codes.astype(float), values])
        return codes

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        """Exact for the ⊤/⊥ variants 1, 4, 5, 6: P(pattern) = ∫ f_ρ(r) Π_i P_i(pattern_i | r) dr,
        evaluated for all patterns at once by vector-valued adaptive quadrature
        (``scipy.integrate.quad_vec``, absolute error 10^-14 per pattern) on the pieces between
        the integrand's kinks (r = 0 and r = q_i − T).  Variant 2 redraws ρ and 3 releases reals:
        not offered.  The 2^10 patterns of 10 queries (variants 5, 6) take ~0.1 s, against ~5 s
        for one scalar quadrature per pattern, with the same values to 10^-15 relative."""
        if self.variant in (2, 3):
            raise NotImplementedError("exact distribution only for SVT variants 1, 4, 5, 6")
        q = answer_vector(dataset)
        k = q.size
        if k > 10:
            raise NotImplementedError("exact distribution only for at most 10 queries")
        rs, _, ns, cutoff = self._scales()
        patterns: list[tuple[int, ...]] = []

        def grow(prefix: tuple[int, ...], tops: int) -> None:
            if len(prefix) == k:
                patterns.append(prefix)
                return
            if cutoff and tops >= self.c:
                patterns.append(prefix + (-1,) * (k - len(prefix)))
                return
            grow(prefix + (0,), tops)
            grow(prefix + (1,), tops + 1)

        grow((), 0)
        pat = np.array(patterns)
        up, down = pat == 1, pat == 0

        def f(r: float) -> np.ndarray:
            z = self.threshold + r - q                   # query i is ⊤ when ν_i ≥ z_i
            if ns is None:
                p_above = (z <= 0).astype(float)
            else:
                p_above = np.where(z < 0, 1 - 0.5 * np.exp(np.minimum(z, 0) / ns),
                                   0.5 * np.exp(-np.maximum(z, 0) / ns))
            terms = np.where(up, p_above, np.where(down, 1 - p_above, 1.0))
            return math.exp(-abs(r) / rs) / (2 * rs) * terms.prod(axis=1)

        pts = sorted({float(qi - self.threshold) for qi in q} | {0.0})
        lo, hi = min(pts) - 60 * rs - 60 * (ns or 0), max(pts) + 60 * rs + 60 * (ns or 0)
        edges = [lo, *pts, hi]
        mass = np.zeros(len(patterns))
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            mass += integrate.quad_vec(f, a, b, epsabs=1e-14, epsrel=0.0, norm="max",
                                       limit=10_000)[0]
        mass /= mass.sum()
        return {p: float(v) for p, v in zip(patterns, mass, strict=True)}

    def default_pair(self) -> tuple[Dataset, Dataset]:
        """Pairs found by ``audit_search`` (StatDP patterns) to expose each variant."""
        if self.variant == 3:
            return ((0.0, 0.0, 0.0, 0.0, 0.0), (1.0, 1.0, 1.0, 1.0, 1.0))
        if self.variant == 6:
            return ((0.0, 0.0, 0.0, 0.0, 0.0), (1.0, -1.0, 1.0, -1.0, -1.0))
        return ((0.0, 0.0, -1.0, -1.0, -1.0), (-1.0, -1.0, 0.0, 0.0, 0.0))


# --------------------------------------------------------------------------- histograms
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


class TabulatedMechanism(Mechanism):
    """A mechanism given by its output distributions: ``table[dataset] = {output: probability}``
    (outputs are integers 0..m−1 or any hashables).  Every two distinct tabulated datasets are
    treated as neighbours (relation ``"tabulated"``).  Useful for tests and for auditing a
    mechanism whose distributions are known analytically; ``epsilon``/``delta`` are its claim."""

    name = "tabulated"
    neighbour_relation = "tabulated"

    def __init__(self, table: dict, epsilon: float = 1.0, delta: float = 0.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.table = {}
        for d, dist in table.items():
            p = np.array(list(dist.values()), dtype=float)
            if p.size == 0 or np.any(p < 0) or abs(p.sum() - 1) > 1e-9:
                raise InvalidInputError(f"table[{d!r}] is not a probability distribution")
            self.table[d] = (list(dist.keys()), np.cumsum(p / p.sum()), p / p.sum())

    def are_neighbours(self, d0: Dataset, d1: Dataset) -> bool:
        return d0 in self.table and d1 in self.table and d0 != d1

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> Any:
        try:
            keys, cdf, _ = self.table[dataset]
        except (KeyError, TypeError):
            raise InvalidInputError(f"dataset {dataset!r} is not in the table") from None
        idx = np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), len(keys) - 1)
        if all(isinstance(k, int) for k in keys):
            return np.asarray(keys, dtype=np.int64)[idx]
        return [keys[i] for i in idx]

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        keys, _, p = self.table[dataset]
        return dict(zip(keys, p.tolist(), strict=True))

    def default_pair(self) -> tuple[Dataset, Dataset]:
        a, b = list(self.table)[:2]
        return a, b
