"""Planned neighbour searches: ``audit_search(total_runs=N)`` and ``search_plan``."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ltheory.cli import app
from ltheory.errors import InvalidInputError
from ltheory.privacy import SearchPlan, audit_search, search_plan
from ltheory.privacy.auditing.plan import MIN_PILOT, PLANNED_EVENTS
from ltheory.privacy.mechanisms import ExponentialMechanism, Histogram, dpsniper_suite, thresholds


def test_plan_of_svt2_at_2e7_is_the_suites() -> None:
    """The plan documented for the suite's SVT2 row (round 4 of docs/reference/auditor.md): 33
    extended StatDP pairs, 3 rungs of successive halving from 23,529 runs per pair, 2.4·10^6 pilot
    runs, 17,555,321 final runs."""
    m, base = dpsniper_suite(0.1)["SVT2"]
    p = search_plan(m, base, 2 * 10**7, claimed_epsilon=0.1, seed=2024)
    assert (p.neighbours, p.pairs, p.rungs, p.pilot_runs) == ("extended", 33, 3, 23_529)
    assert p.pilot_total == (33 + 11 * 3 + 4 * 9) * 23_529
    assert p.final_runs == 17_555_321


def test_small_budgets_fall_back_to_fewer_pairs_and_rungs() -> None:
    m, base = dpsniper_suite(0.1)["SVT2"]
    big = search_plan(m, base, 2 * 10**7, claimed_epsilon=0.1)
    small = search_plan(m, base, 10**6, claimed_epsilon=0.1)
    assert (small.neighbours, small.rungs) != (big.neighbours, big.rungs)
    assert small.pilot_runs < MIN_PILOT and small.neighbours == "patterns" and small.rungs == 1


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1_000, max_value=10**9),
       st.sampled_from(["Laplace", "SVT1", "ReportNoisyMax3", "NoisyHist1"]))
def test_plan_stays_within_budget(total: int, name: str) -> None:
    m, base = dpsniper_suite(0.1)[name]
    try:
        p = search_plan(m, base, total, claimed_epsilon=0.1)
    except InvalidInputError as exc:
        assert "too few" in str(exc)
        enough = int(str(exc).split("at least ")[-1].split(" runs")[0])
        assert enough > total
        assert search_plan(m, base, enough, claimed_epsilon=0.1).final_runs > 0
        return
    assert isinstance(p, SearchPlan)
    # the probe (≤ 4,000 runs) and 6 sd of the Poisson certification counts fit in the margin
    assert p.pilot_total + p.final_runs + 4_000 + int(6 * math.sqrt(total)) <= total
    assert p.final_runs > 0 and p.pilot_runs > 0


def test_planned_search_spends_at_most_its_budget_and_uses_planned_settings() -> None:
    m, base = dpsniper_suite(0.1)["ReportNoisyMax3"]
    budget = 400_000
    s = audit_search(m, base, claimed_epsilon=0.1, total_runs=budget, seed=3)
    assert s.total_runs <= budget and s.plan is not None and s.plan.total_runs == budget
    assert PLANNED_EVENTS == "auto" and s.report.events_certified in (1, 2, 3, 4)
    assert any("events=auto" in n for n in s.report.notes)
    assert s.report.certification_test in ("poisson", "binomial")
    assert s.to_json()["plan"]["final_runs"] == s.plan.final_runs
    one = audit_search(m, base, claimed_epsilon=0.1, total_runs=budget, seed=3, events=1)
    assert one.report.events_certified == 1


def test_planned_search_verdicts_are_falsifiable() -> None:
    """A true claim comes out consistent; a third of the exact ε of the worst flip is a
    violation (the plan picks the neighbours, the pilots the pair)."""
    m = ExponentialMechanism(thresholds(7), 1.0)
    d = tuple((x, 1) for x in range(7))
    ok = audit_search(m, d, "flip", claimed_epsilon=1.0, total_runs=400_000, seed=0)
    assert ok.report.verdict == "consistent" and ok.total_runs <= 400_000
    bad = audit_search(m, d, "flip", claimed_epsilon=1 / 3, total_runs=400_000, seed=0)
    assert bad.report.verdict == "violation" and bad.report.epsilon_lower_bound > 1 / 3


def test_approximate_dp_plans_binomial_certification() -> None:
    m = Histogram(1.0, bins=3, relation="add_remove")
    s = audit_search(m, ((0, 0), (1, 0)), claimed_epsilon=1.0, claimed_delta=1e-3,
                     total_runs=200_000, seed=0)
    assert s.report.certification_test == "binomial" and s.total_runs <= 200_000


@pytest.mark.parametrize("kw, msg", [
    ({}, "exactly one of total_runs"),
    ({"runs": 10**5, "total_runs": 10**6}, "exactly one of total_runs"),
    ({"total_runs": 10**6, "rungs": 2}, "plan sets rungs"),
    ({"total_runs": 10**6, "pilot_runs": 10**4}, "plan sets rungs"),
    ({"total_runs": 0}, "positive integer"),
    ({"total_runs": 2e7}, "positive integer"),
    ({"total_runs": 5_000}, "too few"),
])
def test_bad_budgets_are_clear_errors(kw: dict, msg: str) -> None:
    m, base = dpsniper_suite(0.1)["SVT1"]
    with pytest.raises(InvalidInputError, match=msg):
        audit_search(m, base, claimed_epsilon=0.1, seed=0, **kw)


def test_cli_search_reports_pair_and_plan() -> None:
    r = CliRunner().invoke(app, ["audit", "svt4", "--claimed-epsilon", "1", "--runs", "100000",
                                 "--search", "--json"])
    assert r.exit_code == 1, r.output
    d = json.loads(r.stdout)
    assert d["verdict"] == "violation" and d["search"]["plan"]["total_runs"] == 100_000
    assert d["search"]["total_runs"] <= 100_000 and d["search"]["d0"] != d["search"]["d1"]
    text = CliRunner().invoke(app, ["audit", "svt4", "--claimed-epsilon", "1", "--runs",
                                    "100000", "--search"])
    assert "pair found" in text.stdout and "budget 100000" in text.stdout
