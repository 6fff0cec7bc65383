"""ltheory.strategies as users see it: dimension bounds on drawn classes, argument validation and
the re-exported aggregation / composition strategies."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis.errors import InvalidArgument

import ltheory.strategies as lst
import ltheory.strategies.boolean as lsb
from ltheory.core.boolean import Aggregation
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dimensions import littlestone_dimension, vc_dimension
from ltheory.dims.certificates import verify

FAST = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])
#: for find(): stops at the first example found; the budget only matters if none is
FIND = settings(max_examples=1000, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))

BOUNDS = [
    {"max_vc": 0},
    {"max_vc": 1},
    {"max_vc": 2, "min_points": 4},
    {"max_ldim": 1},
    {"max_ldim": 2, "max_size": 12},
    {"min_vc": 2},
    {"min_vc": 1, "max_vc": 1, "min_size": 3},
    {"min_vc": 2, "max_vc": 2, "max_ldim": 2, "labelled": True},
    {"min_vc": 1, "max_vc": 2, "max_ldim": 3, "min_points": 5, "max_points": 5, "min_size": 8},
]


def _check(H: HypothesisClass, kw: dict) -> None:
    vc, ld = vc_dimension(H), littlestone_dimension(H)
    verify(H, vc)   # the values used below are certified by their witnesses
    verify(H, ld)
    assert kw.get("min_vc", -1) <= vc.value <= kw.get("max_vc", math.inf)
    assert ld.value <= kw.get("max_ldim", math.inf)
    assert max(kw.get("min_size", 1), 2 ** kw.get("min_vc", 0)) <= len(H)
    assert len(H) <= kw.get("max_size", 16)
    assert kw.get("min_points", 0) <= H.domain_size <= kw.get("max_points", 6)
    # Sauer–Shelah–Perles: the bound the strategy promises it never asks more than
    d = min(kw.get("max_vc", H.domain_size), kw.get("max_ldim", H.domain_size))
    assert len(H) <= sum(math.comb(H.domain_size, i) for i in range(min(d, H.domain_size) + 1))
    if kw.get("labelled"):
        assert all(isinstance(x, str) for x in H.domain)


@pytest.mark.parametrize("kw", BOUNDS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_drawn_classes_satisfy_the_requested_bounds(kw: dict) -> None:
    @FAST
    @given(lst.hypothesis_classes(**kw))
    def run(H: HypothesisClass) -> None:
        _check(H, kw)

    run()


def test_max_vc_still_reaches_a_larger_littlestone_dimension() -> None:
    # VC 1 with Littlestone dimension 2 (a threshold-like chain) is reachable under max_vc=1
    H = find(lst.hypothesis_classes(max_vc=1),
             lambda H: littlestone_dimension(H).value == 2, settings=FIND)
    assert vc_dimension(H).value == 1


def test_bounded_draws_reach_the_sauer_shelah_bound_and_beyond_min_vc() -> None:
    # the Sauer–Shelah bound itself is reachable: 1 + 4 hypotheses, VC 1, on 4 points
    H = find(lst.hypothesis_classes(min_points=4, max_points=4, max_vc=1, min_size=5),
             lambda H: True, settings=FIND)
    assert len(H) == 5 and vc_dimension(H).value == 1
    # min_vc is a lower bound only: larger VC than asked is drawn too
    H = find(lst.hypothesis_classes(min_vc=1, max_points=3),
             lambda H: vc_dimension(H).value >= 2, settings=FIND)
    assert len(H) >= 4


def test_unbounded_strategy_is_unchanged() -> None:
    # no dimension bound: the plain random-matrix strategy, which can reach the full cube
    H = find(lst.hypothesis_classes(min_points=3, max_points=3, max_size=8),
             lambda H: len(H) == 8, settings=FIND)
    assert vc_dimension(H).value == 3


@pytest.mark.parametrize("kw, message", [
    ({"max_vc": -1}, "max_vc"),
    ({"max_ldim": True}, "max_ldim"),
    ({"min_vc": 1.5}, "min_vc"),
    ({"min_vc": 3, "max_vc": 2}, "exceeds max_vc"),
    ({"min_vc": 3, "max_ldim": 2}, "max_ldim"),
    ({"min_vc": 4, "max_points": 3}, "max_points"),
    ({"min_vc": 5}, r"2\*\*5 hypotheses"),
    ({"max_vc": 1, "max_points": 4, "min_size": 6}, "Sauer"),
    ({"max_ldim": 0, "min_size": 2}, "Sauer"),
])
def test_invalid_dimension_bounds_are_refused(kw: dict, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        lst.hypothesis_classes(**kw)


def test_aggregations_and_compositions_are_re_exported() -> None:
    from ltheory.strategies import aggregation_expressions, aggregations, compositions

    assert aggregations is lsb.aggregations and compositions is lsb.compositions
    assert aggregation_expressions is lsb.aggregation_expressions
    assert {"aggregations", "compositions", "hypothesis_classes"} <= set(lst.__all__)
    assert all(hasattr(lst, name) for name in lst.__all__)
    G = find(aggregations(2, 3), lambda G: True, settings=FIND)
    assert isinstance(G, Aggregation) and G.arity in (2, 3)


@FAST
@given(lst.compositions(max_arity=3, max_points=4, max_size=4))
def test_re_exported_compositions_draw_classes_on_one_domain(case) -> None:
    G, classes = case
    assert G.arity == len(classes)
    assert len({H.domain_size for H in classes}) == 1


@pytest.mark.parametrize("first", ["ltheory.strategies.boolean", "ltheory.strategies.samples",
                                   "ltheory.strategies.classes", "ltheory.strategies"])
def test_any_module_can_be_imported_first(first: str) -> None:
    code = (f"import {first}\n"
            "from ltheory.strategies import aggregations, compositions, hypothesis_classes\n"
            "from ltheory.strategies.boolean import compositions as c2\n"
            "assert compositions is c2\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
