"""audit_search: neighbour generators, pilot ranking, final audit on fresh runs."""

from __future__ import annotations

import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.search import audit_search, labelled_neighbours, query_patterns
from ltheory.privacy.mechanisms import ExponentialMechanism, Histogram, SparseVector, thresholds


def test_patterns_are_neighbours() -> None:
    m = SparseVector(1.0)
    pats = query_patterns((0.0,) * 4, 1.0, n_random=5)
    names = {p[0] for p in pats}
    assert {"one above", "one below", "all above", "X-shape", "half-half"} <= names
    assert all(m.are_neighbours(a, b) for _, a, b in pats)


def test_labelled_generators() -> None:
    m = ExponentialMechanism(thresholds(3), 1.0)
    d = ((0, 0), (2, 1))
    assert len(labelled_neighbours(m, d, "flip")) == 2
    assert len(labelled_neighbours(m, d, "move")) == 4
    assert len(labelled_neighbours(m, d, "substitution")) == 10
    assert len(labelled_neighbours(m, d, "add_remove")) == 2 + 6


def test_add_remove_search_on_histogram() -> None:
    m = Histogram(1.0, bins=3, relation="add_remove")
    # the real-arithmetic histogram (its float Laplace noise leaks its bits by default)
    s = audit_search(m, ((0, 0), (1, 0)), claimed_epsilon=1.0, runs=100_000, pilot_runs=10_000,
                     seed=0, arithmetic="real")
    assert s.pairs_considered == 2 + 6
    assert s.report.verdict == "consistent" and s.report.epsilon_lower_bound > 0.5


def test_search_finds_worst_flip_of_exponential_mechanism() -> None:
    m = ExponentialMechanism(thresholds(7), 1.0)
    d = tuple((x, 1) for x in range(7))
    s = audit_search(m, d, "flip", claimed_epsilon=1.0, runs=200_000, pilot_runs=20_000, seed=0)
    pilots = [r["projected_bound"] for r in s.ranking]
    assert pilots == sorted(pilots, reverse=True)
    assert s.ranking[0]["exact_epsilon"] == s.report.exact_epsilon
    assert 0.8 < s.report.epsilon_lower_bound <= s.report.exact_epsilon
    d = s.to_json()
    assert d["pairs_considered"] == 7 and d["report"]["verdict"] == "consistent"


def test_search_detects_lee_clifton_svt() -> None:
    m = SparseVector(1.0, variant=4)
    s = audit_search(m, (0.0,) * 5, claimed_epsilon=1.0, runs=200_000, pilot_runs=20_000,
                     seed=1)
    assert s.report.verdict == "violation"


def test_explicit_pairs_and_errors() -> None:
    m = SparseVector(1.0, variant=1)
    s = audit_search(m, None, [((0.0, 0.0), (1.0, 0.0)), ("far", (0.0,), (5.0,))],
                     claimed_epsilon=1.0, runs=20_000, seed=0)
    assert s.pairs_considered == 2 and len(s.ranking) == 1
    with pytest.raises(InvalidInputError, match="no neighbouring pairs"):
        audit_search(m, None, [((0.0,), (5.0,))], claimed_epsilon=1.0, runs=20_000, seed=0)
    with pytest.raises(InvalidInputError, match="neighbours"):
        audit_search(m, (0.0,), "flip", claimed_epsilon=1.0, runs=20_000, seed=0)
