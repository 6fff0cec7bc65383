"""Property tests with the project's strategies: the mechanisms keep their claims exactly."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.privacy.auditing.exact import aligned, exact_epsilon
from ltheory.privacy.mechanisms import (
    ExponentialMechanism,
    GeometricMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    SparseVector,
    are_neighbours,
)
from ltheory.strategies import hypothesis_classes, neighbouring_datasets


def _exact(m, d0, d1) -> float:
    _, a, b = aligned(m.output_distribution(d0), m.output_distribution(d1))
    return exact_epsilon(a, b)


@given(neighbouring_datasets(4, 3))
def test_strategy_pairs_are_substitution_neighbours(pair) -> None:
    assert are_neighbours(*pair)


@given(neighbouring_datasets(4, 3, relation="add_remove"))
def test_strategy_pairs_are_add_remove_neighbours(pair) -> None:
    assert are_neighbours(*pair, relation="add_remove")
    assert not are_neighbours(*pair)


@given(hypothesis_classes(min_points=4, max_points=4, min_size=2, max_size=10),
       neighbouring_datasets(4, 4), st.floats(0.1, 3.0))
def test_exponential_mechanism_is_epsilon_dp(H, pair, eps) -> None:
    m = ExponentialMechanism(H, eps)
    assert _exact(m, *pair) <= eps + 1e-9


@given(neighbouring_datasets(3, 4), st.floats(0.1, 3.0))
def test_clamped_geometric_is_epsilon_dp(pair, eps) -> None:
    m = GeometricMechanism(eps, clamp=(-2, 6))
    assert _exact(m, *pair) <= eps + 1e-9
    assert _exact(RandomizedResponse(eps), *pair) <= eps + 1e-9


answers = st.lists(st.integers(-2, 2), min_size=2, max_size=4)


@settings(max_examples=20)
@given(answers, st.data(), st.floats(0.3, 2.0), st.sampled_from(["laplace", "exponential"]))
def test_report_noisy_max_is_epsilon_dp(q, data, eps, noise) -> None:
    off = data.draw(st.lists(st.integers(-1, 1), min_size=len(q), max_size=len(q)))
    m = ReportNoisyMax(eps, noise=noise)
    d0, d1 = tuple(map(float, q)), tuple(float(a + b) for a, b in zip(q, off, strict=True))
    if d0 != d1:
        assert _exact(m, d0, d1) <= eps + 1e-6


@settings(max_examples=15)
@given(answers, st.data(), st.sampled_from([1, 4]))
def test_sparse_vector_exact_privacy_within_true_epsilon(q, data, variant) -> None:
    off = data.draw(st.lists(st.integers(-1, 1), min_size=len(q), max_size=len(q)))
    m = SparseVector(1.0, variant=variant, c=1)
    d0, d1 = tuple(map(float, q)), tuple(float(a + b) for a, b in zip(q, off, strict=True))
    if d0 != d1:
        assert _exact(m, d0, d1) <= m.true_epsilon + 1e-6
    assert np.isfinite(m.true_epsilon)
