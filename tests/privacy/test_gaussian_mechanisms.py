"""Gaussian and discrete Gaussian mechanisms: calibration against Balle & Wang's Algorithm 1 in
high precision and against the exact GDP curve, samplers against their laws, exact profiles
against brute force from the output distributions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import brentq

from ltheory.errors import InvalidInputError
from ltheory.privacy.claims import GDP, ZCDP, ApproxDP
from ltheory.privacy.mechanisms import (
    DiscreteGaussianMechanism,
    GaussianMechanism,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    discrete_gaussian_pmf,
    sample_discrete_gaussian,
)

D0, D1 = ((0, 0),), ((0, 1),)


def _balle_wang_mp(eps: float, delta: float) -> float:
    """Balle & Wang 2018, Algorithm 1, in 50-digit arithmetic (mpmath), Δ = 1."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    e, d = mp.mpf(eps), mp.mpf(delta)
    phi = mp.ncdf
    delta0 = phi(0) - mp.e**e * phi(-mp.sqrt(2 * e))

    def root(f, lo, hi):           # f(lo) > 0 > f(hi) or the reverse: plain bisection, 200 steps
        flo = f(lo)
        for _ in range(200):
            mid = (lo + hi) / 2
            if (f(mid) > 0) == (flo > 0):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    if d >= delta0:
        v = root(lambda v: phi(mp.sqrt(e * v)) - mp.e**e * phi(-mp.sqrt(e * (v + 2))) - d,
                 mp.mpf(0), mp.mpf(10) ** 6)
        a = mp.sqrt(1 + v / 2) - mp.sqrt(v / 2)
    else:
        u = root(lambda u: phi(-mp.sqrt(e * u)) - mp.e**e * phi(-mp.sqrt(e * (u + 2))) - d,
                 mp.mpf(0), mp.mpf(10) ** 6)
        a = mp.sqrt(1 + u / 2) + mp.sqrt(u / 2)
    return float(a / mp.sqrt(2 * e))


# --------------------------------------------------------------------------- calibration
def test_analytic_sigma_for_1_1e5_is_balle_wang_at_high_precision() -> None:
    s = analytic_gaussian_sigma(1.0, 1e-5)
    assert s == pytest.approx(_balle_wang_mp(1.0, 1e-5), rel=1e-10)
    assert s == pytest.approx(3.7306, abs=1e-4)          # the known value (≈ 3.73)


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-6), (0.5, 1e-3), (3.0, 1e-5), (10.0, 1e-8),
                                        (0.1, 0.2), (0.05, 0.45)])
def test_analytic_sigma_is_the_smallest_sigma_of_the_exact_curve(eps: float, delta: float) -> None:
    """Both branches of Algorithm 1 (δ ≥ δ₀ for the last two) against the exact GDP curve:
    σ is where GDP(1/σ).delta_at(ε) = δ."""
    s = analytic_gaussian_sigma(eps, delta)
    ref = brentq(lambda x: float(GDP(1 / x).delta_at(eps)) - delta, 1e-3, 1e4, xtol=1e-13)
    assert s == pytest.approx(ref, rel=1e-8)
    assert s == pytest.approx(_balle_wang_mp(eps, delta), rel=1e-9)
    m = GaussianMechanism(eps, delta, sensitivity=2.5)
    assert m.sigma == pytest.approx(2.5 * s, rel=1e-12)
    assert m.true_delta == pytest.approx(delta, rel=1e-6)
    assert m.true_epsilon == pytest.approx(eps, rel=1e-6)
    assert m.claim_holds


def test_classic_calibration_and_its_range() -> None:
    assert classic_gaussian_sigma(0.5, 1e-5) == pytest.approx(
        math.sqrt(2 * math.log(1.25e5)) / 0.5)
    for eps in (0.1, 0.5, 0.99):                       # Dwork & Roth Thm A.1: ε < 1
        m = GaussianMechanism(eps, 1e-5, calibration="classic")
        assert m.claim_holds and m.sigma > analytic_gaussian_sigma(eps, 1e-5)
    # outside ε < 1 the formula gives no guarantee: at ε = 20 the true δ is 1.5e-3 > 1e-5
    m = GaussianMechanism(20.0, 1e-5, calibration="classic")
    assert not m.claim_holds
    assert m.true_delta == pytest.approx(1.5267e-3, rel=1e-3)


def test_half_sigma_negative_control() -> None:
    m = GaussianMechanism.half_sigma()
    assert m.sigma == pytest.approx(analytic_gaussian_sigma(1.0, 1e-5) / 2)
    assert m.claim == (1.0, 1e-5) and m.privacy_claim == ApproxDP(1.0, 1e-5)
    assert m.true_delta == pytest.approx(0.010395, rel=1e-4)        # issue 33: about 1e-2
    assert not m.claim_holds and m.true_epsilon > 1.0


def test_sigma_given_directly() -> None:
    m = GaussianMechanism(sigma=2.0)
    assert m.exact_claim == GDP(0.5) and m.delta == 1e-5
    assert m.epsilon == pytest.approx(GDP(0.5).epsilon_at(1e-5))
    wrong = GaussianMechanism(0.5, 1e-5, sigma=2.0)               # a claim made too strong
    assert wrong.claim == (0.5, 1e-5) and not wrong.claim_holds


def test_gaussian_samples_follow_the_normal_law() -> None:
    m = GaussianMechanism(1.0, 1e-5)
    x = m.sample(D1, 50_000, np.random.default_rng(7))
    assert stats.kstest(x, stats.norm(loc=1.0, scale=m.sigma).cdf).pvalue > 1e-4
    assert m(D0, np.random.default_rng(1)) == pytest.approx(
        np.random.default_rng(1).normal(0.0, m.sigma))


@pytest.mark.parametrize("make, words", [
    (lambda: GaussianMechanism(1.0, 0.0), "delta must be in \\(0, 1\\)"),
    (lambda: GaussianMechanism(0.0, 1e-5), "epsilon"),
    (lambda: GaussianMechanism(1.0, 1e-5, calibration="optimal"), "calibration"),
    (lambda: GaussianMechanism(sigma=-1.0), "sensitivity|sigma"),
    (lambda: GaussianMechanism(1.0, 1e-5, sensitivity=0), "sensitivity"),
    (lambda: analytic_gaussian_sigma(1.0, 1.0), "delta"),
    (lambda: DiscreteGaussianMechanism(0.0), "sigma"),
    (lambda: DiscreteGaussianMechanism(2.0, sensitivity=0), "sensitivity"),
    (lambda: DiscreteGaussianMechanism(2.0, sensitivity=1.5), "sensitivity"),
    (lambda: DiscreteGaussianMechanism(2.0).sample(0.5, 3, np.random.default_rng(0)),
     "integer query answer"),
])
def test_bad_input(make, words: str) -> None:
    with pytest.raises(InvalidInputError, match=words):
        make()


# --------------------------------------------------------------------------- discrete Gaussian
@pytest.mark.parametrize("sigma", [0.4, 1.0, 3.7, 20.0])
def test_discrete_gaussian_pmf(sigma: float) -> None:
    k, p = discrete_gaussian_pmf(sigma)
    assert p.sum() == pytest.approx(1.0, abs=1e-14)
    assert np.allclose(p, p[::-1])
    var = float((p * k**2).sum())
    # Var(N_Z(0, σ²)) < σ² (Canonne, Kamath & Steinke 2020), and → σ² for large σ
    assert var < sigma**2 or var == pytest.approx(sigma**2, rel=1e-12)
    if sigma >= 3:
        assert var == pytest.approx(sigma**2, rel=1e-6)
    # the direct definition on a wider window
    kk = np.arange(-k.max() - 50, k.max() + 51)
    w = np.exp(-kk.astype(float) ** 2 / (2 * sigma**2))
    assert np.allclose(p, (w / w.sum())[50:-50], rtol=1e-12, atol=0)


@pytest.mark.parametrize("sigma", [0.7, 2.0, 6.5])
def test_discrete_gaussian_sampler_matches_its_pmf(sigma: float) -> None:
    """Chi-square goodness of fit (seeded): cells with expected count ≥ 20, tails pooled."""
    n = 200_000
    x = sample_discrete_gaussian(sigma, n, np.random.default_rng(2024))
    k, p = discrete_gaussian_pmf(sigma)
    keep = p * n >= 20
    lo, hi = k[keep].min(), k[keep].max()
    obs = [np.sum(x < lo)] + [np.sum(x == v) for v in range(lo, hi + 1)] + [np.sum(x > hi)]
    exp = [p[k < lo].sum()] + list(p[keep]) + [p[k > hi].sum()]
    obs, exp = np.array(obs, float), np.array(exp) * n
    mask = exp > 0
    chi = stats.chisquare(obs[mask], exp[mask] * obs[mask].sum() / exp[mask].sum())
    assert chi.pvalue > 1e-4


@pytest.mark.parametrize("sigma, sens", [(0.8, 1), (2.0, 1), (3.0, 2)])
def test_discrete_gaussian_exact_profile(sigma: float, sens: int) -> None:
    m = DiscreteGaussianMechanism(sigma, sensitivity=sens)
    assert m.privacy_claim == ZCDP(sens**2 / (2 * sigma**2))
    d0, d1 = m.output_distribution(0), m.output_distribution(sens)
    keys = set(d0) | set(d1)
    eps = np.array([0.0, 0.3, 1.0, 2.5])
    prof = m.exact_claim.delta_at(eps)
    for e, d in zip(eps, prof, strict=True):
        brute = max(sum(max(0.0, d0.get(k, 0) - math.exp(e) * d1.get(k, 0)) for k in keys),
                    sum(max(0.0, d1.get(k, 0) - math.exp(e) * d0.get(k, 0)) for k in keys))
        assert d == pytest.approx(brute, rel=1e-9, abs=1e-16)
    grid = np.linspace(0, 10, 51)
    assert np.all(m.exact_claim.delta_at(grid) <= m.privacy_claim.delta_at(grid) + 1e-15)
    assert m.true_epsilon <= m.epsilon


def test_discrete_gaussian_approaches_the_continuous_one() -> None:
    m = DiscreteGaussianMechanism(30.0)
    assert m.true_epsilon == pytest.approx(GDP(1 / 30).epsilon_at(1e-5), rel=1e-3)


# --------------------------------------------------------------------------- OpenDP (zCDP)
def test_opendp_zcdp_gaussian_adapter() -> None:
    pytest.importorskip("opendp")
    from ltheory.privacy.adapters import OpenDPGaussian, OpenDPZCDPGaussian

    m = OpenDPZCDPGaussian(2.0)
    assert m.privacy_claim == ZCDP(0.125) and m.exact_claim == GDP(0.5)
    # the same (ε, δ) as OpenDP's own zCDP -> approxDP conversion
    assert m.epsilon == pytest.approx(OpenDPGaussian(2.0, 1e-5).epsilon, rel=1e-9)
    assert m.true_epsilon < m.epsilon
    x = m.sample(1.0, 20_000, np.random.default_rng(0))          # OpenDP is not seedable
    assert stats.kstest(x, stats.norm(1.0, 2.0).cdf).pvalue > 1e-6
    z = OpenDPZCDPGaussian(2.0, sensitivity=2, integer=True)
    assert z.privacy_claim == ZCDP(0.5)
    ref = DiscreteGaussianMechanism(2.0, sensitivity=2)
    assert z.true_epsilon == pytest.approx(ref.true_epsilon, rel=1e-9)
    y = z.sample(3, 20_000, np.random.default_rng(0)) - 3
    assert np.all(y == np.round(y))
    k, p = discrete_gaussian_pmf(2.0)
    keep = p * y.size >= 20
    obs = np.array([np.sum(y == v) for v in k[keep]] + [np.sum(~np.isin(y, k[keep]))], float)
    exp = np.append(p[keep], 1 - p[keep].sum()) * y.size
    assert stats.chisquare(obs, exp).pvalue > 1e-6
    with pytest.raises(InvalidInputError, match="integer sensitivity"):
        OpenDPZCDPGaussian(2.0, sensitivity=1.5, integer=True)


def test_auditor_exact_epsilon_agrees_with_the_exact_curve() -> None:
    """The auditor's exact ε (from output_distribution, an independent code path) is the
    exact curve's ε at the claimed δ."""
    from ltheory.privacy import audit

    m = DiscreteGaussianMechanism(1.0)
    r = audit(m, D0, D1, claimed_epsilon=m.claim[0], claimed_delta=m.claim[1], runs=20_000,
              seed=0)
    assert r.exact_epsilon == pytest.approx(m.true_epsilon, rel=1e-6)
    assert r.verdict == "consistent"


def test_default_pairs_are_neighbours() -> None:
    for m in (GaussianMechanism(1.0, 1e-5), GaussianMechanism(1.0, 1e-5, sensitivity=3.0),
              DiscreteGaussianMechanism(2.0), DiscreteGaussianMechanism(2.0, sensitivity=2)):
        d0, d1 = m.default_pair()
        assert m.are_neighbours(d0, d1)
        assert abs(m.query(d1) - m.query(d0)) == m.sensitivity


# --------------------------------------------------------------------------- extreme ε, δ
def _gaussian_delta_mp(eps: float, sigma: float) -> object:
    """``Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)`` (Δ = 1) in 700-digit arithmetic."""
    mp = pytest.importorskip("mpmath")
    with mp.workdps(700):
        e, s = mp.mpf(eps), mp.mpf(sigma)
        return +(mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s))


@pytest.mark.parametrize("eps", [1e-300, 1e-12, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("delta", [1e-300, 1e-5, 0.9, 0.999])
def test_analytic_sigma_at_extremes_is_the_smallest_sigma(eps: float, delta: float) -> None:
    """ε = 1e-12 raised scipy's raw ValueError (the bracket stopped at v = 1e12); tiny ε with
    tiny δ lost δ below rounding.  At every extreme σ is where the exact curve (700 digits)
    crosses δ: δ(σ) = δ to 1e-10, and a σ smaller by 1e-6 is not (ε, δ)-DP."""
    s = analytic_gaussian_sigma(eps, delta)
    assert math.isfinite(s) and s > 0
    assert float(_gaussian_delta_mp(eps, s)) / delta == pytest.approx(1.0, rel=1e-10)
    assert float(_gaussian_delta_mp(eps, s * (1 - 1e-6))) > delta


def test_analytic_sigma_extreme_values() -> None:
    assert analytic_gaussian_sigma(1e-12, 0.9) == pytest.approx(0.30397841595584, rel=1e-12)
    # ε → 0: δ is the total variation 2Φ(1/(2σ)) − 1
    assert analytic_gaussian_sigma(1e-300, 0.9) == pytest.approx(
        1 / (2 * stats.norm.ppf(0.95)), rel=1e-12)


@pytest.mark.parametrize("args, words", [
    ((0.0, 0.5), "epsilon"), ((-1.0, 0.5), "epsilon"), ((math.inf, 0.5), "epsilon"),
    ((1.0, 0.0), "delta"), ((1.0, 1.0), "delta"), ((1.0, -0.1), "delta"),
    ((1.0, math.nan), "delta"), ((1.0, 0.5, 0.0), "sensitivity"),
    ((1e-300, 1e-300, 1e300), "floating-point range")])
def test_analytic_sigma_refuses_only_invalid_input(args: tuple, words: str) -> None:
    with pytest.raises(InvalidInputError, match=words):
        analytic_gaussian_sigma(*args)
