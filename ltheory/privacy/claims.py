"""Privacy claims as objects: each gives its privacy profile δ(ε).

A mechanism M is (ε, δ)-DP at a neighbouring pair (D, D') when the hockey-stick divergence
``H_{e^ε}(M(D) ‖ M(D')) = sup_E P[M(D) ∈ E] − e^ε P[M(D') ∈ E]`` is at most δ in both
directions.  The *privacy profile* of a claim is the function ``ε ↦ δ(ε)`` it allows (Balle,
Barthe & Gaboardi 2018, "Privacy amplification by subsampling", Definition 3): a claim holds iff
the mechanism's hockey-stick divergence lies below the profile at every ε ≥ 0.  Every claim
here is a [`PrivacyClaim`][ltheory.PrivacyClaim] with

* ``delta_at(epsilon)`` — the profile, vectorised over an array of ε ≥ 0, non-increasing, in [0, 1];
* ``epsilon_at(delta)`` — the smallest ε with ``delta_at(ε) ≤ delta`` (the (ε, δ) a claim
  is usually quoted at);
* ``to_json()`` — a JSON-able description;
* ``tradeoff(alpha)`` — the trade-off function f(α) (the least type-II error at type-I error α)
  that the profile implies (Dong, Roth & Su 2022, Proposition 2.12), exact where a closed form
  exists ([`GDP`][ltheory.GDP], [`ApproxDP`][ltheory.ApproxDP]).

The claims: [`PureDP`][ltheory.PureDP], [`ApproxDP`][ltheory.ApproxDP], [`ZCDP`][ltheory.ZCDP] (Bun
& Steinke 2016),
[`RDP`][ltheory.RDP] (Mironov 2017), [`GDP`][ltheory.GDP] (Dong, Roth & Su 2022) and
[`ProfileClaim`][ltheory.ProfileClaim] (a
user's δ(ε) or a dp-accounting accountant, PLD or RDP).

**Soundness direction.**  The profile of a claim must be an *upper* bound on the hockey-stick
divergence of every mechanism that satisfies the claim: then a certified point above it proves
the claim false.  Where a conversion is not tight (zCDP and Rényi DP to (ε, δ)) we use the
tightest published valid one and say so; where a curve is read off a grid (trade-off functions,
accountants) it is rounded in the permissive direction (a larger δ, a smaller f).

[`as_claim`][ltheory.as_claim] turns what a user hands the auditor into a claim: a claim object, a
plain
number ε (pure DP) or a pair ``(ε, δ)``.

Examples:
    >>> c = ApproxDP(1.0, 1e-5)
    >>> float(c.delta_at(1.0)), float(c.delta_at(2.0))
    (1e-05, 1e-05)
    >>> round(float(c.delta_at(0.0)), 4)          # implied at ε' = 0: δ + (1 − δ)(e − 1)/(e + 1)
    0.4621
    >>> as_claim((1.0, 1e-5)) == c
    True
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr, ndtr, ndtri

from ltheory.errors import InvalidInputError
from ltheory.validation import check_delta, check_epsilon

__all__ = ["GDP", "RDP", "ZCDP", "ApproxDP", "PrivacyClaim", "ProfileClaim", "PureDP", "as_claim",
           "checked_delta", "claim_from_json"]


def _alphas(alpha: Any) -> np.ndarray:
    """Type-I errors α as a float array in [0, 1] (a clear error otherwise)."""
    try:
        a = np.asarray(alpha, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(f"alpha (a type-I error) must be a number or an array of numbers "
                                f"in [0, 1], got {alpha!r}") from None
    if np.any(np.isnan(a)) or np.any(a < 0) or np.any(a > 1):
        raise InvalidInputError(f"alpha (a type-I error) must be in [0, 1], got {alpha!r}")
    return a


def _tradeoff_from_profile(a: np.ndarray, eps: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """``sup_i max(0, 1 − δ_i − e^{ε_i} α, e^{−ε_i}(1 − δ_i − α))`` over the points (ε_i, δ_i)
    (Dong, Roth & Su 2022, Proposition 2.12), vectorised over α, in chunks."""
    flat = a.ravel()
    out = np.zeros(flat.shape)
    e, d = np.exp(eps)[None, :], delta[None, :]
    for i in range(0, flat.size, 256):
        x = flat[i:i + 256, None]
        f = np.maximum(1 - d - e * x, (1 - d - x) / e)
        out[i:i + 256] = np.maximum(f.max(axis=1), 0.0)
    return out.reshape(a.shape)


def _epsilons(epsilon: Any) -> np.ndarray:
    """ε values as a float array, each ≥ 0 (a clear error otherwise)."""
    try:
        e = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(f"epsilon must be a number or an array of numbers >= 0, "
                                f"got {epsilon!r}") from None
    if np.any(np.isnan(e)) or np.any(e < 0):
        raise InvalidInputError(f"epsilon must be >= 0 (the profile is defined on ε >= 0), "
                                f"got {epsilon!r}")
    return e


#: the end of the bracket search of ``epsilon_at`` (the largest power of two a float holds)
_EPSILON_CAP = 2.0 ** 1023


def _smallest_epsilon(log_delta: Callable[[float], float], delta: float, start: float = 1.0,
                      xtol: float = 1e-12) -> float:
    """The smallest ε with ``log_delta(ε) ≤ log(delta)`` for a non-increasing profile above
    ``delta`` at 0: ``inf`` if it stays above up to `_EPSILON_CAP`.  The bracket
    [lo, hi] grows from ``start`` by factors 2, 4, 16, … and is narrowed to a factor 2 by
    bisection on log ε; then Brent's method on ``log δ − log delta`` (absolute
    tolerance ``xtol`` plus scipy's relative one), or bisection on the predicate where
    ``log δ`` is −inf at hi or ``delta`` is 0 (a profile that reaches 0 exactly)."""
    target = math.log(delta) if delta > 0 else -math.inf
    lo, hi = 0.0, float(start)
    step = 1.0                         # galloping: hi grows by 2, 2², 2⁴, … (≤ 11 steps to 2^1023)
    while True:
        v = log_delta(hi)
        if v <= target:
            break
        if hi >= _EPSILON_CAP:
            return math.inf
        lo, hi = hi, min(hi * 2.0 ** step, _EPSILON_CAP)
        step *= 2
    if lo == 0.0 and math.isfinite(target) and math.isfinite(hi):
        # reached at the start: gallop down too, so that a tiny ε (GDP at μ = 10⁻¹², ε ~ 10⁻¹¹)
        # is bracketed within a factor 2 and found to relative, not absolute, precision
        step = 1.0
        while hi > 1e-300:
            nxt = max(hi * 2.0 ** -min(step, 2048.0), 1e-300)
            vn = log_delta(nxt)
            if vn > target:
                lo = nxt
                break
            hi, v = nxt, vn
            step *= 2
    while lo > 0 and hi > 2 * lo:      # narrow to a factor 2 by bisection on log ε
        mid = lo * math.sqrt(hi / lo)
        vm = log_delta(mid)
        if vm <= target:
            hi, v = mid, vm
        else:
            lo = mid
    if math.isfinite(target) and math.isfinite(v):
        if v == target:
            return hi
        return float(brentq(lambda e: log_delta(e) - target, lo, hi,
                            xtol=min(xtol, 1e-15 * hi) if lo > 0 else xtol))
    while hi - lo > xtol + 4 * np.finfo(float).eps * hi:
        mid = lo + (hi - lo) / 2
        if not lo < mid < hi:
            break
        if log_delta(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def checked_delta(claim: Any, epsilon: Any) -> np.ndarray:
    """``claim.delta_at(epsilon)`` checked to be a profile's values: numbers in [0, 1] (a
    rounding error of 1e-12 is clipped), of the shape of ``epsilon`` (a scalar is broadcast).
    A claim written by a user that returns anything else — a wrong shape, a string, NaN, or
    raises — is an [`InvalidInputError`][ltheory.InvalidInputError] naming the claim, never a wrong
    answer."""
    e = np.asarray(epsilon, dtype=float)
    who = _claim_name(claim)
    try:
        d = np.asarray(claim.delta_at(e), dtype=float)
        if d.shape != e.shape:
            d = np.broadcast_to(d, e.shape) if d.ndim == 0 else None
    except InvalidInputError:
        raise
    except Exception as err:  # noqa: BLE001 - the user's delta_at failed: say whose
        raise InvalidInputError(f"the claim {who}: delta_at failed: {type(err).__name__}: "
                                f"{err}") from None
    if d is None:
        raise InvalidInputError(f"the claim {who}: delta_at on {e.size} value(s) of ε must "
                                f"return as many δ, got shape "
                                f"{np.shape(claim.delta_at(e))} for ε of shape {e.shape}")
    if np.any(~np.isfinite(d)) or np.any(d < -1e-12) or np.any(d > 1 + 1e-12):
        i = int(np.argmax((~np.isfinite(d) | (d < -1e-12) | (d > 1 + 1e-12)).ravel()))
        raise InvalidInputError(f"the claim {who} is not a privacy profile: delta_at("
                                f"{float(e.ravel()[i]):g}) = {float(d.ravel()[i])!r} is not in "
                                f"[0, 1]")
    return np.clip(d, 0.0, 1.0)


def _claim_name(claim: Any) -> str:
    """A claim's name for messages: its str() when the class defines one, else its type."""
    if type(claim).__str__ is not object.__str__ or type(claim).__repr__ is not object.__repr__:
        try:
            return str(claim)
        except Exception:  # noqa: BLE001 - a user's __str__ that fails: fall back
            pass
    return type(claim).__name__


class PrivacyClaim(ABC):
    """A privacy claim, read through its privacy profile δ(ε) (see
    [`ltheory.privacy.claims`][ltheory.privacy.claims])."""

    @abstractmethod
    def delta_at(self, epsilon: Any) -> np.ndarray:
        """The profile δ(ε) at each ε ≥ 0 (an array of the shape of ``epsilon``)."""

    def epsilon_at(self, delta: float) -> float:
        """The smallest ε ≥ 0 with ``delta_at(ε) ≤ delta`` (``inf`` if there is none below
        2^1023): a bracket doubled from ε = 1, then a root search on ``log δ(ε)`` (Brent's
        method; bisection where the profile reaches 0 exactly), so any ε a float holds is
        found, with ``delta`` down to the smallest positive float."""
        d = check_delta(delta)
        if float(checked_delta(self, 0.0)) <= d:
            return 0.0
        return _smallest_epsilon(self._log_delta, d)

    def _log_delta(self, epsilon: float) -> float:
        """``log δ(ε)`` at one ε (``-inf`` where δ(ε) = 0); claims with a log-space form of their
        profile override it (no underflow below the smallest float)."""
        v = float(checked_delta(self, epsilon))
        return math.log(v) if v > 0 else -math.inf

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """A JSON-able description ``{"kind": ..., parameters...}``."""

    def tradeoff(self, alpha: Any) -> np.ndarray:
        """The trade-off function the profile implies (Dong, Roth & Su 2022, Proposition 2.12):
        ``f(α) = sup_{ε ≥ 0} max(0, 1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α))`` — a mechanism is
        (ε, δ(ε))-DP for every ε ≥ 0 iff it is f-DP.  Here the sup runs over a grid of ε (from 0
        to where δ(ε) < 1e-12, 4,001 points), so the value is at most the exact f: a permissive
        rounding (a smaller f is a weaker claim).  Subclasses with a closed form override it."""
        a = _alphas(alpha)
        hi = self.epsilon_at(1e-12)
        hi = 50.0 if not math.isfinite(hi) else max(min(hi, 50.0), 1e-3)
        eps = np.linspace(0.0, hi, 4001)
        return _tradeoff_from_profile(a, eps, checked_delta(self, eps))


@dataclass(frozen=True)
class ApproxDP(PrivacyClaim):
    """(ε, δ)-differential privacy (Dwork, McSherry, Nissim & Smith 2006; Dwork, Kenthapadi,
    McSherry, Mironov & Naor 2006).

    Its profile is the largest hockey-stick divergence of any (ε, δ)-DP pair: δ for ε' ≥ ε and
    ``δ + (1 − δ)(e^ε − e^ε')/(1 + e^ε)`` for ε' < ε, attained by the four-point pair of
    Kairouz, Oh & Viswanath 2015 (Theorem 2.4: every (ε, δ)-DP mechanism is a post-processing
    of it)."""

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, "epsilon"))
        object.__setattr__(self, "delta", check_delta(self.delta, "delta"))

    def delta_at(self, epsilon: Any) -> np.ndarray:
        # (e^ε − e^ε')/(1 + e^ε) = −expm1(ε' − ε)/(1 + e^{−ε}): no overflow at any ε
        e = _epsilons(epsilon)
        frac = -np.expm1(np.minimum(e, self.epsilon) - self.epsilon) / (1 + math.exp(-self.epsilon))
        below = self.delta + (1 - self.delta) * frac
        return np.where(e >= self.epsilon, self.delta, below)

    def epsilon_at(self, delta: float) -> float:
        d = check_delta(delta)
        if d >= self.delta:
            # invert the part below ε: e^ε' = e^ε (1 − (d − δ)(1 + e^{−ε})/(1 − δ))
            x = (d - self.delta) * (1 + math.exp(-self.epsilon)) / (1 - self.delta)
            return max(0.0, self.epsilon + math.log1p(-x)) if x < 1 else 0.0
        return math.inf

    def to_json(self) -> dict[str, Any]:
        return {"kind": "approx_dp", "epsilon": self.epsilon, "delta": self.delta}

    def tradeoff(self, alpha: Any) -> np.ndarray:
        """Exact: ``f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))`` (Dong, Roth & Su
        2022, equation (5); Kairouz, Oh & Viswanath 2015)."""
        a = _alphas(alpha)
        with np.errstate(over="ignore"):
            e = np.exp(self.epsilon)             # inf past ε ≈ 709: then f = 1 − δ at α = 0 only
            t1 = np.where(a > 0, 1 - self.delta - e * np.where(a > 0, a, 1.0), 1 - self.delta)
        return np.maximum(0.0, np.maximum(t1, (1 - self.delta - a) / e))

    def __str__(self) -> str:
        return f"({self.epsilon:g}, {self.delta:g})-DP"


class PureDP(ApproxDP):
    """ε-differential privacy: [`ApproxDP`][ltheory.ApproxDP] with δ = 0."""

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon, 0.0)

    def to_json(self) -> dict[str, Any]:
        return {"kind": "pure_dp", "epsilon": self.epsilon}

    def __str__(self) -> str:
        return f"{self.epsilon:g}-DP"


# --------------------------------------------------------------------------- Rényi DP and zCDP
#: orders α − 1 on a log grid for the continuous minimisation over α (zCDP, RDP from a callable)
_ORDER_GRID = 1.0 + np.logspace(-6, 7, 1301)


def _rdp_log_delta(eps: np.ndarray, alpha: np.ndarray, rdp: np.ndarray) -> np.ndarray:
    """log δ_α(ε) of the Rényi-to-(ε, δ) conversion of Canonne, Kamath & Steinke 2020
    (Proposition 12): an (α, ε_α)-RDP mechanism is (ε, δ)-DP for
    ``δ = exp((α − 1)(ε_α − ε)) / α · (1 − 1/α)^{α − 1}``; broadcast over eps, alpha, rdp."""
    with np.errstate(invalid="ignore", over="ignore"):
        v = (alpha - 1) * (rdp - eps) - np.log(alpha) + (alpha - 1) * np.log1p(-1 / alpha)
    return np.where(np.isnan(v), np.inf, v)


def _golden_min(fun: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray,
                iterations: int = 80) -> np.ndarray:
    """Vectorised golden-section search of a unimodal ``fun`` on [lo, hi] (elementwise, one new
    evaluation per iteration): the smallest value seen (every value is a valid bound here, so
    the result is sound whatever the shape of ``fun``)."""
    g = (math.sqrt(5) - 1) / 2
    a, b = lo.copy(), hi.copy()
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = fun(c), fun(d)
    best = np.minimum(fc, fd)
    for _ in range(iterations):
        left = fc < fd                     # the minimum is in [a, d]: drop (d, b]
        a, b = np.where(left, a, c), np.where(left, d, b)
        x = np.where(left, b - g * (b - a), a + g * (b - a))
        fx = fun(x)
        c, d, fc, fd = (np.where(left, x, d), np.where(left, c, x),
                        np.where(left, fx, fd), np.where(left, fc, fx))
        best = np.minimum(best, fx)
    return best


class _RenyiClaim(PrivacyClaim):
    """A claim stated as Rényi-DP bounds ε_α at orders α > 1, read as (ε, δ) through
    Canonne, Kamath & Steinke 2020, Proposition 12 (see `_rdp_log_delta`) minimised over
    the orders.  That conversion is valid for every α, so the minimum over any set of orders is
    a sound profile; it improves on Mironov 2017, Proposition 3 (``δ = e^{(α−1)(ε_α−ε)}``) by
    the factor ``(1 − 1/α)^{α−1}/α``, and it is the conversion OpenDP and dp-accounting use.
    Asoodeh, Liao, Calmon, Kosut & Sankar 2021 derive the optimal conversion from one order,
    tighter for some ε and computed numerically; it is not used here.  The profile never
    understates what the claim allows, so a certified point above it disproves the Rényi
    claim; a mechanism above the optimal conversion but below this one would go unnoticed."""

    continuous: bool = True

    def _rdp(self, alpha: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _orders(self) -> np.ndarray:
        return _ORDER_GRID

    def delta_at(self, epsilon: Any) -> np.ndarray:
        return np.exp(self._log_delta_at(epsilon))

    def _log_delta(self, epsilon: float) -> float:
        return float(self._log_delta_at(epsilon))

    def epsilon_at(self, delta: float) -> float:
        d = check_delta(delta)
        if d == 0:                 # the conversion's δ is positive at every finite ε
            return math.inf
        return super().epsilon_at(d)

    def _log_delta_at(self, epsilon: Any) -> np.ndarray:
        """``log δ(ε)`` of the profile (≤ 0), vectorised: no underflow at tiny δ."""
        e = _epsilons(epsilon)
        flat = e.ravel()
        orders = self._orders()
        rdp = self._rdp(orders)
        out = np.empty(flat.shape)
        for i in range(0, flat.size, 512):
            x = flat[i:i + 512, None]
            logd = _rdp_log_delta(x, orders[None, :], rdp[None, :])
            k = np.argmin(logd, axis=1)
            best = logd[np.arange(len(k)), k]
            if self.continuous:
                lo = orders[np.maximum(k - 1, 0)]
                hi = orders[np.minimum(k + 1, len(orders) - 1)]
                lo = np.where(k == 0, 1.0 + 1e-12, lo)

                def fun(al: np.ndarray, x: np.ndarray = x[:, 0]) -> np.ndarray:
                    return _rdp_log_delta(x, al, self._rdp(al))

                best = np.minimum(best, _golden_min(fun, lo, hi))
            out[i:i + 512] = np.minimum(best, 0.0)
        return out.reshape(e.shape)


def _positive(value: Any, name: str, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be {what}, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(v) or v <= 0:
        raise InvalidInputError(f"{name} must be {what}, got {value!r}")
    return v


class ZCDP(_RenyiClaim):
    """ρ-zero-concentrated DP (Bun & Steinke 2016, Definition 1.1): Rényi DP of order α with
    ε_α = αρ at every α > 1.

    Profile: the Rényi conversion of Canonne, Kamath & Steinke 2020 (Proposition 12, the
    zCDP form is their Corollary 13), ``δ(ε) = inf_{α>1} e^{(α−1)(αρ−ε)} / α · (1 − 1/α)^{α−1}``,
    minimised numerically over α (a log grid of orders refined by golden-section search; the
    exponent is convex in α, and every α gives a valid bound).  It is not the exact profile of
    the Gaussian with μ = √(2ρ) (``GDP(sqrt(2 * rho))``, which is ρ-zCDP and lies below this
    curve): zCDP constrains only Rényi divergences, and the profile of a ρ-zCDP claim must cover
    every ρ-zCDP mechanism, so it is the conversion, not the Gaussian's curve.  OpenDP's
    ``make_zCDP_to_approxDP`` uses the same conversion.

    Examples:
        >>> round(ZCDP(0.5).epsilon_at(1e-5), 3)     # OpenDP's make_zCDP_to_approxDP: 4.728
        4.728
        >>> round(GDP(1.0).epsilon_at(1e-5), 3)      # the 0.5-zCDP Gaussian's own curve
        4.377
    """

    def __init__(self, rho: float) -> None:
        self.rho = _positive(rho, "rho", "a finite number > 0 (the zCDP parameter ρ)")

    def _rdp(self, alpha: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):           # αρ = inf past 1.8e308: no constraint there
            return alpha * self.rho

    def to_json(self) -> dict[str, Any]:
        return {"kind": "zcdp", "rho": self.rho}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ZCDP) and other.rho == self.rho

    def __hash__(self) -> int:
        return hash(("zcdp", self.rho))

    def __repr__(self) -> str:
        return f"ZCDP(rho={self.rho!r})"

    def __str__(self) -> str:
        return f"{self.rho:g}-zCDP"


class RDP(_RenyiClaim):
    """Rényi differential privacy (Mironov 2017, Definition 4): ``D_α(M(D) ‖ M(D')) ≤ ε_α`` at
    each stated order α > 1.  Given as ``{α: ε_α}`` (the curve is known at those orders only,
    as from an RDP accountant) or as a callable ``α ↦ ε_α`` (known at every order > 1).

    Profile: Canonne, Kamath & Steinke 2020, Proposition 12, minimised over the given orders
    (exactly), or over all orders for a callable (log grid + golden-section search; with a true
    Rényi curve the exponent is convex in α because (α − 1)·D_α is convex, van Erven &
    Harremoës 2014, Corollary 2).  ``epsilon_at(δ)`` over given orders is the exact inverse,
    ``min_α ε_α + (log(1/δ) + (α−1) log(1 − 1/α) − log α)/(α − 1)``.

    Examples:
        >>> g = RDP({a: a / 2 for a in (2, 4, 8, 16, 32, 64)})      # the Gaussian with σ = 1
        >>> round(g.epsilon_at(1e-5), 3)       # over all orders (ZCDP(0.5)): 4.728
        5.088
    """

    def __init__(self, curve: Mapping[Any, Any] | Callable[[Any], Any]) -> None:
        #: ε_∞ when the order ∞ is given (max-divergence: pure ε_∞-DP), else None
        self.pure: float | None = None
        if isinstance(curve, Mapping):
            if not curve:
                raise InvalidInputError("RDP needs at least one order: {alpha: epsilon_alpha}")
            items = []
            for a, v in curve.items():
                al = _number_gt1(a)
                ev = _rdp_value(v, al)
                if al == math.inf:
                    self.pure = ev if self.pure is None else min(self.pure, ev)
                else:
                    items.append((al, ev))
            items.sort()
            # D_α is non-decreasing in α (van Erven & Harremoës 2014, Theorem 3): ε_∞ bounds
            # every finite order too
            cap = math.inf if self.pure is None else self.pure
            self.orders = np.array([a for a, _ in items], dtype=float)
            self.values = np.array([min(v, cap) for _, v in items], dtype=float)
            self.function: Callable[[Any], Any] | None = None
            self.continuous = False
        elif callable(curve):
            self.function = curve
            self.orders = self.values = None  # type: ignore[assignment]
            self.continuous = True
            self._rdp(np.array([1.5, 2.0, 8.0, 64.0, 1e3, 1e6]))   # a clear error if malformed
        else:
            raise InvalidInputError(f"RDP needs a dict {{alpha: epsilon_alpha}} with orders > 1 "
                                    f"or a callable alpha -> epsilon_alpha, got {curve!r}")

    def _orders(self) -> np.ndarray:
        return self.orders if self.function is None else _ORDER_GRID

    def _rdp(self, alpha: np.ndarray) -> np.ndarray:
        if self.function is None:
            return self.values
        f = self.function
        name = getattr(f, "__name__", "curve")
        try:
            v = np.asarray(f(alpha), dtype=float)
            if v.shape != alpha.shape:
                raise ValueError
        except Exception:  # noqa: BLE001 - a scalar-only callable: evaluate pointwise
            try:
                v = np.array([float(f(float(a))) for a in alpha.ravel()]).reshape(alpha.shape)
            except Exception as err:  # noqa: BLE001 - the user's callable failed: say so
                raise InvalidInputError(f"RDP: the callable {name} must return a number ε_α >= 0 "
                                        f"at each order α > 1; it failed: "
                                        f"{type(err).__name__}: {err}") from None
        bad = np.isnan(v) | (v < 0)
        if np.any(bad):
            i = int(np.argmax(bad.ravel()))
            raise InvalidInputError(f"RDP: the callable {name} must return ε_α >= 0 at every "
                                    f"order α > 1, got {float(v.ravel()[i])!r} at α = "
                                    f"{alpha.ravel()[i]:g}")
        return v

    def _log_delta_at(self, epsilon: Any) -> np.ndarray:
        if self.function is None and len(self.orders) == 0:        # the order ∞ alone
            e = _epsilons(epsilon)
            out = np.zeros(e.shape)
        else:
            out = super()._log_delta_at(epsilon)
        if self.pure is not None:
            with np.errstate(divide="ignore"):
                out = np.minimum(out, np.log(PureDP(self.pure).delta_at(epsilon)))
        return out

    def epsilon_at(self, delta: float) -> float:
        d = check_delta(delta)
        pure = math.inf if self.pure is None else PureDP(self.pure).epsilon_at(d)
        if self.function is not None:
            return min(pure, super().epsilon_at(d))
        if d == 0 or len(self.orders) == 0:
            return pure
        a = self.orders
        e = self.values + (-math.log(d) + (a - 1) * np.log1p(-1 / a) - np.log(a)) / (a - 1)
        return min(pure, max(0.0, float(np.min(e))))

    def to_json(self) -> dict[str, Any]:
        if self.function is None:
            # the order ∞ is written "inf" (JSON has no infinity); claim_from_json reads it back
            orders: list[Any] = self.orders.tolist()
            eps: list[Any] = self.values.tolist()
            if self.pure is not None:
                orders, eps = [*orders, "inf"], [*eps, self.pure]
            return {"kind": "rdp", "orders": orders, "epsilons": eps}
        return {"kind": "rdp", "function": getattr(self.function, "__name__", repr(self.function))}

    def __repr__(self) -> str:
        if self.function is None:
            d = dict(zip(self.orders.tolist(), self.values.tolist(), strict=True))
            if self.pure is not None:
                d[math.inf] = self.pure
            return f"RDP({d})"
        return f"RDP({self.function!r})"

    def __str__(self) -> str:
        if self.function is None:
            n = len(self.orders) + (self.pure is not None)
            return f"RDP at {n} order{'s' if n != 1 else ''}"
        return f"RDP({getattr(self.function, '__name__', 'curve')})"


def _number_gt1(a: Any) -> float:
    """An order α > 1; ∞ (``math.inf`` or the string "inf") is the max-divergence order."""
    if isinstance(a, str) and a.strip().lower() in ("inf", "infinity", "+inf"):
        return math.inf
    try:
        al = float(a)
    except (TypeError, ValueError):
        raise InvalidInputError(f"RDP orders must be numbers > 1, got {a!r}") from None
    if isinstance(a, bool) or not (al > 1) or math.isnan(al):
        raise InvalidInputError(f"RDP orders must be > 1 (Rényi DP is defined for α > 1), got "
                                f"order {a!r}")
    return al


def _rdp_value(v: Any, alpha: float) -> float:
    try:
        ev = float(v)
    except (TypeError, ValueError):
        raise InvalidInputError(f"RDP: ε_α at order {alpha:g} must be a number >= 0, "
                                f"got {v!r}") from None
    if math.isnan(ev) or ev < 0:
        raise InvalidInputError(f"RDP: ε_α at order {alpha:g} must be >= 0, got {v!r}")
    if alpha == math.inf and ev == math.inf:
        raise InvalidInputError("RDP: ε_∞ = inf states nothing; leave the order ∞ out")
    return ev


# --------------------------------------------------------------------------- Gaussian DP
#: 16-point Gauss–Legendre nodes and weights on [−1, 1] (``GDP._small_mu_ratio``)
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)


class GDP(PrivacyClaim):
    """μ-Gaussian differential privacy (Dong, Roth & Su 2022, Definition 2.6): the trade-off
    function is at least ``G_μ(α) = Φ(Φ^{-1}(1 − α) − μ)``, that of N(0, 1) against N(μ, 1).

    Profile (exact; Corollary 2.13): ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``; the
    Gaussian mechanism with noise σ on a query of sensitivity Δ is exactly (Δ/σ)-GDP, so this
    is its exact privacy profile (Balle & Wang 2018, Theorem 8).

    Examples:
        >>> round(float(GDP(1.0).delta_at(0.0)), 4)          # 2Φ(1/2) − 1
        0.3829
        >>> round(float(GDP(1.0).tradeoff(0.05)), 4)
        0.7405
    """

    def __init__(self, mu: float) -> None:
        self.mu = _positive(mu, "mu", "a finite number > 0 (the GDP parameter μ)")

    def delta_at(self, epsilon: Any) -> np.ndarray:
        # with a = μ/2 − ε/μ and b = μ/2 + ε/μ, ε = (b² − a²)/2, so
        # e^ε Φ(−b) = e^{−a²/2} · erfcx(b/√2)/2 exactly: no e^ε, no cancellation at large μ;
        # for μ ≤ 1, δ = Φ(a)(1 − e^r) with r from _small_mu_ratio (no cancellation at small μ)
        e = _epsilons(epsilon)
        m = self.mu
        with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
            a, b = m / 2 - e / m, m / 2 + e / m
            if m <= 1.0:
                out = ndtr(a) * -np.expm1(self._small_mu_ratio(e))
            else:
                out = ndtr(a) - np.exp(-a * a / 2) * erfcx(b / math.sqrt(2)) / 2
        return np.clip(np.nan_to_num(out, nan=0.0), 0.0, 1.0)

    def _small_mu_ratio(self, epsilon: Any) -> np.ndarray:
        """``r = log(e^ε Φ(−b) / Φ(a))`` for μ ≤ 1, as ``∫_{−b}^{a} (−x − φ(x)/Φ(x)) dx``
        (the −x part integrates to (b² − a²)/2 = ε), with φ/Φ = √(2/π)/erfcx(−x/√2) and
        16-point Gauss–Legendre on the interval of length μ centred at −ε/μ: the subtraction
        that loses every digit of δ at μ = 10⁻¹² in the closed form is done inside the
        integrand, where it costs ~x²·10⁻¹⁶ relative.  Against 60-digit mpmath, δ(ε) is within
        3·10⁻¹³ relative for μ ∈ [10⁻³⁰⁰, 1] and ε/μ ≤ 10⁵ (wherever δ > 10⁻³⁰⁰)."""
        e = np.asarray(epsilon, dtype=float)
        x = -(e / self.mu)[..., None] + (self.mu / 2) * _GL_NODES
        with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
            g = -x - math.sqrt(2 / math.pi) / erfcx(-x / math.sqrt(2))
        return (self.mu / 2) * (g @ _GL_WEIGHTS)

    def epsilon_at(self, delta: float) -> float:
        d = check_delta(delta)
        if d == 0:                 # the profile is positive at every finite ε
            return math.inf
        if float(self.delta_at(0.0)) <= d:
            return 0.0
        return _smallest_epsilon(self._log_delta, d, start=max(1.0, self.mu * (self.mu / 2 + 10.0)),
                                 xtol=1e-13)

    def _log_delta(self, epsilon: float) -> float:
        """``log δ(ε) = log Φ(a) + log(1 − e^r)`` with a = μ/2 − ε/μ, b = μ/2 + ε/μ and
        ``r = log(e^ε Φ(−b)) − log Φ(a) = −a²/2 + log(erfcx(b/√2)/2) − log Φ(a)`` (as ε = (b² −
        a²)/2): in log space throughout, and no term of size ε, so no cancellation at any μ."""
        m, e = self.mu, float(epsilon)
        a, b = m / 2 - e / m, m / 2 + e / m
        la = float(log_ndtr(a))
        if la == -math.inf:
            return -math.inf
        if m <= 1.0:
            r = float(self._small_mu_ratio(e))
            return la + math.log(-math.expm1(r)) if r < 0 else -math.inf
        x = float(erfcx(b / math.sqrt(2)))          # 0 only where b/√2 overflows its 1/(b√π)
        r = (-a * a / 2 if abs(a) < 1e154 else -math.inf) \
            + (math.log(x / 2) if x > 0 else -math.inf) - la
        return la + math.log(-math.expm1(r)) if r < 0 else -math.inf

    def tradeoff(self, alpha: Any) -> np.ndarray:
        """Exact: ``G_μ(α) = Φ(Φ^{-1}(1 − α) − μ)`` (Dong, Roth & Su 2022, Definition 2.6)."""
        a = _alphas(alpha)
        return ndtr(ndtri(1 - a) - self.mu)

    def to_json(self) -> dict[str, Any]:
        return {"kind": "gdp", "mu": self.mu}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GDP) and other.mu == self.mu

    def __hash__(self) -> int:
        return hash(("gdp", self.mu))

    def __repr__(self) -> str:
        return f"GDP(mu={self.mu!r})"

    def __str__(self) -> str:
        return f"{self.mu:g}-GDP"


# --------------------------------------------------------------------------- any profile
#: where a user's profile is checked: ε on [0, 20] (step 0.05) and a few larger values
_CHECK_GRID = np.concatenate([np.linspace(0.0, 20.0, 401), [25.0, 30.0, 40.0, 50.0]])


def _check_profile(eps: np.ndarray, delta: np.ndarray, what: str) -> None:
    """A clear error unless δ on the (sorted) ε points is finite, in [0, 1], non-increasing."""
    bad = ~np.isfinite(delta) | (delta < 0) | (delta > 1)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise InvalidInputError(
            f"ProfileClaim: {what} is not a privacy profile: δ({eps[i]:g}) = {delta[i]!r} is "
            f"not in [0, 1]")
    order = np.argsort(eps, kind="stable")
    e, d = eps[order], delta[order]
    up = np.diff(d) > 1e-12 + 1e-9 * np.abs(d[:-1])
    if np.any(up):
        i = int(np.argmax(up))
        raise InvalidInputError(
            f"ProfileClaim: {what} is not a privacy profile: it increases in ε, δ({e[i]:g}) = "
            f"{d[i]:.6g} < δ({e[i + 1]:g}) = {d[i + 1]:.6g} (a profile is non-increasing)")


class ProfileClaim(PrivacyClaim):
    """A claim given by its privacy profile δ(ε) directly: a user's callable (or another claim,
    read through its ``delta_at``), or a dp-accounting accountant with events already composed
    (``dp_accounting.pld.PLDAccountant``, ``dp_accounting.rdp.RdpAccountant``: anything with
    ``get_delta(target_epsilon)``; its ``get_epsilon(target_delta)`` is used for ``epsilon_at``
    when present).

    * A callable is checked on a grid of ε in [0, 50] (finite, in [0, 1], non-increasing) and at
      every call; it is called with an array of ε when it accepts one, pointwise otherwise.
    * An accountant is read once on a grid of ``grid_size`` ε from 0 to its ε at δ = 1e-12
      (capped at 100), and interpolated *conservatively*: δ(ε) is the accountant's δ at the
      largest grid point ≤ ε (the profile is non-increasing, so this is ≥ the accountant's own
      value; the PLD accountant is itself pessimistic, Doroshenko et al. 2022, and the RDP
      accountant's δ is the Canonne–Kamath–Steinke conversion of its orders).  ``exact=True``
      asks the accountant at each ε instead (slower, no grid).

    Examples:
        >>> ProfileClaim(lambda e: np.exp(-e) / 2).delta_at([0.0, 1.0]).round(4).tolist()
        [0.5, 0.1839]
    """

    def __init__(self, profile: Any, *, name: str | None = None, grid_size: int = 2001,
                 exact: bool = False) -> None:
        grid_size = _grid_size(grid_size)
        if isinstance(profile, PrivacyClaim):      # another claim: its profile, by name
            name = name or str(profile)
            profile = profile.delta_at
        get_delta = getattr(profile, "get_delta", None)
        self.source = profile
        self.exact = bool(exact)
        if get_delta is not None or _looks_like_accountant(profile):
            if not callable(get_delta):
                raise InvalidInputError(
                    f"ProfileClaim: {type(profile).__name__} has no get_delta(target_epsilon) "
                    f"method; pass an accountant with the events composed (a dp_accounting "
                    f"PLDAccountant or RdpAccountant after accountant.compose(event))")
            self.kind = "accountant"
            self.name = name or type(profile).__name__
            self._build_grid(grid_size)
        elif callable(profile):
            self.kind = "callable"
            self.name = name or getattr(profile, "__name__", "profile")
            _check_profile(_CHECK_GRID, self._call(_CHECK_GRID), f"the callable {self.name}")
        else:
            raise InvalidInputError(
                f"ProfileClaim needs a callable epsilon -> delta or a dp_accounting accountant "
                f"(PLDAccountant / RdpAccountant with get_delta), got {type(profile).__name__}")

    def _call(self, eps: np.ndarray) -> np.ndarray:
        f = self.source
        try:
            v = np.asarray(f(eps), dtype=float)
            if v.shape != eps.shape:
                raise ValueError
        except Exception:  # noqa: BLE001 - a scalar-only callable: evaluate pointwise
            try:
                v = np.array([float(f(float(x))) for x in eps.ravel()]).reshape(eps.shape)
            except Exception as err:  # noqa: BLE001 - the user's callable failed: say so
                raise InvalidInputError(
                    f"ProfileClaim: the callable {self.name} must map ε (an array, or one number "
                    f"at a time) to δ(ε) of the same shape; it failed: {type(err).__name__}: "
                    f"{err}") from None
        return v

    def _accountant_delta(self, eps: float) -> float:
        try:
            return float(self.source.get_delta(float(eps)))
        except (TypeError, ValueError, AttributeError, ArithmeticError) as err:
            raise InvalidInputError(f"ProfileClaim: {self.name}.get_delta({eps:g}) failed: "
                                    f"{type(err).__name__}: {err}") from None

    def _accountant_deltas(self, eps: np.ndarray) -> np.ndarray:
        """The accountant's δ at each ε: one vectorised call for dp-accounting's PLDAccountant
        (its privacy-loss distribution takes a sequence of ε), one call per ε otherwise."""
        pld = getattr(self.source, "_pld", None)
        if (callable(getattr(pld, "get_delta_for_epsilon", None))
                and not getattr(self.source, "_contains_non_dp_event", True)):
            d = np.asarray(pld.get_delta_for_epsilon(eps), dtype=float)
            if d.shape == eps.shape:
                return d
        return np.array([self._accountant_delta(e) for e in eps])

    def _build_grid(self, size: int) -> None:
        hi = None
        if callable(getattr(self.source, "get_epsilon", None)):
            try:
                hi = float(self.source.get_epsilon(1e-12))
            except (TypeError, ValueError, ArithmeticError):
                hi = None
        if hi is None or not math.isfinite(hi):
            hi = 1.0
            while self._accountant_delta(hi) > 1e-12 and hi < 100:
                hi *= 2
        hi = min(max(hi, 1e-3), 100.0)
        self._grid = np.linspace(0.0, hi, size)
        self._grid_delta = self._accountant_deltas(self._grid)
        _check_profile(self._grid, self._grid_delta, f"the accountant {self.name}")

    def delta_at(self, epsilon: Any) -> np.ndarray:
        e = _epsilons(epsilon)
        if self.kind == "callable":
            d = self._call(e)
            _check_profile(e.ravel(), d.ravel(), f"the callable {self.name}")
            return d
        if self.exact:
            d = np.array([self._accountant_delta(x) for x in e.ravel()]).reshape(e.shape)
            return np.clip(d, 0.0, 1.0)
        i = np.searchsorted(self._grid, e, side="right") - 1
        return np.clip(self._grid_delta[np.clip(i, 0, len(self._grid) - 1)], 0.0, 1.0)

    def epsilon_at(self, delta: float) -> float:
        d = check_delta(delta)
        if self.kind == "accountant" and callable(getattr(self.source, "get_epsilon", None)):
            try:
                e = float(self.source.get_epsilon(d))
            except (TypeError, ValueError, ArithmeticError) as err:
                raise InvalidInputError(f"ProfileClaim: {self.name}.get_epsilon({d:g}) failed: "
                                        f"{type(err).__name__}: {err}") from None
            if math.isnan(e):
                raise InvalidInputError(f"ProfileClaim: {self.name}.get_epsilon({d:g}) returned "
                                        f"nan; an accountant's ε is a number >= 0 or inf")
            return max(0.0, e)
        return super().epsilon_at(d)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "profile", "source": self.kind, "name": self.name}
        if self.kind == "accountant":
            idx = np.linspace(0, len(self._grid) - 1, 21).astype(int)
            out["grid"] = [[float(self._grid[i]), float(self._grid_delta[i])] for i in idx]
        return out

    def __repr__(self) -> str:
        return f"ProfileClaim({self.name})"


#: the largest grid an accountant is read on (each point is one accountant call)
MAX_GRID_SIZE = 1_000_000


def _grid_size(value: Any) -> int:
    """``grid_size`` as an integer in [10, MAX_GRID_SIZE] (a clear error otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) \
            or not 10 <= value <= MAX_GRID_SIZE:
        raise InvalidInputError(f"grid_size must be an integer in [10, {MAX_GRID_SIZE:,}], got "
                                f"{value!r}")
    return int(value)


def _looks_like_accountant(obj: Any) -> bool:
    """A dp_accounting accountant (or a look-alike) by its type: it must then have get_delta."""
    mod = type(obj).__module__ or ""
    return mod.startswith("dp_accounting") or type(obj).__name__.endswith("Accountant")


def as_claim(claim: Any) -> PrivacyClaim:
    """A [`PrivacyClaim`][ltheory.PrivacyClaim] from a claim object, a number ε (pure DP), a pair
    (ε, δ) or a
    dp-accounting accountant (read as a [`ProfileClaim`][ltheory.ProfileClaim])."""
    if isinstance(claim, PrivacyClaim):
        return claim
    if hasattr(claim, "get_delta") or _looks_like_accountant(claim):
        return ProfileClaim(claim)
    if isinstance(claim, tuple | list) and len(claim) == 2:
        eps, dl = claim
        return PureDP(eps) if check_delta(dl, "delta") == 0 else ApproxDP(eps, dl)
    if isinstance(claim, int | float | np.floating | np.integer) and not isinstance(claim, bool):
        return PureDP(claim)
    raise InvalidInputError(
        f"a privacy claim must be a PrivacyClaim (PureDP, ApproxDP, ZCDP, RDP, GDP, "
        f"ProfileClaim), a number epsilon or a pair (epsilon, delta), got {claim!r}")


def claim_from_json(doc: Mapping[str, Any]) -> PrivacyClaim:
    """The claim a ``to_json()`` document describes (``pure_dp``, ``approx_dp``, ``zcdp``,
    ``gdp``, ``rdp`` at given orders); a ``profile`` document cannot be rebuilt (it names a
    callable or an accountant) and is refused with a clear error.

    Examples:
        >>> claim_from_json(ZCDP(0.5).to_json())
        ZCDP(rho=0.5)
    """
    if not isinstance(doc, Mapping) or "kind" not in doc:
        raise InvalidInputError(f"a claim document is a dict with a 'kind', got {doc!r}")
    kind = doc["kind"]
    try:
        if kind == "pure_dp":
            return PureDP(doc["epsilon"])
        if kind == "approx_dp":
            return ApproxDP(doc["epsilon"], doc.get("delta", 0.0))
        if kind == "zcdp":
            return ZCDP(doc["rho"])
        if kind == "gdp":
            return GDP(doc["mu"])
        if kind == "rdp" and "orders" in doc:
            if len(doc["orders"]) != len(doc["epsilons"]):
                raise ValueError("orders and epsilons differ in length")
            return RDP(dict(zip(doc["orders"], doc["epsilons"], strict=True)))
    except (KeyError, TypeError, ValueError) as err:
        if isinstance(err, InvalidInputError):
            raise
        raise InvalidInputError(f"malformed {kind!r} claim document {doc!r}: {err}") from None
    raise InvalidInputError(f"cannot rebuild a claim of kind {kind!r} from JSON; accepted kinds: "
                            f"pure_dp, approx_dp, zcdp, gdp, rdp (with orders)")
