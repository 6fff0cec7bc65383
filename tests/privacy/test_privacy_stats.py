"""Clopper–Pearson bounds, the ε lower bound and exact hockey-stick computations."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from ltheory.privacy.auditing.exact import delta_of_epsilon, exact_epsilon
from ltheory.privacy.stats import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
    max_certifiable_epsilon,
    min_runs_to_certify,
)


@given(st.integers(1, 500), st.data())
def test_cp_matches_scipy_binomtest(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n))
    ci = binomtest(k, n).proportion_ci(confidence_level=0.9, method="exact")
    assert math.isclose(float(clopper_pearson_lower(k, n, 0.05)), ci.low, abs_tol=1e-9)
    assert math.isclose(float(clopper_pearson_upper(k, n, 0.05)), ci.high, abs_tol=1e-9)


def test_cp_edges() -> None:
    assert clopper_pearson_lower(0, 10, 0.05) == 0.0
    assert clopper_pearson_upper(10, 10, 0.05) == 1.0
    assert math.isclose(float(clopper_pearson_upper(0, 100, 0.05)), 1 - 0.05 ** (1 / 100))


def test_no_floor_on_impossible_outputs() -> None:
    # an event never seen under d1 gives a bound growing with the number of runs, uncapped
    b = [float(epsilon_lower_bound(n // 2, n, 0, n, 0.025)) for n in (10**3, 10**5, 10**7)]
    assert b[0] < b[1] < b[2] and b[2] > 12


def test_delta_term_and_inconclusive() -> None:
    assert float(epsilon_lower_bound(50, 1000, 10, 1000, 0.025, delta=0.2)) == -math.inf
    with_d = float(epsilon_lower_bound(500, 1000, 100, 1000, 0.025, delta=0.1))
    without = float(epsilon_lower_bound(500, 1000, 100, 1000, 0.025))
    assert with_d < without


def test_min_runs_to_certify_is_minimal() -> None:
    n = min_runs_to_certify(1.0, 0.025)
    assert max_certifiable_epsilon(n, 0.025) > 1.0 >= max_certifiable_epsilon(n - 1, 0.025)


@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=6), st.data())
def test_exact_epsilon_properties(w0: list[float], data: st.DataObject) -> None:
    w1 = data.draw(st.lists(st.floats(0.01, 1.0), min_size=len(w0), max_size=len(w0)))
    p0, p1 = np.array(w0) / sum(w0), np.array(w1) / sum(w1)
    e0 = exact_epsilon(p0, p1, 0.0)
    assert math.isclose(e0, float(np.max(np.abs(np.log(p0 / p1)))), abs_tol=1e-12)
    assert delta_of_epsilon(p0, p1, e0) <= 1e-12
    d = data.draw(st.floats(0.0, 0.5))
    e = exact_epsilon(p0, p1, d)
    assert e <= e0 + 1e-12
    assert delta_of_epsilon(p0, p1, e) <= d + 1e-9
    if e > 1e-9:
        assert delta_of_epsilon(p0, p1, e - 1e-6) > d - 1e-9


def test_exact_epsilon_support_mismatch() -> None:
    p0, p1 = np.array([0.5, 0.5, 0.0]), np.array([0.5, 0.4, 0.1])
    assert exact_epsilon(p0, p1) == math.inf
    assert exact_epsilon(p0, p1, 0.1) < math.inf
