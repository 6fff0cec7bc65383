"""``AuditConfig`` and ``SearchConfig``: validated once when built, defaults the measured best,
explicit values never overridden."""

from __future__ import annotations

import doctest

import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy import AuditConfig, TooFewRunsError, audit, audit_search, certify_pair
from ltheory.privacy.auditing import config as config_mod
from ltheory.privacy.auditing.events import SHRINK
from ltheory.privacy.auditing.plan import PILOT_SETTINGS
from ltheory.privacy.auditing.search import SearchConfig
from ltheory.privacy.mechanisms import RandomizedResponse, SparseVector


def test_doctests() -> None:
    assert doctest.testmod(config_mod).failed == 0


def test_defaults_are_the_planned_search_settings() -> None:
    cfg = AuditConfig()
    assert (cfg.events, cfg.certify, cfg.lean_events, cfg.selection_shrink) == \
        ("auto", "auto", "auto", "auto")
    assert cfg.max_events == 2 and AuditConfig(events=3).max_events == 3
    assert cfg.shrink_for(True) == 0.16 and cfg.shrink_for(False) == SHRINK
    # a scalar output's thresholds compete with its cells: shrunk as in full selection
    assert cfg.shrink_for(True, "scalar") == SHRINK
    assert AuditConfig(selection_shrink=0.1).shrink_for(True) == 0.1


@pytest.mark.parametrize("kw, needle", [
    ({"selection_fraction": 1.0}, "selection_fraction"),
    ({"events": 0}, "events"),
    ({"events": True}, "events"),
    ({"certify": "exact"}, "certify"),
    ({"lean_events": "yes"}, "lean_events"),
    ({"selection_shrink": 0.0}, "selection_shrink"),
    ({"selection_screen": 2}, "selection_screen"),
    ({"tradeoff": 1}, "tradeoff"),
    ({"executor": "threads"}, "executor"),
    ({"progress": 3}, "progress"),
    ({"exact": "no"}, "exact"),
])
def test_bad_values_name_the_parameter(kw: dict, needle: str) -> None:
    with pytest.raises(InvalidInputError, match=needle):
        AuditConfig(**kw)


def test_unknown_options_list_the_accepted_ones() -> None:
    with pytest.raises(InvalidInputError,
                       match="unknown audit option.*accepted: arithmetic, certify"):
        audit(RandomizedResponse(1.0), 0, 1, claimed_epsilon=1.0, runs=10_000, seed=0,
              evnts=2)
    with pytest.raises(InvalidInputError, match="unknown search option"):
        audit_search(RandomizedResponse(1.0), 0, claimed_epsilon=1.0, total_runs=10**5,
                     seed=0, pilot_kind="cells")
    with pytest.raises(InvalidInputError, match="config must be an AuditConfig"):
        audit(RandomizedResponse(1.0), 0, 1, claimed_epsilon=1.0, runs=10_000, seed=0,
              config={"events": 2})


def test_combinations_that_cannot_work_are_refused_before_any_run() -> None:
    calls = []

    class Counting(RandomizedResponse):
        def sample(self, d, n, rng):
            calls.append(n)
            return super().sample(d, n, rng)

    with pytest.raises(InvalidInputError, match="poisson.*claimed_delta = 0"):
        audit(Counting(1.0), 0, 1, claimed_epsilon=1.0, claimed_delta=0.01, runs=10_000,
              seed=0, certify="poisson")
    with pytest.raises(InvalidInputError, match="reuse_pilots"):
        SearchConfig(pilots="audit", reuse_pilots=True)
    with pytest.raises(InvalidInputError, match="give exactly one of total_runs"):
        audit_search(Counting(1.0), 0, claimed_epsilon=1.0, seed=0)
    with pytest.raises(TooFewRunsError) as info:
        audit(Counting(1.0), 0, 1, claimed_epsilon=5.0, runs=100, seed=0)
    assert info.value.needed > 100 and "need at least" in str(info.value)
    assert calls == []


def test_explicit_values_are_kept() -> None:
    m = SparseVector(1.0, 1, threshold=0.5, c=1)
    a, b = m.default_pair()
    r = audit(m, a, b, claimed_epsilon=1.0, runs=40_000, seed=0, lean_events=False, events=1,
              certify="binomial")
    assert r.settings["lean_events"] is False and r.events_certified == 1
    assert r.runs == 40_000 and r.certification_test == "binomial"
    assert not any("few distinct outputs" in n for n in r.notes)
    auto = audit(m, a, b, claimed_epsilon=1.0, runs=40_000, seed=0)
    assert any("few distinct outputs" in n for n in auto.notes)
    s = audit_search(m, (1.0,) * 4, claimed_epsilon=1.0, total_runs=300_000, seed=0,
                     lean_events=False, tradeoff=True)
    assert s.report.settings["lean_events"] is False and s.report.tradeoff


def test_pilots_derive_from_the_config_with_documented_settings() -> None:
    cfg = AuditConfig(tradeoff=True, exact=False, progress=lambda d, t: None)
    pilot = cfg.replace(**PILOT_SETTINGS)
    assert pilot.tradeoff is False and pilot.progress is None and pilot.events == 1
    assert pilot.exact is False               # what the pilots do not set stays the caller's


def test_certify_pair_has_no_claim_and_with_claim_judges_later() -> None:
    r = certify_pair(RandomizedResponse(1.0), 0, 1, runs=100_000, seed=0)
    assert r.verdict == "none" and r.claimed_epsilon is None and r.exact_delta is None
    assert r.with_claim(0.5).verdict == "violation"
    assert r.with_claim(2.0).verdict == "consistent"
    assert r.with_claim(2.0).epsilon_lower_bound == r.epsilon_lower_bound
    with pytest.raises(TooFewRunsError):
        certify_pair(RandomizedResponse(1.0), 0, 1, runs=2, seed=0)
