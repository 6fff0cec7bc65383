"""assert_private / assert_private_search: violations raise with a report, correct mechanisms
pass, (ε, δ) claims, determinism, bad input, the search's Bonferroni level."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.errors import InvalidInputError, LtheoryError
from ltheory.privacy.mechanisms import (
    ExponentialMechanism,
    GeometricMechanism,
    Histogram,
    LaplaceMechanism,
    RandomizedResponse,
    SparseVector,
    TabulatedMechanism,
    thresholds,
)
from ltheory.strategies import neighbouring_datasets, neighbouring_query_answers
from ltheory.testing import (
    BudgetWarning,
    PrivacySearchReport,
    PrivacyTestReport,
    PrivacyViolation,
    assert_private,
    assert_private_search,
    min_runs_to_reject,
)
from ltheory.testing import sequential as seq

D0, D1 = ((0, 0),), ((0, 1),)


def test_blatant_violation_raises_with_a_report() -> None:
    with pytest.raises(PrivacyViolation) as info:
        assert_private(RandomizedResponse(1.0), D0, D1, epsilon=0.5, max_runs=10**6)
    assert isinstance(info.value, AssertionError)
    r = info.value.report
    assert isinstance(r, PrivacyTestReport) and r.verdict == "violation" and not r.passed
    assert r.epsilon_lower_bound is not None and 0.5 <= r.epsilon_lower_bound <= 1.0
    assert r.runs_to_decision <= r.runs_used <= 10**5          # stops early, far below the budget
    # one of the two outputs (a cell, or the same set as a threshold on the scalar output)
    assert r.event in ("output ∈ {0}", "output ∈ {1}", "output ≤ 0", "output ≥ 1")
    assert "e^eps" in r.direction
    assert r.exact_epsilon == pytest.approx(1.0)
    msg = str(info.value)
    assert "VIOLATION" in msg and "certified ε >" in msg and "event E:" in msg
    d = r.to_json()
    assert d["verdict"] == "violation" and d["d0"] == [[0, 0]] and d["runs_used"] == r.runs_used


def test_correct_mechanism_runs_to_the_budget_and_passes() -> None:
    r = assert_private(RandomizedResponse(1.0), D0, D1, epsilon=1.0, max_runs=40_000)
    assert r.passed and r.verdict == "passed"
    assert r.runs_used == r.runs_to_decision == 40_000
    assert r.epsilon_lower_bound is None and r.log10_e_value < 6
    assert r.to_json()["epsilon_lower_bound"] is None


def test_verdict_flips_with_the_claim() -> None:
    # exact eps = 1: a claim of 0.8 is refuted, a claim of 1 is not (same seed, same runs)
    m = GeometricMechanism(1.0, clamp=(-4, 5))
    with pytest.raises(PrivacyViolation):
        assert_private(m, 0, 1, epsilon=0.8, max_runs=400_000, seed=3)
    assert assert_private(m, 0, 1, epsilon=1.0, max_runs=400_000, seed=3).passed


def test_broken_test_statistic_flags_a_correct_mechanism(monkeypatch: pytest.MonkeyPatch) -> None:
    # falsifiability of the test itself: betting as if e^eps were e^(eps-0.5) refutes an
    # exactly-eps mechanism; the real factors do not
    real = seq._log_factors
    monkeypatch.setattr(seq, "_log_factors",
                        lambda us, delta, c: real(us * math.exp(-0.5), delta, c))
    with pytest.raises(PrivacyViolation):
        assert_private(RandomizedResponse(1.0), D0, D1, epsilon=1.0, max_runs=100_000)


def test_delta_claims() -> None:
    # P_B({2}) = 0.1 where P_A({2}) = 0: (0.2, 0.1)-DP exactly, not (0.2, 0.05)-DP
    m = TabulatedMechanism({"A": {0: 0.5, 1: 0.5, 2: 0.0}, "B": {0: 0.45, 1: 0.45, 2: 0.1}})
    assert assert_private(m, "A", "B", 0.2, 0.1, max_runs=100_000).passed
    with pytest.raises(PrivacyViolation) as info:
        assert_private(m, "A", "B", 0.2, 0.05, max_runs=100_000)
    assert info.value.report.claimed_delta == 0.05


def test_spending_method_and_determinism() -> None:
    a = assert_private(LaplaceMechanism(1.0), D0, D1, 1.0, max_runs=20_000, seed=5,
                       arithmetic="real")
    b = assert_private(LaplaceMechanism(1.0), D0, D1, 1.0, max_runs=20_000, seed=5,
                       arithmetic="real")
    assert a.event == b.event and a.log10_e_value == b.log10_e_value
    with pytest.raises(PrivacyViolation) as info:
        assert_private(RandomizedResponse(1.0), D0, D1, 0.5, method="spending")
    r = info.value.report
    assert r.method == "spending" and r.epsilon_lower_bound > 0.5 and r.log10_e_value is None


@pytest.mark.parametrize("kw, match", [
    ({"epsilon": 0.0}, "epsilon must be a finite number > 0"),
    ({"epsilon": -1.0}, "epsilon must be a finite number > 0"),
    ({"epsilon": math.nan}, "epsilon must be a finite number > 0"),
    ({"epsilon": "one"}, "must be numbers"),
    ({"delta": 1.0}, r"delta must be in \[0, 1\)"),
    ({"delta": -0.1}, r"delta must be in \[0, 1\)"),
    ({"false_alarm": 0.0}, r"false_alarm must be in \(0, 1\)"),
    ({"false_alarm": 1.0}, r"false_alarm must be in \(0, 1\)"),
    ({"false_alarm": 2.0}, r"false_alarm must be in \(0, 1\)"),
    ({"max_runs": 100}, "too few.*use at least"),
    ({"max_runs": 10.5}, "max_runs must be an integer"),
    ({"method": "bogus"}, "method must be one of"),
    ({"seed": -1}, "seed must be a non-negative integer"),
])
def test_bad_input_is_a_clear_error(kw: dict, match: str) -> None:
    args = {"epsilon": 1.0, **kw}
    with pytest.raises(InvalidInputError, match=match):
        assert_private(RandomizedResponse(1.0), D0, D1, **args)


def test_bad_datasets_and_mechanism() -> None:
    with pytest.raises(LtheoryError, match="not neighbours"):
        assert_private(RandomizedResponse(1.0), ((0, 0), (1, 1)), ((1, 1), (0, 1)), 1.0)
    with pytest.raises(LtheoryError, match="same dataset"):
        assert_private(RandomizedResponse(1.0), D0, D0, 1.0)
    with pytest.raises(LtheoryError, match="not neighbours"):
        assert_private(LaplaceMechanism(1.0), 0.0, 5.0, 1.0, arithmetic="real")
    with pytest.raises(LtheoryError, match="mechanism must be callable"):
        assert_private(42, D0, D1, 1.0)


def test_min_runs_is_the_threshold_of_the_budget_check() -> None:
    need = min_runs_to_reject(1.0, 0.0, 1e-6)
    with pytest.raises(InvalidInputError, match=f"use at least {need}"):
        assert_private(RandomizedResponse(1.0), D0, D1, 1.0, max_runs=need - 2)
    with pytest.warns(BudgetWarning):       # it could refute, but is unlikely to at 2ε
        assert_private(RandomizedResponse(1.0), D0, D1, 1.0, max_runs=need)


def test_search_with_a_strategy_finds_the_wrong_scale_histogram() -> None:
    with pytest.raises(PrivacyViolation) as info:
        assert_private_search(Histogram(1.0, bins=3, wrong_scale=True),
                              neighbouring_datasets(3, 2), 1.0, max_pairs=6, max_runs=400_000)
    rep = info.value.report
    assert isinstance(rep, PrivacySearchReport) and rep.verdict == "violation"
    assert rep.pairs_tried == len(rep.pairs) <= 6
    assert all(p.false_alarm == pytest.approx(1e-6 / rep.pairs_tried) for p in rep.pairs)
    assert rep.epsilon_lower_bound >= 1.0 and rep.worst.verdict == "violation"
    verdicts = [p.verdict for p in rep.pairs]
    assert verdicts.count("violation") == 1 and set(verdicts) <= {"violation", "stopped"}
    assert "search:" in str(info.value) and rep.to_json()["worst"]["verdict"] == "violation"


def test_search_passes_a_correct_mechanism_and_is_reproducible() -> None:
    args = (ExponentialMechanism(thresholds(3), 1.0), neighbouring_datasets(3, 2), 1.0)
    a = assert_private_search(*args, max_pairs=3, max_runs=20_000, seed=4)
    b = assert_private_search(*args, max_pairs=3, max_runs=20_000, seed=4)
    assert a.passed and a.runs_used == 3 * 20_000
    assert [(p.d0, p.d1) for p in a.pairs] == [(p.d0, p.d1) for p in b.pairs]


def test_search_with_patterns_and_bad_strategies() -> None:
    m = SparseVector(1.0, variant=6)
    with pytest.raises(PrivacyViolation) as info:
        assert_private_search(m, (0.0,) * 5, 1.0, neighbours="patterns", max_runs=400_000)
    assert info.value.report.pairs_considered == info.value.report.pairs_tried == 8
    far = st.just(((0.0, 0.0), (5.0, 0.0)))
    with pytest.raises(InvalidInputError, match="not a neighbouring pair"):
        assert_private_search(m, far, 1.0)
    with pytest.raises(InvalidInputError, match="must draw pairs"):
        assert_private_search(m, st.just(1.0), 1.0)
    with pytest.raises(InvalidInputError, match="max_pairs"):
        assert_private_search(m, (0.0,) * 5, 1.0, max_pairs=0)


@settings(max_examples=12)
@given(st.floats(0.3, 2.0), st.floats(1.0, 1.5), st.integers(0, 2**32 - 1))
def test_randomized_response_claims(eps_true: float, factor: float, seed: int) -> None:
    # a true claim (claimed >= true eps) passes; half the true eps is refuted; both reports
    # serialise to JSON
    m = RandomizedResponse(eps_true)
    rep = assert_private(m, D0, D1, eps_true * factor, max_runs=20_000, seed=seed)
    assert rep.passed and json.loads(rep.dumps()) == json.loads(json.dumps(rep.to_json()))
    if eps_true >= 0.8:
        with pytest.raises(PrivacyViolation) as info:
            assert_private(m, D0, D1, eps_true / 2, max_runs=200_000, seed=seed)
        assert json.dumps(info.value.report.to_json())
        assert info.value.report.epsilon_lower_bound >= eps_true / 2


@settings(max_examples=30)
@given(neighbouring_query_answers(4, sensitivity=2.0))
def test_query_answer_pairs_are_neighbours(pair: tuple) -> None:
    d0, d1 = pair
    assert SparseVector(1.0, sensitivity=2.0).are_neighbours(d0, d1)


@pytest.mark.slow
def test_exactly_eps_mechanisms_never_alarm_over_seeds() -> None:
    # the benchmark runs >= 1,000 seeds; this is a small version (40 seeds x 3 mechanisms)
    cases = [(RandomizedResponse(1.0), D0, D1), (GeometricMechanism(1.0, clamp=(-3, 4)), 0, 1),
             (LaplaceMechanism(1.0), D0, D1)]
    for m, a, b in cases:
        for s in range(40):
            # LaplaceMechanism is exactly ε-DP over the reals only (its floats leak: Mironov)
            assert assert_private(m, a, b, 1.0, max_runs=20_000, seed=10_000 + s,
                                  arithmetic="real").passed
