"""Fractional clique number ω*_m (issue 4): exact rationals, certificates, bounds."""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from ltheory import catalog
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import CertificateError, InvalidInputError
from ltheory.graphs.certificates import (
    verify_fractional_bounds,
    verify_fractional_clique,
    verify_graph_result,
)
from ltheory.graphs.clique import clique_number
from ltheory.graphs.contradiction import contradiction_graph, literal_contradiction_graph
from ltheory.graphs.fractional import fractional_clique_number
from ltheory.strategies import hypothesis_classes


def brute_fclique(G: nx.Graph) -> float:
    """ω* by listing every maximal independent set (maximal cliques of the complement)."""
    nodes = list(G.nodes)
    if not nodes:
        return 0.0
    idx = {v: i for i, v in enumerate(nodes)}
    sets = list(nx.find_cliques(nx.complement(G)))
    A = [[1.0 if v in set(s) else 0.0 for v in nodes] for s in sets]
    res = linprog([-1.0] * len(nodes), A_ub=A, b_ub=[1.0] * len(sets), bounds=(0, None),
                  method="highs")
    assert res.status == 0 and idx
    return -res.fun


@pytest.mark.parametrize(("spec", "m", "want"), [
    ("points n=4", 2, Fraction(10, 3)),
    ("points n=6", 2, Fraction(7, 2)),
    ("points n=8", 3, Fraction(28, 5)),
    ("thresholds n=5", 3, Fraction(6)),
])
def test_known_values(spec: str, m: int, want: Fraction) -> None:
    H = catalog.from_spec(spec)
    r = fractional_clique_number(H, m)
    assert r.exact and r.stats["rational"] == str(want)
    verify_graph_result(H, m, r)
    verify_fractional_clique(H, m, r.witness, want)


def test_points_fractional_exceeds_clique() -> None:
    H = catalog.family("points", n=4)
    assert clique_number(H, 2).value == 3
    assert Fraction(fractional_clique_number(H, 2).stats["rational"]) > 3


@pytest.mark.parametrize("spec", ["points n=3", "thresholds n=3", "intervals n=3"])
@pytest.mark.parametrize("m", [1, 2, 3])
def test_matches_literal_graph(spec: str, m: int) -> None:
    """ω* of the literal G_m (sequences) equals ω* of the reduced graph (the proposition)."""
    H = catalog.from_spec(spec)
    want = brute_fclique(literal_contradiction_graph(H, m))
    r = fractional_clique_number(H, m, fast_paths=False)
    assert r.exact and float(Fraction(r.stats["rational"])) == pytest.approx(want, abs=1e-7)
    verify_graph_result(H, m, r)


@settings(max_examples=30)
@given(hypothesis_classes(min_points=1, max_points=5, min_size=1, max_size=14),
       st.integers(1, 3))
def test_random_classes(H: HypothesisClass, m: int) -> None:
    r = fractional_clique_number(H, m, fast_paths=False)
    verify_graph_result(H, m, r)
    assert r.exact
    want = brute_fclique(contradiction_graph(H, m).to_networkx(with_samples=False))
    assert float(Fraction(r.stats["rational"])) == pytest.approx(want, abs=1e-7)
    w = clique_number(H, m).value
    assert w <= r.lower <= r.upper <= min(2 ** min(m, H.domain_size), len(H))
    r2 = fractional_clique_number(H, m)
    assert r2.stats["rational"] == r.stats["rational"]
    verify_graph_result(H, m, r2)


def test_budget_gives_certified_bounds() -> None:
    H = catalog.from_spec("points n=8")
    r = fractional_clique_number(H, 3, budget=1e-9, fast_paths=False)
    verify_graph_result(H, 3, r)
    assert r.lower <= 5.6 <= r.upper


def test_checker_rejects() -> None:
    H = catalog.family("points", n=4)
    r = fractional_clique_number(H, 2)
    w = r.witness
    with pytest.raises(CertificateError, match="sum to"):
        verify_fractional_clique(H, 2, w, 3)
    heavy = {**w, "weights": [[s, "1"] for s, _ in w["weights"]]}
    with pytest.raises(CertificateError):
        verify_fractional_bounds(H, 2, heavy, len(heavy["weights"]), w["upper"])
    half = {**w, "dual": [[s, Fraction(y) / 2 if isinstance(y, int) else str(Fraction(y) / 2)]
                          for s, y in w["dual"]]}
    with pytest.raises(CertificateError, match="covers"):
        verify_fractional_bounds(H, 2, half, w["lower"], Fraction(w["upper"]) / 2)
    bad = {**w, "dual": [[[[["0", 1], ["1", 0]], [["0", 0], ["1", 0]]], 1]]}
    with pytest.raises(CertificateError, match="not independent"):
        verify_fractional_bounds(H, 2, bad, w["lower"], 1)
    with pytest.raises(CertificateError, match="linear"):
        verify_fractional_bounds(H, 2, {**w, "dual": "uniform"}, w["lower"], w["upper"])


@pytest.mark.parametrize("spec,m", [("parities n=3", 2), ("parities n=3", 3),
                                    ("random m=64 n=9 p=0.5 seed=4", 3), ("thresholds n=40", 4)])
def test_linear_dual_certifies_two_to_the_k(spec: str, m: int) -> None:
    """Where ω*_m = 2^k the dual is a k-wise independent linear colouring (documented list-free
    form), checked in polynomial time; tampering with it is caught."""
    H = catalog.from_spec(spec)
    r = fractional_clique_number(H, m)
    k = min(m, H.domain_size)
    assert r.exact and r.value == 2 ** k
    w = r.witness
    assert set(w["dual"]) == {"linear"} and len(w["dual"]["linear"]) == H.domain_size
    verify_graph_result(H, m, r)
    vecs = dict(w["dual"]["linear"])
    a, b = list(vecs)[:2]
    vecs[b] = vecs[a]                                  # two equal vectors: dependent
    with pytest.raises(CertificateError, match="dependent"):
        verify_fractional_bounds(H, m, {**w, "dual": {"linear": vecs}}, w["lower"], w["upper"])
    with pytest.raises(CertificateError, match="total"):
        verify_fractional_bounds(H, m, w, w["lower"], 2 ** k - 1)
    short = {lab: v[:-1] or "0" for lab, v in w["dual"]["linear"].items()}
    if k > 1:   # dropping a coordinate leaves 2^(r-1) labellings: no longer k-wise independent
        with pytest.raises(CertificateError):
            verify_fractional_bounds(H, m, {**w, "dual": {"linear": short}}, w["lower"],
                                     w["upper"])


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="m must be"):
        fractional_clique_number(catalog.from_spec("points n=3"), 0)
    with pytest.raises(InvalidInputError, match="empty class"):
        fractional_clique_number(HypothesisClass.from_strings([], domain=2), 1)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 63), st.integers(0, 63),
                          st.integers(1, 2 ** 80)), min_size=1, max_size=12),
       st.integers(1, 5))
def test_exact_top_totals_for_huge_weights(terms, top) -> None:
    """The float-screened exact sum agrees with a brute-force exact top list (weights > 2^62)."""
    import numpy as np

    from ltheory.graphs.fractional import _top_exact_totals

    G = np.arange(64, dtype=np.int64)
    mask = np.array([t[0] for t in terms], dtype=np.int64)
    val = np.array([t[0] & t[1] for t in terms], dtype=np.int64)
    w = [t[2] + 2 ** 62 for t in terms]
    exact, order = _top_exact_totals(G, mask, val, w, sum(w), top)
    brute = [sum(wj for mj, vj, wj in zip(mask.tolist(), val.tolist(), w, strict=True)
                 if g & mj == vj) for g in range(64)]
    want = sorted(range(64), key=lambda g: (-brute[g], g))[:top]
    assert order == want
    assert all(exact[g] == brute[g] for g in order)
