"""Issue 33 end to end, with the library's own claim classes and mechanisms (the unit tests of
``ltheory.testing`` and of the curve audit use local stand-ins): the Gaussian mechanism with
half the σ its (1, 10⁻⁵) claim needs is refuted by ``assert_private`` and by ``audit_curve``;
a correct analytic Gaussian passes against its zCDP, GDP and (ε, δ) claims; the discrete
Gaussian against its zCDP claim."""

from __future__ import annotations

import math

import pytest

from ltheory import GDP, ZCDP, ApproxDP, audit_curve
from ltheory.privacy.mechanisms import DiscreteGaussianMechanism, GaussianMechanism
from ltheory.testing import PrivacyViolation, assert_private


def test_half_sigma_gaussian_is_refuted_by_assert_private() -> None:
    m = GaussianMechanism.half_sigma(1.0, 1e-5)          # true δ at ε = 1: 0.0104
    assert not m.claim_holds and m.true_delta == pytest.approx(0.0104, abs=2e-4)
    d0, d1 = m.default_pair()
    with pytest.raises(PrivacyViolation):
        assert_private(m, d0, d1, claim=ApproxDP(1.0, 1e-5), seed=0)


@pytest.mark.parametrize("claim", ["zcdp", "gdp", "approx"])
def test_correct_gaussian_passes_its_claims(claim: str) -> None:
    m = GaussianMechanism(1.0, 1e-5)                     # analytic σ ≈ 3.7306
    c = {"zcdp": ZCDP(m.mu ** 2 / 2), "gdp": GDP(m.mu), "approx": m.privacy_claim}[claim]
    d0, d1 = m.default_pair()
    report = assert_private(m, d0, d1, claim=c, seed=1, max_runs=20_000, arithmetic="real")
    assert report.verdict != "violation" and report.claim == c.to_json()


def test_curve_audit_with_library_claims() -> None:
    bad = GaussianMechanism.half_sigma(1.0, 1e-5)
    d0, d1 = bad.default_pair()
    r = audit_curve(bad, d0, d1, claim=ApproxDP(1.0, 1e-5), runs=400_000, seed=0,
                    arithmetic="real")
    assert r.verdict == "violation" and r.gap > 0
    good = GaussianMechanism(sigma=1.0)                  # exactly 1-GDP
    r = audit_curve(good, d0, d1, claim=GDP(1.0), runs=400_000, seed=0, arithmetic="real")
    assert r.verdict == "consistent"
    # certified points never above the exact curve (sound at alpha; a seeded draw)
    exact = GDP(1.0)
    for e, d in zip(r.epsilons, r.delta_lower_bound, strict=True):
        assert d <= float(exact.delta_at(e)) + 1e-12


def test_discrete_gaussian_consistent_with_its_zcdp_claim() -> None:
    m = DiscreteGaussianMechanism(sigma=1.0)
    c = m.privacy_claim
    assert isinstance(c, ZCDP) and math.isclose(c.rho, 0.5)
    d0, d1 = m.default_pair()
    r = audit_curve(m, d0, d1, claim=c, runs=200_000, seed=0)
    assert r.verdict == "consistent"
