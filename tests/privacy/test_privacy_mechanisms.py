"""Mechanisms: exact distributions agree with sampling; claims and true privacy as documented."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.exact import aligned, exact_epsilon
from ltheory.privacy.mechanisms import (
    ExponentialMechanism,
    GeometricMechanism,
    Histogram,
    LaplaceMechanism,
    MultiplicativeWeights,
    NoisyMaxWithValue,
    RandomizedResponse,
    ReportNoisyMax,
    SparseVector,
    StableHistogram,
    are_neighbours,
    thresholds,
)

FINITE = [
    RandomizedResponse(1.0, categories=3),
    GeometricMechanism(1.0, clamp=(-4, 5)),
    ExponentialMechanism(thresholds(6), 1.0),
    ReportNoisyMax(1.0),
    ReportNoisyMax(1.0, noise="exponential"),
    SparseVector(1.0, variant=1),
    SparseVector(1.0, variant=4),
    SparseVector(1.0, variant=5),
    SparseVector(1.0, variant=6),
]


def _key(o: object) -> object:
    return tuple(int(v) for v in o) if isinstance(o, np.ndarray) else int(o)


@pytest.mark.parametrize("m", FINITE, ids=lambda m: m.name)
def test_output_distribution_matches_sampling(m) -> None:
    d0, _ = m.default_pair()
    dist = m.output_distribution(d0)
    assert math.isclose(sum(dist.values()), 1.0, abs_tol=1e-9)
    n = 40_000
    out = m.sample(d0, n, np.random.default_rng(1))
    keys = [_key(o) for o in out]
    assert set(keys) <= set(dist)
    support = [k for k, p in dist.items() if p * n >= 5]
    counts = Counter(keys)
    obs = np.array([counts[s] for s in support], dtype=float)
    exp = np.array([dist[s] for s in support]) * n
    if n - exp.sum() > 1e-6 * n:
        obs, exp = np.r_[obs, n - obs.sum()], np.r_[exp, n - exp.sum()]
    exp *= obs.sum() / exp.sum()
    assert chisquare(obs, exp).pvalue > 1e-4


@pytest.mark.parametrize("m", [m for m in FINITE if m.true_epsilon and m.true_epsilon < math.inf],
                         ids=lambda m: m.name)
def test_exact_epsilon_within_true_privacy(m) -> None:
    d0, d1 = m.default_pair()
    _, a, b = aligned(m.output_distribution(d0), m.output_distribution(d1))
    assert exact_epsilon(a, b) <= m.true_epsilon + 1e-9


def test_randomized_response_exact_is_epsilon() -> None:
    m = RandomizedResponse(0.7)
    _, a, b = aligned(m.output_distribution(((0, 0),)), m.output_distribution(((0, 1),)))
    assert math.isclose(exact_epsilon(a, b), 0.7)


def test_svt_lee_clifton_exceeds_claim_exactly() -> None:
    m = SparseVector(1.0, variant=4)
    _, a, b = aligned(*(m.output_distribution(d) for d in m.default_pair()))
    assert 1.0 < exact_epsilon(a, b) <= m.true_epsilon


def test_svt5_support_mismatch_is_infinite() -> None:
    m = SparseVector(1.0, variant=5)
    _, a, b = aligned(*(m.output_distribution(d) for d in m.default_pair()))
    assert exact_epsilon(a, b) == math.inf


def test_shapes_and_claims() -> None:
    rng = np.random.default_rng(0)
    assert LaplaceMechanism(0.5).sample(((0, 1),), 7, rng).shape == (7,)
    assert NoisyMaxWithValue(1.0).sample((0.0,) * 5, 7, rng).shape == (7, 2)
    assert SparseVector(1.0, variant=3).sample((0.0,) * 5, 7, rng).shape == (7, 10)
    assert Histogram(1.0, bins=3).sample(((0, 0),), 7, rng).shape == (7, 3)
    assert StableHistogram(1.0, 1e-3).claim == (1.0, 1e-3)
    assert MultiplicativeWeights(1.0).sample(((0, 0), (1, 0)), 7, rng).shape == (7, 4)
    assert Histogram(1.0, wrong_scale=True).true_epsilon == 2.0
    assert SparseVector(1.0, variant=4, c=2).true_epsilon == pytest.approx(13 / 4)
    assert NoisyMaxWithValue(1.0, k=5).true_epsilon == 2.5
    assert isinstance(RandomizedResponse(1.0)(((0, 1),), rng), int)


def test_bad_parameters() -> None:
    with pytest.raises(InvalidInputError, match="epsilon"):
        LaplaceMechanism(0.0)
    with pytest.raises(InvalidInputError, match="variant"):
        SparseVector(1.0, variant=7)
    with pytest.raises(InvalidInputError, match="noise"):
        ReportNoisyMax(1.0, noise="gauss")
    with pytest.raises(InvalidInputError):
        ExponentialMechanism([[0, 2]], 1.0)


def test_neighbour_relations() -> None:
    assert are_neighbours(((0, 0), (1, 1)), ((0, 1), (1, 1)))
    assert not are_neighbours(((0, 0), (1, 1)), ((0, 1), (1, 0)))
    assert not are_neighbours(((0, 0),), ((0, 0),))
    assert are_neighbours((0.0, 1.0), (1.0, 0.0), "query_answers")
    assert not are_neighbours((0.0, 1.0), (2.0, 0.0), "query_answers")
    assert are_neighbours(((0, 0), (1, 1)), ((0, 0),), "add_remove")


@pytest.mark.parametrize(("variant", "c"), [(1, 2), (4, 1), (5, 1), (6, 1)])
def test_svt_exact_distribution_matches_one_quadrature_per_pattern(variant: int, c: int) -> None:
    """The vectorised quadrature against an independent reference: one scalar adaptive
    quadrature per ⊤/⊥ pattern of P(pattern) = ∫ f_ρ(r) Π_i P(pattern_i | r) dr."""
    from scipy import integrate

    m = SparseVector(0.5, variant=variant, threshold=1.0, c=c)
    q = np.array([1.0, 0.0, 2.0, 1.0, 0.0])
    got = m.output_distribution(tuple(q))
    rs, _, ns, _ = m._scales()

    def p_above(i: int, r: float) -> float:
        z = 1.0 + r - q[i]
        if ns is None:
            return 1.0 if z <= 0 else 0.0
        return 1 - 0.5 * math.exp(z / ns) if z < 0 else 0.5 * math.exp(-z / ns)

    pts = sorted({float(x - 1.0) for x in q} | {0.0})
    ref = {}
    for pat in got:
        def f(r: float, pat: tuple = pat) -> float:
            v = math.exp(-abs(r) / rs) / (2 * rs)
            for i, s in enumerate(pat):
                v *= p_above(i, r) if s == 1 else (1 - p_above(i, r)) if s == 0 else 1.0
            return v
        ref[pat] = sum(integrate.quad(f, a, b, epsabs=1e-14, epsrel=1e-12, limit=500)[0]
                       for a, b in zip([-2000.0, *pts], [*pts, 2000.0], strict=True))
    total = sum(ref.values())
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)
    for pat, v in got.items():
        assert v == pytest.approx(ref[pat] / total, rel=1e-9, abs=1e-15)
