"""The SAT ladder for the clique number (ltheory.graphs.clique_sat): agreement with networkx and
the branch and bound, its UNSAT bounds, the hard members of the amsy24 checks, the fallback."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory import HypothesisClass, catalog
from ltheory.graphs import clique_sat, contradiction_graph, verify_graph_result
from ltheory.graphs.clique import clique_number
from ltheory.strategies import hypothesis_classes


def _networkx_omega(H: HypothesisClass, m: int) -> int:
    G = contradiction_graph(H, m).to_networkx(with_samples=False)
    return len(nx.max_weight_clique(G, weight=None)[0]) if G.number_of_nodes() else 0


@settings(max_examples=60, deadline=None)
@given(hypothesis_classes(min_points=1, max_points=6, max_size=14), st.integers(1, 4))
def test_sat_ladder_equals_networkx_and_branch_and_bound(H: HypothesisClass, m: int) -> None:
    want = _networkx_omega(H, m)
    for method in ("sat", "auto", "bnb"):
        r = clique_number(H, m, method=method, fast_paths=False)
        assert r.exact and r.value == want, (method, r.lower, r.upper)
        verify_graph_result(H, m, r)


def test_the_ladder_proves_upper_bounds_by_unsat() -> None:
    # classes where ω is below the number of independent classes, so the ladder must end on an
    # UNSAT answer; its bound is checked against networkx
    unsat = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        H = HypothesisClass.from_matrix((rng.random((10, 5)) < 0.5).astype(np.uint8), domain=5)
        g = contradiction_graph(H, 2)
        best, upper, complete, stats = clique_sat.sat_clique(g, 0, len(H))
        want = _networkx_omega(H, 2)
        assert complete and upper == want and best is not None and len(best) == want
        assert g.is_clique(best)
        unsat += any(c["result"] is False for c in stats["calls"])
    assert unsat >= 10


@pytest.mark.parametrize("spec, m, omega", [
    ("random m=12 n=7 p=0.5 seed=1", 4, 12),    # branch and bound: 11..12 after 60 s
    ("intervals n=7 empty=true", 5, 28),        # branch and bound: 26..29 after 60 s
])
def test_members_the_branch_and_bound_could_not_decide(spec: str, m: int, omega: int) -> None:
    H = catalog.from_spec(spec)
    r = clique_number(H, m, budget=60)
    assert r.exact and r.value == omega
    verify_graph_result(H, m, r)
    assert r.stats["sat"]["calls"][-1]["result"] in (True, False)


def test_too_many_non_edges_falls_back_to_branch_and_bound(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clique_sat, "MAX_NON_EDGES", 0)
    H = catalog.from_spec("intervals n=4 empty=true")
    r = clique_number(H, 3, method="sat", fast_paths=False)
    assert r.exact and r.value == _networkx_omega(H, 3)
    assert "not used" in r.stats["sat"] and "nodes" in r.stats


def test_a_spent_budget_leaves_proven_bounds() -> None:
    H = catalog.from_spec("intervals n=7 empty=true")
    g = contradiction_graph(H, 5)
    best, upper, complete, _ = clique_sat.sat_clique(g, 3, 29, budget=1e-9)
    assert not complete and best is None and upper == 29
