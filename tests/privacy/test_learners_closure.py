"""RelabelAndLearn, PrivateAgnosticLearner, ClosureLearn (seed 001, Algorithms 2–5)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from ltheory.catalog import family
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import InvalidInputError
from ltheory.privacy import audit
from ltheory.privacy.learners.closure import (
    AUDIT_CASES,
    ClosureLearn,
    ExponentialLearner,
    PrivateAgnosticLearner,
    RelabelAndLearn,
    UnrealizableSampleWarning,
    relabel,
)
from ltheory.privacy.learners.subsampling import with_replacement, with_replacement_any_size

CASES = {c.name: c for c in AUDIT_CASES}


def _error(h: str, target: str) -> float:
    return sum(a != b for a, b in zip(h, target, strict=True)) / len(h)


# --------------------------------------------------------------------------- privacy
@pytest.mark.parametrize("name", sorted(CASES))
def test_audit_case_within_claim(name: str) -> None:
    case = CASES[name]
    learner = case.make()
    eps, delta = learner.claim
    runs = min(case.runs, 8_000)
    rep = audit(learner, case.d0, case.d1, claimed_epsilon=eps, claimed_delta=delta,
                runs=runs, seed=3)
    assert rep.verdict == "consistent"
    assert rep.epsilon_lower_bound <= eps
    assert rep.exact_epsilon is not None and rep.exact_epsilon <= eps


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_variant_flagged(name: str) -> None:
    case = CASES[name]
    assert case.broken is not None
    broken = case.broken()
    eps, delta = broken.claim
    d0, d1 = case.broken_pair()
    rep = audit(broken, d0, d1, claimed_epsilon=eps, claimed_delta=delta, runs=4_000, seed=5)
    assert rep.verdict == "violation"
    assert rep.exact_epsilon > eps


def test_claims_as_stated() -> None:
    H = family("thresholds", n=3)
    rl = RelabelAndLearn(H, ExponentialLearner(H, 0.5))
    assert rl.claim == (3.5, 0.0)
    assert "Lemma 5.3" in rl.privacy_claim.source
    # Lemma 5.3 on the sub-sampled learner, charged the with-replacement bound (not Lemma 3.12)
    pa = PrivateAgnosticLearner(H)
    eps_any, _ = with_replacement_any_size(1.0, 0.0)
    assert pa.claim == (eps_any + 3, 0.0) and "Theorem 6.1" in pa.privacy_claim.source
    assert "O(1)" in pa.privacy_claim.statement
    assert 0.15 < eps_any < 0.25                     # m = N/9 draws amplify at epsilon = 1
    pa36 = PrivateAgnosticLearner(H, sample_size=36)
    assert pa36.claim[0] == pytest.approx(with_replacement(1.0, 0.0, 2, 18)[0] + 3)
    assert pa36.claim[0] < pa.claim[0] < 4.0

    class Approx(ExponentialLearner):
        @property
        def claim(self) -> tuple[float, float]:
            return (1.0, 1e-6)

    cl = ClosureLearn("or", [H, H], [Approx(H), ExponentialLearner(H)])
    e_sub, d_sub = with_replacement_any_size(1.0, 1e-6)
    assert cl.claim[0] == pytest.approx(e_sub + 3)
    assert cl.claim[1] == pytest.approx(4 * math.e * d_sub)
    assert "Lemma 7.2" in cl.privacy_claim.source
    sized = ClosureLearn("or", [H, H], sizes=[18, 36])
    assert sized.claim[0] == pytest.approx(with_replacement(1.0, 0.0, 2, 18)[0] + 3)
    with pytest.raises(InvalidInputError, match=">= 18"):
        ClosureLearn("or", [H, H], sizes=[10, 30])
    with pytest.raises(InvalidInputError, match="sample_size"):
        PrivateAgnosticLearner(H, sample_size=36).fit(((0, 1),) * 18, np.random.default_rng(0))


def test_exact_distribution_matches_sampling() -> None:
    case = CASES["RelabelAndLearn/thresholds3"]
    learner = case.make()
    dist = learner.output_distribution(case.d0)
    assert sum(dist.values()) == pytest.approx(1.0)
    outs = learner.sample(case.d0, 20_000, np.random.default_rng(0))
    for key, p in dist.items():
        freq = sum(o == key for o in outs) / len(outs)
        assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / len(outs)) + 1e-3


def test_exact_distribution_closure_matches_sampling() -> None:
    case = CASES["ClosureLearn/or-thresholds3"]
    learner = case.make()
    dist = learner.output_distribution(case.d0)
    assert sum(dist.values()) == pytest.approx(1.0)
    outs = learner.sample(case.d0, 6_000, np.random.default_rng(1))
    for key, p in dist.items():
        freq = sum(o == key for o in outs) / len(outs)
        assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / len(outs)) + 2e-3


def test_relabel_neighbours_exclude_v() -> None:
    learner = RelabelAndLearn(family("thresholds", n=3), d_size=2, v_size=1)
    a = ((0, 1), (1, 1), (2, 1), (2, 0))
    assert learner.are_neighbours(a, ((0, 0),) + a[1:])          # in D
    assert learner.are_neighbours(a, a[:3] + ((0, 0),))          # in W
    assert not learner.are_neighbours(a, a[:2] + ((0, 0),) + a[3:])   # in V: not neighbours
    with pytest.raises(InvalidInputError):
        audit(learner, a, a[:2] + ((0, 0),) + a[3:], claimed_epsilon=4.0, runs=2000, seed=0)


def test_relabel_probabilities() -> None:
    p = relabel(np.array([0.0, 2.0, 4.0]))
    assert p == pytest.approx(np.array([1, math.exp(-1), math.exp(-2)]) /
                              (1 + math.exp(-1) + math.exp(-2)))
    assert relabel(np.array([3.0, 1.0, 1.0]), "erm").tolist() == [0.0, 1.0, 0.0]


# --------------------------------------------------------------------------- utility
def test_private_agnostic_learns_noisy_threshold() -> None:
    H = family("thresholds", n=8)
    rng = np.random.default_rng(7)
    target = H.to_strings()[3]
    xs = rng.integers(0, 8, size=900)
    ys = [int(target[x]) ^ int(rng.random() < 0.1) for x in xs]
    data = tuple(zip(xs.tolist(), ys, strict=True))
    learner = PrivateAgnosticLearner(H)
    errs = [_error(h, target) for h in learner.sample(data, 30, rng)]
    assert np.mean(errs) < 0.15


def test_closure_learns_union_of_thresholds() -> None:
    H = family("thresholds", n=8)
    target_1, target_2 = "00000111", "00000001"        # OR = thresholds at 5
    G = ClosureLearn("or", [H, H])
    rng = np.random.default_rng(11)
    xs = rng.integers(0, 8, size=1200)
    target = "".join(str(int(a) | int(b)) for a, b in zip(target_1, target_2, strict=True))
    data = tuple((int(x), int(target[x])) for x in xs)
    errs = [_error(h, target) for h in G.sample(data, 20, rng)]
    assert np.mean(errs) < 0.15


def test_relabel_and_learn_outputs() -> None:
    H = family("thresholds", n=4)
    learner = RelabelAndLearn(H, d_size=4, v_size=2)
    data = ((0, 0), (1, 0), (2, 1), (3, 1), (1, 0), (3, 1), (2, 1))
    f, vt, hbar = learner.fit(data, np.random.default_rng(0))
    assert f in H and hbar in H and len(vt) == 2
    assert all(hbar[x] == b for (x, _), b in zip(data[4:6], vt, strict=True))


def test_seed_determinism() -> None:
    case = CASES["ClosureLearn/or-thresholds3"]
    a = case.make().sample(case.d0, 50, np.random.default_rng(9))
    b = case.make().sample(case.d0, 50, np.random.default_rng(9))
    assert a == b


# --------------------------------------------------------------------------- aggregations
def test_aggregation_forms_agree() -> None:
    H = family("thresholds", n=3)
    data = tuple((x % 3, int(x % 3 >= 1)) for x in range(40))

    class Table:
        arity = 2
        truth_table = "0111"                 # bit i = G(bits of i): OR

    outs = []
    for G in ("or", Table(), lambda b: np.any(b, axis=0).astype(int)):
        outs.append(ClosureLearn(G, [H, H]).output_distribution(data))
    for d in outs[1:]:
        assert d.keys() == outs[0].keys()
        for k in d:
            assert d[k] == pytest.approx(outs[0][k])


def test_aggregation_bad() -> None:
    H = family("thresholds", n=3)

    class Table:
        arity = 3
        truth_table = "01111111"

    with pytest.raises(InvalidInputError, match="arity"):
        ClosureLearn(Table(), [H, H])
    with pytest.raises(InvalidInputError):
        ClosureLearn(42, [H, H])
    bad = ClosureLearn(lambda b: b[0][:1], [H, H])
    with pytest.raises(InvalidInputError, match="length"):
        bad.fit(tuple((x % 3, 0) for x in range(36)), np.random.default_rng(0))


# --------------------------------------------------------------------------- bad input
def test_bad_inputs() -> None:
    H = family("thresholds", n=3)
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidInputError, match="18"):
        PrivateAgnosticLearner(H).fit(((0, 1),) * 10, rng)
    with pytest.raises(InvalidInputError, match="36"):
        ClosureLearn("or", [H, H]).fit(((0, 1),) * 30, rng)
    with pytest.raises(InvalidInputError):
        PrivateAgnosticLearner(H).fit(((0, 2),) * 20, rng)
    with pytest.raises(InvalidInputError):
        PrivateAgnosticLearner(H).fit(((5, 1),) * 20, rng)
    with pytest.raises(InvalidInputError):
        PrivateAgnosticLearner("thresholds")
    with pytest.raises(InvalidInputError, match="claim"):
        PrivateAgnosticLearner(H, learner=lambda d, r: "000")
    with pytest.raises(InvalidInputError, match="domain"):
        ClosureLearn("or", [H, family("thresholds", n=4)])
    with pytest.raises(InvalidInputError):
        RelabelAndLearn(H, d_size=3, v_size=5).fit(((0, 1),) * 4, rng)
    with pytest.raises(InvalidInputError):
        RelabelAndLearn(H, relabel="argmax")


def test_warnings_documented() -> None:
    H = family("thresholds", n=3)
    with pytest.warns(UserWarning, match="Theorem 6.1"):
        PrivateAgnosticLearner(H, epsilon=2.0)
    unrealizable = ((0, 1), (0, 0)) * 18
    with pytest.warns(UnrealizableSampleWarning):
        ClosureLearn("or", [H, H]).fit(unrealizable, np.random.default_rng(0))
    realizable = tuple((x % 3, int(x % 3 >= 1)) for x in range(36))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ClosureLearn("or", [H, H]).fit(realizable, np.random.default_rng(0))


def test_labels_as_domain_labels() -> None:
    H = HypothesisClass.from_strings(["001", "011", "111"], domain=["a", "b", "c"])
    data = tuple(("abc"[i % 3], int(i % 3 >= 1)) for i in range(36))
    h = PrivateAgnosticLearner(H).fit(data, np.random.default_rng(0))
    assert h in H


# --------------------------------------------------------------------------- score_on
def test_closure_score_on_the_two_readings() -> None:
    """ClosureLearn(score_on=...): seed 001's Eq. (17) counts the relabelling's score on S_i =
    D_i ∘ T_i ("part", the default), Algorithm 2 step 3 on D_i ("database").  Under "database"
    the labels of T_i do not move the output distribution (with T_i's points fixed), under
    "part" they do; the sampler follows the same score; anything else is refused."""
    H = family("thresholds", n=3)
    data = tuple((x % 3, int(x % 3 >= 2)) for x in range(36))
    # flip the labels of T_1's records 9..13 (records 9..17 of part 1) and T_2's 27..31
    flipped = tuple((x, 1 - y) if i in (*range(9, 14), *range(27, 32)) else (x, y)
                    for i, (x, y) in enumerate(data))
    db = ClosureLearn("or", [H, H], check_realizable=False, score_on="database")
    part = ClosureLearn("or", [H, H], check_realizable=False)
    assert part.score_on == "part"
    a, b = db.output_distribution(data), db.output_distribution(flipped)
    assert a.keys() == b.keys() and all(a[k] == pytest.approx(b[k], abs=1e-15) for k in a)
    a, b = part.output_distribution(data), part.output_distribution(flipped)
    assert max(abs(a.get(k, 0) - b.get(k, 0)) for k in a.keys() | b.keys()) > 0.01
    outs = db.sample(data, 4000, np.random.default_rng(5))
    exact = db.output_distribution(data)
    for h, p in exact.items():
        assert abs(sum(o == h for o in outs) / 4000 - p) < 5 * math.sqrt(p * (1 - p) / 4000) + 1e-3
    with pytest.raises(InvalidInputError, match="score_on"):
        ClosureLearn("or", [H, H], score_on="subsample")
