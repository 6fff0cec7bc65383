"""Curve audits (``ltheory.privacy.auditing.curve``): the certified profile is below the exact
one at every ε at once, violations are found where the claimed curve is too low (at the right
ε), plain (ε, δ) claims behave as in ``audit``, the report round-trips through JSON, and bad
input is refused clearly.

The Gaussian mechanism is the library's ``GaussianMechanism`` and its claim ``GDP`` (exact
profile and trade-off); every claim class (ZCDP, RDP, GDP, ProfileClaim from a PLD accountant)
is audited once."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate
from scipy.optimize import brentq
from scipy.stats import binom, norm

from ltheory.errors import InvalidInputError
from ltheory.privacy import CurveReport, TooFewRunsError, audit, audit_curve
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.core import exact_distributions
from ltheory.privacy.auditing.curve import lower_hull, profile_tradeoff
from ltheory.privacy.claims import GDP, RDP, ZCDP, PrivacyClaim, ProfileClaim, PureDP
from ltheory.privacy.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse


# --------------------------------------------------------------------------- references
def gauss_delta(eps, mu):
    """The Gaussian mechanism's exact profile at sensitivity/σ = μ (Balle & Wang 2018,
    Theorem 8), written out here as an independent check of ``GDP.delta_at``."""
    e = np.asarray(eps, dtype=float)
    return np.clip(norm.cdf(-e / mu + mu / 2) - np.exp(e) * norm.cdf(-e / mu - mu / 2), 0, 1)


def laplace_delta(eps, eps0):
    """The Laplace mechanism's exact profile (shift = scale·ε0): 1 − e^{(ε−ε0)/2} below ε0."""
    e = np.asarray(eps, dtype=float)
    return np.where(e < eps0, 1 - np.exp((e - eps0) / 2), 0.0)


HALF_SIGMA = math.sqrt(2 * math.log(1.25 / 1e-5)) / 2     # half the classic σ for (1, 1e-5)


def _hockey_numeric(p0, p1, eps, lo=-40, hi=40):
    """∫ (p0 − e^ε p1)_+ by quadrature: an independent reference for the closed forms."""
    f = lambda x: max(p0(x) - math.exp(eps) * p1(x), 0.0)   # noqa: E731
    return integrate.quad(f, lo, hi, limit=400, points=[0.0, 0.5, 1.0])[0]


def test_closed_form_profiles_match_quadrature():
    for eps in (0.0, 0.3, 0.9, 2.0):
        g = _hockey_numeric(lambda x: norm.pdf(x, 1, 1), lambda x: norm.pdf(x, 0, 1), eps)
        assert g == pytest.approx(float(gauss_delta(eps, 1.0)), abs=1e-8)
        lap = _hockey_numeric(lambda x: 0.5 * math.exp(-abs(x)),
                              lambda x: 0.5 * math.exp(-abs(x - 1)), eps)
        assert lap == pytest.approx(float(laplace_delta(eps, 1.0)), abs=1e-8)


def _exceeds(report, exact_delta) -> bool:
    """Whether the certified curve lies above the exact profile anywhere (fine ε grid plus each
    piece's own maximiser of the difference)."""
    top = max(report.epsilon_lower_bound_at(0.0), 0.0)
    grid = np.linspace(0.0, min(top, 30.0) + 1e-9, 4001)
    return bool(np.any(report.delta_lower_bound_at(grid) > exact_delta(grid) + 1e-12))


# --------------------------------------------------------------------------- soundness
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sound_on_tight_mechanisms(seed):
    rr = audit_curve(RandomizedResponse(1.0), 0, 1, claim=1.0, runs=100_000, seed=seed)
    p0, p1 = exact_distributions(RandomizedResponse(1.0), 0, 1)
    assert not _exceeds(rr, np.vectorize(lambda e: exact_mod.delta_of_epsilon(p0, p1, e)))
    assert rr.verdict == "consistent"
    assert all(b <= x + 1e-12 for b, x in zip(rr.epsilon_lower_bound, rr.epsilon_exact,
                                               strict=True))
    assert min(r for r in rr.epsilon_ratio if r is not None) > 0.9
    lap = audit_curve(LaplaceMechanism(1.0), 0.0, 1.0, claim=1.0, runs=100_000, seed=seed,
                      arithmetic="real")
    assert not _exceeds(lap, lambda e: laplace_delta(e, 1.0)) and lap.verdict == "consistent"
    g = audit_curve(GaussianMechanism(sigma=1.0), 0.0, 1.0, claim=GDP(1.0), runs=100_000, seed=seed,
                    arithmetic="real")
    assert not _exceeds(g, lambda e: gauss_delta(e, 1.0)) and g.verdict == "consistent"
    # the certified curve is near the exact one, not trivially low
    ex = brentq(lambda e: float(gauss_delta(e, 1.0)) - 1e-2, 0, 10)
    assert g.epsilon_lower_bound_at(1e-2) > 0.75 * ex


def test_one_set_of_bounds_gives_every_epsilon_and_delta():
    """δ_lb on the grid is the maximum of the certified lines, and ε_lb(δ) is its inverse:
    the curve at every ε and the ε at every δ come from the same 2k bounds."""
    r = audit_curve(GaussianMechanism(sigma=1.0), 0.0, 1.0, claim=GDP(1.0), runs=200_000, seed=3,
                    arithmetic="real")
    assert r.events_certified == len(r.events) == len(r.pieces) // 2 <= 8
    lo = np.array([p["p_lower"] for p in r.pieces])
    up = np.array([p["p_upper"] for p in r.pieces])
    for e, d in zip(r.epsilons, r.delta_lower_bound, strict=True):
        assert d == pytest.approx(max(0.0, float(np.max(lo - math.exp(e) * up))), abs=1e-15)
    for d, e in zip(r.deltas, r.epsilon_lower_bound, strict=True):
        if math.isfinite(e) and e > 0:
            assert float(r.delta_lower_bound_at(e)) == pytest.approx(d, rel=1e-9)
    # complement lines are the events' complements read in the other direction
    for a, b in zip(r.pieces[::2], r.pieces[1::2], strict=True):
        assert b["p_lower"] == pytest.approx(1 - a["p_upper"])
        assert b["direction"] == 1 - a["direction"] and b["complement"]
    # the chosen events spread over the δ range: rarer events for smaller δ
    per_delta = [e for e in r.events if e["chosen_for"].startswith("delta=")]
    assert len(per_delta) >= 3


# --------------------------------------------------------------------------- verdicts
def _brute_gap(r, claim):
    grid = np.linspace(0.0, max(r.epsilon_lower_bound_at(0.0), 0.1), 200_001)
    lo = np.array([p["p_lower"] for p in r.pieces])
    up = np.array([p["p_upper"] for p in r.pieces])
    best = np.full(grid.shape, -np.inf)
    for a, b in zip(lo, up, strict=True):
        line = a - np.exp(grid) * b
        best = np.maximum(best, np.where(line > 0, line, -np.inf))
    g = best - claim.delta_at(grid)
    j = int(np.argmax(g))
    return float(g[j]), float(grid[j])


def test_violation_at_the_right_epsilon():
    r = audit_curve(RandomizedResponse(1.0), 0, 1, claim=(0.5, 0.0), runs=200_000, seed=0)
    gap, at = _brute_gap(r, PureDP(0.5))
    assert r.verdict == "violation" and r.gap == pytest.approx(gap, abs=1e-6)
    assert r.gap_epsilon == pytest.approx(0.5, abs=1e-6) == pytest.approx(at, abs=1e-4)
    # Gaussian σ = 1 claimed as 0.5-GDP: too low everywhere; the gap peaks inside the curve
    claim = GDP(0.5)
    g = audit_curve(GaussianMechanism(sigma=1.0), 0.0, 1.0, claim=claim, runs=200_000, seed=1,
                    arithmetic="real")
    gap, at = _brute_gap(g, claim)
    assert g.verdict == "violation" and g.gap == pytest.approx(gap, abs=1e-6)
    assert g.gap_epsilon == pytest.approx(at, abs=2e-3)
    true_gap = gauss_delta(np.linspace(0, 3, 3001), 1.0) - claim.delta_at(np.linspace(0, 3, 3001))
    assert 0 < g.gap <= true_gap.max()
    assert g.tradeoff_verdict == "violation" and g.gap_event


def test_half_sigma_gaussian_caught_at_a_million_runs():
    """The issue's example: σ half of the classic formula's for (1, 1e-5)."""
    r = audit_curve(GaussianMechanism(sigma=HALF_SIGMA), 0.0, 1.0, claim=(1.0, 1e-5),
                    runs=1_000_000, seed=0, executor="serial", arithmetic="real")
    assert r.verdict == "violation" and r.gap_epsilon == pytest.approx(1.0, abs=0.05)
    assert r.gap <= float(gauss_delta(1.0, 1 / HALF_SIGMA)) - 1e-5


@pytest.mark.parametrize("mech,d0,d1,claim", [
    (RandomizedResponse(1.0), 0, 1, (0.5, 0.0)),
    (RandomizedResponse(1.0), 0, 1, (1.0, 0.0)),
    (RandomizedResponse(2.0), 0, 1, (1.5, 0.01)),
    (LaplaceMechanism(1.0), 0.0, 1.0, (0.7, 0.0)),
    (LaplaceMechanism(1.0), 0.0, 1.0, (1.2, 0.0)),
])
def test_epsilon_delta_pairs_behave_like_audit(mech, d0, d1, claim):
    r = audit_curve(mech, d0, d1, claim=claim, runs=200_000, seed=4, arithmetic="real")
    a = audit(mech, d0, d1, claimed_epsilon=claim[0], claimed_delta=claim[1], runs=200_000,
              seed=4, arithmetic="real")
    assert r.verdict == a.verdict
    assert r.claim["kind"] == ("pure_dp" if claim[1] == 0 else "approx_dp")


def test_tradeoff_envelope_and_claims():
    # the true trade-off of the Gaussian pair (1-GDP) lies below the certified envelope
    r = audit_curve(GaussianMechanism(sigma=1.0), 0.0, 1.0, claim=GDP(1.0),
                    runs=200_000, seed=5, arithmetic="real")
    hull = np.array(r.tradeoff_envelope)
    a = np.linspace(0, 1, 1001)
    envelope = np.interp(a, hull[:, 0], hull[:, 1])
    assert np.all(norm.cdf(norm.ppf(1 - a) - 1.0) <= envelope + 1e-12)
    assert r.tradeoff_source == "claim.tradeoff" and r.tradeoff_verdict == "consistent"
    bad = audit_curve(GaussianMechanism(sigma=1.0), 0.0, 1.0, claim=GDP(0.5),
                      runs=200_000, seed=5, arithmetic="real")
    assert bad.tradeoff_verdict == "violation" and bad.tradeoff_gap > 0
    # the profile's trade-off (Dong, Roth & Su Prop. 2.12) is the GDP curve for the GDP
    # profile, and the closed form for pure DP
    assert profile_tradeoff(GDP(1.0), a) == pytest.approx(
        norm.cdf(norm.ppf(1 - a) - 1.0), abs=2e-3)
    e = math.e
    assert profile_tradeoff(PureDP(1.0), a) == pytest.approx(
        np.maximum(0, np.maximum(1 - e * a, (1 - a) / e)), abs=1e-9)
    assert lower_hull([(0.3, 0.9), (0.2, 0.2)]) == [(0.0, 1.0), (0.2, 0.2), (1.0, 0.0)]


# --------------------------------------------------------------------------- claim classes
def _pld_gaussian(sigma):
    import dp_accounting
    acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_accounting.GaussianDpEvent(sigma))
    return ProfileClaim(acc, name=f"pld gaussian sigma={sigma:g}")


@pytest.mark.parametrize("true_claim,false_claim,source", [
    (ZCDP(0.5), ZCDP(0.1), "profile"),                         # σ = 1: exactly 0.5-zCDP
    (RDP({a: 0.5 * a for a in (1.5, 2, 4, 8, 16, 32)}),        # ε_α = α/(2σ²)
     RDP({a: 0.1 * a for a in (1.5, 2, 4, 8, 16, 32)}), "profile"),
    (GDP(1.0), GDP(0.5), "claim.tradeoff"),                    # exact G_μ used
    ("pld:1.0", "pld:2.0", "profile"),                         # dp-accounting's PLD, σ and 2σ
])
def test_every_claim_class(true_claim, false_claim, source):
    """Gaussian σ = 1 (exactly 1-GDP, 0.5-zCDP, RDP ε_α = α/2) against each claim class: its
    true claim is consistent; a claim of a smaller privacy loss (ρ, ε_α, μ smaller; the PLD
    of σ = 2) is a violation, at an ε where the exact curve lies above the false profile by
    at least the gap; the trade-off is the claim's own where it has a closed form."""
    if isinstance(true_claim, str):
        true_claim, false_claim = (_pld_gaussian(float(c.split(":")[1]))
                                   for c in (true_claim, false_claim))
    m = GaussianMechanism(sigma=1.0)
    ok = audit_curve(m, 0.0, 1.0, claim=true_claim, runs=100_000, seed=11, arithmetic="real")
    assert ok.verdict == "consistent" and ok.tradeoff_verdict == "consistent"
    assert ok.tradeoff_source.startswith(source)
    bad = audit_curve(m, 0.0, 1.0, claim=false_claim, runs=100_000, seed=11, arithmetic="real")
    assert bad.verdict == "violation" and bad.gap_epsilon is not None
    e = bad.gap_epsilon
    # the gap is real: the exact curve lies above the false claim there by at least the gap
    assert float(GDP(1.0).delta_at(e)) - float(false_claim.delta_at(e)) >= bad.gap - 1e-9
    assert bad.claim == false_claim.to_json()


def test_gdp_matches_the_reference_profile():
    e = np.linspace(0, 6, 61)
    for mu in (0.3, 1.0, 2.5):
        assert GDP(mu).delta_at(e) == pytest.approx(gauss_delta(e, mu), abs=1e-12)


# --------------------------------------------------------------------------- reports
def test_json_round_trip_and_plot(tmp_path):
    r = audit_curve(RandomizedResponse(1.0), 0, 1, claim=(0.5, 0.0), runs=50_000, seed=6)
    doc = json.loads(r.dumps())
    assert doc["verdict"] == "violation" and doc["claim"] == {"kind": "pure_dp", "epsilon": 0.5}
    back = CurveReport.from_json(doc)
    assert back == r and back.to_json() == r.to_json()
    assert len(r.certified_events) == r.events_certified
    from ltheory.privacy.auditing.plot import plot_curve
    out = plot_curve(r, tmp_path / "curve.png")
    assert out.stat().st_size > 10_000
    g = audit_curve(GaussianMechanism(sigma=1.0), 0.0, 1.0, claim=GDP(1.0), runs=50_000, seed=6,
                    epsilons=[0, 0.5, 1.0], deltas=[0.05, 0.001], arithmetic="real")
    assert g.epsilons == (0.0, 0.5, 1.0) and g.deltas == (0.001, 0.05)
    assert g.delta_exact is None and g.epsilon_ratio is None
    assert CurveReport.from_json(json.loads(g.dumps())) == g
    import ltheory
    assert ltheory.audit_curve is audit_curve and ltheory.CurveReport is CurveReport


def test_bad_input():
    rr = RandomizedResponse(1.0)
    with pytest.raises(InvalidInputError, match="privacy claim"):
        audit_curve(rr, 0, 1, claim="1.0", runs=10_000, seed=0)
    for eps in ([-1.0, 1.0], [float("nan")], [], "abc"):
        with pytest.raises(InvalidInputError, match="epsilons"):
            audit_curve(rr, 0, 1, claim=1.0, runs=10_000, seed=0, epsilons=eps)
    for deltas in ([-1e-9], [1.0], [0.5, 2.0], [float("inf")], [float("nan")], []):
        with pytest.raises(InvalidInputError, match="deltas"):
            audit_curve(rr, 0, 1, claim=1.0, runs=10_000, seed=0, deltas=deltas)
    for alpha in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(InvalidInputError, match="alpha"):
            audit_curve(rr, 0, 1, claim=1.0, runs=10_000, seed=0, alpha=alpha)
    with pytest.raises(TooFewRunsError, match="need at least") as err:
        audit_curve(rr, 0, 1, claim=1.0, runs=20, seed=0)
    assert err.value.needed > 20
    with pytest.raises(InvalidInputError, match="poisson"):
        audit_curve(rr, 0, 1, claim=1.0, runs=10_000, seed=0, certify="poisson")
    class Above1(PrivacyClaim):
        def delta_at(self, epsilon):
            return np.full(np.shape(epsilon), 2.0)

        def to_json(self):
            return {"kind": "above_1"}

    with pytest.raises(InvalidInputError, match="not a privacy profile"):
        audit_curve(rr, 0, 1, claim=Above1(), runs=10_000, seed=0)
    with pytest.raises(InvalidInputError, match="not a CurveReport"):
        CurveReport.from_json({"verdict": "violation"})


# --------------------------------------------------------------------------- slow
@pytest.mark.slow
def test_soundness_200_seeds():
    """200 curve audits on randomised response and the Gaussian: the certified curve exceeds the
    exact profile somewhere on at most what Binomial(200, α) allows (one-sided test at 1%)."""
    alpha = 0.05
    p0, p1 = exact_distributions(RandomizedResponse(1.0), 0, 1)
    cases = [
        (RandomizedResponse(1.0), 0, 1, PureDP(1.0),
         np.vectorize(lambda e: exact_mod.delta_of_epsilon(p0, p1, e))),
        (GaussianMechanism(sigma=1.0), 0.0, 1.0, GDP(1.0), lambda e: gauss_delta(e, 1.0)),
    ]   # Laplace: 200 seeds in benchmarks/bench_curve_audit.py (kept out for time)
    for mech, d0, d1, claim, exact in cases:
        bad = sum(_exceeds(audit_curve(mech, d0, d1, claim=claim, runs=20_000, seed=s,
                                       alpha=alpha, arithmetic="real"), exact) for s in range(200))
        assert binom.sf(bad - 1, 200, alpha) > 0.01, (mech, bad)


def test_cli_curve_flag(tmp_path):
    from typer.testing import CliRunner

    from ltheory.cli import app
    png = tmp_path / "c.png"
    res = CliRunner().invoke(app, ["audit", "randomized_response", "-p", "epsilon=1.0",
                                   "--claimed-epsilon", "0.5", "--runs", "50000", "--curve",
                                   "--json", "--plot", str(png)])
    assert res.exit_code == 1, res.output
    doc = json.loads(res.output)
    assert doc["verdict"] == "violation" and doc["gap_epsilon"] == pytest.approx(0.5, abs=1e-6)
    assert png.stat().st_size > 10_000
    res = CliRunner().invoke(app, ["audit", "randomized_response", "--claimed-epsilon", "1",
                                   "--runs", "50000", "--curve"])
    assert res.exit_code == 0 and "curve audit of randomized_response" in res.output
    res = CliRunner().invoke(app, ["audit", "laplace", "--claimed-epsilon", "1", "--runs",
                                   "50000", "--curve", "--search"])
    assert res.exit_code == 2


# --------------------------------------------------------------------------- issue 38
def test_nothing_certified_is_the_trivial_zero_as_in_audit():
    """audit reported 0.0 where audit_curve reported ε_lb(0.1) = −0.106 and events with
    certified_epsilon_at_0 = −0.119 (RandomizedResponse(0.05), 20,000 runs, seed 0): a certified
    lower bound is never below the trivial 0, with audit's "inconclusive" note."""
    r = audit_curve(RandomizedResponse(0.05), 0, 1, claim=1.0, runs=20_000, seed=0)
    assert min(r.epsilon_lower_bound) == 0.0 and r.epsilon_lower_bound[0] == 0.0
    assert all(e["certified_epsilon_at_0"] >= 0.0 for e in r.events)
    assert any(e["certified_epsilon_at_0"] == 0.0 for e in r.events)
    assert r.epsilon_lower_bound_at(0.3) == 0.0 and r.epsilon_lower_bound_at(0.99) == 0.0
    assert any(n.startswith("inconclusive at delta = 0.1") for n in r.notes)
    doc = json.loads(r.dumps())
    assert min(doc["epsilon_lower_bound"]) == 0.0
    assert all(e["certified_epsilon_at_0"] >= 0 for e in doc["events"])
    with pytest.raises(InvalidInputError, match="delta"):
        r.epsilon_lower_bound_at(-0.1)


def test_cli_curve_json_never_negative():
    from typer.testing import CliRunner

    from ltheory.cli import app
    res = CliRunner().invoke(app, ["audit", "randomized_response", "-p", "epsilon=0.05",
                                   "--claimed-epsilon", "1", "--runs", "20000", "--seed", "0",
                                   "--curve", "--json"])
    doc = json.loads(res.output)
    assert min(doc["epsilon_lower_bound"]) >= 0.0
    assert all(e["certified_epsilon_at_0"] >= 0 for e in doc["events"])


def test_delta_zero_in_the_grid():
    """audit accepts claimed_delta = 0; the δ grid of audit_curve now does too, with
    ε_lb(0) = max_i ln(p_lower_i/p_upper_i), as in audit at δ = 0."""
    r = audit_curve(RandomizedResponse(1.0), 0, 1, claim=1.0, runs=200_000, seed=0,
                    deltas=[0.0, 1e-3])
    assert r.deltas == (0.0, 1e-3)
    top = max(math.log(p["p_lower"] / p["p_upper"]) for p in r.pieces)
    assert r.epsilon_lower_bound[0] == top == r.epsilon_lower_bound_at(0.0)
    assert 0.9 < r.epsilon_lower_bound[0] <= 1.0
    assert any(e["chosen_for"] == "delta=0" for e in r.events)
    assert r.epsilon_exact[0] == pytest.approx(1.0)
