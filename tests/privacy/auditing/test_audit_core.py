"""audit(): soundness, tightness, detection, exact mode, determinism, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from ltheory.errors import InvalidInputError, LtheoryError
from ltheory.privacy import AuditReport, MechanismError, audit, min_runs
from ltheory.privacy.auditing.exact import exact_epsilon
from ltheory.privacy.mechanisms import (
    ExponentialMechanism,
    GeometricMechanism,
    Histogram,
    LaplaceMechanism,
    NoisyMaxWithValue,
    RandomizedResponse,
    SparseVector,
    StableHistogram,
    TabulatedMechanism,
    thresholds,
)
from ltheory.privacy.stats import (
    epsilon_lower_bound,
    max_certifiable_epsilon,
    poisson_epsilon_lower_bound,
)

D0, D1 = ((0, 0),), ((0, 1),)
EM = ExponentialMechanism(thresholds(7), 1.0)
EM_D0 = tuple((x, 1) for x in range(7))              # labelled by the threshold t = 0
EM_D1 = EM_D0[:6] + ((6, 0),)                         # worst flip (exact ε ≈ 0.979)

INCORRECT = [
    NoisyMaxWithValue(1.0),
    SparseVector(1.0, variant=3),
    SparseVector(1.0, variant=4),
    SparseVector(1.0, variant=5),
    SparseVector(1.0, variant=6),
    Histogram(1.0, wrong_scale=True),
]


def test_public_import_and_report() -> None:
    r = audit(RandomizedResponse(1.0), D0, D1, claimed_epsilon=1.0, runs=100_000, seed=0)
    assert isinstance(r, AuditReport)
    assert 0.85 < r.epsilon_lower_bound <= 1.0
    assert r.exact_epsilon == pytest.approx(1.0)
    assert r.verdict == "consistent"
    assert r.epsilon_point_estimate == pytest.approx(1.0, abs=0.05)
    # certify="auto" (the default): Poisson numbers of certification runs of mean 45,000
    assert r.selection_runs == 10_000 and r.runs == r.selection_runs + r.certification_runs
    assert abs(r.certification_runs - 90_000) < 6 * 90_000 ** 0.5
    fixed = audit(RandomizedResponse(1.0), D0, D1, claimed_epsilon=1.0, runs=100_000, seed=0,
                  certify="binomial")
    assert fixed.runs == 100_000 and fixed.certification_runs == 90_000
    assert r.direction in (0, 1) and r.inequality.startswith(f"P[M(d{r.direction})")
    d = r.to_json()
    assert d["verdict"] == "consistent" and "chosen_event" not in d
    assert set(d) >= {"epsilon_lower_bound", "epsilon_point_estimate", "exact_epsilon", "event",
                      "counts", "runs", "alpha", "seconds", "verdict"}


@pytest.mark.parametrize("certify", ["binomial", "poisson"])
def test_every_certified_event_is_reported_with_its_counts_and_bound(certify: str) -> None:
    """``counts["per_event"]`` lists each certified event; each bound is recomputed here from
    that event's own counts at the Bonferroni level α/(2k), and the reported bound is theirs."""
    r = audit(LaplaceMechanism(1.0), D0, D1, claimed_epsilon=1.0, runs=60_000, seed=3,
              events=2, certify=certify)
    per = r.counts["per_event"]
    assert len(per) == len(r.certified_events) == r.events_certified == 2
    assert [e.describe() for e in r.certified_events] == [p["event"] for p in per]
    assert r.chosen_event in r.certified_events
    c = r.counts["certification"]
    a_each = r.alpha / (2 * len(per))
    for p, b in zip(per, r.counts["bounds_per_event"], strict=True):
        ka, kb = (p["d0"], p["d1"]) if p["more_likely_under"] == "d0" else (p["d1"], p["d0"])
        na, nb = (c["n_d0"], c["n_d1"]) if p["more_likely_under"] == "d0" \
            else (c["n_d1"], c["n_d0"])
        want = poisson_epsilon_lower_bound(ka, kb, 2 * a_each) if certify == "poisson" \
            else epsilon_lower_bound(ka, na, kb, nb, a_each, 0.0)
        assert p["bound"] == b == pytest.approx(float(want))
    best = max(per, key=lambda p: p["bound"])
    assert r.event == best["event"] and r.epsilon_lower_bound == pytest.approx(best["bound"])
    assert (c["d0"], c["d1"]) == (best["d0"], best["d1"])
    d = r.to_json()
    assert "certified_events" not in d and len(d["counts"]["per_event"]) == 2


def test_deterministic_given_seed() -> None:
    a = audit(LaplaceMechanism(1.0), D0, D1, claimed_epsilon=1.0, runs=20_000, seed=7)
    b = audit(LaplaceMechanism(1.0), D0, D1, claimed_epsilon=1.0, runs=20_000, seed=7)
    c = audit(LaplaceMechanism(1.0), D0, D1, claimed_epsilon=1.0, runs=20_000, seed=8)
    assert a.epsilon_lower_bound == b.epsilon_lower_bound and a.counts == b.counts
    assert a.counts != c.counts


def test_plain_callable_and_object_outputs() -> None:
    def coin(d, rng):
        return "heads" if rng.random() < (0.8 if d[0][1] else 0.2) else "tails"

    r = audit(coin, D0, D1, claimed_epsilon=0.5, runs=4_000, seed=1)
    assert r.verdict == "violation" and r.epsilon_lower_bound > 0.5   # true ε = ln 4


def test_impossible_output_bound_not_capped() -> None:
    r = audit(SparseVector(1.0, variant=5), *SparseVector(1.0, variant=5).default_pair(),
              claimed_epsilon=1.0, runs=200_000, seed=0)
    assert r.exact_epsilon == math.inf
    assert r.counts["certification"]["d1" if r.direction == 0 else "d0"] == 0
    assert r.epsilon_lower_bound > 8


def test_exact_mode_reports_delta_and_tradeoff() -> None:
    r = audit(EM, EM_D0, EM_D1, claimed_epsilon=0.5, runs=50_000, seed=0, tradeoff=11)
    assert r.exact_epsilon == pytest.approx(0.979, abs=1e-3)
    assert r.exact_delta > 0
    assert len(r.tradeoff) == 11
    for row in r.tradeoff:        # the certified δ lower bound never exceeds the exact δ(ε)
        assert row["delta_lower_bound"] <= row["delta_exact"] + 1e-12


def test_claimed_delta_enters_the_bound() -> None:
    kw = dict(runs=100_000, seed=3)
    r0 = audit(RandomizedResponse(1.0), D0, D1, claimed_epsilon=1.0, **kw)
    r1 = audit(RandomizedResponse(1.0), D0, D1, claimed_epsilon=1.0, claimed_delta=0.2, **kw)
    assert r1.epsilon_lower_bound < r0.epsilon_lower_bound
    assert r1.exact_epsilon < 1.0


def test_soundness_quick() -> None:
    """A fast version of the acceptance check (the full one is slow): violations ≤ α share."""
    fails = 0
    for s in range(40):
        r = audit(RandomizedResponse(1.0), D0, D1, claimed_epsilon=1.0, runs=20_000, seed=s)
        fails += r.epsilon_lower_bound > 1.0
    assert fails <= 2


@pytest.mark.parametrize("m", INCORRECT, ids=lambda m: m.name)
def test_detects_incorrect_variants(m) -> None:
    runs = 1_000_000 if m.name == "svt3" else 400_000     # svt3's leaking events are rare
    # α = 10^-3: the bound may exceed the true ε with probability ≤ 10^-3 (at α = 0.05 seed 11
    # is, for histogram_wrong_scale, one of the ≤ 5% of seeds where it does: 2/60 seeds measured)
    # true_epsilon is the real-arithmetic ε: audit the real-arithmetic mechanism (the float
    # outputs of the naive noisy-max-with-value and histogram also leak their bits)
    r = audit(m, *m.default_pair(), claimed_epsilon=m.epsilon, runs=runs, seed=11, alpha=1e-3,
              arithmetic="real")
    assert r.verdict == "violation", r.to_json()
    assert r.epsilon_lower_bound <= m.true_epsilon


@pytest.mark.parametrize("m", [RandomizedResponse(1.0), GeometricMechanism(1.0),
                               SparseVector(1.0, variant=1), SparseVector(1.0, variant=2)],
                         ids=lambda m: m.name)
def test_correct_mechanisms_consistent(m) -> None:
    r = audit(m, *m.default_pair(), claimed_epsilon=m.epsilon, runs=100_000, seed=2)
    assert r.verdict == "consistent"


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kw,msg", [
    (dict(claimed_epsilon=0.0), "epsilon"),
    (dict(claimed_epsilon=-1.0), "epsilon"),
    (dict(claimed_epsilon=math.inf), "epsilon"),
    (dict(claimed_delta=1.0), "delta"),
    (dict(claimed_delta=-0.1), "delta"),
    (dict(alpha=0.0), "alpha"),
    (dict(runs=1), "runs"),
    (dict(runs=2.5), "runs"),
    (dict(seed=-3), "seed"),
])
def test_bad_parameters(kw, msg) -> None:
    args = dict(claimed_epsilon=1.0, runs=10_000, seed=0) | kw
    with pytest.raises(InvalidInputError, match=msg):
        audit(RandomizedResponse(1.0), D0, D1, **args)


def test_too_few_runs_says_minimum() -> None:
    need = min_runs(5.0)
    with pytest.raises(InvalidInputError, match=f"need at least {need} runs"):
        audit(RandomizedResponse(1.0), D0, D1, claimed_epsilon=5.0, runs=need - 1, seed=0)
    audit(RandomizedResponse(1.0), D0, D1, claimed_epsilon=5.0, runs=need, seed=0)


def test_identical_and_non_neighbouring_datasets() -> None:
    with pytest.raises(InvalidInputError, match="same dataset"):
        audit(RandomizedResponse(1.0), D0, D0, claimed_epsilon=1.0, runs=10_000, seed=0)
    with pytest.raises(InvalidInputError, match="not neighbours"):
        audit(RandomizedResponse(1.0), ((0, 0), (1, 0)), ((0, 1), (1, 1)), claimed_epsilon=1.0,
              runs=10_000, seed=0)
    with pytest.raises(InvalidInputError, match="not neighbours"):
        audit(SparseVector(1.0), (0.0, 0.0), (2.0, 0.0), claimed_epsilon=1.0, runs=10_000,
              seed=0)
    # a bare number is the count itself: 0 and 100 are 100 substitutions apart, which would
    # otherwise certify a made-up violation of the Laplace mechanism's claim
    with pytest.raises(InvalidInputError, match="sensitivity 1"):
        audit(LaplaceMechanism(1.0), 0.0, 100.0, claimed_epsilon=1.0, runs=10_000, seed=0)
    with pytest.raises(InvalidInputError, match="sensitivity 2"):
        audit(LaplaceMechanism(1.0, sensitivity=2.0), 0.0, 2.5, claimed_epsilon=1.0,
              runs=10_000, seed=0)
    rep = audit(LaplaceMechanism(1.0, sensitivity=2.0), 0.0, 2.0, claimed_epsilon=1.0,
                runs=20_000, seed=0, arithmetic="real")
    assert rep.verdict == "consistent"
    # the naive float Laplace is not DP as implemented: found by default (Mironov 2012)
    rep = audit(LaplaceMechanism(1.0, sensitivity=2.0), 0.0, 2.0, claimed_epsilon=1.0,
                runs=20_000, seed=0)
    assert rep.verdict == "violation" and rep.floating_point


def test_mechanism_that_raises_or_returns_unhashable() -> None:
    def boom(d, rng):
        raise RuntimeError("kaput")

    with pytest.raises(MechanismError, match="RuntimeError: kaput"):
        audit(boom, D0, D1, claimed_epsilon=1.0, runs=10_000, seed=0)

    def unhashable(d, rng):
        return {"a": 1}

    with pytest.raises(MechanismError, match="unhashable"):
        audit(unhashable, D0, D1, claimed_epsilon=1.0, runs=10_000, seed=0)

    def nan(d, rng):
        return float("nan")

    with pytest.raises(MechanismError, match="NaN"):
        audit(nan, D0, D1, claimed_epsilon=1.0, runs=10_000, seed=0)
    assert issubclass(MechanismError, LtheoryError)


def test_bad_output_distribution() -> None:
    class Bad(RandomizedResponse):
        def output_distribution(self, dataset):
            return {0: 0.3, 1: 0.3}

    with pytest.raises(MechanismError, match="not a probability"):
        audit(Bad(1.0), D0, D1, claimed_epsilon=1.0, runs=10_000, seed=0)


def test_inconclusive_is_trivial_zero() -> None:
    def same(d, rng):
        return int(rng.integers(0, 2))

    r = audit(same, D0, D1, claimed_epsilon=1.0, claimed_delta=0.9, runs=10_000, seed=0)
    assert r.epsilon_lower_bound == 0.0 and r.verdict == "consistent"
    assert any("inconclusive" in n for n in r.notes)


# ----------------------------------------------------------------------------- acceptance (slow)
@pytest.mark.slow
def test_soundness_200_audits() -> None:
    """Acceptance: ≤ α share of 200 seeded audits above the true ε (RR and EM at its worst pair)."""
    for m, a, b, runs in ((RandomizedResponse(1.0), D0, D1, 100_000), (EM, EM_D0, EM_D1, 100_000)):
        true = audit(m, a, b, claimed_epsilon=1.0, runs=runs, seed=0).exact_epsilon
        above = sum(audit(m, a, b, claimed_epsilon=1.0, runs=runs, seed=1000 + s)
                    .epsilon_lower_bound > true for s in range(200))
        # sound at alpha = 0.05: the exceedances are consistent with a rate <= 5% (one-sided
        # binomial test at 1%); the default tests (Poisson-conditional, two events) are tight,
        # so a share near 5% is expected (bench_audit --soundness-defaults: 55 of 1,200 on EM)
        assert binom.sf(above - 1, 200, 0.05) > 0.01, above


@pytest.mark.slow
def test_tightness_targets() -> None:
    r = audit(RandomizedResponse(1.0), D0, D1, claimed_epsilon=1.0, runs=10**6, seed=0)
    assert r.epsilon_lower_bound >= 0.9
    m = ExponentialMechanism(thresholds(1023), 1.0)
    d0 = tuple((x, int(x >= 511)) for x in range(1023))
    d1 = d0[:503] + ((503, 1 - d0[503][1]),) + d0[504:]
    # exact ε 0.981; lean selection shrinks a scalar output's candidates (0.978 on seed 0)
    r = audit(m, d0, d1, claimed_epsilon=1.0, runs=10**6, seed=0)
    assert r.epsilon_lower_bound >= 0.95
    r = audit(LaplaceMechanism(0.1), D0, D1, claimed_epsilon=0.1, runs=2 * 10**7, seed=0)
    assert r.epsilon_lower_bound >= 0.085


def test_numpy_dataset_ok() -> None:
    r = audit(SparseVector(1.0, variant=1), np.zeros(3), np.array([1.0, 0, 0]),
              claimed_epsilon=1.0, runs=10_000, seed=0)
    assert r.verdict == "consistent"


@given(st.lists(st.floats(0.02, 1.0), min_size=2, max_size=5), st.data())
@settings(max_examples=25)
def test_random_finite_mechanisms(w0: list[float], data: st.DataObject) -> None:
    """Reports are well-formed and the exact ε is the hockey-stick value of the two tables."""
    w1 = data.draw(st.lists(st.floats(0.0, 1.0), min_size=len(w0), max_size=len(w0))
                   .filter(lambda w: sum(w) > 0.05))
    p0 = {i: w / sum(w0) for i, w in enumerate(w0)}
    p1 = {i: w / sum(w1) for i, w in enumerate(w1)}
    eps = data.draw(st.floats(0.1, 3.0))
    m = TabulatedMechanism({"a": p0, "b": p1}, epsilon=eps)
    r = audit(m, "a", "b", claimed_epsilon=eps, runs=4_000, seed=data.draw(st.integers(0, 99)))
    a, b = np.array(list(p0.values())), np.array(list(p1.values()))
    assert r.exact_epsilon == pytest.approx(exact_epsilon(a, b))
    # the most 1,800 certification runs per dataset can give: two Clopper–Pearson bounds at
    # α/2 each, or (certify="auto" on a perfectly separating event) the Poisson-conditional
    # test at α, whose runs per dataset are Poisson around 1,800 (2,000: 4.7 sd above)
    cap = max(max_certifiable_epsilon(1800, 0.025),
              float(poisson_epsilon_lower_bound(2000, 0, 0.05)))
    assert 0.0 <= r.epsilon_lower_bound <= cap + 1e-9
    assert (r.verdict == "violation") == (r.epsilon_lower_bound > eps)
    assert r.to_json()["runs"] == r.selection_runs + r.certification_runs
    with pytest.raises(InvalidInputError, match="neighbours"):
        audit(m, "a", "zzz", claimed_epsilon=eps, runs=4_000, seed=0)


def test_learner_with_fit_only() -> None:
    class Learner:
        claim = (1.0, 0.0)

        def fit(self, dataset, rng):
            keep = rng.random() < np.e / (1 + np.e)
            return "1" if (dataset[0][1] == 1) == keep else "0"

    r = audit(Learner(), D0, D1, claimed_epsilon=1.0, runs=20_000, seed=0)
    assert r.verdict == "consistent" and r.epsilon_lower_bound > 0.7
    with pytest.raises(InvalidInputError, match="callable"):
        audit(object(), D0, D1, claimed_epsilon=1.0, runs=20_000, seed=0)


def test_delta_matters_for_stable_histogram() -> None:
    """(ε, δ)-DP but not ε-DP: flagged at δ = 0, consistent at its claimed δ."""
    m = StableHistogram(1.0, 1e-3)
    kw = dict(claimed_epsilon=1.0, runs=4_000_000, seed=0)
    assert audit(m, *m.default_pair(), claimed_delta=0.0, **kw).verdict == "violation"
    assert audit(m, *m.default_pair(), claimed_delta=1e-3, **kw).verdict == "consistent"
