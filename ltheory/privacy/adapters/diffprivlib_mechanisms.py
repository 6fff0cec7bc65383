"""IBM diffprivlib mechanisms as auditable mechanisms (optional extra ``diffprivlib``).

What is audited: the library's own ``randomise`` — nothing is re-implemented — called once per run
on the query answer the auditor passes as the dataset (relation ``query_answers``: neighbouring
answers differ by at most the declared ``sensitivity``).  ``sample(dataset, n, rng)`` builds one
library object per call with ``random_state`` a ``numpy.random.RandomState`` seeded from ``rng``
(``_common.random_state_from``), so runs are a deterministic function of the audit seed; the
library's ``randomise`` takes one value at a time, so ``sample`` loops in Python (about 3 µs per
run for ``Laplace``).

Claims (diffprivlib 0.6 documentation, https://diffprivlib.readthedocs.io/en/latest/modules/
mechanisms.html): ``Laplace`` is (ε, δ)-DP with scale Δ/(ε − ln(1 − δ)) and says it samples with
the method of Holohan & Braghin 2021 ("Secure random sampling in differential privacy") to resist
floating-point attacks; ``Geometric`` ε-DP on integers (Ghosh et al. 2009); ``Gaussian`` (ε, δ)-DP
for ε ≤ 1 (Dwork & Roth 2014, Theorem A.1), ``GaussianAnalytic`` for every ε (Balle & Wang 2018);
``Exponential`` ε-DP selection of a candidate index from a utility vector (McSherry & Talwar
2007); ``Snapping`` ε-DP on a bounded domain with floating-point safety (Mironov 2012).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.adapters._common import (
    ScalarQueryAdapter,
    positive,
    random_state_from,
    require,
    scalar_answer,
)
from ltheory.validation import check_delta, check_epsilon

__all__ = ["DiffprivlibExponential", "DiffprivlibGaussian", "DiffprivlibGeometric",
           "DiffprivlibLaplace", "DiffprivlibSnapping"]


def _mechanisms() -> Any:
    return require("diffprivlib.mechanisms")


class _DiffprivlibScalar(ScalarQueryAdapter):
    library = "diffprivlib"

    def _build(self, random_state: np.random.RandomState) -> Any:
        raise NotImplementedError

    def _value(self, dataset: Any) -> Any:
        return scalar_answer(dataset)

    def library_object(self, random_state: Any = None) -> Any:
        """The diffprivlib mechanism object this adapter runs (for inspection)."""
        return self._build(random_state)

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        v = self._value(dataset)
        mech = self._build(random_state_from(rng))
        return np.fromiter((mech.randomise(v) for _ in range(int(n))), dtype=float,
                           count=int(n))


class DiffprivlibLaplace(_DiffprivlibScalar):
    """diffprivlib ``Laplace(epsilon, delta, sensitivity)``: ``value − scale·L`` with L standard
    Laplace from four uniforms; claimed (ε, δ)-DP."""

    name = "diffprivlib.Laplace"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0, delta: float = 0.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.sensitivity = positive("sensitivity", sensitivity)
        self.true_epsilon = None

    def _build(self, random_state: Any) -> Any:
        return _mechanisms().Laplace(epsilon=self.epsilon, delta=self.delta,
                                     sensitivity=self.sensitivity, random_state=random_state)


class DiffprivlibGeometric(_DiffprivlibScalar):
    """diffprivlib ``Geometric(epsilon, sensitivity)`` on integer answers; claimed ε-DP."""

    name = "diffprivlib.Geometric"

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1) -> None:
        self.epsilon = check_epsilon(epsilon)
        if isinstance(sensitivity, bool) or int(sensitivity) != sensitivity or sensitivity < 1:
            raise InvalidInputError(f"sensitivity must be an integer >= 1, got {sensitivity!r}")
        self.sensitivity = int(sensitivity)

    def default_pair(self) -> tuple[Any, Any]:
        return (0, self.sensitivity)

    def _value(self, dataset: Any) -> int:
        v = scalar_answer(dataset)
        if v != int(v):
            raise InvalidInputError(f"the geometric mechanism needs an integer answer, got {v!r}")
        return int(v)

    def _build(self, random_state: Any) -> Any:
        return _mechanisms().Geometric(epsilon=self.epsilon, sensitivity=self.sensitivity,
                                       random_state=random_state)


class DiffprivlibGaussian(_DiffprivlibScalar):
    """diffprivlib ``Gaussian(epsilon, delta, sensitivity)`` (classic, ε ≤ 1) or, with
    ``analytic=True``, ``GaussianAnalytic``; claimed (ε, δ)-DP — audit at the claimed δ."""

    def __init__(self, epsilon: float = 0.5, delta: float = 1e-5, sensitivity: float = 1.0,
                 analytic: bool = False) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        if self.delta <= 0:
            raise InvalidInputError("the Gaussian mechanism needs delta > 0")
        if not analytic and self.epsilon > 1:
            raise InvalidInputError("diffprivlib's classic Gaussian accepts epsilon <= 1; use "
                                    "analytic=True for larger epsilon")
        self.sensitivity = positive("sensitivity", sensitivity)
        self.analytic = bool(analytic)
        self.name = "diffprivlib.GaussianAnalytic" if analytic else "diffprivlib.Gaussian"

    def _build(self, random_state: Any) -> Any:
        cls = _mechanisms().GaussianAnalytic if self.analytic else _mechanisms().Gaussian
        return cls(epsilon=self.epsilon, delta=self.delta, sensitivity=self.sensitivity,
                   random_state=random_state)


class DiffprivlibExponential(_DiffprivlibScalar):
    """diffprivlib ``Exponential(epsilon, sensitivity, utility)``: the dataset is the utility
    vector (one score per candidate; neighbours differ by at most Δ per score); the output is the
    selected index.  Claimed ε-DP."""

    name = "diffprivlib.Exponential"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0,
                 monotonic: bool = False) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = positive("sensitivity", sensitivity)
        self.monotonic = bool(monotonic)

    def default_pair(self) -> tuple[Any, Any]:
        return ((0.0, 0.0, 0.0), (self.sensitivity, 0.0, 0.0))

    def _value(self, dataset: Any) -> list[float]:
        try:
            u = np.asarray(dataset, dtype=float).ravel()
        except (TypeError, ValueError):
            raise InvalidInputError("the exponential mechanism's dataset is a utility vector "
                                    "(numbers)") from None
        if u.size < 2 or not np.all(np.isfinite(u)):
            raise InvalidInputError("the utility vector needs at least 2 finite scores")
        return u.tolist()

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        u = self._value(dataset)
        mech = _mechanisms().Exponential(epsilon=self.epsilon, sensitivity=self.sensitivity,
                                         utility=u, monotonic=self.monotonic,
                                         random_state=random_state_from(rng))
        return np.fromiter((mech.randomise() for _ in range(int(n))), dtype=float, count=int(n))

    def _build(self, random_state: Any) -> Any:
        return _mechanisms().Exponential(epsilon=self.epsilon, sensitivity=self.sensitivity,
                                         utility=[0.0, 0.0], monotonic=self.monotonic,
                                         random_state=random_state)


class DiffprivlibSnapping(_DiffprivlibScalar):
    """diffprivlib ``Snapping(epsilon, sensitivity, lower, upper)``: Mironov's snapping mechanism
    (clamp, add Laplace noise, round to a power-of-two grid, clamp); claimed ε-DP on answers in
    [lower, upper].  The control for the floating-point study."""

    name = "diffprivlib.Snapping"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0, lower: float = -100.0,
                 upper: float = 100.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = positive("sensitivity", sensitivity)
        if not (float(lower) < float(upper)):
            raise InvalidInputError(f"lower must be < upper, got {lower!r}, {upper!r}")
        self.lower, self.upper = float(lower), float(upper)

    def _build(self, random_state: Any) -> Any:
        return _mechanisms().Snapping(epsilon=self.epsilon, sensitivity=self.sensitivity,
                                      lower=self.lower, upper=self.upper,
                                      random_state=random_state)
