"""T(H) = |X| decided by a chain of suffix sets (``full_domain_ladder``), against brute force."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory import HypothesisClass, catalog, compose
from ltheory.dimensions import threshold_dimension
from ltheory.dims.certificates import verify
from ltheory.dims.threshold import full_domain_ladder
from ltheory.sat import sat_threshold
from ltheory.sat.certify import verify_composed
from ltheory.strategies import hypothesis_classes
from tests.reference import tdim_reference


def _suffix_chain_class(n: int, rng: np.random.Generator, extra: int) -> HypothesisClass:
    """A random chain X ⊃ ... ⊃ {x} plus ``extra`` random hypotheses (so T = n)."""
    order = rng.permutation(n)
    rows = [np.isin(np.arange(n), order[i:]).astype(np.uint8) for i in range(n)]
    rows += list(rng.integers(0, 2, size=(extra, n), dtype=np.uint8))
    return HypothesisClass.from_matrix(np.array(rows))


@settings(max_examples=300, deadline=None)
@given(hypothesis_classes(min_points=1, max_points=6, min_size=1, max_size=40))
def test_chain_exists_iff_threshold_dimension_is_the_domain_size(H: HypothesisClass) -> None:
    top = full_domain_ladder(H)
    assert (top is not None) == (tdim_reference(H) == H.domain_size)
    r = threshold_dimension(H)
    verify(H, r)
    assert r.value == tdim_reference(H)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(0, 30), st.integers(0, 2**32 - 1))
def test_planted_chains_are_found_and_certified(n: int, extra: int, seed: int) -> None:
    H = _suffix_chain_class(n, np.random.default_rng(seed), extra)
    pts, hyps = full_domain_ladder(H)
    assert sorted(pts) == list(range(n)) and len(set(hyps)) == n
    for method in ("exact", "sat"):
        r = threshold_dimension(H, method=method)
        verify(H, r)
        assert (r.value, r.exact) == (n, True)


def test_no_chain_lowers_the_sat_upper_bound_to_the_exact_value() -> None:
    # MAJ3 of a random class on 8 points: the enumeration completes, and the missing chain
    # proves T <= 7 before any ladder is encoded
    H = catalog.from_spec("random m=12 n=8 p=0.5 seed=4")
    C = compose("maj", H, H, H, lazy=True)
    r = sat_threshold(C)
    verify_composed(C, r)
    M = compose("maj", H, H, H)
    assert r.exact and r.value == threshold_dimension(M, method="exact").value
    if full_domain_ladder(M) is None:
        assert r.upper <= M.domain_size - 1


def test_empty_domain_and_constant_classes() -> None:
    H0 = catalog.from_spec("thresholds n=0")
    assert threshold_dimension(H0).value == 0
    Z = HypothesisClass.from_strings(["000"])
    assert full_domain_ladder(Z) is None and threshold_dimension(Z).value == 0
