"""Privacy claims as objects (ltheory.privacy.claims): profiles against closed forms, published
numbers and independent references (numerical integration, OpenDP, dp-accounting)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from ltheory.errors import InvalidInputError
from ltheory.privacy.claims import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    PrivacyClaim,
    ProfileClaim,
    PureDP,
    as_claim,
)

EPS = np.linspace(0.0, 8.0, 81)


def _hockey_stick_gaussian(mu: float, eps: float) -> float:
    """sup_E P[N(0,1) ∈ E] − e^ε P[N(μ,1) ∈ E] by numerical integration (independent of Φ's
    closed form)."""
    def f(x: float) -> float:
        return max(0.0, stats.norm.pdf(x) - math.exp(eps) * stats.norm.pdf(x, loc=mu))
    # the integrand is positive for x < μ/2 − ε/μ
    cut = mu / 2 - eps / mu
    val, _ = integrate.quad(f, -np.inf, cut, epsabs=1e-14, epsrel=1e-10)
    return val


# --------------------------------------------------------------------------- GDP
def test_gdp_published_value_at_zero() -> None:
    assert float(GDP(1.0).delta_at(0.0)) == pytest.approx(2 * stats.norm.cdf(0.5) - 1, abs=1e-12)
    assert float(GDP(1.0).delta_at(0.0)) == pytest.approx(0.3829, abs=1e-4)


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_gdp_profile_is_the_gaussian_hockey_stick(mu: float) -> None:
    for eps in (0.0, 0.5, 1.0, 3.0):
        assert float(GDP(mu).delta_at(eps)) == pytest.approx(
            _hockey_stick_gaussian(mu, eps), rel=1e-6, abs=1e-13)


def test_gdp_epsilon_at_inverts_and_tradeoff_is_closed_form() -> None:
    g = GDP(0.8)
    for d in (1e-2, 1e-5, 1e-9):
        e = g.epsilon_at(d)
        assert float(g.delta_at(e)) == pytest.approx(d, rel=1e-8)
    a = np.array([0.0, 0.01, 0.1, 0.5, 1.0])
    assert np.allclose(g.tradeoff(a), stats.norm.cdf(stats.norm.ppf(1 - a) - 0.8))
    # the generic profile-to-trade-off (DRS Prop. 2.12 over a grid) is a lower bound, and close
    generic = PrivacyClaim.tradeoff(g, a)
    assert np.all(generic <= g.tradeoff(a) + 1e-12)
    assert np.max(g.tradeoff(a) - generic) < 2e-3


# --------------------------------------------------------------------------- zCDP / RDP
@pytest.mark.parametrize("rho", [0.01, 0.125, 0.5, 2.0])
def test_zcdp_epsilon_matches_opendp_conversion(rho: float) -> None:
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    m = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                           1 / math.sqrt(2 * rho))
    assert m.map(1.0) == pytest.approx(rho)
    eps, _ = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m), 1e-5).map(1.0)
    assert ZCDP(rho).epsilon_at(1e-5) == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize("rho", [0.005, 0.1, 0.5, 3.0])
def test_zcdp_profile_never_below_the_exact_gaussian(rho: float) -> None:
    z, g = ZCDP(rho).delta_at(EPS), GDP(math.sqrt(2 * rho)).delta_at(EPS)
    assert np.all(z >= g - 1e-15)
    # and the classical bound ε = ρ + 2√(ρ log 1/δ) (Bun & Steinke 2016, Prop. 1.3) is looser
    d = 1e-6
    assert ZCDP(rho).epsilon_at(d) <= rho + 2 * math.sqrt(rho * math.log(1 / d)) + 1e-12


@pytest.mark.parametrize("sigma", [0.7, 1.0, 3.0])
def test_rdp_of_the_gaussian_dominates_gdp_and_matches_dp_accounting(sigma: float) -> None:
    dp_accounting = pytest.importorskip("dp_accounting")
    acc = dp_accounting.rdp.RdpAccountant()
    acc.compose(dp_accounting.GaussianDpEvent(sigma))
    orders = [o for o in acc._orders if o > 1]            # the accountant's default orders
    claim = RDP({a: a / (2 * sigma**2) for a in orders})
    prof = claim.delta_at(EPS)
    assert np.all(prof >= ZCDP(1 / (2 * sigma**2)).delta_at(EPS) - 1e-15)
    assert np.all(prof >= GDP(1 / sigma).delta_at(EPS) - 1e-15)
    # dp-accounting converts with the same Canonne-Kamath-Steinke formula over its orders
    assert claim.epsilon_at(1e-5) == pytest.approx(acc.get_epsilon(1e-5), rel=1e-9)


def test_rdp_callable_equals_zcdp_and_discrete_inverse_is_exact() -> None:
    e = np.array([0.0, 0.3, 1.0, 2.0, 5.0])
    assert np.allclose(RDP(lambda a: 0.3 * a).delta_at(e), ZCDP(0.3).delta_at(e), rtol=1e-9)
    assert np.allclose(RDP(lambda a: 0.3 * float(a)).delta_at(e), ZCDP(0.3).delta_at(e),
                       rtol=1e-9)                       # a scalar-only callable works too
    c = RDP({2: 0.5, 5: 1.5, 10: 3.2})
    for d in (1e-2, 1e-5):
        assert c.epsilon_at(d) == pytest.approx(PrivacyClaim.epsilon_at(c, d), rel=1e-8)


def test_zcdp_closed_form_at_one_order() -> None:
    """At a fixed order the conversion is explicit: δ ≤ e^{(α−1)(αρ−ε)}/α·(1−1/α)^{α−1}."""
    rho, eps = 0.5, 2.0
    for a in (1.5, 2.0, 3.0, 10.0):
        bound = math.exp((a - 1) * (a * rho - eps)) / a * (1 - 1 / a) ** (a - 1)
        assert float(ZCDP(rho).delta_at(eps)) <= bound + 1e-15
        assert float(RDP({a: a * rho}).delta_at(eps)) == pytest.approx(min(bound, 1.0))


# --------------------------------------------------------------------------- ApproxDP
def test_approx_dp_tradeoff_is_the_kov_closed_form() -> None:
    c = ApproxDP(1.0, 1e-5)
    a = np.linspace(0, 1, 11)
    exact = np.maximum(0, np.maximum(1 - 1e-5 - math.e * a, (1 - 1e-5 - a) / math.e))
    assert np.allclose(c.tradeoff(a), exact)
    assert np.all(PrivacyClaim.tradeoff(c, a) <= exact + 1e-12)
    assert PureDP(1.0).tradeoff(0.0) == pytest.approx(1.0)


# --------------------------------------------------------------------------- ProfileClaim
def test_profile_claim_from_callable_and_its_json() -> None:
    c = ProfileClaim(lambda e: GDP(1.0).delta_at(e), name="gauss")
    assert np.allclose(c.delta_at(EPS), GDP(1.0).delta_at(EPS))
    assert c.epsilon_at(1e-5) == pytest.approx(GDP(1.0).epsilon_at(1e-5), rel=1e-8)
    wrapped = ProfileClaim(ZCDP(0.5))                   # any claim, read through its profile
    assert np.array_equal(wrapped.delta_at(EPS), ZCDP(0.5).delta_at(EPS))
    for claim in (c, GDP(1.0), ZCDP(0.5), RDP({2: 1.0}), RDP(lambda a: a), ApproxDP(1, 1e-6)):
        json.dumps(claim.to_json())


def test_profile_claim_from_pld_accountant_is_conservative() -> None:
    dp_accounting = pytest.importorskip("dp_accounting")
    acc = dp_accounting.pld.PLDAccountant()
    acc.compose(dp_accounting.GaussianDpEvent(2.0))
    c = as_claim(acc)
    assert isinstance(c, ProfileClaim)
    assert c.epsilon_at(1e-5) == pytest.approx(acc.get_epsilon(1e-5))
    pts = np.array([0.05, 0.31, 0.77, 1.3])
    grid = c.delta_at(pts)
    assert np.all(grid >= [acc.get_delta(e) for e in pts])          # rounded up, never down
    assert np.allclose(ProfileClaim(acc, exact=True).delta_at(pts),
                       [acc.get_delta(e) for e in pts])
    # the PLD accountant's Gaussian is GDP(1/σ) up to its (pessimistic) discretisation
    assert np.all(grid >= GDP(0.5).delta_at(pts) - 1e-9)
    assert c.epsilon_at(1e-5) == pytest.approx(GDP(0.5).epsilon_at(1e-5), rel=1e-2)


def test_profile_claim_from_rdp_accountant() -> None:
    dp_accounting = pytest.importorskip("dp_accounting")
    acc = dp_accounting.rdp.RdpAccountant()
    acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(3.0), 4))
    c = ProfileClaim(acc)
    assert c.epsilon_at(1e-5) == pytest.approx(acc.get_epsilon(1e-5))
    assert float(c.delta_at(1.0)) >= acc.get_delta(1.0) - 1e-15


# --------------------------------------------------------------------------- validity
claims = st.one_of(
    st.floats(0.01, 5).map(GDP),
    st.floats(0.001, 5).map(ZCDP),
    st.tuples(st.floats(0.05, 5), st.floats(0, 0.1)).map(lambda p: ApproxDP(*p)),
    st.dictionaries(st.floats(1.01, 100), st.floats(0, 20), min_size=1, max_size=5).map(RDP),
)


@settings(max_examples=40, deadline=None)
@given(claims)
def test_every_profile_is_valid(claim: PrivacyClaim) -> None:
    eps = np.concatenate([np.linspace(0, 10, 41), [20.0, 60.0]])
    d = claim.delta_at(eps)
    assert d.shape == eps.shape
    assert np.all((d >= 0) & (d <= 1))
    assert np.all(np.diff(d) <= 1e-12)
    a = np.linspace(0, 1, 21)
    f = claim.tradeoff(a)
    assert np.all((f >= -1e-12) & (f <= 1 - a + 1e-9))       # f(α) ≤ 1 − α
    assert np.all(np.diff(f) <= 1e-9)                          # non-increasing


@pytest.mark.parametrize("make, words", [
    (lambda: ZCDP(0.0), "rho"),
    (lambda: ZCDP(-1.0), "rho"),
    (lambda: ZCDP(float("nan")), "rho"),
    (lambda: RDP({1.0: 0.5}), "orders must be > 1"),
    (lambda: RDP({0.5: 0.5}), "orders must be > 1"),
    (lambda: RDP({2.0: -1.0}), ">= 0"),
    (lambda: RDP({}), "at least one order"),
    (lambda: RDP("2: 0.5"), "dict"),
    (lambda: RDP(lambda a: -a), "ε_α >= 0"),
    (lambda: GDP(0.0), "mu"),
    (lambda: GDP(-2.0), "mu"),
    (lambda: ProfileClaim(lambda e: np.minimum(0.1 * e, 1.0)), "increases in ε"),
    (lambda: ProfileClaim(lambda e: -np.exp(-e)), "not in [0, 1]"),
    (lambda: ProfileClaim(lambda e: 1.5 * np.exp(-e)), "not in [0, 1]"),
    (lambda: ProfileClaim(lambda e: np.full_like(e, np.nan)), "not in [0, 1]"),
    (lambda: ProfileClaim(42), "callable"),
    (lambda: ProfileClaim(type("BrokenAccountant", (), {})()), "get_delta"),
    (lambda: as_claim("1.0"), "privacy claim"),
    (lambda: GDP(1.0).delta_at(-0.5), "epsilon must be >= 0"),
    (lambda: GDP(1.0).tradeoff(1.5), "alpha"),
])
def test_bad_input_is_a_clear_error(make, words: str) -> None:
    with pytest.raises(InvalidInputError, match=words.replace("[", r"\[").replace("]", r"\]")):
        make()


@pytest.mark.parametrize("name", ["claims", "mechanisms.gaussian", "mechanisms.discrete_gaussian",
                                  "mechanisms.dpsgd"])
def test_docstring_examples_run(name: str) -> None:
    import doctest
    import importlib

    mod = importlib.import_module(f"ltheory.privacy.{name}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_json_round_trip() -> None:
    from ltheory.privacy.claims import claim_from_json

    for claim in (PureDP(0.5), ApproxDP(1.0, 1e-6), ZCDP(0.3), GDP(1.2),
                  RDP({2: 0.5, 8: 2.5})):
        again = claim_from_json(json.loads(json.dumps(claim.to_json())))
        assert type(again) is type(claim)
        assert np.array_equal(again.delta_at(EPS), claim.delta_at(EPS))
    with pytest.raises(InvalidInputError, match="cannot rebuild"):
        claim_from_json(ProfileClaim(lambda e: np.exp(-e) / 2).to_json())
    with pytest.raises(InvalidInputError, match="rho"):
        claim_from_json({"kind": "zcdp", "rho": -1})
    with pytest.raises(InvalidInputError, match="malformed"):
        claim_from_json({"kind": "gdp"})


# --------------------------------------------------------------------------- large ε, tiny δ
def _cks_zcdp_epsilon(rho: float, delta: float) -> float:
    """Canonne, Kamath & Steinke 2020 (Proposition 12) for ρ-zCDP, minimised over a dense grid
    of orders (an upper bound within 1e-10 relative): the closed form the ZCDP profile
    inverts."""
    a = 1 + np.logspace(-9, 3, 400_001)
    return float(np.min(a * rho + (-math.log(delta) + (a - 1) * np.log1p(-1 / a) - np.log(a))
                        / (a - 1)))


@pytest.mark.parametrize("rho", [0.5, 5e3, 1e4, 1e8, 1e12])
def test_zcdp_epsilon_at_past_ten_thousand(rho: float) -> None:
    """The root search's bracket stopped at ε = 10^4 and returned inf past it (ZCDP(1e4) at
    δ = 1e-5 is 10,674.2, not inf): every ε a float holds is found."""
    e = ZCDP(rho).epsilon_at(1e-5)
    assert math.isfinite(e)
    ref = _cks_zcdp_epsilon(rho, 1e-5)
    assert ref * (1 - 1e-10) - 1e-9 <= e <= ref * (1 + 1e-14) + 1e-9
    assert e <= rho + 2 * math.sqrt(rho * math.log(1e5))     # below the simple conversion
    assert float(ZCDP(rho).delta_at(e)) <= 1e-5 * (1 + 1e-9)


def test_zcdp_ten_thousand_is_the_published_conversion() -> None:
    assert round(ZCDP(1e4).epsilon_at(1e-5), 1) == 10674.2


@pytest.mark.parametrize("claim,target", [
    (GDP(1.5e6), 1e12), (RDP(lambda a: a * 1e11), 1e11),
    (ProfileClaim(lambda e: np.exp(-e / 1e11)), 1e11 * math.log(1e5)),
    (ApproxDP(5e11, 1e-6), 5e11)])
def test_every_claim_reaches_large_epsilon(claim: PrivacyClaim, target: float) -> None:
    e = claim.epsilon_at(1e-5)
    assert math.isfinite(e) and e >= 0.5 * target
    assert float(claim.delta_at(e)) <= 1e-5 * (1 + 1e-6)
    assert float(claim.delta_at(e * (1 - 1e-9))) > 1e-5 * (1 - 1e-6) or isinstance(claim, ApproxDP)


def test_profile_claim_exact_value_far_out() -> None:
    e = ProfileClaim(lambda x: np.exp(-x / 1e11)).epsilon_at(1e-5)
    assert e == pytest.approx(1e11 * math.log(1e5), rel=1e-12)


@pytest.mark.parametrize("claim", [ZCDP(1.0), GDP(1.0), RDP(lambda a: a / 2),
                                   RDP({2: 1.0, 4: 2.0})])
def test_delta_zero_is_never_reached_and_tiny_delta_is_finite(claim: PrivacyClaim) -> None:
    """These profiles are positive at every finite ε: δ = 0 is inf (ZCDP gave 64, the ε where
    exp underflowed); δ down to the smallest float is finite and exact (GDP gave 42 at 1e-300,
    its log clamped at 1e-300)."""
    assert claim.epsilon_at(0.0) == math.inf
    for d in (1e-300, 5e-324):
        e = claim.epsilon_at(d)
        assert math.isfinite(e), d
    gd = GDP(1.0).epsilon_at(1e-300)
    assert float(GDP(1.0).delta_at(gd - 1e-6)) > 1e-300 >= float(GDP(1.0).delta_at(gd)) * (1 - 1e-9)


def test_profile_that_never_reaches_delta_is_inf() -> None:
    assert ProfileClaim(lambda e: 0.5 * np.ones_like(e)).epsilon_at(0.1) == math.inf
    assert ProfileClaim(lambda e: np.where(e < 3e9, 0.5, 0.0)).epsilon_at(0.0) == 3e9


def test_approx_dp_past_exp_overflow_is_not_an_overflow_error() -> None:
    c = ApproxDP(1000.0, 1e-5)
    assert c.epsilon_at(1e-5) == 1000.0
    assert c.epsilon_at(0.5) == pytest.approx(1000 + math.log(0.5 / (1 - 1e-5)), abs=1e-9)
    assert np.allclose(c.delta_at([0.0, 999.0, 1000.0]), [1.0, 1e-5 + (1 - 1e-5) * (1 - 1 / math.e),
                                                          1e-5])
    assert np.allclose(c.tradeoff([0.0, 0.5, 1.0]), [1 - 1e-5, 0.0, 0.0])
    small = ApproxDP(1.0, 1e-5)     # the stable form agrees with the plain one where both work
    top = math.e
    plain = 1e-5 + (1 - 1e-5) * (top - np.exp(EPS[EPS < 1])) / (1 + top)
    assert np.allclose(small.delta_at(EPS[EPS < 1]), plain, rtol=1e-14, atol=0)
