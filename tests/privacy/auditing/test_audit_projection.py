"""The one projected-bound computation (``auditing.projection``) and its users agree."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.privacy.auditing import projection
from ltheory.privacy.auditing.ceiling import certified_at_expectation
from ltheory.privacy.auditing.projection import (
    best_lr_prefix,
    certified_bound,
    lr_order,
    projected_bound,
    shrunk,
    shrunk_projection,
)
from ltheory.privacy.stats import epsilon_lower_bound, poisson_epsilon_lower_bound


def test_doctests() -> None:
    assert doctest.testmod(projection).failed == 0


def test_tests_are_the_stats_bounds() -> None:
    b = certified_bound(300, 1000, 100, 1000, 0.05, 0.0, "binomial")
    assert b == epsilon_lower_bound(300, 1000, 100, 1000, 0.025)
    p = certified_bound(300, 1000, 100, 1000, 0.05, 0.0, "poisson")
    assert p == poisson_epsilon_lower_bound(300, 100, 0.05)
    assert certified_bound(300, 1000, 100, 1000, 0.05, 0.0, "auto") == max(b, p)


def test_delta_is_always_included() -> None:
    """The drift this module removed: a projection must not ignore δ (the pilots' LR-prefix
    copy projected 0.834 where the final audit at δ = 0.2 reached 0.496)."""
    at0 = float(projected_bound(0.6, 0.2, 10**5, 0.05, 0.0, "auto"))
    at02 = float(projected_bound(0.6, 0.2, 10**5, 0.05, 0.2, "auto"))
    assert at02 < at0
    # with δ > 0 "auto" is binomial: the Poisson test does not apply
    assert at02 == float(projected_bound(0.6, 0.2, 10**5, 0.05, 0.2, "binomial"))
    with pytest.raises(ValueError):
        certified_bound(10, 100, 1, 100, 0.05, 0.1, "poisson")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=12),
       st.lists(st.floats(0.01, 1.0), min_size=2, max_size=12),
       st.sampled_from([0.0, 0.01, 0.1]))
def test_best_prefix_is_the_best_prefix(w0: list, w1: list, delta: float) -> None:
    """best_lr_prefix returns the prefix of largest projected bound among all LR prefixes,
    and its bound is what projected_bound gives for that prefix's cells."""
    k = min(len(w0), len(w1))
    p0 = np.array(w0[:k]) / sum(w0[:k])
    p1 = np.array(w1[:k]) / sum(w1[:k])
    best = best_lr_prefix(p0, p1, 10**5, 0.05, delta, "auto")
    brute = -np.inf
    for pa, pb in ((p0, p1), (p1, p0)):
        o = lr_order(pa, pb)
        for j in range(1, len(o) + 1):
            v = float(projected_bound(pa[o[:j]].sum(), pb[o[:j]].sum(), 10**5, 0.05, delta,
                                      "auto"))
            brute = max(brute, v)
    assert best.bound == pytest.approx(brute, rel=1e-9, abs=1e-12)
    pa, pb = (p0, p1) if best.direction == 0 else (p1, p0)
    if np.isfinite(best.bound):
        again = float(projected_bound(pa[best.cells].sum(), pb[best.cells].sum(), 10**5, 0.05,
                                      delta, "auto"))
        assert again == pytest.approx(best.bound, rel=1e-9)


def test_ceiling_and_pilots_use_it() -> None:
    pa, pb = np.array([0.3, 0.01]), np.array([0.1, 0.001])
    assert np.array_equal(certified_at_expectation(pa, pb, 1e5, 0.05),
                          projected_bound(pa, pb, 1e5, 0.05, 0.0, "auto"))
    from ltheory.privacy.auditing.pilots import lr_prefix_projection
    c = np.array([[600.0, 200.0], [400.0, 800.0]])
    nn = np.array([1000.0, 1000.0])
    at0 = lr_prefix_projection(c, nn, 10**5, 0.05, "auto")
    at02 = lr_prefix_projection(c, nn, 10**5, 0.05, "auto", 0.2)
    assert at02 < at0
    p = (c + 0.5) / (nn + 1.0)
    assert at02 == pytest.approx(float(projected_bound(p[0, 0], p[0, 1], 10**5, 0.05, 0.2)))


# ----------------------------------------------------------------- shrunk_projection's tables
@settings(max_examples=60, deadline=None)
@given(n_sel=st.integers(1, 3000), data=st.data(),
       test=st.sampled_from(["binomial", "poisson", "auto"]),
       delta=st.sampled_from([0.0, 1e-4]), shrink=st.sampled_from([0.02, 0.16, 0.5]),
       as_float=st.booleans())
def test_shrunk_projection_equals_shrunk_then_projected(n_sel, data, test, delta, shrink,
                                                         as_float):
    """The per-count tables give exactly the numbers of shrinking then projecting (integer
    counts, given as ints or as floats; the tables are shared between calls)."""
    if test == "poisson" and delta > 0:
        return
    k = st.integers(0, n_sel)
    ca = np.array(data.draw(st.lists(k, min_size=1, max_size=40)))
    cb = np.array(data.draw(st.lists(k, min_size=len(ca), max_size=len(ca))))
    if as_float:
        ca = ca.astype(float)
    n = 9 * n_sel + 1
    want = projected_bound(*shrunk(ca, cb, n_sel, n_sel, shrink), n, 0.01, delta, test)
    for _ in range(2):                                   # the second call reads the tables
        got = shrunk_projection(ca, cb, n_sel, n, 0.01, delta, test, shrink)
        assert np.array_equal(got, want, equal_nan=True)


def test_shrunk_projection_fractional_counts_fall_back():
    """Model counts (fractional) and counts beyond the selection size take the direct path."""
    ca, cb = np.array([12.5, 3.0]), np.array([2.25, 0.0])
    want = projected_bound(*shrunk(ca, cb, 100, 100, 0.02), 900, 0.01, 0.0, "auto")
    assert np.array_equal(shrunk_projection(ca, cb, 100, 900, 0.01, 0.0, "auto", 0.02), want,
                          equal_nan=True)
    with pytest.raises(ValueError, match="Poisson"):
        shrunk_projection(np.array([3]), np.array([1]), 100, 900, 0.01, 0.1, "poisson")
