"""Contradiction graphs and the clique number ω_m (issue 4): brute force on tiny classes,
the reduction to labelled m-sets, bounds, monotonicity, witnesses, bad input."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory import catalog
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import BudgetExceededError, CertificateError, InvalidInputError
from ltheory.graphs.certificates import verify_clique
from ltheory.graphs.clique import clique_number, max_clique
from ltheory.graphs.contradiction import contradiction_graph, literal_contradiction_graph
from ltheory.strategies import hypothesis_classes


def brute_omega(H: HypothesisClass, m: int) -> int:
    G = literal_contradiction_graph(H, m)
    if G.number_of_nodes() == 0:
        return 0
    return len(nx.max_weight_clique(G, weight=None)[0])


TINY = ["points n=4", "thresholds n=4", "intervals n=3", "parities n=2"]


@pytest.mark.parametrize("spec", TINY)
@pytest.mark.parametrize("m", [1, 2, 3])
def test_clique_matches_literal_definition(spec: str, m: int) -> None:
    H = catalog.from_spec(spec)
    want = brute_omega(H, m)
    for kw in ({}, {"fast_paths": False}, {"fast_paths": False, "method": "networkx"}):
        r = clique_number(H, m, **kw)
        assert r.exact and r.value == want, (spec, m, kw)
        verify_clique(H, m, r.witness, r.value)


def test_points_on_four() -> None:
    H = catalog.family("points", n=4)
    assert clique_number(H, 2).value == 3
    assert clique_number(H, 1).value == 2


def test_reduction_is_a_homomorphism_both_ways() -> None:
    """Literal sequences map to reduced m-sets preserving edges; m-sets embed as induced."""
    for H in (catalog.from_spec("thresholds n=3"), catalog.from_spec("points n=3"),
              HypothesisClass.from_strings(["010", "111", "001"])):
        for m in (1, 2, 3, 4):
            L = literal_contradiction_graph(H, m)
            R = contradiction_graph(H, m)
            key = {tuple(zip(R.points[v].tolist(), R.bits[v].tolist(), strict=True)): v
                   for v in range(len(R))}
            k = R.k
            M = H.matrix

            def f(S: tuple, M: np.ndarray = M, k: int = k, n: int = H.domain_size,
                  key: dict = key) -> int:
                d = dict(S)
                h = next(r for r in M if all(r[x] == b for x, b in d.items()))
                for x in range(n):
                    if len(d) >= k:
                        break
                    d.setdefault(x, int(h[x]))
                return key[tuple(sorted(d.items()))]

            for S, T in L.edges:
                assert (R.adj[f(S)] >> f(T)) & 1
            # embedding: reduced vertices (as padded sequences) induce the same edges
            for u, v in itertools.combinations(range(len(R)), 2):
                su = tuple((H.point_index(a), b) for a, b in R.sample(u))
                sv = tuple((H.point_index(a), b) for a, b in R.sample(v))
                assert L.has_edge(su, sv) == bool((R.adj[u] >> v) & 1)


def test_networkx_export_and_dense_matrix() -> None:
    R = contradiction_graph(catalog.from_spec("intervals n=5"), 2)
    G = R.to_networkx()
    A = R.adjacency_matrix()
    assert G.number_of_nodes() == len(R) and G.number_of_edges() == R.num_edges
    assert int(A.sum()) == 2 * R.num_edges
    assert all(A[u, v] for u, v in G.edges)


@settings(max_examples=40)
@given(hypothesis_classes(min_points=1, max_points=4, min_size=1, max_size=10),
       st.integers(1, 3))
def test_random_classes_brute_force_and_bounds(H: HypothesisClass, m: int) -> None:
    r = clique_number(H, m)
    assert r.exact
    verify_clique(H, m, r.witness, r.value)
    assert r.value == brute_omega(H, m)
    assert 1 <= r.value <= min(2 ** m, len(H))
    r2 = clique_number(H, m, fast_paths=False)
    assert r2.value == r.value


@settings(max_examples=25)
@given(hypothesis_classes(min_points=1, max_points=6, min_size=1, max_size=24))
def test_monotone_in_m_and_fast_path_bounds(H: HypothesisClass) -> None:
    from ltheory.dimensions import littlestone_dimension

    ld = littlestone_dimension(H).value
    prev = 0
    for m in (1, 2, 3):
        r = clique_number(H, m)
        assert r.value >= prev
        assert r.value >= 2 ** min(m, ld)
        prev = r.value


def test_max_clique_on_known_graphs() -> None:
    for G in (nx.complete_graph(7), nx.cycle_graph(9), nx.petersen_graph(),
              nx.gnp_random_graph(40, 0.6, seed=3)):
        adj = [0] * G.number_of_nodes()
        for u, v in G.edges:
            adj[u] |= 1 << v
            adj[v] |= 1 << u
        c, done, _ = max_clique(adj)
        assert done
        assert len(c) == len(nx.max_weight_clique(G, weight=None)[0])
        assert all(G.has_edge(u, v) for u, v in itertools.combinations(c, 2))


def test_budget_returns_proven_bounds() -> None:
    H = catalog.from_spec("random m=30 n=8 p=0.5 seed=1")
    r = clique_number(H, 3, budget=1e-9, fast_paths=False)
    verify_clique(H, 3, r.witness, r.lower)
    assert r.lower <= r.upper <= 8


def test_bad_input() -> None:
    H = catalog.from_spec("thresholds n=4")
    with pytest.raises(InvalidInputError, match="m must be an integer >= 1"):
        clique_number(H, 0)
    with pytest.raises(InvalidInputError, match="empty class"):
        clique_number(HypothesisClass.from_strings([], domain=3), 2)
    with pytest.raises(InvalidInputError, match="method"):
        clique_number(H, 2, method="magic")
    with pytest.raises(BudgetExceededError, match="max_vertices"):
        clique_number(catalog.from_spec("random m=50 n=30 p=0.5 seed=0"), 4,
                      fast_paths=False, max_vertices=1000)


def test_empty_domain_and_large_m() -> None:
    H = HypothesisClass.from_strings([""], domain=0)
    r = clique_number(H, 2)
    assert r.value == 0 and r.exact
    verify_clique(H, 2, r.witness, 0)
    H = catalog.from_spec("points n=3")
    r = clique_number(H, 5)  # m > |X|: the complete graph on |H|
    assert r.value == len(H)
    verify_clique(H, 5, r.witness, r.value)


def test_clique_checker_rejects() -> None:
    H = catalog.from_spec("thresholds n=4")
    good = clique_number(H, 2).witness
    verify_clique(H, 2, good, len(good))
    with pytest.raises(CertificateError, match="claimed value"):
        verify_clique(H, 2, good, len(good) + 1)
    with pytest.raises(CertificateError, match="do not contradict"):
        verify_clique(H, 2, [good[0], good[0]], 2)
    with pytest.raises(CertificateError, match="realises"):
        verify_clique(H, 2, [[["0", 1], ["1", 0]]], 1)  # thresholds: 10 is not realizable
    with pytest.raises(CertificateError, match="domain label"):
        verify_clique(H, 2, [[[0, 1], ["1", 1]]], 1)
    with pytest.raises(CertificateError, match="list of 2"):
        verify_clique(H, 2, [[["0", 1]]], 1)
