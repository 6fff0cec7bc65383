"""OpenDP measurements as auditable mechanisms (optional extra ``opendp``; opendp ≥ 0.12).

What is audited: the library's measurement itself, built with ``opendp.prelude`` after
``dp.enable_features("contrib")``.  Where OpenDP allows it, ``sample(dataset, n, rng)`` is one call
of the *vector* version of the measurement on ``[x] * n`` (independent noise per coordinate, so the
n coordinates are n independent runs on x); otherwise it calls the measurement n times.

Claims: the ε (or (ε, δ)) the measurement's own privacy map returns at ``d_in`` = the declared
sensitivity (OpenDP documentation, https://docs.opendp.org/en/v0.16.0/api/python/
opendp.measurements.html): ``make_laplace`` (float: discrete Laplace on a 2^k grid, Canonne, Kamath
& Steinke 2020; integer: the geometric mechanism) ε = Δ/scale; ``make_gaussian`` ρ = (Δ/scale)²/2
zCDP, converted by ``make_zCDP_to_approxDP`` and ``make_fix_delta`` to (ε, δ) at the δ given
(``OpenDPGaussian``), or kept as the claim object ``ZCDP(ρ)`` (``OpenDPZCDPGaussian``, float or
integer: on integers ``make_gaussian`` is the discrete Gaussian of Canonne, Kamath & Steinke 2020);
``make_randomized_response_bool`` / ``make_randomized_response`` ε = ln(p/(1−p)·(k−1));
``make_noisy_max`` (Gumbel / exponential noise, McKenna & Sheldon 2020) ε = 2Δ/scale.

Randomness: OpenDP samples from OS randomness and cannot be seeded, so runs (and reports) are not
bit-reproducible; ``rng`` is accepted and ignored.  The auditor's bound stays sound: every run is a
fresh independent draw, and the event is still chosen before the certification runs.
Library objects hold C pointers and do not pickle: adapters rebuild them in each worker process.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.adapters._common import (
    ScalarQueryAdapter,
    positive,
    require,
    scalar_answer,
)
from ltheory.privacy.claims import GDP, ZCDP, PrivacyClaim
from ltheory.validation import check_delta

__all__ = ["OpenDPGaussian", "OpenDPGeometric", "OpenDPLaplace", "OpenDPNoisyMax",
           "OpenDPRandomizedResponse", "OpenDPZCDPGaussian"]


def _dp() -> Any:
    dp = require("opendp.prelude")
    dp.enable_features("contrib")
    return dp


class _OpenDP(ScalarQueryAdapter):
    library = "opendp"
    reproducible = False

    def _measurement(self, key: str) -> Any:
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:
            cache[key] = self._make(key)
        return cache[key]

    def _make(self, key: str) -> Any:
        raise NotImplementedError



def _atom(dp: Any, integer: bool) -> tuple[type, Any]:
    """The element type and OpenDP atom domain of one answer (floats without NaN)."""
    t = int if integer else float
    return t, (dp.atom_domain(T=t) if integer else dp.atom_domain(T=t, nan=False))


def _scalar_input(dataset: Any, integer: bool, what: str) -> Any:
    """The dataset's one answer as the measurement's input type (an integer mechanism refuses
    a non-integral answer)."""
    v = scalar_answer(dataset)
    if not integer:
        return float(v)
    if v != int(v):
        raise InvalidInputError(f"the integer {what} needs an integer answer, got {v!r}")
    return int(v)

class _ScalarNoise(_OpenDP):
    """OpenDP's ``make_<noise>(scale)`` on one scalar answer (a float, or with ``integer`` an
    integer): the atom measurement gives the privacy map, the same mechanism on a vector of
    copies samples n runs at once.  Subclasses name the noise, the vector metric and what an
    error message calls the mechanism."""

    _noise = ""                      # dp.m.make_<noise>
    _vector_metric = ""              # dp.<metric>(T=...) on the vector domain
    _what = ""

    def _set_scalar(self, scale: float, sensitivity: float, integer: bool,
                    integer_error: str) -> None:
        self.scale = positive("scale", scale)
        self.sensitivity = positive("sensitivity", sensitivity)
        self.integer = bool(integer)
        if self.integer and self.sensitivity != int(self.sensitivity):
            raise InvalidInputError(integer_error)

    def _d_in(self) -> float | int:
        return int(self.sensitivity) if self.integer else self.sensitivity

    def default_pair(self) -> tuple[Any, Any]:
        return (0, int(self.sensitivity)) if self.integer else (0.0, self.sensitivity)

    def _make(self, key: str) -> Any:
        dp = _dp()
        t, atom = _atom(dp, self.integer)
        make = getattr(dp.m, f"make_{self._noise}")
        if key == "atom":
            return make(atom, dp.absolute_distance(T=t), self.scale)
        return make(dp.vector_domain(atom), getattr(dp, self._vector_metric)(T=t), self.scale)

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        x = _scalar_input(dataset, self.integer, self._what)
        return np.asarray(self._measurement("vector")([x] * int(n)), dtype=float)


class OpenDPLaplace(_ScalarNoise):
    """``make_laplace(scale)`` on one float (or, ``integer=True``, one integer: the geometric /
    discrete Laplace mechanism); vectorised over ``vector_domain``.  Claim: ε = map(Δ)."""

    _noise, _vector_metric, _what = "laplace", "l1_distance", "Laplace"

    def __init__(self, scale: float = 1.0, sensitivity: float = 1.0, integer: bool = False) -> None:
        self._set_scalar(scale, sensitivity, integer,
                         "an integer Laplace needs an integer sensitivity")
        self.name = "opendp.make_laplace[int]" if integer else "opendp.make_laplace[float]"
        self.epsilon = float(self._measurement("atom").map(self._d_in()))


class OpenDPGeometric(OpenDPLaplace):
    """``make_geometric(scale)`` on one integer (the two-sided geometric mechanism, with its
    constant-time bounded variant); vectorised.  Claim: ε = map(Δ)."""

    def __init__(self, scale: float = 1.0, sensitivity: int = 1) -> None:
        super().__init__(scale, sensitivity, integer=True)
        self.name = "opendp.make_geometric"

    def _make(self, key: str) -> Any:
        dp = _dp()
        if key == "atom":
            return dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                       self.scale)
        return dp.m.make_geometric(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int),
                                   self.scale)


class OpenDPGaussian(_OpenDP):
    """``make_gaussian(scale)`` on one float, a ρ-zCDP measurement; the claim is the (ε, δ) of
    ``make_fix_delta(make_zCDP_to_approxDP(m), delta)`` at d_in = Δ — audit at that δ."""

    name = "opendp.make_gaussian"

    def __init__(self, scale: float = 4.0, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        self.scale = positive("scale", scale)
        self.sensitivity = positive("sensitivity", sensitivity)
        self.delta = check_delta(delta)
        if self.delta <= 0:
            raise InvalidInputError("the Gaussian measurement is audited at a delta > 0")
        dp = _dp()
        fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(self._measurement("atom")),
                                    self.delta)
        eps, dl = fixed.map(self.sensitivity)
        self.epsilon, self.delta = float(eps), float(dl)
        self.rho = float(self._measurement("atom").map(self.sensitivity))

    def _make(self, key: str) -> Any:
        dp = _dp()
        atom = dp.atom_domain(T=float, nan=False)
        if key == "atom":
            return dp.m.make_gaussian(atom, dp.absolute_distance(T=float), self.scale)
        return dp.m.make_gaussian(dp.vector_domain(atom), dp.l2_distance(T=float), self.scale)

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        v = scalar_answer(dataset)
        return np.asarray(self._measurement("vector")([float(v)] * int(n)), dtype=float)


class OpenDPZCDPGaussian(_ScalarNoise):
    """``make_gaussian(scale)`` under zero-concentrated DP, its claim kept as a curve:
    ``privacy_claim`` is ``ZCDP(ρ)`` with ρ = map(Δ) = (Δ/scale)²/2 (OpenDP's own privacy map).
    ``integer=False``: one float; ``integer=True``: one integer, where OpenDP samples the discrete
    Gaussian N_Z(0, scale²) (Canonne, Kamath & Steinke 2020).  ``claim`` is the (ε, δ) of the
    ZCDP claim at ``delta`` (the conversion OpenDP's ``make_zCDP_to_approxDP`` uses).

    ``exact_claim``: for integers the exact profile of the discrete Gaussian
    ([`DiscreteGaussianMechanism`][ltheory.privacy.mechanisms.DiscreteGaussianMechanism]); for
    floats
    ``GDP(Δ/scale)``, the curve of the continuous Gaussian (OpenDP samples it exactly rounded to
    a fine power-of-two grid, a difference far below what an audit resolves)."""

    _noise, _vector_metric, _what = "gaussian", "l2_distance", "Gaussian"

    def __init__(self, scale: float = 4.0, sensitivity: float = 1.0, integer: bool = False,
                 delta: float = 1e-5) -> None:
        self._set_scalar(scale, sensitivity, integer,
                         "the integer (discrete) Gaussian needs an integer sensitivity")
        self.delta = check_delta(delta)
        if self.delta <= 0:
            raise InvalidInputError("delta must be in (0, 1): the Gaussian is not pure DP")
        self.name = ("opendp.make_gaussian[int, zCDP]" if self.integer
                     else "opendp.make_gaussian[float, zCDP]")
        self.rho = float(self._measurement("atom").map(self._d_in()))
        self.epsilon = self.privacy_claim.epsilon_at(self.delta)

    @property
    def privacy_claim(self) -> ZCDP:
        """The library's claim: ``ZCDP(ρ)``."""
        return ZCDP(self.rho)

    @property
    def exact_claim(self) -> PrivacyClaim:
        if self.integer:
            from ltheory.privacy.mechanisms import DiscreteGaussianMechanism

            return DiscreteGaussianMechanism(self.scale, int(self.sensitivity)).exact_claim
        return GDP(self.sensitivity / self.scale)

    @property
    def true_epsilon(self) -> float:  # type: ignore[override]
        return self.exact_claim.epsilon_at(self.delta)

    def __repr__(self) -> str:
        return (f"OpenDPZCDPGaussian(scale={self.scale:g}, sensitivity={self.sensitivity:g}, "
                f"integer={self.integer})")


class OpenDPRandomizedResponse(_OpenDP):
    """``make_randomized_response_bool(prob)`` (k = 2) or ``make_randomized_response(categories,
    prob)``: report the true category with probability ``prob``.  The dataset is the true
    category (an int in 0..k−1; any two distinct values are neighbours).  Claim: ε = map(1)."""

    neighbour_relation = "substitution"

    def __init__(self, prob: float = 0.75, categories: int = 2) -> None:
        p = positive("prob", prob)
        if int(categories) < 2:
            raise InvalidInputError(f"categories must be >= 2, got {categories!r}")
        self.k = int(categories)
        if not (1.0 / self.k <= p < 1.0):
            raise InvalidInputError(f"prob must be in [1/categories, 1), got {prob!r}")
        self.prob = p
        self.sensitivity = 1.0
        self.name = ("opendp.make_randomized_response_bool" if self.k == 2
                     else "opendp.make_randomized_response")
        self.epsilon = float(self._measurement("atom").map(1))

    def default_pair(self) -> tuple[Any, Any]:
        return (0, 1)

    def _make(self, key: str) -> Any:
        dp = _dp()
        if self.k == 2:
            return dp.m.make_randomized_response_bool(self.prob)
        return dp.m.make_randomized_response(list(range(self.k)), self.prob)

    def _value(self, dataset: Any) -> int:
        v = scalar_answer(dataset)
        if v != int(v) or not 0 <= v < self.k:
            raise InvalidInputError(f"the dataset is the true category, an int in "
                                    f"0..{self.k - 1}, got {dataset!r}")
        return int(v)

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        v = self._value(dataset)
        m = self._measurement("atom")
        x: Any = bool(v) if self.k == 2 else v
        return np.fromiter((int(m(x)) for _ in range(int(n))), dtype=float, count=int(n))


class OpenDPNoisyMax(_OpenDP):
    """``make_noisy_max(scale)`` with ``max_divergence`` (report noisy max with exponential noise,
    equivalent to the exponential mechanism; McKenna & Sheldon 2020): the dataset is the score
    vector (relation ``query_answers``, L∞ distance ≤ Δ); the output is the index.  Claim:
    ε = map(Δ) = 2Δ/scale."""

    name = "opendp.make_noisy_max"

    def __init__(self, scale: float = 2.0, sensitivity: float = 1.0) -> None:
        self.scale = positive("scale", scale)
        self.sensitivity = positive("sensitivity", sensitivity)
        self.epsilon = float(self._measurement("atom").map(self.sensitivity))

    def default_pair(self) -> tuple[Any, Any]:
        return ((1.0, 0.0, 0.0), (0.0, 1.0, 1.0))

    def _make(self, key: str) -> Any:
        dp = _dp()
        return dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                                   dp.linf_distance(T=float), dp.max_divergence(), self.scale)

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        try:
            s = np.asarray(dataset, dtype=float).ravel()
        except (TypeError, ValueError):
            raise InvalidInputError("noisy max's dataset is a score vector (numbers)") from None
        if s.size < 2 or not np.all(np.isfinite(s)):
            raise InvalidInputError("noisy max needs at least 2 finite scores")
        m, scores = self._measurement("atom"), s.tolist()
        return np.fromiter((m(scores) for _ in range(int(n))), dtype=float, count=int(n))
