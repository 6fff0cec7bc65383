"""DP-SGD on a canary (ltheory.privacy.mechanisms.dpsgd): exact curves against GDP, numerical
integration and Monte Carlo of the likelihood ratio; the accountants' claims against each other."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from ltheory.errors import InvalidInputError
from ltheory.privacy.claims import GDP, ProfileClaim
from ltheory.privacy.mechanisms import CANARY, DPSGDCanary

pytest.importorskip("dp_accounting")
D0, D1 = (), (CANARY,)


@pytest.mark.parametrize("sigma, steps", [(1.0, 1), (2.0, 4)])
def test_full_batch_all_iterates_is_gdp_and_the_pld_accountant_agrees(sigma: float,
                                                                      steps: int) -> None:
    m = DPSGDCanary(1.0, sigma, steps, "all")
    assert m.exact_claim == GDP(math.sqrt(steps) / sigma)
    assert isinstance(m.privacy_claim, ProfileClaim)
    # PLD accountant within its discretisation (10^-4 in the loss)
    for d in (1e-3, 1e-5, 1e-7):
        assert m.privacy_claim.epsilon_at(d) == pytest.approx(m.exact_claim.epsilon_at(d),
                                                              rel=1e-3)
    eps = np.linspace(0, 3 * math.sqrt(steps) / sigma, 13)
    assert np.all(m.privacy_claim.delta_at(eps) >= m.exact_claim.delta_at(eps) - 1e-9)
    # the RDP accountant is looser (a Rényi conversion), never below the exact curve
    rdp = m.privacy_claim(accountant="rdp")
    assert rdp is m.accountant_claim("rdp")
    assert rdp.epsilon_at(1e-5) >= m.exact_claim.epsilon_at(1e-5)


def test_full_batch_llr_is_the_gaussian_statistic() -> None:
    """At q = 1 the LLR is Σ(2x_t − 1)/(2σ²): N(∓T/(2σ²), T/σ²) under d0 / d1."""
    m = DPSGDCanary(1.0, 1.5, 5, "all")
    rng = np.random.default_rng(3)
    mean, sd = 5 / (2 * 1.5**2), math.sqrt(5) / 1.5
    assert stats.kstest(m.sample(D0, 20_000, rng), stats.norm(-mean, sd).cdf).pvalue > 1e-4
    assert stats.kstest(m.sample(D1, 20_000, rng), stats.norm(mean, sd).cdf).pvalue > 1e-4


def test_llr_is_a_post_processing_of_the_iterates() -> None:
    """The LLR output has the law of log_likelihood_ratio(iterates), and that function is the
    log density ratio of the iterates (computed here from normal densities directly)."""
    q, s, t = 0.3, 0.9, 7
    llr = DPSGDCanary(q, s, t, "all").sample(D1, 20_000, np.random.default_rng(11))
    raw = DPSGDCanary(q, s, t, "all", output="iterates", clip=2.0)
    it = raw.sample(D1, 20_000, np.random.default_rng(12))
    assert it.shape == (20_000, t)
    again = raw.log_likelihood_ratio(it)
    assert stats.ks_2samp(llr, again).pvalue > 1e-4
    x = np.diff(it[:5] / 2.0, axis=1, prepend=0.0)
    direct = np.log((1 - q) * stats.norm.pdf(x, 0, s) + q * stats.norm.pdf(x, 1, s)).sum(axis=1) \
        - np.log(stats.norm.pdf(x, 0, s)).sum(axis=1)
    assert np.allclose(again[:5], direct)
    with pytest.raises(InvalidInputError, match="columns"):
        raw.log_likelihood_ratio(np.zeros((2, t + 1)))


def test_llr_is_stable_for_small_sigma() -> None:
    m = DPSGDCanary(0.5, 0.02, 3, "all")
    out = m.sample(D1, 1000, np.random.default_rng(0))
    assert np.all(np.isfinite(out))


def test_all_iterates_hockey_stick_by_monte_carlo_matches_the_pld_accountant() -> None:
    """With the exact LLR L, H_{e^ε}(P1‖P0) = E_{P1}[(1 − e^{ε−L})₊] and H(P0‖P1) =
    E_{P0}[(1 − e^{ε+L})₊]; their max is the pair's profile, which the PLD accountant computes."""
    m = DPSGDCanary(0.1, 1.0, 20, "all")
    rng = np.random.default_rng(5)
    n = 200_000
    l1, l0 = m.sample(D1, n, rng), m.sample(D0, n, rng)
    for eps in (0.2, 0.5):
        a = np.maximum(0, -np.expm1(eps - l1))
        b = np.maximum(0, -np.expm1(eps + l0))
        est = max(a.mean(), b.mean())
        se = max(a.std(), b.std()) / math.sqrt(n)
        ref = float(m.exact_claim.delta_at(eps))
        assert abs(est - ref) < 5 * se + 1e-4 * ref


def test_final_release_exact_profile_by_integration_and_below_all_iterates() -> None:
    q, s, t = 0.05, 1.0, 30
    m = DPSGDCanary(q, s, t, "final")
    k = np.arange(t + 1)
    w = stats.binom.pmf(k, t, q)
    sd = s * math.sqrt(t)

    def p1(x: float) -> float:
        return float((w * stats.norm.pdf(x, loc=k, scale=sd)).sum())

    def p0(x: float) -> float:
        return float(stats.norm.pdf(x, scale=sd))

    for eps in (0.0, 0.3, 0.8):
        a = integrate.quad(lambda x, e=eps: max(0.0, p1(x) - math.exp(e) * p0(x)), -60, 80,
                           limit=500, epsabs=1e-13)[0]
        b = integrate.quad(lambda x, e=eps: max(0.0, p0(x) - math.exp(e) * p1(x)), -60, 80,
                           limit=500, epsabs=1e-13)[0]
        assert float(m.exact_claim.delta_at(eps)) == pytest.approx(max(a, b), rel=1e-4)
    # the final sum is a post-processing of the iterates: its curve lies below theirs
    grid = np.linspace(0, 3, 16)
    assert np.all(m.exact_claim.delta_at(grid)
                  <= DPSGDCanary(q, s, t, "all").exact_claim.delta_at(grid) + 1e-12)
    assert m.true_epsilon < m.epsilon


def test_final_release_samples() -> None:
    q, s, t, c = 0.2, 2.0, 40, 3.0
    x = DPSGDCanary(q, s, t, "final", clip=c).sample(D1, 100_000, np.random.default_rng(9))
    mean, var = c * t * q, c * c * (t * q * (1 - q) + t * s * s)
    assert abs(x.mean() - mean) < 5 * math.sqrt(var / x.size)
    assert x.var() == pytest.approx(var, rel=0.03)


def test_false_claims_on_purpose() -> None:
    m = DPSGDCanary(0.01, 1.0, 100, "all", accountant_sigma=2.0)
    honest = DPSGDCanary(0.01, 1.0, 100, "all")
    assert m.epsilon < 0.5 * honest.epsilon
    assert m.true_epsilon == pytest.approx(honest.epsilon, rel=1e-9)
    assert m.epsilon < m.true_epsilon
    assert DPSGDCanary(0.01, 1.0, 100, accountant="rdp").epsilon > honest.epsilon


@pytest.mark.parametrize("make, words", [
    (lambda: DPSGDCanary(0.0, 1.0, 10), "q"),
    (lambda: DPSGDCanary(1.5, 1.0, 10), "q"),
    (lambda: DPSGDCanary(0.1, 0.0, 10), "sigma"),
    (lambda: DPSGDCanary(0.1, 1.0, 0), "steps"),
    (lambda: DPSGDCanary(0.1, 1.0, 10, "middle"), "release"),
    (lambda: DPSGDCanary(0.1, 1.0, 10, accountant="prv"), "accountant"),
    (lambda: DPSGDCanary(0.1, 1.0, 10).sample(("someone",), 3, np.random.default_rng(0)),
     "canary"),
])
def test_bad_input(make, words: str) -> None:
    with pytest.raises(InvalidInputError, match=words):
        make()


def test_canary_pair_and_neighbours() -> None:
    m = DPSGDCanary(0.1, 1.0, 3)
    assert m.default_pair() == (D0, D1)
    assert m.are_neighbours(D0, D1) and not m.are_neighbours(D1, D1)
    assert m.claim == (m.epsilon, 1e-5)
