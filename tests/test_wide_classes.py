"""Wide classes (issue 30): clone points merged before the exact engines, witnesses lifted back
to the original labels and hypotheses and re-verified, group orders past a float's range, and
nauty guarded by size and budget."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory import catalog, littlestone_dimension, threshold_dimension, vc_dimension, verify
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims import symmetry
from ltheory.dims.reduce import distinct_columns, merge_equal_columns
from tests.reference import ldim_reference, tdim_reference, vc_reference

ENGINES = {"vc": (vc_dimension, vc_reference), "ldim": (littlestone_dimension, ldim_reference),
           "tdim": (threshold_dimension, tdim_reference)}


@st.composite
def classes_with_clones(draw: st.DrawFn) -> tuple[HypothesisClass, HypothesisClass]:
    """(B, H): B a random class on <= 5 points, H the same class with each point repeated 1-3
    times and the points shuffled (so H has the dimensions of B)."""
    m = draw(st.integers(1, 8))
    k = draw(st.integers(1, 5))
    bits = draw(st.lists(st.integers(0, 1), min_size=m * k, max_size=m * k))
    base = np.array(bits, dtype=np.uint8).reshape(m, k)
    reps = draw(st.lists(st.integers(1, 3), min_size=k, max_size=k))
    M = np.repeat(base, reps, axis=1)
    perm = draw(st.permutations(range(M.shape[1])))
    labels = [f"p{i}" for i in range(M.shape[1])]
    return (HypothesisClass.from_matrix(base),
            HypothesisClass.from_matrix(M[:, list(perm)], domain=labels))


@settings(max_examples=60, deadline=None)
@given(pair=classes_with_clones())
def test_merging_clones_keeps_every_dimension_and_witness(
        pair: tuple[HypothesisClass, HypothesisClass]) -> None:
    B, H = pair
    for key, (engine, reference) in ENGINES.items():
        r = engine(H)
        assert r.exact and r.value == reference(B), key  # brute force on the unrepeated class
        verify(H, r)  # the lifted witness names H's labels and H's full-length hypotheses
        json.dumps(r.to_json())


def test_merge_keeps_rows_in_order_and_first_labels() -> None:
    H = HypothesisClass.from_strings(["0011", "0101", "1111"], domain=["a", "b", "c", "d"])
    red = merge_equal_columns(H)
    assert not red.reduced
    W = HypothesisClass.from_strings(["001100", "010100", "111111"],
                                     domain=["a", "b", "c", "d", "e", "f"])
    red = merge_equal_columns(W)
    assert red.reduced and red.merged.domain == ("a", "b", "c", "d")
    assert red.merged.to_strings() == ["0011", "0101", "1111"]
    assert red.hypothesis("0101") == "010100"
    assert distinct_columns(np.zeros((0, 5), dtype=np.uint8)).tolist() == [0]


@pytest.mark.parametrize("n", [10**3, 10**4, 10**5, pytest.param(10**6, marks=pytest.mark.slow)])
def test_two_hypotheses_on_many_points_are_exact_and_fast(n: int) -> None:
    """Issue target: classes with up to 10^6 points and few hypotheses, exact in under 5 s."""
    rng = np.random.default_rng(n)
    H = HypothesisClass.from_matrix(rng.integers(0, 2, size=(2, n), dtype=np.uint8))
    for key, (engine, _) in ENGINES.items():
        t = time.perf_counter()
        r = engine(H, budget=5.0)
        assert r.exact and time.perf_counter() - t < 5.0, key
        verify(H, r)
    assert vc_dimension(H).value == 1 and littlestone_dimension(H).value == 1


def test_points_past_a_float_group_order() -> None:
    """``points n=172``: the symmetric group on 172 points has order ~10^311 (OverflowError in
    nauty's order before); T = VC = Ldim = 1, and the stats serialise to strict JSON."""
    H = catalog.from_spec("points n=172")
    for key, (engine, _) in ENGINES.items():
        r = engine(H, budget=5.0)
        assert r.exact and r.value == 1, key
        verify(H, r)
        json.loads(json.dumps(r.to_json(), allow_nan=False))
    assert symmetry.group_order(1.5, 400) == float("inf")
    assert symmetry.order_log10(2.0, 400) == pytest.approx(400.30103)


def test_points_2048_answered_before_any_symmetry_step() -> None:
    H = catalog.from_spec("points n=2048")
    for key, (engine, _) in ENGINES.items():
        t = time.perf_counter()
        r = engine(H, budget=2.0)
        assert r.exact and r.value == 1 and time.perf_counter() - t < 3.2, key


def test_nauty_past_its_budget_runs_in_a_child_and_is_cut(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """A graph whose worst-case estimate exceeds the time left runs in a forked child that is
    killed at the deadline; the caller gets SymmetryUnavailable, never a hang."""
    import pynauty

    monkeypatch.setattr(symmetry, "NAUTY_SMALL_VERTICES", 1)
    monkeypatch.setattr(symmetry, "NAUTY_SECONDS_PER_CUBED_VERTEX", 1.0)
    g = pynauty.Graph(4, adjacency_dict={0: [1], 2: [3]})
    # in a child (the estimate, 64 s, exceeds the time left), finishing in time
    gens, *_ = symmetry.run_nauty(pynauty.autgrp, g, 4, time.perf_counter() + 30)
    assert len(gens) >= 1

    def slow(_: object) -> None:
        time.sleep(30)

    t = time.perf_counter()
    with pytest.raises(symmetry.SymmetryUnavailable):
        symmetry.run_nauty(slow, g, 4, time.perf_counter() + 0.5)
    assert time.perf_counter() - t < 5

    def crash(_: object) -> None:
        import os
        import signal
        os.kill(os.getpid(), signal.SIGSEGV)

    with pytest.raises(symmetry.SymmetryUnavailable):
        symmetry.run_nauty(crash, g, 4, time.perf_counter() + 10)


def test_point_symmetry_is_skipped_when_it_cannot_fit() -> None:
    H = catalog.from_spec("random m=64 n=2000")
    s = symmetry.point_symmetry(H, deadline=time.perf_counter() + 0.01)
    assert s.generators == () and not s.complete
