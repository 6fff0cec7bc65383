"""GloballyStableLearner and StableHistogram (Bun, Livni & Moran 2020; seed 002 §4.1–4.2)."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest

from ltheory.catalog import family
from ltheory.dims.soa import StandardOptimalAlgorithm
from ltheory.errors import InvalidInputError
from ltheory.privacy import audit
from ltheory.privacy.learners.globally_stable import (
    AUDIT_CASES,
    FAIL,
    GloballyStableLearner,
    StableHistogram,
    Tournament,
    UnrealizableSampleWarning,
)

CASES = {c.name: c for c in AUDIT_CASES}


def _sample(target: str, size: int, rng: np.random.Generator) -> tuple:
    xs = rng.integers(0, len(target), size=size)
    return tuple((int(x), int(target[x])) for x in xs)


# --------------------------------------------------------------------------- privacy
@pytest.mark.parametrize("name", sorted(CASES))
def test_audit_case_within_claim(name: str) -> None:
    case = CASES[name]
    learner = case.make()
    eps, delta = learner.claim
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnrealizableSampleWarning)
        rep = audit(learner, case.d0, case.d1, claimed_epsilon=eps, claimed_delta=delta,
                    runs=min(case.runs, 6_000), seed=2)
    assert rep.verdict == "consistent" and rep.epsilon_lower_bound <= eps


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_variant_flagged(name: str) -> None:
    case = CASES[name]
    broken = case.broken()
    eps, delta = broken.claim
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnrealizableSampleWarning)
        rep = audit(broken, case.d0, case.d1, claimed_epsilon=eps, claimed_delta=delta,
                    runs=4_000, seed=4)
    assert rep.verdict == "violation"


def test_histogram_without_noise_flagged() -> None:
    hist = StableHistogram(1.0, 1e-3, universe=(0, 1), noise=False)
    k = int(np.ceil(hist.tau))                   # count k is released, k - 1 is not
    d0 = (0,) * k + (1,) * 3
    d1 = (0,) * (k - 1) + (1,) * 4
    rep = audit(hist, d0, d1, claimed_epsilon=1.0, claimed_delta=1e-3, runs=2_000, seed=0)
    assert rep.verdict == "violation"


def test_claims() -> None:
    learner = GloballyStableLearner(family("points", n=4), 0.5, 1e-4, batches=2, batch_size=4)
    assert learner.claim == (0.5, 1e-4)
    assert "Bun, Livni & Moran" in learner.privacy_claim.source
    assert StableHistogram(0.3, 1e-5).claim == (0.3, 1e-5)


# --------------------------------------------------------------------------- histogram
def test_histogram_releases_heavy_items() -> None:
    hist = StableHistogram(1.0, 1e-6)
    items = ["a"] * 300 + ["b"] * 100 + ["c"]
    out = hist.sample(items, 200, np.random.default_rng(0))
    for released in out:
        d = dict(released)
        assert "a" in d and "b" in d and "c" not in d
        assert abs(d["a"] - 300 / 401) < 0.05
    n = hist.required_size(0.25, 0.05)
    assert n * 0.25 >= hist.tau


def test_histogram_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="delta"):
        StableHistogram(1.0, 0.0)
    with pytest.raises(InvalidInputError):
        StableHistogram(-1.0, 0.1)
    with pytest.raises(InvalidInputError):
        StableHistogram(1.0, 0.1).fit([], np.random.default_rng(0))
    with pytest.raises(InvalidInputError):
        StableHistogram(1.0, 0.1).fit([{1}], np.random.default_rng(0))
    with pytest.raises(InvalidInputError, match="universe"):
        StableHistogram(1.0, 0.1, universe=(0,)).fit([0, 1], np.random.default_rng(0))


# --------------------------------------------------------------------------- tournament
def test_soa_hypothesis_matches_soa() -> None:
    H = family("thresholds", n=3)
    t = Tournament(H, 2, aux_size=2)
    for sample in [((1, 1),), ((0, 0), (2, 1)), ((1, 0),), ()]:
        soa = StandardOptimalAlgorithm(H)
        soa.run(sample)
        want = "".join(str(soa.predict(x)) for x in range(3))
        V = t.full
        for x, y in sample:
            V = t.restrict(V, x, y)
        assert t.soa_hypothesis(V) == want


def test_tournament_fails_when_budget_exhausted() -> None:
    H = family("points", n=3)
    t = Tournament(H, 1, aux_size=4)
    rng = np.random.default_rng(0)
    assert t.run([0, 0], [1, 1], rng) == FAIL          # fewer than n examples: Fail
    outs = Counter(t.run([0] * 40, [1] * 40, rng) for _ in range(200))
    # level 0 returns the target; level 1 never finds f_0 != f_1 on one-point data and fails
    assert set(outs) == {"100", FAIL} and 60 < outs["100"] < 140


def test_global_stability_of_g() -> None:
    """Algorithm G is globally stable: on realizable data from thresholds n=3 (Ldim 2) some
    hypothesis, the target, is output with frequency well above 2^-16/3."""
    H = family("thresholds", n=3)
    target = "011"
    t = Tournament(H, 2, aux_size=8)
    rng = np.random.default_rng(3)
    outs = Counter(t.run(*zip(*_sample(target, 400, rng), strict=True), rng)
                   for _ in range(150))
    assert outs[target] / 150 > 0.3


# --------------------------------------------------------------------------- utility
@pytest.mark.parametrize("family_name,params,target", [
    ("points", {"n": 8}, "00010000"),
    ("thresholds", {"n": 3}, "011"),
])
def test_learner_accuracy(family_name: str, params: dict, target: str) -> None:
    H = family(family_name, **params)
    learner = GloballyStableLearner(H, 0.9, 1e-3, alpha=0.2, beta=0.2, aux_size=10,
                                    batch_size=200, batches=60, fresh_size=200)
    rng = np.random.default_rng(5)
    errs = []
    for _ in range(5):
        h = learner.fit(_sample(target, learner.sample_size, rng), rng)
        errs.append(1.0 if h == FAIL else np.mean([a != b for a, b in zip(h, target,
                                                                          strict=True)]))
    assert np.mean(errs) <= 0.2


def test_theory_sample_sizes() -> None:
    learner = GloballyStableLearner(family("points", n=8), 0.5, 1e-3, alpha=0.1, beta=0.1)
    th = learner.theory_sample_sizes()
    assert th["ldim"] == 1 and th["aux_size_n"] == 80
    assert th["budget_N"] == 2 ** 9 * 16 * 80
    assert th["stability_eta"] == pytest.approx(2.0 ** -8 / 2)
    assert th["total"] > th["used_total"]
    assert learner.aux_size == 80 and learner.batch_size == 16 * 80


# --------------------------------------------------------------------------- bad input
def test_bad_inputs() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidInputError, match="Ldim"):
        GloballyStableLearner(family("thresholds", n=8), 0.5, 1e-3)
    with pytest.raises(InvalidInputError, match="delta"):
        GloballyStableLearner(family("points", n=4), 0.5, 0.0)
    with pytest.raises(InvalidInputError):
        GloballyStableLearner(family("points", n=4), 0.5, 1e-3, alpha=2.0)
    with pytest.raises(InvalidInputError):
        GloballyStableLearner(family("points", n=4), 0.5, 1e-3, batches=0)
    with pytest.raises(InvalidInputError):
        GloballyStableLearner("points", 0.5, 1e-3)
    small = GloballyStableLearner(family("points", n=4), 0.5, 1e-3, batches=3, batch_size=10)
    with pytest.raises(InvalidInputError, match="at least 30"):
        small.fit(((0, 1),) * 20, rng)
    with pytest.raises(InvalidInputError):
        small.fit(((0, 3),) * 40, rng)
    with pytest.warns(UserWarning, match="Theorem 1"):
        GloballyStableLearner(family("points", n=4), 1.5, 1e-3, batches=2, batch_size=4)
    with pytest.warns(UnrealizableSampleWarning):
        small.fit(((0, 1), (1, 1)) * 20, rng)
