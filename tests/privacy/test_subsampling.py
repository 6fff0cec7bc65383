"""Sub-sampling with replacement (ltheory.privacy.learners.subsampling) and the closure learners'
claims built on it: the scenario of issue 14 as a regression test."""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable

import numpy as np
import pytest

from ltheory.catalog import family
from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.exact import aligned, delta_of_epsilon, exact_epsilon
from ltheory.privacy.learners import ClosureLearn, PrivateAgnosticLearner
from ltheory.privacy.learners.closure import _Inner, _subsample_distribution
from ltheory.privacy.learners.subsampling import (
    poisson_rate,
    with_replacement,
    with_replacement_any_size,
)
from ltheory.privacy.mechanisms import GeometricMechanism

H3 = family("thresholds", n=3)


def _exact(mech, d0, d1, delta: float = 0.0) -> float:
    return exact_epsilon(*aligned(mech.output_distribution(d0), mech.output_distribution(d1))[1:],
                         delta)


def _subsampled_count_epsilon(epsilon: float, population: int, draws: int) -> float:
    """Exact ε of "draw m of N records with replacement, release a truncated geometric count of
    the 1-labels", worst over how many 1s the other records carry."""
    inner = _Inner(GeometricMechanism(epsilon, clamp=(0, draws)), "count")
    best = 0.0
    for c in range(population):
        d0 = ((0, 1),) * c + ((0, 0),) * (population - c)
        d1 = d0[:c] + ((0, 1),) + d0[c + 1:]
        p0 = _subsample_distribution(inner, d0, draws)
        p1 = _subsample_distribution(inner, d1, draws)
        best = max(best, exact_epsilon(*aligned(p0, p1)[1:]))
    return best


# --------------------------------------------------------------------------- the scenario
@pytest.mark.parametrize("epsilon, expected", [(10.0, 14.22), (20.0, 34.22)])
def test_scenario_subsampling_step(epsilon: float, expected: float) -> None:
    """Issue 14: the sub-sampling step of PrivateAgnosticLearner at |S| = 36 (18 records, m = 2
    draws) with a truncated-geometric count at ε: exact 14.2 (ε = 10), 34.2 (ε = 20) — far above
    the ε that Lemma 3.12 claims, and within the with-replacement bound."""
    exact = _subsampled_count_epsilon(epsilon, 18, 2)
    assert exact == pytest.approx(expected, abs=0.01)
    assert exact > epsilon + 3                          # Lemma 3.12 + 3 is exceeded already
    bound, _ = with_replacement(epsilon, 0.0, 2, 18)
    assert exact <= bound < exact + 0.15                # sound, and nearly tight


@pytest.mark.parametrize("size", [54, 72])
@pytest.mark.parametrize("epsilon", [10.0, 20.0])
def test_scenario_whole_learner(size: int, epsilon: float) -> None:
    """The whole PrivateAgnosticLearner (inner: truncated geometric count at ε, thresholds n=3):
    the old claim (ε + 3) is exceeded, the new one holds.  The pair: D = |S|/2 − 1 records (2, 1)
    plus one record (2, 1) vs (0, 0), T = |S|/2 records (0, 0)."""
    n_d = size // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        learner = PrivateAgnosticLearner(
            H3, GeometricMechanism(epsilon, clamp=(0, n_d // 9)), sample_size=size)
        any_size = PrivateAgnosticLearner(H3, GeometricMechanism(epsilon, clamp=(0, n_d // 9)))
    rest = ((2, 1),) * (n_d - 1) + ((0, 0),) * (size - n_d)
    exact = _exact(learner, ((2, 1),) + rest, ((0, 0),) + rest)
    assert exact > epsilon + 3                                  # the seed's constant fails
    assert exact <= learner.claim[0] <= any_size.claim[0]       # the new claims hold


class _CountHypothesis:
    """An ε-DP inner learner for ClosureLearn: the truncated-geometric count of 1-labels, returned
    as a hypothesis of thresholds n=3 (row min(count, 3)) — a post-processing of the count."""

    def __init__(self, epsilon: float, draws: int) -> None:
        self.mech = GeometricMechanism(epsilon, clamp=(0, min(draws, 3)))
        self.rows = H3.to_strings()
        self.claim = (epsilon, 0.0)

    def fit(self, data: tuple, rng: np.random.Generator) -> str:
        return self.rows[int(self.mech.sample(data, 1, rng)[0])]

    def output_distribution(self, data: tuple) -> dict[Hashable, float]:
        return {self.rows[k]: p for k, p in self.mech.output_distribution(data).items()}


def test_scenario_closure_learn() -> None:
    """ClosureLearn (one part, G = identity) with the count learner at ε = 10, |S| = 54."""
    size, eps = 54, 10.0
    cl = ClosureLearn("and", [H3], [_CountHypothesis(eps, 3)], sizes=[size],
                      check_realizable=False)
    rest = ((2, 1),) * 26 + ((0, 0),) * 27
    exact = _exact(cl, ((2, 1),) + rest, ((0, 0),) + rest)
    assert exact > eps + 3
    assert exact <= cl.claim[0]


@pytest.mark.parametrize("population", [9, 18, 27, 36])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0, 10.0])
def test_bound_sweep_sound_and_tight(population: int, epsilon: float) -> None:
    """Over ε and |D|: the exact ε of the sub-sampled count never exceeds the bound, and is within
    2% of it (the bound is nearly attained: a count pays exactly for the copies)."""
    m = population // 9
    exact = _subsampled_count_epsilon(epsilon, population, m)
    bound, _ = with_replacement(epsilon, 0.0, m, population)
    assert exact <= bound + 1e-9
    assert exact >= 0.98 * bound


def test_bound_falsifiable() -> None:
    """A bound 5% lower is exceeded by the count mechanism (the check can fail)."""
    bound, _ = with_replacement(3.0, 0.0, 2, 18)
    assert _subsampled_count_epsilon(3.0, 18, 2) > 0.95 * bound


def test_any_size_dominates_every_size() -> None:
    for eps in (0.5, 1.0, 4.0):
        top, _ = with_replacement_any_size(eps, 0.0)
        for n in list(range(9, 80)) + [200, 900, 9000]:
            assert with_replacement(eps, 0.0, n // 9, n)[0] <= top + 1e-12
    assert poisson_rate(9) == pytest.approx(-math.log(8 / 9))


def test_bound_below_mgf_and_monotone() -> None:
    prev = 0.0
    for eps in (0.1, 0.5, 1.0, 2.0, 5.0, 10.0):
        b, _ = with_replacement(eps, 0.0, 4, 36)
        mgf = 4 * (math.log1p(math.expm1(eps) / 36) - math.log1p(math.expm1(-eps) / 36))
        assert prev < b <= mgf + 1e-12
        prev = b


class _LeakyCount:
    """(ε, δ)-DP count: with probability δ the exact count ("leak"), else a truncated geometric
    count at ε."""

    def __init__(self, eps: float, delta: float, hi: int) -> None:
        self.geo = GeometricMechanism(eps, clamp=(0, hi))
        self.delta = delta
        self.claim = (eps, delta)

    def fit(self, data: tuple, rng: np.random.Generator) -> Hashable:   # (unused: exact only)
        raise NotImplementedError

    def output_distribution(self, data: tuple) -> dict[Hashable, float]:
        out: dict[Hashable, float] = {("noisy", k): (1 - self.delta) * p
                                      for k, p in self.geo.output_distribution(data).items()}
        out[("leak", sum(y for _, y in data))] = self.delta
        return out


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-3), (3.0, 1e-2)])
def test_delta_part_sound(eps: float, delta: float) -> None:
    """The δ' of the bound covers the exact δ(ε') of a sub-sampled (ε, δ)-DP mechanism."""
    e_out, d_out = with_replacement(eps, delta, 2, 18)
    inner = _Inner(_LeakyCount(eps, delta, 2), "leaky")
    worst = 0.0
    for c in range(18):
        d0 = ((0, 1),) * c + ((0, 0),) * (18 - c)
        d1 = d0[:c] + ((0, 1),) + d0[c + 1:]
        _, a, b = aligned(_subsample_distribution(inner, d0, 2),
                          _subsample_distribution(inner, d1, 2))
        worst = max(worst, delta_of_epsilon(a, b, e_out))
    assert 0 < worst <= d_out


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="epsilon"):
        with_replacement(0.0, 0.0, 2, 18)
    with pytest.raises(InvalidInputError, match="draws"):
        with_replacement(1.0, 0.0, 0, 18)
    with pytest.raises(InvalidInputError, match="delta"):
        with_replacement_any_size(1.0, 1.0)
    with pytest.raises(InvalidInputError, match="divisor"):
        poisson_rate(1)
    # huge ε: the closed-form moment bound, finite
    e, d = with_replacement_any_size(30.0, 0.0)
    assert math.isfinite(e) and e > 1e10 and d == 0.0
