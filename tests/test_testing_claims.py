"""``assert_private(..., claim=...)``: claims as objects, curve claims checked at several points,
and the δ-gap events that catch a Gaussian mechanism with half the σ its (ε, δ) claim needs.

The claim and mechanism stand-ins are local (the library's ZCDP/GDP claims and Gaussian
mechanisms are built elsewhere): ``GaussProfile(μ)`` is the μ-GDP profile
δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2022, Corollary 2.13; Balle & Wang
2018, Theorem 8), ``Gauss(σ)`` the Gaussian mechanism value + σ·N(0, 1) on a count.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import binom, norm

from ltheory.errors import InvalidInputError
from ltheory.privacy.claims import ApproxDP, PrivacyClaim, PureDP
from ltheory.privacy.mechanisms import RandomizedResponse
from ltheory.testing import (
    PrivacyViolation,
    assert_private,
    assert_private_search,
    min_runs_to_reject,
)
from ltheory.testing.claim_points import CURVE_DELTAS, claim_label, claim_points
from ltheory.testing.gap_events import growth_rate, select_gap_event, wilson
from ltheory.testing.sequential import BettingEProcess, delta_grid

pytest_plugins = ["pytester"]

D0, D1 = ((0, 0),), ((0, 1),)


class GaussProfile(PrivacyClaim):
    """μ-GDP as a profile (module docstring)."""

    def __init__(self, mu: float) -> None:
        self.mu = mu

    def delta_at(self, epsilon):  # noqa: ANN001, ANN201
        e, m = np.asarray(epsilon, dtype=float), self.mu
        return norm.cdf(-e / m + m / 2) - np.exp(e) * norm.cdf(-e / m - m / 2)

    def to_json(self) -> dict:
        return {"kind": "gdp_stand_in", "mu": self.mu}


class BadProfile(GaussProfile):
    """Not a privacy profile: δ above 1."""

    def delta_at(self, epsilon):  # noqa: ANN001, ANN201
        return np.full(np.shape(epsilon), 1.5)


class Increasing(GaussProfile):
    """Not a privacy profile: δ(ε) increasing."""

    def delta_at(self, epsilon):  # noqa: ANN001, ANN201
        return 0.01 * np.minimum(np.asarray(epsilon, dtype=float), 10.0)


class Gauss:
    """value + σ·N(0, 1) on a count (sensitivity 1)."""

    def __init__(self, sigma: float) -> None:
        self.sigma = sigma
        self.name = f"gaussian(sigma={sigma:.4g})"

    def __call__(self, d: float, rng: np.random.Generator) -> float:
        return float(d) + self.sigma * rng.standard_normal()

    def sample(self, d: float, n: int, rng: np.random.Generator) -> np.ndarray:
        return float(d) + self.sigma * rng.standard_normal(n)


def gauss_delta(eps: float, sigma: float) -> float:
    return float(GaussProfile(1.0 / sigma).delta_at(eps))


def sigma_analytic(eps: float, delta: float) -> float:
    """Balle & Wang 2018 (Theorem 8): the σ with δ(ε) = δ exactly (sensitivity 1)."""
    return brentq(lambda s: gauss_delta(eps, s) - delta, 1e-3, 1e3, xtol=1e-12)


#: half the analytic-Gaussian σ for (1, 1e-5): true δ(1) ≈ 0.0104 against the claimed 1e-5
HALF_SIGMA = sigma_analytic(1.0, 1e-5) / 2


def _run(*args: object, **kw: object) -> tuple[str, object]:
    kw.setdefault("arithmetic", "real")     # Gauss is a naive float sum: real-arithmetic subject
    try:
        return "passed", assert_private(*args, **kw)
    except PrivacyViolation as v:
        return "violation", v.report


# --------------------------------------------------------------------------- claims accepted
@pytest.mark.parametrize("claim", [1.0, (1.0, 0.0), PureDP(1.0), ApproxDP(1.0, 0.0)])
def test_claim_forms_give_the_old_test(claim: object) -> None:
    old = assert_private(RandomizedResponse(1.0), D0, D1, 1.0, max_runs=20_000, seed=3)
    new = assert_private(RandomizedResponse(1.0), D0, D1, claim=claim, max_runs=20_000, seed=3)
    assert (new.verdict, new.runs_used, new.log10_e_value) == \
        (old.verdict, old.runs_used, old.log10_e_value)
    assert old.claim == {"kind": "pure_dp", "epsilon": 1.0}
    assert new.claim == (claim.to_json() if isinstance(claim, ApproxDP) else old.claim)


def test_a_claim_object_in_epsilon_s_place() -> None:
    r = assert_private(RandomizedResponse(1.0), D0, D1, ApproxDP(1.0, 0.01), max_runs=20_000)
    assert r.passed and r.claim == {"kind": "approx_dp", "epsilon": 1.0, "delta": 0.01}


def test_old_api_unchanged_and_reports_the_claim() -> None:
    r = assert_private(RandomizedResponse(1.0), D0, D1, 1.0, 0.01, max_runs=20_000)
    assert r.passed and r.claimed_epsilon == 1.0 and r.claimed_delta == 0.01
    assert r.claim == {"kind": "approx_dp", "epsilon": 1.0, "delta": 0.01}
    assert r.refuted_at is None and r.to_json()["claim"] == r.claim
    with pytest.raises(PrivacyViolation) as ex:
        assert_private(RandomizedResponse(1.0), D0, D1, epsilon=0.5)
    rep = ex.value.report
    assert rep.epsilon_lower_bound is not None and rep.epsilon_lower_bound >= 0.5
    at = rep.refuted_at
    assert at["epsilon"] == 0.5 and at["claimed_delta"] == 0.0
    # the certified δ at ε = 0.5 lies below the exact hockey-stick divergence there
    q = math.e / (1 + math.e)
    assert at["exact_delta"] == pytest.approx(q - math.exp(0.5) * (1 - q))
    assert at["certified_delta"] is None or 0.0 <= at["certified_delta"] < at["exact_delta"]


def test_approx_claim_as_object_matches_epsilon_delta() -> None:
    a = assert_private(Gauss(HALF_SIGMA), 0.0, 1.0, 1.0, 1e-5, seed=2, verify_neighbours=False,
                       max_runs=40_000, arithmetic="real")
    b = assert_private(Gauss(HALF_SIGMA), 0.0, 1.0, claim=ApproxDP(1.0, 1e-5), seed=2,
                       verify_neighbours=False, max_runs=40_000, arithmetic="real")
    assert a.log10_e_value == b.log10_e_value and a.runs_used == b.runs_used


# --------------------------------------------------------------------------- claim points
def test_claim_points_of_a_curve() -> None:
    c = GaussProfile(0.5)
    pts = claim_points(c)
    assert [p[0] for p in pts] == sorted(p[0] for p in pts)
    # the fixed cover: ε = 0 (δ(0) = 0.197 < 0.2, so no large-δ points) and the decades
    assert pts[0] == (0.0, pytest.approx(gauss_delta(0.0, 2.0)))
    assert len(pts) == 1 + len(CURVE_DELTAS)
    for (e, d), target in zip(pts[1:], CURVE_DELTAS, strict=True):
        assert d == pytest.approx(target, rel=1e-6)
        assert d == pytest.approx(gauss_delta(e, 2.0), rel=1e-9)
    assert claim_points(ApproxDP(2.0, 1e-6)) == [(2.0, 1e-6)]
    assert claim_label(c) == "gdp_stand_in(mu=0.5)"
    assert claim_label(ApproxDP(1.0, 1e-5)) == "(1, 1e-05)-DP"


def test_claim_points_add_the_quoted_epsilon() -> None:
    c = GaussProfile(0.5)
    c.epsilon = 1.0                         # a claim quoted at ε = 1
    pts = claim_points(c)
    assert (1.0, pytest.approx(gauss_delta(1.0, 2.0))) in pts
    assert len(pts) == 1 + len(CURVE_DELTAS) + 1          # ε = 0, the decades, the quoted ε


# --------------------------------------------------------------------------- curve claims
def test_curve_violation_found_at_the_right_epsilon() -> None:
    """Randomised response with ε₀ = ln 3 has δ(ε) = 0.75 − 0.25·e^ε for ε < ln 3 and 0 above:
    against the 0.5-GDP curve it is far above at small ε and below at large ε, so the claim
    must be refuted at a point ε < ln 3, with claimed δ < certified δ ≤ the exact δ."""
    c = GaussProfile(0.5)
    with pytest.raises(PrivacyViolation) as ex:
        assert_private(RandomizedResponse(math.log(3)), D0, D1, claim=c, seed=0)
    rep = ex.value.report
    at = rep.refuted_at
    assert at["epsilon"] < math.log(3)
    assert at["epsilon"] in [p[0] for p in claim_points(c)]
    exact = 0.75 - 0.25 * math.exp(at["epsilon"])
    assert at["exact_delta"] == pytest.approx(exact)
    assert at["claimed_delta"] == pytest.approx(float(c.delta_at(at["epsilon"])))
    assert at["certified_delta"] is not None
    assert at["claimed_delta"] <= at["certified_delta"] < exact
    assert rep.claim == {"kind": "gdp_stand_in", "mu": 0.5}
    assert rep.epsilon_lower_bound is None and rep.runs_to_decision < 5_000
    text = str(ex.value)
    assert "refuted at ε" in text and "gdp_stand_in(mu=0.5)" in text


def test_curve_claim_of_a_leaky_gaussian_is_refuted() -> None:
    # σ = 0.75 against the curve of σ = 1.5: refuted within a few thousand runs
    with pytest.raises(PrivacyViolation) as ex:
        assert_private(Gauss(0.75), 0.0, 1.0, claim=GaussProfile(1 / 1.5), seed=1,
                       verify_neighbours=False, arithmetic="real")
    at = ex.value.report.refuted_at
    truth = gauss_delta(at["epsilon"], 0.75)
    assert at["certified_delta"] is None or at["certified_delta"] < truth
    assert ex.value.report.runs_to_decision < 10_000


@pytest.mark.parametrize("seed", [0, 1])
def test_curve_claim_sound_on_the_tight_gaussian(seed: int) -> None:
    """The Gaussian mechanism claimed at its own GDP curve (tight at every ε)."""
    r = assert_private(Gauss(1.5), 0.0, 1.0, claim=GaussProfile(1 / 1.5), seed=seed,
                       max_runs=40_000, verify_neighbours=False, arithmetic="real")
    assert r.passed and r.log10_e_value < 2
    assert len(r.stats["points"]) == len(claim_points(GaussProfile(1 / 1.5)))


@pytest.mark.slow
def test_curve_claim_false_alarms_at_a_large_level() -> None:
    """At level 0.1 on 60 seeds of the tight Gaussian, the false alarms stay within what a
    test of exact level 0.1 allows (one-sided binomial test at 1%)."""
    level, seeds = 0.1, 60
    alarms = sum(_run(Gauss(1.5), 0.0, 1.0, claim=GaussProfile(1 / 1.5), seed=500 + s,
                      max_runs=20_000, false_alarm=level, verify_neighbours=False)[0]
                 == "violation" for s in range(seeds))
    assert alarms <= binom.ppf(0.99, seeds, level)


def test_search_takes_a_claim() -> None:
    pairs = [(D0, D1), (D1, D0)]
    with pytest.raises(PrivacyViolation) as ex:
        assert_private_search(RandomizedResponse(math.log(3)), pairs, claim=GaussProfile(0.5),
                              seed=0)
    assert ex.value.report.claim == {"kind": "gdp_stand_in", "mu": 0.5}
    assert ex.value.report.refuted_at["epsilon"] < math.log(3)
    ok = assert_private_search(RandomizedResponse(1.0), pairs, claim=(1.0, 0.0),
                               max_runs=20_000)
    assert ok.passed and ok.claim == {"kind": "pure_dp", "epsilon": 1.0}


# --------------------------------------------------------------------------- half-σ Gaussian
def test_half_sigma_gaussian_true_delta() -> None:
    assert gauss_delta(1.0, 2 * HALF_SIGMA) == pytest.approx(1e-5, rel=1e-6)
    assert 0.009 < gauss_delta(1.0, HALF_SIGMA) < 0.012


@pytest.mark.parametrize("seed", [0, 3, 7])
def test_half_sigma_gaussian_caught_at_the_default_budget(seed: int) -> None:
    verdict, rep = _run(Gauss(HALF_SIGMA), 0.0, 1.0, 1.0, 1e-5, seed=seed,
                        verify_neighbours=False)
    assert verdict == "violation"
    at = rep.refuted_at
    assert at["epsilon"] == 1.0 and at["claimed_delta"] == 1e-5
    assert at["certified_delta"] < gauss_delta(1.0, HALF_SIGMA)


@pytest.mark.slow
def test_half_sigma_gaussian_caught_on_19_of_20_seeds() -> None:
    caught = sum(_run(Gauss(HALF_SIGMA), 0.0, 1.0, 1.0, 1e-5, seed=s,
                      verify_neighbours=False)[0] == "violation" for s in range(20))
    assert caught >= 19


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_analytic_gaussian_sound(seed: int) -> None:
    r = assert_private(Gauss(sigma_analytic(1.0, 1e-5)), 0.0, 1.0, 1.0, 1e-5,
                       seed=10**6 + seed, max_runs=40_000, verify_neighbours=False,
                       arithmetic="real")
    assert r.passed and r.log10_e_value < 2


@pytest.mark.slow
def test_gap_events_false_alarms_at_a_large_level() -> None:
    """The δ > 0 test (δ-gap events) at level 0.1 on 60 seeds of the exactly-(1, 1e-5) analytic
    Gaussian and of randomised response claimed at its exact δ(0.5): false alarms within what
    a test of exact level 0.1 allows (one-sided binomial test at 1%)."""
    level, seeds = 0.1, 60
    q = math.e / (1 + math.e)
    cases = [(Gauss(sigma_analytic(1.0, 1e-5)), 0.0, 1.0, 1.0, 1e-5),
             (RandomizedResponse(1.0), D0, D1, 0.5, q - math.exp(0.5) * (1 - q))]
    for m, a, b, eps, d in cases:
        alarms = sum(_run(m, a, b, eps, d, seed=700 + s, max_runs=20_000, false_alarm=level,
                          verify_neighbours=False)[0] == "violation" for s in range(seeds))
        assert alarms <= binom.ppf(0.99, seeds, level)


# --------------------------------------------------------------------------- the pieces
def test_growth_rate_against_simulation() -> None:
    """The growth rate is the best fraction's E log(1 + c·Z/(u + δ)), checked by Monte Carlo."""
    pa, pb, eps, d = 0.03, 0.007, 1.0, 1e-5
    g = float(growth_rate(pa, pb, eps, d))
    rng = np.random.default_rng(0)
    x, y = rng.random(2_000_000) < pa, rng.random(2_000_000) < pb
    u = math.e
    from ltheory.testing.sequential import FRACTIONS
    sims = [np.mean(np.log1p(c * (x - u * y - d) / (u + d))) for c in FRACTIONS]
    assert g == pytest.approx(max(sims), rel=0.15)
    assert float(growth_rate(0.02, 0.01, 1.0, 1e-5)) == 0.0     # gap < 0: no growth


def test_wilson_brackets_the_frequency() -> None:
    lo, hi = wilson(np.array([0, 10, 500]), 1000)
    assert np.all(lo <= np.array([0, 0.01, 0.5])) and np.all(hi >= np.array([0, 0.01, 0.5]))
    assert hi[0] > 0 and lo[2] > 0.48


def test_gap_event_is_a_tail_near_the_best_one() -> None:
    """On 2^16 runs each of the half-σ Gaussian, the chosen event is a tail threshold whose
    true growth rate is at least half the best threshold's (exact, from Φ)."""
    rng = np.random.default_rng(5)
    s0, s1 = HALF_SIGMA * rng.standard_normal(1 << 16), 1 + HALF_SIGMA * rng.standard_normal(
        1 << 16)
    c = select_gap_event(s0, s1, 1.0, 1e-5, arithmetic="real")
    t, geq = c.event.t, c.event.geq
    mean_a = 0.0 if c.direction == 0 else 1.0
    tail = norm.sf if geq else norm.cdf
    pa, pb = tail((t - mean_a) / HALF_SIGMA), tail((t - (1 - mean_a)) / HALF_SIGMA)
    ts = np.linspace(-8, 3, 4001)
    best = float(np.max(growth_rate(norm.cdf(ts / HALF_SIGMA),
                                    norm.cdf((ts - 1) / HALF_SIGMA), 1.0, 1e-5)))
    assert float(growth_rate(pa, pb, 1.0, 1e-5)) >= 0.5 * best
    assert c.projected > 0 and c.test == "gap"


def test_delta_grid_reading_is_a_lower_bound() -> None:
    """All pairs in an event of probabilities (0.4, 0.05) at ε = 1: the δ grid certifies
    δ(1) > 0.4 − e·0.05 = 0.264 only below it."""
    proc = BettingEProcess(np.full(len(delta_grid(0.01)), 1.0), delta_grid(0.01), 1e-6)
    rng = np.random.default_rng(1)
    proc.update(np.bincount(2 * (rng.random(50_000) < 0.4) + (rng.random(50_000) < 0.05),
                            minlength=4))
    got = proc.certified_delta()
    assert got is not None and 0.2 < got < 0.4 - math.e * 0.05


# --------------------------------------------------------------------------- bad input
def test_both_epsilon_and_claim_is_an_error() -> None:
    with pytest.raises(InvalidInputError, match="either as epsilon .* or as claim="):
        assert_private(RandomizedResponse(1.0), D0, D1, 1.0, claim=PureDP(1.0))
    with pytest.raises(InvalidInputError, match="either as epsilon"):
        assert_private_search(RandomizedResponse(1.0), [(D0, D1)], 1.0, claim=1.0)


def test_neither_is_an_error() -> None:
    with pytest.raises(InvalidInputError, match="needs the claimed epsilon.*claim="):
        assert_private(RandomizedResponse(1.0), D0, D1)


@pytest.mark.parametrize("bad", ["1-DP", {"epsilon": 1}, (1.0, 2.0, 3.0), object()])
def test_a_claim_that_is_not_a_claim(bad: object) -> None:
    with pytest.raises(InvalidInputError, match="claim|delta"):
        assert_private(RandomizedResponse(1.0), D0, D1, claim=bad)


def test_delta_beside_a_claim_and_bad_profiles() -> None:
    with pytest.raises(InvalidInputError, match="put delta in the claim"):
        assert_private(RandomizedResponse(1.0), D0, D1, delta=1e-5, claim=1.0)
    with pytest.raises(InvalidInputError, match="not a probability"):
        assert_private(RandomizedResponse(1.0), D0, D1, claim=BadProfile(1.0))
    with pytest.raises(InvalidInputError, match="not a privacy profile: delta_at increases"):
        assert_private(RandomizedResponse(1.0), D0, D1, claim=Increasing(1.0))
    with pytest.raises(InvalidInputError, match="method='betting'"):
        assert_private(RandomizedResponse(1.0), D0, D1, claim=GaussProfile(0.5),
                       method="spending")


def test_budget_floor_for_a_curve_claim() -> None:
    need = min_runs_to_reject(claim=GaussProfile(0.5))
    assert need == min(min_runs_to_reject(e, d) for e, d in claim_points(GaussProfile(0.5)))
    with pytest.raises(InvalidInputError, match="too few"):
        assert_private(RandomizedResponse(1.0), D0, D1, claim=GaussProfile(0.5),
                       max_runs=need - 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # no budget warning for a curve claim
        assert_private(RandomizedResponse(0.2), D0, D1, claim=GaussProfile(0.5),
                       max_runs=need)


PLUGIN_TESTS = '''
import math
import numpy as np
import pytest
from scipy.stats import norm
from ltheory.privacy.claims import PrivacyClaim
from ltheory.privacy.mechanisms import RandomizedResponse

D0, D1 = ((0, 0),), ((0, 1),)


class GaussProfile(PrivacyClaim):
    def __init__(self, mu):
        self.mu = mu

    def delta_at(self, epsilon):
        e, m = np.asarray(epsilon, dtype=float), self.mu
        return norm.cdf(-e / m + m / 2) - np.exp(e) * norm.cdf(-e / m - m / 2)

    def to_json(self):
        return {"kind": "gdp_stand_in", "mu": self.mu}


def test_fixture_claim(assert_private):
    assert_private(RandomizedResponse(math.log(3)), D0, D1, claim=GaussProfile(0.5))


@pytest.mark.ltheory_privacy(claim=(1.0, 0.0), max_runs=20_000)
def test_marker_claim(assert_private):
    r = assert_private(RandomizedResponse(1.0), D0, D1)
    assert r.passed and r.claim == {"kind": "pure_dp", "epsilon": 1.0}


@pytest.mark.ltheory_privacy(claim=(0.1, 0.0), max_runs=20_000)
def test_call_wins_over_marker(assert_private):
    assert assert_private(RandomizedResponse(1.0), D0, D1, 1.0).passed
'''


def test_plugin_passes_claims(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_claims_inner=PLUGIN_TESTS)
    result = pytester.runpytest("-p", "ltheory.testing.pytest_plugin", "-W",
                                "ignore::pytest.PytestAssertRewriteWarning", "-q",
                                "--ltheory-runs", "0.5x")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "test_fixture_claim" in out and "refuted at ε" in out
    assert "δ(" in out                      # the summary table's certified δ


def test_average_crossing_against_a_direct_computation() -> None:
    """The curve test's stopping run is the first at which the weighted mean over points of
    each point's mixture e-value (computed here pair by pair from its definition) reaches 1/α:
    half the weight to the data-chosen point (here at the grid's fourth point), the rest
    shared by the fixed points."""
    from ltheory.privacy.auditing.executors import resolve_executor
    from ltheory.testing.engine import SequentialTest
    from ltheory.testing.sequential import FIRST_SHARE, FRACTIONS

    points = [(0.5, 0.05), (1.0, 0.01)]
    ex = resolve_executor("serial", RandomizedResponse(1.0), 10)[0]
    t = SequentialTest(RandomizedResponse(1.0), D0, D1, epsilon=0.5, delta=0.05, alpha=1e-3,
                       max_runs=10_000, seed=np.random.SeedSequence(0), seed_value=0,
                       method="betting", executor=ex, claim=GaussProfile(1.0), points=points)
    t.gi = 3
    t.aproc.move_to(*t.grid[3])
    rng = np.random.default_rng(4)
    xs = [rng.random(3000) < 0.5, rng.random(3000) < 0.3, rng.random(3000) < 0.2]
    ys = [rng.random(3000) < 0.1, rng.random(3000) < 0.05, rng.random(3000) < 0.1]
    stop = t._average_crossing(xs, ys, [True, True, True])
    logk = []
    for (e, d), x, y in zip([*points, t.grid[3]], xs, ys, strict=True):
        u = math.exp(e)
        z = x - u * y - d
        w = np.cumsum(np.log1p(np.outer(z, FRACTIONS) / (u + d)), axis=0)
        # the first strategy's share of the capital; the unstarted rest at face value
        logk.append(np.log(FIRST_SHARE * np.mean(np.exp(w), axis=1) + 1 - FIRST_SHARE))
    weights = np.array([0.25, 0.25, 0.5])
    avg = np.log(weights @ np.exp(np.array(logk)))
    direct = int(np.nonzero(avg >= math.log(1e3))[0][0])
    assert stop == direct
    assert t.top == int(np.argmax([lk[stop] + math.log(wt)
                                   for lk, wt in zip(logk, weights, strict=True)]))


def test_refuted_line_shows_a_near_tie_as_unequal() -> None:
    """A certified δ only just above the claimed δ printed equal to it at 4 digits
    ("certified δ(ε) > 1e-05, claimed δ(ε) = 1e-05"): both are now printed with the fewest
    digits that show the certified one larger."""
    import dataclasses

    from ltheory.testing.report import distinct_digits

    c = GaussProfile(0.5)
    with pytest.raises(PrivacyViolation) as ex:
        assert_private(RandomizedResponse(math.log(3)), D0, D1, claim=c, seed=0)
    rep = ex.value.report
    for cert, claimed in [(1.0000001e-5, 1e-5), (math.nextafter(0.123456789, 1.0), 0.123456789),
                          (math.nextafter(0.3, 1.0), 0.3)]:
        tie = dataclasses.replace(rep, refuted_at={"epsilon": 0.5, "certified_delta": cert,
                                                   "claimed_delta": claimed,
                                                   "exact_delta": None})
        line = tie.refuted_line()
        shown_cert = line.split("certified δ(ε) > ")[1].split(",")[0]
        shown_claimed = line.split("claimed δ(ε) = ")[1]
        assert float(shown_cert) > float(shown_claimed), line
        assert float(shown_cert) <= cert and len(shown_cert) <= 23
    assert distinct_digits(1.0000001e-5, 1e-5) == ("1.0000001e-05", "1e-05")
    assert distinct_digits(0.02, 0.01) == ("0.02", "0.01")            # 4 digits when enough
    assert distinct_digits(0.3, 0.3) == ("0.3", "0.3")
    assert "certified δ(ε) > 1e-05, claimed" not in dataclasses.replace(
        rep, refuted_at={"epsilon": 0.5, "certified_delta": 1.0000001e-5,
                         "claimed_delta": 1e-5}).message()
