"""ExponentialMechanismLearner: claim, audit (statistical and exact), broken variant, utility,
bad input."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from ltheory.catalog import family
from ltheory.errors import InvalidInputError
from ltheory.privacy import audit
from ltheory.privacy.learners import ExponentialMechanismLearner, audit_cases
from ltheory.privacy.learners.exponential import AUDIT_CASES


def test_claim_is_pure_epsilon_with_source():
    m = ExponentialMechanismLearner(family("thresholds", n=4), 0.7)
    assert m.claim == (0.7, 0.0)
    assert "Kasiviswanathan" in m.privacy_claim.source
    assert "exp(ε·u(S,h)/2)" in m.privacy_claim.statement


def test_cases_are_collected_by_the_package():
    names = {c.name for c in audit_cases()}
    assert {c.name for c in AUDIT_CASES} <= names


@pytest.mark.parametrize("case", AUDIT_CASES, ids=lambda c: c.name)
def test_audit_within_claim_and_exact(case):
    m = case.make()
    r = audit(m, case.d0, case.d1, claimed_epsilon=m.claim[0], claimed_delta=m.claim[1],
              runs=case.runs, seed=11)
    assert r.verdict == "consistent"
    assert r.epsilon_lower_bound <= m.claim[0]
    assert r.exact_epsilon is not None and r.exact_epsilon <= m.claim[0] + 1e-9
    # the bound is informative: within 0.2 of the exact value at this size
    assert r.epsilon_lower_bound > r.exact_epsilon - 0.2


@pytest.mark.parametrize("case", AUDIT_CASES, ids=lambda c: c.name)
def test_broken_variant_is_flagged(case):
    b = case.broken()
    r = audit(b, case.d0, case.d1, claimed_epsilon=b.claim[0], claimed_delta=b.claim[1],
              runs=case.runs, seed=12)
    assert r.verdict == "violation"
    assert r.exact_epsilon > b.claim[0]


def test_output_distribution_matches_the_definition_and_samples():
    H = family("thresholds", n=4)
    m = ExponentialMechanismLearner(H, 2.0)
    d = ((0, 0), (1, 0), (2, 1), (3, 1))
    dist = m.output_distribution(d)
    assert math.isclose(sum(dist.values()), 1.0)
    errs = {h: sum(int(h[x]) != y for x, y in d) for h in H.to_strings()}
    z = sum(math.exp(-errs[h]) for h in errs)
    for h, p in dist.items():
        assert math.isclose(p, math.exp(-errs[h]) / z)
    rng = np.random.default_rng(3)
    counts = Counter(m.sample(d, 40_000, rng))
    for h, p in dist.items():
        assert abs(counts[h] / 40_000 - p) < 4 * math.sqrt(p * (1 - p) / 40_000) + 1e-3
    assert m.fit(d, rng) in dist


def test_randomness_only_through_rng():
    H = family("thresholds", n=8)
    m = ExponentialMechanismLearner(H, 1.0)
    d = tuple((x, int(x >= 3)) for x in range(8))
    a = m.sample(d, 50, np.random.default_rng(5))
    b = m.sample(d, 50, np.random.default_rng(5))
    assert a == b


def test_learns_thresholds_with_enough_data():
    H = family("thresholds", n=16)
    m = ExponentialMechanismLearner(H, 1.0)
    rng = np.random.default_rng(0)
    xs = rng.integers(0, 16, size=400)
    d = tuple((int(x), int(x >= 5)) for x in xs)
    outs = m.sample(d, 200, rng)
    target = H.to_strings()[5]
    assert Counter(outs)[target] >= 190


def test_domain_labels_are_accepted():
    H = family("conjunctions", n=2, k=2)
    m = ExponentialMechanismLearner(H, 1.0)
    assert len(m.output_distribution((("01", 1), ("11", 0)))) == len(H)


@pytest.mark.parametrize("dataset, msg", [
    ((), "empty"),
    (((0, 2),), "label"),
    (((9, 1),), "outside"),
    ((("zz", 1),), "neither an index"),
    ((1, 2, 3), "pairs"),
])
def test_bad_datasets(dataset, msg):
    m = ExponentialMechanismLearner(family("thresholds", n=4), 1.0)
    with pytest.raises(InvalidInputError, match=msg):
        m.fit(dataset, np.random.default_rng(0))


@pytest.mark.parametrize("eps", [0, -1, float("inf"), float("nan"), "x"])
def test_bad_epsilon(eps):
    with pytest.raises(InvalidInputError):
        ExponentialMechanismLearner(family("thresholds", n=4), eps)


def test_bad_class():
    with pytest.raises(InvalidInputError):
        ExponentialMechanismLearner(["01", "1"], 1.0)
