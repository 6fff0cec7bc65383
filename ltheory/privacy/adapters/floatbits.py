"""Bit-level features of floating-point outputs, for auditing floating-point noise samplers.

Mironov (2012, "On significance of the least significant bits for differential privacy", CCS)
showed that textbook Laplace noise added in floating point, ``f(D) + Lap(b)``, is not DP: the set
of doubles it can output depends on ``f(D)``.  The simplest instance is the rounding of the final
addition.  For ``f(D) = 1`` an output y close to 0 is ``fl(1 − x)`` with x close to 1, computed
exactly, so y is a multiple of 2⁻⁵³ (its binary significand ends in ≥ −e zero bits, e the exponent
of y); for ``f(D) = 0`` the output is ``−x`` itself, whose significand has ~53 random bits, and is
such a multiple with probability about 2^e.  No threshold or histogram of the *value* sees this.

``BitFeatures(mechanism, feature)`` is the post-processing ``g ∘ mechanism`` for a fixed map g of
the output's bits, chosen before any run:

* ``"ulp"`` (default): the pair (binary exponent e of |y| clipped to [emin, emax], number of
  trailing zero bits of the 53-bit significand) — equivalently the exponent and the position of
  the lowest set bit, which tells on which grid the value lies;
* ``"lowbits"``: the pair (exponent, the ``k`` lowest bits of the significand) — the feature of
  Mironov's attack on the support of the noise.

Both are encoded as one integer code per output (``float_features``); y = 0 has its own code.
Soundness: a post-processing of an (ε, δ)-DP mechanism is (ε, δ)-DP (Dwork & Roth 2014,
Proposition 2.1), so a bound the auditor certifies for ``g ∘ M`` (events chosen on the selection
split, certified on fresh runs) is a sound lower bound for M itself.  The auditor chooses the
event among the codes (likelihood-ratio cells) on its selection split; g itself has no free
parameters fitted to data.  No change to the auditor is needed.

The auditor now looks for such leaks by default (``ltheory.privacy.auditing.floating``: a cell
family on the pair (exponent, lowest set bit) of float outputs, ``arithmetic="float"``); this
wrapper remains for the ``"lowbits"`` feature and for auditing the bit codes alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError

__all__ = ["BitFeatures", "float_features"]

FEATURES = ("ulp", "lowbits")
_MANT = (1 << 52) - 1
_ZERO_CODE = -1


def float_features(y: Any, feature: str = "ulp", *, emin: int = -40, emax: int = 8,
                   lowbits: int = 4) -> np.ndarray:
    """Integer feature codes of float64 outputs ``y`` (see
    [`ltheory.privacy.adapters.floatbits`][ltheory.privacy.adapters.floatbits]): for ``"ulp"``
    ``(e − emin)·64 + tz``, for ``"lowbits"`` ``(e − emin)·2^k + (significand mod 2^k)``, with e
    the exponent of ``frexp`` clipped to [emin, emax]; ``-1`` for y = 0."""
    if feature not in FEATURES:
        raise InvalidInputError(f"feature must be one of {', '.join(FEATURES)}, got {feature!r}")
    if not (isinstance(lowbits, int) and 1 <= lowbits <= 16):
        raise InvalidInputError(f"lowbits must be an integer in 1..16, got {lowbits!r}")
    if emin >= emax:
        raise InvalidInputError(f"emin must be < emax, got {emin}, {emax}")
    a = np.ascontiguousarray(np.asarray(y, dtype=np.float64).ravel())
    if not np.all(np.isfinite(a)):
        raise InvalidInputError("bit features need finite float outputs")
    _, e = np.frexp(a)
    e = np.clip(e, emin, emax).astype(np.int64) - emin
    bits = a.view(np.uint64)
    sig = (bits & np.uint64(_MANT)) | np.uint64(1 << 52)     # 53-bit significand (normals)
    if feature == "ulp":
        low = sig & (~sig + np.uint64(1))                     # lowest set bit
        tz = np.log2(low.astype(np.float64)).astype(np.int64)
        code = e * 64 + tz
    else:
        code = e * (1 << lowbits) + (sig & np.uint64((1 << lowbits) - 1)).astype(np.int64)
    return np.where(a == 0.0, _ZERO_CODE, code).astype(np.int64)


def describe_code(code: int, feature: str = "ulp", *, emin: int = -40, lowbits: int = 4) -> str:
    """A readable form of a feature code."""
    if code == _ZERO_CODE:
        return "y = 0"
    if feature == "ulp":
        e, tz = divmod(int(code), 64)
        return f"exponent {e + emin}, {tz} trailing zero bits"
    e, low = divmod(int(code), 1 << lowbits)
    return f"exponent {e + emin}, low bits {low:0{lowbits}b}"


class BitFeatures:
    """The post-processed mechanism ``float_features ∘ mechanism`` (see
    [`ltheory.privacy.adapters.floatbits`][ltheory.privacy.adapters.floatbits]): same
    datasets, neighbour relation and claim as ``mechanism``; outputs are integer feature codes."""

    def __init__(self, mechanism: Any, feature: str = "ulp", *, emin: int = -40, emax: int = 8,
                 lowbits: int = 4) -> None:
        if not (hasattr(mechanism, "sample") or callable(mechanism)):
            raise InvalidInputError("BitFeatures wraps a mechanism (callable or with .sample)")
        float_features(np.zeros(1), feature, emin=emin, emax=emax, lowbits=lowbits)
        self.inner = mechanism
        self.feature, self.emin, self.emax, self.lowbits = feature, emin, emax, lowbits
        self.name = f"{getattr(mechanism, 'name', type(mechanism).__name__)} [bits:{feature}]"
        for attr in ("neighbour_relation", "sensitivity", "epsilon", "delta"):
            if hasattr(mechanism, attr):
                setattr(self, attr, getattr(mechanism, attr))

    @property
    def claim(self) -> tuple[float, float]:
        return self.inner.claim

    def are_neighbours(self, d0: Any, d1: Any) -> bool:
        if hasattr(self.inner, "are_neighbours"):
            return bool(self.inner.are_neighbours(d0, d1))
        from ltheory.privacy.mechanisms import are_neighbours
        return are_neighbours(d0, d1, getattr(self.inner, "neighbour_relation", "substitution"),
                              float(getattr(self.inner, "sensitivity", 1.0)))

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        if hasattr(self.inner, "sample"):
            raw = self.inner.sample(dataset, n, rng)
        else:
            raw = [self.inner(dataset, rng) for _ in range(int(n))]
        return float_features(raw, self.feature, emin=self.emin, emax=self.emax,
                              lowbits=self.lowbits)

    def __call__(self, dataset: Any, rng: np.random.Generator) -> int:
        return int(self.sample(dataset, 1, rng)[0])

    def describe(self, code: int) -> str:
        return describe_code(code, self.feature, emin=self.emin, lowbits=self.lowbits)

    def __repr__(self) -> str:
        return f"BitFeatures({self.inner!r}, feature={self.feature!r})"
