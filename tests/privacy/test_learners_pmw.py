"""PrivateMultiplicativeWeights (seed 004 §2): both claims, audits, exact distribution, broken
variant, the (12Tα², e^{−Tα}) claim at small α, regret, bad input."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy import audit
from ltheory.privacy.auditing.core import exact_distributions
from ltheory.privacy.auditing.exact import delta_of_epsilon
from ltheory.privacy.learners import PrivateMultiplicativeWeights, audit_cases
from ltheory.privacy.learners.multiplicative_weights import AUDIT_CASES, exact_delta_two_experts


def test_both_claims_are_exposed():
    m = PrivateMultiplicativeWeights(0.1, 10, 4)
    pure, approx = m.claims
    assert pure.as_tuple() == (2 * 0.1 * 10, 0.0)
    assert math.isclose(approx.epsilon, 12 * 10 * 0.01)
    assert math.isclose(approx.delta, math.exp(-1.0))
    assert m.privacy_claim == pure
    assert PrivateMultiplicativeWeights(0.1, 10, 4, claim="approx").claim == approx.as_tuple()
    assert {c.name for c in AUDIT_CASES} <= {c.name for c in audit_cases()}


@pytest.mark.parametrize("case", AUDIT_CASES, ids=lambda c: c.name)
def test_audit_within_claim_and_exact(case):
    m = case.make()
    r = audit(m, case.d0, case.d1, claimed_epsilon=m.claim[0], claimed_delta=m.claim[1],
              runs=case.runs, seed=31)
    assert r.verdict == "consistent"
    assert r.epsilon_lower_bound <= m.claim[0]
    assert r.exact_epsilon is not None and r.exact_epsilon <= m.claim[0]


@pytest.mark.parametrize("case", AUDIT_CASES, ids=lambda c: c.name)
def test_broken_variant_is_flagged(case):
    b = case.broken()
    r = audit(b, case.d0, case.d1, claimed_epsilon=b.claim[0], claimed_delta=b.claim[1],
              runs=case.runs, seed=32)
    assert r.verdict == "violation"


def test_neighbour_relation_is_one_row():
    m = PrivateMultiplicativeWeights(0.2, 2, 2)
    a = ((1, 0), (0, 0))
    assert m.are_neighbours(a, ((0, 1), (0, 0)))
    assert not m.are_neighbours(a, ((0, 1), (1, 1)))
    assert not m.are_neighbours(a, a)
    assert not m.are_neighbours(a, ((0, 1),))
    with pytest.raises(InvalidInputError, match="not neighbours"):
        audit(m, a, ((0, 1), (1, 1)), claimed_epsilon=1.0, runs=20_000, seed=0)


def test_exact_distribution_matches_samples():
    m = PrivateMultiplicativeWeights(0.7, 3, 2)
    d = ((1, 0), (0.5, 1), (0, 0))
    dist = m.output_distribution(d)
    assert math.isclose(sum(dist.values()), 1.0)
    n = 40_000
    counts = Counter(m.sample(d, n, np.random.default_rng(2)))
    for h, p in dist.items():
        assert abs(counts[h] / n - p) <= 4.5 * math.sqrt(p * (1 - p) / n) + 1e-4
    # round 1 is uniform, round 2 ∝ e^{α r_1}
    assert math.isclose(sum(p for h, p in dist.items() if h[1] == 0),
                        math.exp(0.7) / (math.exp(0.7) + 1))


def test_binomial_delta_agrees_with_the_auditors_exact_mode():
    m = PrivateMultiplicativeWeights(0.3, 6, 2)
    d0 = ((1.0, 0.0),) + ((0.0, 0.0),) * 5
    d1 = ((0.0, 1.0),) + ((0.0, 0.0),) * 5
    p0, p1 = exact_distributions(m, d0, d1)
    for eps in (0.0, 0.3, 0.9):
        assert math.isclose(delta_of_epsilon(p0, p1, eps), exact_delta_two_experts(0.3, 6, eps),
                            rel_tol=1e-9, abs_tol=1e-15)


@pytest.mark.parametrize("alpha, rounds", [(0.005, 2000), (0.002, 10_000), (0.001, 20_000)])
def test_approximate_claim_fails_at_small_alpha(alpha, rounds):
    """Finding: seed 004's (12Tα², e^{−Tα}) claim is false for small α — at these parameters the
    exact δ at ε = 12Tα² (K = 2, one neighbouring pair) exceeds e^{−Tα}.  The pure claim 2αT
    holds there."""
    with pytest.warns(UserWarning, match="does not hold"):   # the user is told, too
        m = PrivateMultiplicativeWeights(alpha, rounds, 2, claim="approx")
    eps, delta = m.claim
    assert exact_delta_two_experts(alpha, rounds, eps) > 5 * delta
    assert exact_delta_two_experts(alpha, rounds, m.claims[0].epsilon) == 0.0


def test_regret_within_theorem_2():
    rng = np.random.default_rng(0)
    K, T, alpha = 5, 400, math.sqrt(math.log(5) / 400)
    r = rng.random((T, K)) * np.array([0.3, 0.4, 0.5, 0.6, 0.8])
    m = PrivateMultiplicativeWeights(alpha, T, K)
    P = m.round_probabilities(r)
    expected = float(np.sum(P * r))
    best = float(r.sum(axis=0).max())
    assert best - expected <= m.regret_bound()
    picks = np.array(m.sample(r, 200, rng))
    realised = r[np.arange(T)[None, :], picks].sum(axis=1).mean()
    assert abs(realised - expected) < 5


def test_bad_input():
    with pytest.raises(InvalidInputError):
        PrivateMultiplicativeWeights(0, 3, 2)
    with pytest.raises(InvalidInputError):
        PrivateMultiplicativeWeights(0.1, 0, 2)
    with pytest.raises(InvalidInputError):
        PrivateMultiplicativeWeights(0.1, 3, 2, claim="other")
    with pytest.warns(UserWarning, match="1.79"):
        PrivateMultiplicativeWeights(2.0, 3, 2)
    m = PrivateMultiplicativeWeights(0.1, 2, 2)
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidInputError, match=r"\[0, 1\]"):
        m.fit(((1.5, 0), (0, 0)), rng)
    with pytest.raises(InvalidInputError, match="shape"):
        m.fit(((1, 0, 0), (0, 0, 0)), rng)
    with pytest.raises(InvalidInputError):
        m.fit((("a", 0), (0, 0)), rng)
