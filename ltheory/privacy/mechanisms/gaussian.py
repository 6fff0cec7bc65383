"""The Gaussian mechanism, calibrated classically or analytically, with its exact privacy curve.

``GaussianMechanism`` releases ``f(D) + N(0, σ²)`` for a query f of L2 sensitivity Δ (default:
``count_query``, Δ = 1 under substitution).  σ comes from a claimed (ε, δ) by one of two
calibrations, or is given directly:

* ``"classic"`` — ``σ = Δ √(2 ln(1.25/δ)) / ε`` (Dwork & Roth 2014, Theorem A.1).  The theorem
  assumes ε < 1.  Outside that range the formula is still computed (libraries have used it
  there, and it makes a realistic negative control), but nothing guarantees the claim: at
  δ = 10⁻⁵ the exact δ of this σ is 4.1·10⁻⁸ at ε = 1 and 1.3·10⁻⁶ at ε = 5, but 2.3·10⁻⁵ at
  ε = 10 and 1.5·10⁻³ at ε = 20, which breaks the claim.  ``claim_holds`` says which case applies.
* ``"analytic"`` — the smallest σ whose Gaussian is (ε, δ)-DP, valid for every ε > 0 (Balle &
  Wang 2018, "Improving the Gaussian mechanism for differential privacy", Theorem 8; solved
  in log space for any ε > 0 and δ ∈ (0, 1),
  [`analytic_gaussian_sigma`][ltheory.privacy.mechanisms.analytic_gaussian_sigma]).  For
  (1, 10⁻⁵) and Δ = 1, σ = 3.7306.

The exact privacy profile of the Gaussian mechanism is that of μ-GDP with μ = Δ/σ (Dong, Roth &
Su 2022, Corollary 2.13; the same as Balle & Wang's Theorem 8): ``exact_claim`` returns
``GDP(Δ/σ)``, and ``privacy_claim`` the (ε, δ) claimed.  ``GaussianMechanism.half_sigma()`` is the
negative control of issue 33: half the analytic σ of (1, 10⁻⁵), whose true δ at ε = 1 is 0.0104.

Examples:
    >>> m = GaussianMechanism(1.0, 1e-5, calibration="analytic")
    >>> round(m.sigma, 4), m.exact_claim
    (3.7306, GDP(mu=0.268...))
    >>> round(GaussianMechanism.half_sigma().true_delta, 4)
    0.0104
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr, ndtr

from ltheory.errors import InvalidInputError
from ltheory.privacy.claims import GDP, ApproxDP, PrivacyClaim
from ltheory.privacy.mechanisms.base import Dataset, Mechanism, count_query
from ltheory.validation import check_choice, check_delta, check_epsilon

__all__ = ["GaussianMechanism", "analytic_gaussian_sigma", "classic_gaussian_sigma"]


def classic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """``σ = Δ √(2 ln(1.25/δ)) / ε`` (Dwork & Roth 2014, Theorem A.1; proven for ε < 1 only)."""
    eps = check_epsilon(epsilon)
    d = _positive_delta(delta)
    return _sensitivity(sensitivity) * math.sqrt(2 * math.log(1.25 / d)) / eps


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The analytic Gaussian mechanism's σ (Balle & Wang 2018, Theorem 8 and Algorithm 1): the
    smallest σ with ``Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ``, for any ε > 0 and
    δ ∈ (0, 1).

    In μ = Δ/σ the left side is the μ-GDP profile ``δ_μ(ε)``, increasing in μ from 0 to 1, so
    μ* is the one root of ``log δ_μ(ε) = log δ``: found by Brent's method on log₂ μ in a
    bracket doubled from μ = 1 (adaptively, over every μ a float holds), then σ = Δ/μ*.  The
    profile is evaluated as ``δ_μ(ε) = Φ(μ/2 − x)(1 − e^r)`` with x = ε/μ and
    ``r = −∫_{x−μ/2}^{x+μ/2} m(y) dy``, ``m(y) = φ(y)/Φ(−y) − y`` (the difference of the two
    terms, integrated: no cancellation at tiny ε, μ or δ; `_gaussian_log_delta`).
    Balle & Wang's own parametrisation (B⁺, B⁻ with brentq on a bracket capped at 10¹²)
    raised scipy's ``ValueError`` at ε = 1e-12 and lost δ below its rounding at tiny ε.

    Raises ``InvalidInputError`` for ε not finite > 0, δ not in (0, 1), or a σ outside the
    floating-point range.

    Examples:
        >>> round(analytic_gaussian_sigma(1.0, 1e-5), 4)
        3.7306
    """
    eps = check_epsilon(epsilon)
    d = _positive_delta(delta)
    sens = _sensitivity(sensitivity)
    target = math.log(d)

    def g(t: float) -> float:        # log δ_μ(ε) − log δ at μ = 2^t, increasing in t
        return _gaussian_log_delta(2.0 ** t, eps) - target

    lo = hi = 0.0
    step = 1.0
    if g(0.0) < 0:                   # μ* > 1: double t upwards
        while g(hi) < 0:
            lo, hi, step = hi, min(hi + step, 1023.0), step * 2
            if lo >= 1023.0:
                raise InvalidInputError(f"no sigma in floating-point range makes the Gaussian "
                                        f"mechanism ({eps!r}, {d!r})-DP")
    else:                            # μ* ≤ 1: halve downwards
        while g(lo) >= 0:
            hi, lo, step = lo, max(lo - step, -1074.0), step * 2
            if hi <= -1074.0:
                raise InvalidInputError(f"the sigma of ({eps!r}, {d!r})-DP is beyond the "
                                        f"floating-point range")
    if g(hi) == 0:
        t = hi
    else:
        t = brentq(lambda x: max(g(x), -1e300), lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps)
    sigma = sens / 2.0 ** t
    if not (math.isfinite(sigma) and sigma > 0):
        raise InvalidInputError(f"the sigma of ({eps!r}, {d!r})-DP at sensitivity {sens!r} is "
                                f"beyond the floating-point range")
    return sigma


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(24)


def _mills_excess(y: np.ndarray) -> np.ndarray:
    """``m(y) = φ(y)/Φ(−y) − y`` (> 0): directly for y ≤ 5 (``erfcx`` for y ≥ 0), by Laplace's
    continued fraction ``m(y) = 1/(y + 2/(y + 3/(y + …)))`` beyond (no cancellation)."""
    y = np.asarray(y, dtype=float)
    out = np.empty(y.shape)
    neg = y < 0
    yn = y[neg]
    out[neg] = np.exp(-0.5 * yn * yn) / math.sqrt(2 * math.pi) / ndtr(-yn) - yn
    mid = (y >= 0) & (y <= 5)
    out[mid] = math.sqrt(2 / math.pi) / erfcx(y[mid] / math.sqrt(2)) - y[mid]
    big = y > 5
    yb = y[big]
    c = np.zeros(yb.shape)
    for k in range(120, 1, -1):
        c = k / (yb + c)
    out[big] = 1 / (yb + c)
    return out


def _gaussian_log_delta(mu: float, eps: float) -> float:
    """``log δ_μ(ε)`` of μ-GDP (the Gaussian mechanism with Δ/σ = μ):
    ``δ = Φ(μ/2 − x) − e^ε Φ(−μ/2 − x) = Φ(μ/2 − x)(1 − e^r)``, x = ε/μ, where
    ``r = ε + log Φ(−x − μ/2) − log Φ(μ/2 − x) = −∫_{x−μ/2}^{x+μ/2} m(y) dy`` (``m`` of
    `_mills_excess`; the antiderivative of m is ``−log Φ(−y) − y²/2``).  On a short
    interval (μ ≤ max(1, x − μ/2)/4) r is the 24-point Gauss–Legendre integral of m, exact to
    rounding where the closed form would cancel; otherwise the closed form."""
    x = eps / mu
    y1, y2 = x - mu / 2, x + mu / 2
    if not (math.isfinite(y1) and math.isfinite(y2)):
        return -math.inf if x > 1 else 0.0
    if mu <= max(1.0, y1) / 4:
        nodes = (y1 + y2) / 2 + (mu / 2) * _GL_NODES
        r = -(mu / 2) * float(np.dot(_GL_WEIGHTS, _mills_excess(nodes)))
    else:
        r = eps + float(log_ndtr(-y2)) - float(log_ndtr(-y1))
    if not r < 0:
        return -math.inf
    return float(log_ndtr(-y1)) + math.log(-math.expm1(r))


def _positive_delta(delta: Any) -> float:
    d = check_delta(delta)
    if d <= 0:
        raise InvalidInputError(f"delta must be in (0, 1) for the Gaussian mechanism (it is not "
                                f"pure DP), got {delta!r}")
    return d


def _sensitivity(value: Any) -> float:
    try:
        s = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"sensitivity must be a finite number > 0, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(s) or s <= 0:
        raise InvalidInputError(f"sensitivity must be a finite number > 0, got {value!r}")
    return s


class GaussianMechanism(Mechanism):
    """The Gaussian mechanism: ``f(D) + N(0, σ²)`` for a query f of L2 sensitivity Δ.

    σ comes from a claimed (ε, δ) by one of two calibrations, or is given as ``sigma``:
    ``"analytic"`` (default) is the smallest σ whose Gaussian is (ε, δ)-DP, valid for every
    ε > 0 (Balle & Wang 2018, Theorem 8;
    [`analytic_gaussian_sigma`][ltheory.privacy.mechanisms.analytic_gaussian_sigma]);
    ``"classic"`` is ``σ = Δ √(2 ln(1.25/δ)) / ε`` (Dwork & Roth 2014, Theorem A.1), whose
    theorem assumes ε < 1 (beyond it the claim can break: ``claim_holds``).  The exact privacy
    profile is that of μ-GDP with μ = Δ/σ (Dong, Roth & Su 2022, Corollary 2.13):
    ``exact_claim``; ``privacy_claim`` is the (ε, δ) claimed.  The calibrations and their
    measured behaviour are in
    [`ltheory.privacy.mechanisms.gaussian`][ltheory.privacy.mechanisms.gaussian].

    With ``sigma`` and no ε, the claim is the exact one at ``delta``: ε =
    ``GDP(Δ/σ).epsilon_at(δ)``.  With ``sigma`` *and* ε the mechanism claims (ε, δ) whatever σ
    is (a way to build a wrong claim on purpose; see also ``half_sigma``).  ``true_epsilon`` is
    the exact ε at the claimed δ and ``true_delta`` the exact δ at the claimed ε.

    The noise is numpy's, added in floating point: [`audit`][ltheory.privacy.audit] finds the
    floating-point leak by default; audit with ``arithmetic="real"`` to audit the mechanism
    over the reals.

    Args:
        epsilon: The claimed ε > 0; default 1 when ``sigma`` is not given.
        delta: The claimed δ in (0, 1); default 10⁻⁵.
        sensitivity: The L2 sensitivity Δ of ``query``, a finite number > 0.
        calibration: ``"analytic"`` or ``"classic"``; ignored when ``sigma`` is given.
        sigma: The noise's standard deviation, given directly.
        query: The query f, ``dataset -> float``; default
            [`count_query`][ltheory.privacy.mechanisms.count_query] (Δ = 1 under substitution).

    Raises:
        InvalidInputError: For ε not finite > 0, δ not in (0, 1), a sensitivity or σ that is
            not a finite number > 0, or an unknown calibration.

    Examples:
        >>> from ltheory.privacy.mechanisms import GaussianMechanism
        >>> m = GaussianMechanism(1.0, 1e-5)
        >>> round(m.sigma, 4), m.exact_claim
        (3.7306, GDP(mu=0.268...))
        >>> GaussianMechanism(0.5, 1e-5, calibration="classic").claim_holds
        True
        >>> round(GaussianMechanism(sigma=1.0).epsilon, 3)    # the exact ε at δ = 1e-5
        4.377
    """

    name = "gaussian"

    def __init__(self, epsilon: float | None = None, delta: float | None = None,
                 sensitivity: float = 1.0, calibration: str = "analytic", *,
                 sigma: float | None = None,
                 query: Callable[[Dataset], float] = count_query) -> None:
        self.sensitivity = _sensitivity(sensitivity)
        self.calibration = check_choice(calibration, "calibration", ("classic", "analytic"))
        self.query = query
        if sigma is None:
            if epsilon is None:
                epsilon = 1.0
            self.epsilon = check_epsilon(epsilon)
            self.delta = _positive_delta(1e-5 if delta is None else delta)
            calib = classic_gaussian_sigma if calibration == "classic" else analytic_gaussian_sigma
            self.sigma = calib(self.epsilon, self.delta, self.sensitivity)
        else:
            self.sigma = _sensitivity(sigma)
            self.calibration = "given"
            self.delta = _positive_delta(1e-5 if delta is None else delta)
            self.epsilon = (self.exact_claim.epsilon_at(self.delta) if epsilon is None
                            else check_epsilon(epsilon))
        self.true_epsilon = self.exact_claim.epsilon_at(self.delta)

    @classmethod
    def half_sigma(cls, epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0,
                   calibration: str = "analytic", factor: float = 0.5) -> GaussianMechanism:
        """A negative control: claims (ε, δ) but adds ``factor`` × the σ that (ε, δ) needs
        (issue 33: half the analytic σ for (1, 10⁻⁵), true δ at ε = 1 is 0.0104)."""
        calib = classic_gaussian_sigma if calibration == "classic" else analytic_gaussian_sigma
        f = _sensitivity(factor)
        m = cls(epsilon, delta, sensitivity, sigma=f * calib(epsilon, delta, sensitivity))
        m.name = f"gaussian_sigma_x{f:g}"
        return m

    @property
    def mu(self) -> float:
        """μ = Δ/σ: the mechanism is exactly μ-GDP."""
        return self.sensitivity / self.sigma

    @property
    def privacy_claim(self) -> PrivacyClaim:
        """The claim made: (ε, δ)-DP."""
        return ApproxDP(self.epsilon, self.delta)

    @property
    def exact_claim(self) -> GDP:
        """The exact privacy curve: ``GDP(Δ/σ)`` (Dong, Roth & Su 2022, Corollary 2.13)."""
        return GDP(self.mu)

    @property
    def true_delta(self) -> float:
        """The exact δ at the claimed ε."""
        return float(self.exact_claim.delta_at(self.epsilon))

    @property
    def claim_holds(self) -> bool:
        """Whether the mechanism is (ε, δ)-DP as claimed: the exact δ at ε is ≤ δ (then the whole
        exact curve lies below the claim's profile, which for ε' < ε is that of the worst
        (ε, δ)-DP pair, Kairouz, Oh & Viswanath 2015)."""
        return self.true_delta <= self.delta * (1 + 1e-9)

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.query(dataset) + rng.normal(0.0, self.sigma, size=n)

    def default_pair(self) -> tuple[Dataset, Dataset]:
        """Two records differing in one label (count query, Δ = 1), or for another Δ the query
        values 0 and Δ themselves (a bare number is the query's value)."""
        return (((0, 0),), ((0, 1),)) if self.sensitivity == 1 else (0.0, self.sensitivity)

    def __repr__(self) -> str:
        return (f"GaussianMechanism(epsilon={self.epsilon:g}, delta={self.delta:g}, "
                f"sigma={self.sigma:.6g}, calibration={self.calibration!r})")
