"""SAT search agrees with enumeration; decoded witnesses verify; budgets give honest bounds."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings

from ltheory import catalog
from ltheory.core.compose import compose
from ltheory.dimensions import littlestone_dimension, threshold_dimension, vc_dimension
from ltheory.dims.certificates import verify
from ltheory.dims.result import DimensionResult
from ltheory.errors import CertificateError, InvalidInputError
from ltheory.sat import (
    sat_littlestone,
    sat_threshold,
    sat_vc,
    strip_components,
    verify_any,
    verify_composed,
)
from ltheory.sat.search import enumerate_composed
from ltheory.strategies import compositions, hypothesis_classes

DIMS = {"vc": vc_dimension, "ldim": littlestone_dimension, "tdim": threshold_dimension}
SAT = {"vc": sat_vc, "ldim": sat_littlestone, "tdim": sat_threshold}


@settings(max_examples=40, deadline=None)
@given(hypothesis_classes(max_points=6, max_size=14, allow_empty=True))
def test_sat_agrees_with_enumeration_on_explicit_classes(H) -> None:
    for kind, f in DIMS.items():
        exact = f(H)
        sat = f(H, method="sat")
        assert sat.exact and sat.value == exact.value, (kind, H.to_strings())
        verify(H, sat)


@settings(max_examples=40, deadline=None)
@given(compositions(max_arity=3, max_points=5, max_size=5))
def test_sat_on_lazy_composed_classes_agrees_with_materialised_enumeration(case) -> None:
    G, classes = case
    C = compose(G, *classes, lazy=True)
    M = C.materialise()
    for kind, f in DIMS.items():
        exact = f(M)
        # the encodings proper (enumerate_limit=0), and the default (SAT enumeration first)
        for sat in (SAT[kind](C, enumerate_limit=0), f(C, method="sat")):
            assert sat.exact and sat.value == exact.value, (kind, G.truth_table,
                                                            [c.to_strings() for c in classes])
            verify_composed(C, sat)
            # without its components the witness is an ordinary witness of the materialised class
            plain = DimensionResult(sat.kind, sat.value, strip_components(sat.witness),
                                    sat.exact, sat.lower, sat.upper)
            verify(M, plain)
        via_exact = f(C, method="exact")
        assert via_exact.value == exact.value
        verify_any(C, via_exact)


@pytest.mark.parametrize("solver", ["cadical195", "glucose42"])
def test_majority_of_a_random_class(solver: str) -> None:
    H = catalog.from_spec("random m=10 n=8 p=0.5 seed=2")
    C = compose("maj", H, H, H, lazy=True)
    M = C.materialise()
    for kind in DIMS:
        res = SAT[kind](C, solver=solver, enumerate_limit=0)
        assert res.exact and res.value == DIMS[kind](M).value
        verify_composed(C, res)
        assert res.stats["solver"] == solver


def test_symmetry_breaking_does_not_change_answers() -> None:
    H = catalog.from_spec("random m=8 n=7 p=0.5 seed=4")
    C = compose("maj", H, H, H, lazy=True)
    for kind in DIMS:
        a = SAT[kind](C, symmetry=True, enumerate_limit=0)
        b = SAT[kind](C, symmetry=False, enumerate_limit=0)
        assert a.value == b.value and a.exact and b.exact


def test_threshold_ladder_may_end_at_a_constant_one_point() -> None:
    # h_i(x_j) = 1 iff i <= j: x_k may be a point where every hypothesis is 1
    T = catalog.from_spec("thresholds n=5")
    ones = T.subclass([h.endswith("1") for h in T.to_strings()])  # every hypothesis 1 at x=4
    assert threshold_dimension(ones, method="sat").value == threshold_dimension(ones).value
    C = compose("or", ones, ones, lazy=True)
    assert threshold_dimension(C, method="sat").value == threshold_dimension(
        C.materialise()).value


def test_upper_bound_from_unsat_is_recorded() -> None:
    H = catalog.from_spec("random m=12 n=8 p=0.5 seed=1")
    C = compose("maj", H, H, H, lazy=True)
    res = sat_littlestone(C, seed_samples=1, enumerate_limit=0)
    assert res.exact
    assert "UNSAT" in res.stats["upper_reason"] or "log2" in res.stats["upper_reason"]
    assert any(c["result"] == "unsat" for c in res.stats["calls"]) or \
        "log2" in res.stats["upper_reason"]


def test_budget_gives_certified_lower_and_proven_upper() -> None:
    H = catalog.from_spec("random m=60 n=14 p=0.5 seed=7")
    C = compose("maj", H, H, H, H, H, lazy=True)
    for limit in (0, 200_000):
        res = sat_littlestone(C, budget=2.0, enumerate_limit=limit)
        verify_composed(C, res)
        assert res.lower >= 1 and res.upper <= 14 and res.lower <= res.upper
        assert res.seconds < 30


def test_enumeration_by_sat_equals_materialisation() -> None:
    H = catalog.from_spec("random m=15 n=9 p=0.5 seed=8")
    for G in ("maj", "x1 & (x2 | ~x3)", "xor3"):
        C = compose(G, H, H, H, lazy=True)
        en = enumerate_composed(C)
        assert en.complete and en.H == C.materialise()
        part = enumerate_composed(C, limit=5)
        assert not part.complete and len(part.H) == 5


def test_tampered_composed_witnesses_are_rejected() -> None:
    H = catalog.from_spec("random m=8 n=6 p=0.5 seed=3")
    C = compose("and", H, H, lazy=True)
    res = sat_littlestone(C)
    assert res.value >= 1
    bad = copy.deepcopy(res.witness)
    node = bad
    while "hypothesis" not in node:
        node = node["children"]["0"]
    node["components"][0] = "1" * 6 if node["components"][0] != "1" * 6 else "0" * 6
    forged = DimensionResult("ldim", res.value, bad, res.exact, res.lower, res.upper)
    with pytest.raises(CertificateError):
        verify_composed(C, forged)
    t = sat_threshold(C)
    w = copy.deepcopy(t.witness)
    w["components"] = w["components"][::-1]
    if t.value >= 2:
        with pytest.raises(CertificateError):
            verify_composed(C, DimensionResult("tdim", t.value, w, t.exact, t.lower, t.upper))
    v = sat_vc(C)
    stats = dict(v.stats)
    stats["realisations"] = stats["realisations"][::-1]
    if v.value >= 1:
        with pytest.raises(CertificateError):
            verify_composed(C, DimensionResult("vc", v.value, v.witness, v.exact, v.lower,
                                               v.upper, 0.0, stats))


def test_method_argument() -> None:
    T = catalog.from_spec("thresholds n=6")
    with pytest.raises(InvalidInputError, match="method"):
        littlestone_dimension(T, method="magic")
    with pytest.raises(InvalidInputError, match="solver"):
        sat_vc(T, solver="kissat")
    C = compose("xor", T, T, lazy=True)
    assert littlestone_dimension(C).value == littlestone_dimension(
        catalog.from_spec("intervals n=6 empty=true")).value
    assert vc_dimension(C, method="auto").stats["method"] == "exact"


def test_threshold_dimension_exact_and_sat_paths_agree_on_a_composed_class() -> None:
    """The exact search over traces needs no P x P successor matrix, so "auto" keeps the exact
    path for explicit and materialisable classes; the SAT ladder search must agree with it."""
    H = catalog.from_spec("random m=10 n=8 p=0.5 seed=6")
    C = compose("maj", H, H, H, lazy=True)
    G = C.materialise()
    want = sat_threshold(G, enumerate_limit=0).value  # the SAT ladder on the explicit class
    for method in ("auto", "exact", "sat"):
        res = threshold_dimension(compose("maj", H, H, H, lazy=True), method=method)
        assert res.exact and res.value == want, method
        verify_composed(C, res)
    res = threshold_dimension(G)
    assert res.exact and res.value == want and res.stats.get("method") != "sat"
    verify(G, res)


def test_tree_encodings_too_large_are_skipped_not_built() -> None:
    H = catalog.from_spec("random m=30 n=10 p=0.5 seed=6")
    C = compose("maj", H, H, H, lazy=True)
    res = sat_littlestone(C, enumerate_limit=0, max_clauses=1000, seed_samples=50)
    verify_composed(C, res)
    assert "skipped" in res.stats["calls"][-1]["result"] or res.exact


def test_equal_classes_listed_in_another_order_lose_no_hypotheses() -> None:
    """Symmetry breaking sorts row indices within a group of interchangeable inputs; that is
    sound only for classes with the same rows in the same order (regression: OR of {1, 0} and
    {0, 1} listed in opposite orders came out with one hypothesis, Ldim 0)."""
    from ltheory import HypothesisClass
    from ltheory.sat.search import enumerate_composed

    A = HypothesisClass.from_strings(["1", "0"])
    B = HypothesisClass.from_strings(["0", "1"])
    C = compose("or", A, B, lazy=True)
    assert sorted(enumerate_composed(C).H.to_strings()) == ["0", "1"]
    for kind, f in DIMS.items():
        r = f(C, method="sat")
        assert (r.value, r.exact) == (1 if kind != "tdim" else 1, True)
    T = catalog.from_spec("thresholds n=6")
    R = HypothesisClass.from_strings(T.to_strings()[::-1])
    lazy = compose("xor", T, R, lazy=True)
    assert littlestone_dimension(lazy, method="sat").value == 4     # intervals with the empty set
    assert littlestone_dimension(compose("xor", T, R)).value == 4


def test_solver_slices_stop_within_half_a_second_of_the_budget(monkeypatch) -> None:
    """``solve_within`` sizes each conflict-budget slice from the measured rate so that no slice
    runs past the deadline by more than ``_SLICE`` seconds (fixed slices of up to 20,000
    conflicts overran 120 s budgets by ~10 s).  A fake clock and a fake solver at 5 ms per
    conflict: the old doubling (1,000, 2,000, ... conflicts) would end at 5 + 15 = 20 s on a
    10 s budget."""
    from ltheory.sat import search

    now = [0.0]

    class Clock:
        @staticmethod
        def perf_counter() -> float:
            return now[0]

    class SlowSolver:
        budget = 0

        def conf_budget(self, n: int) -> None:
            self.budget = n

        def solve_limited(self, assumptions=None):  # noqa: ANN001, ANN202
            now[0] += 0.005 * self.budget
            return None

    monkeypatch.setattr(search, "time", Clock)
    deadline = search.Deadline(10.0)
    assert search.solve_within(SlowSolver(), deadline) is None
    assert 10.0 <= now[0] <= 10.0 + search._SLICE + 1e-9
