"""The threshold search over traces (``_LadderSearch``): exact against brute force and against the
independent SAT ladder, its pruning rules checked one by one, budgets and Shelah's cap."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory import HypothesisClass, catalog
from ltheory.dimensions import littlestone_dimension, threshold_dimension
from ltheory.dims.budget import Budget
from ltheory.dims.certificates import verify
from ltheory.dims.threshold import _LadderSearch
from ltheory.sat import sat_threshold
from tests.reference import tdim_reference


def _random_class(rng: np.random.Generator, n: int, m: int) -> HypothesisClass:
    p = rng.uniform(0.1, 0.9)
    return HypothesisClass.from_matrix((rng.random((m, n)) < p).astype(np.uint8), domain=n)


def _traces_from_scratch(H: HypothesisClass, xs: list[int], U: int) -> frozenset[int]:
    """Traces on U of the hypotheses that are 0 on every point of xs (the definition)."""
    rows = _LadderSearch(H, None).rows
    return frozenset(r & U for r in rows if r & U and not any(r >> x & 1 for x in xs))


def test_exact_on_two_thousand_random_classes_against_brute_force() -> None:
    rng = np.random.default_rng(20261123)
    for _ in range(2000):
        H = _random_class(rng, int(rng.integers(1, 7)), int(rng.integers(1, 24)))
        r = threshold_dimension(H, method="exact")
        assert r.exact and r.value == tdim_reference(H), H.to_strings()
        verify(H, r)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(6, 12), st.integers(10, 60))
def test_exact_search_agrees_with_the_sat_ladder(seed: int, n: int, m: int) -> None:
    H = _random_class(np.random.default_rng(seed), n, m)
    a = threshold_dimension(H, method="exact")
    b = sat_threshold(H)
    assert a.exact and b.exact and a.value == b.value
    verify(H, a)
    verify(H, b)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 9), st.integers(2, 30))
def test_child_traces_and_branch_pruning_follow_the_definitions(seed: int, n: int,
                                                                m: int) -> None:
    rng = np.random.default_rng(seed)
    H = _random_class(rng, n, m)
    s = _LadderSearch(H, None)
    traces, xs, U = s.root, [], (1 << n) - 1
    assert traces == _traces_from_scratch(H, xs, U)
    while traces:
        branches = s.branches(traces)
        # every (x, trace) pair not listed is dominated by a listed one with the same x
        listed = {(x, t) for _, x, t in branches}
        for t in traces:
            for x in range(n):
                if t >> x & 1:
                    assert any(y == x and u & t == t for y, u in listed), (x, t)
        # no listed trace is strictly inside another listed trace for the same x
        for x, t in listed:
            assert not any(y == x and u != t and u & t == t for y, u in listed)
        assert [b[0] for b in branches] == sorted((b[0] for b in branches), reverse=True)
        # the size bound is an upper bound on the longest ladder of the sub-problem
        assert s.longest(traces, 0) <= s.size_bound(traces)
        _, x, t = branches[int(rng.integers(len(branches)))]
        traces = s.child(traces, x, t)
        xs.append(x)
        U = t ^ (1 << x)
        assert traces == _traces_from_scratch(H, xs, U)


def test_shelah_cap_is_recorded_and_respected() -> None:
    H = catalog.from_spec("random m=120 n=16 p=0.5 seed=0")
    r = threshold_dimension(H)
    cap = r.stats["ldim_cap"]
    assert cap["ldim_upper"] == littlestone_dimension(H).value
    assert cap["cap"] == 2 ** (cap["ldim_upper"] + 1) - 1 >= r.value
    # Co-points on [40] (X minus one point): Ldim 1, so the cap is 3, far below |X| - 1, |H| and
    # the size bound (40 traces of 39 points); T = 2 (a third step would need two zeros).
    P = catalog.from_spec("points n=40").complement()
    r = threshold_dimension(P)
    assert r.exact and r.value == 2 and r.stats["ldim_cap"]["cap"] == 3
    verify(P, r)


def test_budget_returns_proven_bounds_with_a_checked_witness() -> None:
    H = catalog.from_spec("conjunctions n=7")  # T = 8 is found fast; refuting 9 is slow
    r = threshold_dimension(H, budget=0.5, method="exact")
    verify(H, r)
    assert r.lower <= r.upper and r.value == r.lower >= 1
    if not r.exact:
        assert r.upper <= min(len(H), H.domain_size - 1)


def test_catalog_families_match_known_and_sat_values() -> None:
    for spec, want in [("conjunctions n=4", 5), ("conjunctions n=5", 6), ("intervals n=12", 12),
                       ("points n=9", 1), ("parities n=3", 3)]:
        H = catalog.from_spec(spec)
        r = threshold_dimension(H, method="exact")
        assert r.exact and r.value == want, spec
        verify(H, r)


def test_search_budget_is_checked_on_every_few_nodes() -> None:
    H = catalog.from_spec("parities n=6")  # ~150,000 nodes without a budget
    s = _LadderSearch(H, Budget(0.05, stride=16))
    from ltheory.dims.budget import BudgetExpired

    with pytest.raises(BudgetExpired):
        s.longest(s.root, 7)
    assert s.nodes < 150_000
