"""PrivateDecisionListLearner (Bun & Fang §3, Lemma A.1) and RivestDecisionListLearner: claim,
audit, exact distribution, broken variant, utility, bad input."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from ltheory.catalog import family
from ltheory.errors import InvalidInputError, UnrealizableSampleWarning
from ltheory.privacy import audit
from ltheory.privacy.learners import (
    PrivateDecisionListLearner,
    RivestDecisionListLearner,
    audit_cases,
)
from ltheory.privacy.learners.decision_lists import (
    AUDIT_CASES,
    conjunction_features,
    is_realizable,
)


def test_claim_and_step_epsilon():
    # add/remove: Lemma A.1 exactly as proved (D vs D ∪ {x})
    m = PrivateDecisionListLearner((3, 1), 0.5, 1e-3, neighbours="add_remove")
    assert m.claim == (0.5, 1e-3)
    assert m.neighbour_relation == "add_remove"
    assert math.isclose(m.step_epsilon, 0.5 / (2 * math.log(math.e / 1e-3)))
    assert "Lemma A.1" in m.privacy_claim.source
    assert "add/remove" in m.privacy_claim.statement
    assert {c.name for c in AUDIT_CASES} <= {c.name for c in audit_cases()}


def test_substitution_claim_by_group_privacy():
    """Default relation: substitution = removal + addition, so Lemma A.1 runs at
    (ε/2, δ/(1+e^{ε/2})) and group privacy gives (2ε₁, (1+e^{ε₁})δ₁) = (ε, δ)."""
    m = PrivateDecisionListLearner((3, 1), 0.5, 1e-3)
    assert m.neighbour_relation == "substitution"
    assert m.claim == (0.5, 1e-3)
    e1, d1 = m.lemma_epsilon, m.lemma_delta
    assert math.isclose(2 * e1, 0.5) and math.isclose((1 + math.exp(e1)) * d1, 1e-3)
    assert math.isclose(m.step_epsilon, e1 / (2 * math.log(math.e / d1)))
    assert m.step_epsilon < PrivateDecisionListLearner((3, 1), 0.5, 1e-3,
                                                       neighbours="add_remove").step_epsilon
    assert "group privacy" in m.privacy_claim.source
    with pytest.raises(InvalidInputError, match="neighbours"):
        PrivateDecisionListLearner((3, 1), 0.5, 1e-3, neighbours="swap")


def test_substitution_claim_holds_exactly_on_every_neighbour():
    """Exact ε at δ on every substitution neighbour of a small sample is within the claim."""
    from ltheory.privacy.auditing.exact import aligned, exact_epsilon

    m = PrivateDecisionListLearner((2, 1), 1.0, 0.05, check_realizable=False)
    d0 = ((0, 0), (1, 0), (2, 1), (3, 1), (2, 1))
    p0 = m.output_distribution(d0)
    for i in range(len(d0)):
        for z in range(4):
            for b in (0, 1):
                d1 = d0[:i] + ((z, b),) + d0[i + 1:]
                if d1 == d0:
                    continue
                _, a, b = aligned(p0, m.output_distribution(d1))
                assert exact_epsilon(a, b, 0.05) <= 1.0 + 1e-9


def test_feature_sets():
    assert len(conjunction_features(3, 1)) == 7                 # 6 literals + true
    assert len(conjunction_features(3, 2)) == 6 + 12 + 1
    assert len(conjunction_features(3, 2, monotone=True)) == 3 + 3 + 1
    assert conjunction_features(2, 1).names[-1] == "true"


@pytest.mark.parametrize("case", AUDIT_CASES, ids=lambda c: c.name)
def test_audit_within_claim_and_exact(case):
    m = case.make()
    r = audit(m, case.d0, case.d1, claimed_epsilon=m.claim[0], claimed_delta=m.claim[1],
              runs=case.runs, seed=21)
    assert r.verdict == "consistent"
    assert r.epsilon_lower_bound <= m.claim[0]
    assert r.exact_epsilon is not None and r.exact_epsilon <= m.claim[0]


@pytest.mark.parametrize("case", AUDIT_CASES, ids=lambda c: c.name)
def test_broken_variant_is_flagged(case):
    b = case.broken()
    r = audit(b, case.d0, case.d1, claimed_epsilon=b.claim[0], claimed_delta=b.claim[1],
              runs=case.runs, seed=22)
    assert r.verdict == "violation"
    assert r.exact_epsilon > b.claim[0]


def test_exact_distribution_matches_vectorised_sampler():
    m = PrivateDecisionListLearner((2, 1), 0.9, 0.05)
    d = ((0, 0), (1, 1), (3, 1), (2, 0))
    dist = m.output_distribution(d)
    assert math.isclose(sum(dist.values()), 1.0, rel_tol=1e-12)
    n = 60_000
    counts = Counter(m.sample(d, n, np.random.default_rng(4)))
    assert set(counts) <= set(dist)
    for h, p in dist.items():
        assert abs(counts[h] / n - p) <= 4.5 * math.sqrt(p * (1 - p) / n) + 2e-4


def test_outputs_are_decision_lists_of_the_catalog():
    H = set(family("decision_lists", n=3, k=1).to_strings())
    m = PrivateDecisionListLearner((3, 1), 1.0, 0.1)
    d = tuple((p, int(p % 3 == 0)) for p in range(8))      # no 1-decision list fits it
    with pytest.warns(UnrealizableSampleWarning):
        assert set(m.sample(d, 300, np.random.default_rng(1))) <= H
    with pytest.warns(UnrealizableSampleWarning):
        rules = m.fit_rules(d, np.random.default_rng(2))
    assert rules[-1][0] == "true"


def test_randomness_only_through_rng():
    m = PrivateDecisionListLearner((3, 2), 1.0, 0.1)
    d = tuple((p, int(p >= 4)) for p in range(8))
    assert m.sample(d, 30, np.random.default_rng(9)) == m.sample(d, 30, np.random.default_rng(9))


def test_rivest_is_consistent_on_realizable_samples():
    H = family("decision_lists", n=3, k=1)
    rng = np.random.default_rng(0)
    learner = RivestDecisionListLearner(3)
    for row in rng.choice(len(H), size=20, replace=False):
        target = H.to_strings()[row]
        d = tuple((p, int(target[p])) for p in range(8))
        assert learner.fit(d, rng) == target


def test_private_learner_is_accurate_with_enough_data():
    target = lambda p: int((p >> 2) & 1 and not (p & 1)) or int(p == 3)  # noqa: E731
    rng = np.random.default_rng(0)
    xs = rng.integers(0, 8, size=3000)
    d = tuple((int(x), target(int(x))) for x in xs)
    m = PrivateDecisionListLearner((3, 2), 1.0, 1e-3)
    outs = m.sample(d, 50, rng)
    truth = "".join(str(target(p)) for p in range(8))
    err = np.mean([sum(a != b for a, b in zip(o, truth, strict=True)) / 8 for o in outs])
    assert err < 0.15


def test_rivest_rejects_unrealizable_and_private_learner_still_runs():
    xor = tuple((p, (p >> 1 & 1) ^ (p & 1)) for p in range(4))
    with pytest.raises(InvalidInputError, match="not consistent"):
        RivestDecisionListLearner(2).fit(xor, np.random.default_rng(0))
    contradictory = ((0, 0), (0, 1))
    with pytest.raises(InvalidInputError):
        RivestDecisionListLearner(2).fit(contradictory, np.random.default_rng(0))
    # the private learner must not refuse (a refusal would leak): it runs, and warns
    m = PrivateDecisionListLearner(2, 0.5, 0.1)
    with pytest.warns(UnrealizableSampleWarning, match="not consistent"):
        out = m.fit(xor, np.random.default_rng(0))
    assert len(out) == 4
    with pytest.warns(UnrealizableSampleWarning):
        assert len(m.sample(contradictory, 5, np.random.default_rng(0))) == 5
    with pytest.warns(UnrealizableSampleWarning):
        assert m.fit_rules(xor, np.random.default_rng(0))[-1][0] == "true"


def test_no_warning_on_realizable_samples_or_when_disabled():
    import warnings

    d = tuple((p, int(p >= 2)) for p in range(4))
    xor = tuple((p, (p >> 1 & 1) ^ (p & 1)) for p in range(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnrealizableSampleWarning)
        PrivateDecisionListLearner(2, 0.5, 0.1).sample(d, 3, np.random.default_rng(0))
        PrivateDecisionListLearner(2, 0.5, 0.1, check_realizable=False).fit(
            xor, np.random.default_rng(0))
    # XOR is a decision list once conjunctions of 2 literals are features
    assert not is_realizable(2, xor) and is_realizable((2, 2), xor)
    assert not is_realizable(2, ((1, 0), (1, 1)))


def test_points_as_strings_and_bit_tuples():
    m = PrivateDecisionListLearner(2, 1.0, 0.1)
    a = m.output_distribution(((0, 0), (3, 1)))
    b = m.output_distribution((("00", 0), ((1, 1), 1)))
    assert a == b


@pytest.mark.parametrize("dataset, msg", [
    ((("010", 1),), "wrong arity"),
    ((((1, 0, 1), 1),), "wrong arity"),
    (((4, 1),), "outside"),
    ((("0a", 1),), "0/1"),
    (((0, 3),), "label"),
    ((), "empty"),
])
def test_bad_points(dataset, msg):
    with pytest.raises(InvalidInputError, match=msg):
        PrivateDecisionListLearner(2, 1.0, 0.1).fit(dataset, np.random.default_rng(0))


def test_features_of_wrong_arity_and_bad_parameters():
    with pytest.raises(InvalidInputError, match="wrong arity"):
        PrivateDecisionListLearner((3, [[(5, 1)]]), 1.0, 0.1)
    with pytest.raises(InvalidInputError, match="twice"):
        RivestDecisionListLearner((3, [[(0, 1), (0, 0)]]))
    with pytest.raises(InvalidInputError):
        conjunction_features(3, 4)
    for delta in (0, 1, -0.1, "x"):
        with pytest.raises(InvalidInputError, match="delta"):
            PrivateDecisionListLearner(2, 1.0, delta)
    with pytest.raises(InvalidInputError):
        PrivateDecisionListLearner(2, 0.0, 0.1)
    with pytest.raises(InvalidInputError, match="Theorem 3.5"):
        PrivateDecisionListLearner(2, 1.01, 0.1, neighbours="add_remove")
    with pytest.raises(InvalidInputError, match="Theorem 3.5"):
        PrivateDecisionListLearner(2, 3.0, 0.1)        # substitution: ε₁ = 1.5 > 1
    assert PrivateDecisionListLearner(2, 2.0, 0.1).lemma_epsilon == 1.0   # the edge: accepted
    assert PrivateDecisionListLearner(2, 1.0, 0.1, neighbours="add_remove").lemma_epsilon == 1


def test_explicit_terms():
    m = PrivateDecisionListLearner((3, [[(0, 1), (2, 0)], [(1, 1)]]), 1.0, 0.1)
    assert m.features.names == ["x1 & ~x3", "x2", "true"]
