"""Naive Bayes over a mixed output's patterns and its released values' sides
(``features._pattern_side_scores``): NumericalSVT's ⊤/⊥ codes and released answers."""

from __future__ import annotations

import numpy as np
import pytest

from ltheory.privacy.auditing.features import Block, additive_pattern_weights, structure_scores
from ltheory.privacy.mechanisms import dpsniper_suite

LABEL = "naive-Bayes log-ratio over the patterns and the released values' sides of their medians"
D0, D1 = (1.0,) * 10, (2.0,) + (0.0,) * 9        # DP-Sniper's "one above, rest below"


@pytest.fixture(scope="module")
def fitted():
    m, _ = dpsniper_suite(0.1)["NumericalSVT"]
    rng = np.random.default_rng(11)
    x0, x1 = m.sample(D0, 150_000, rng), m.sample(D1, 150_000, rng)
    scores, _ = structure_scores(x0, x1)
    return m, x0, x1, next(s for s in scores if s.label == LABEL)


def test_side_weights_are_one_pooled_pair_on_each_coordinates_d0_side(fitted) -> None:
    _, _, _, score = fitted
    coords = score.features.family(False)
    assert len(coords) == 10
    _, x0, x1, score = fitted
    pairs, right = set(), []
    for c, w in zip(coords, score.weights[:10], strict=True):
        atoms = len(c.atoms)
        assert atoms >= 1 and np.all(w[:atoms] == 0.0)   # "not released" is the pattern's
        if not w.any():
            continue                                    # a side not clear of its noise
        k = np.arange(len(w) - atoms)
        up = k > int(np.searchsorted(c.quartiles, c.median))
        assert np.ptp(w[atoms:][up]) == 0 and np.ptp(w[atoms:][~up]) == 0
        pairs.add(frozenset((float(w[atoms:][up][0]), float(w[atoms:][~up][0]))))
        # d0 = 1 against d1 = 2 at coordinate 10 (below is d0's side), 1 against 0 elsewhere;
        # the side is fitted, so only where many values were released is it sure to be right
        released = min(np.count_nonzero(~np.isin(x[:, c.col], c.atoms)) for x in (x0, x1))
        if released >= 20_000:
            d0_up = c.col != 10
            right.append(w[atoms:][up][0] > 0 if d0_up else w[atoms:][~up][0] > 0)
    assert len(pairs) == 1                               # one pair, pooled over coordinates
    near, far = max(next(iter(pairs))), min(next(iter(pairs)))
    assert len(right) >= 3 and all(right)
    assert near > 0 > far


def test_pattern_weights_add_the_coordinates_marginal_log_ratios(fitted) -> None:
    _, x0, x1, score = fitted
    bl = score.features.blocks[0]
    base = np.log((len(x0) + 0.5) / (len(x1) + 0.5))
    expected = np.zeros(len(bl.patterns))
    for j, col in enumerate(bl.cols):
        for i, v in enumerate(bl.patterns[:, j]):
            g0 = np.count_nonzero(x0[:, col] == v) + 0.5
            g1 = np.count_nonzero(x1[:, col] == v) + 0.5
            expected[i] += np.log(g0 / g1) - base
    assert np.allclose(score.weights[-1], expected)
    assert np.allclose(additive_pattern_weights(bl, x0, x1), expected)


def test_additive_weights_are_the_exact_log_ratio_of_independent_codes() -> None:
    # three independent three-valued codes: the pattern's log-ratio is the sum of the
    # coordinates' own, which the additive weights estimate from marginal counts (each within a
    # few standard errors), where a pattern's own count would be ~27 times noisier in variance
    rng = np.random.default_rng(3)
    p0 = np.array([[0.5, 0.3, 0.2], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])
    p1 = np.array([[0.4, 0.3, 0.3], [0.6, 0.3, 0.1], [0.3, 0.3, 0.4]])
    n = 400_000
    x0 = np.column_stack([rng.choice([-1.0, 0.0, 1.0], n, p=p) for p in p0])
    x1 = np.column_stack([rng.choice([-1.0, 0.0, 1.0], n, p=p) for p in p1])
    pats = np.array(np.meshgrid(*[[-1.0, 0.0, 1.0]] * 3, indexing="ij")).reshape(3, -1).T
    bl = Block((0, 1, 2), np.array([-1.0, 0.0, 1.0]), pats)
    w = additive_pattern_weights(bl, x0, x1)
    idx = (pats + 1).astype(int)
    exact = sum(np.log(p0[j, idx[:, j]] / p1[j, idx[:, j]]) for j in range(3))
    se = np.sqrt(sum((1 / p0[j, idx[:, j]] + 1 / p1[j, idx[:, j]]) / n for j in range(3)))
    assert np.all(np.abs(w - exact) < 5 * se)
    assert np.allclose(w[(pats[:, 1] == 0.0)], w[(pats[:, 1] == 1.0)], atol=0.02)   # no move


def test_score_is_the_pattern_weight_plus_the_released_sides(fitted) -> None:
    m, _, _, score = fitted
    feats = score.features
    y = m.sample(D0, 200, np.random.default_rng(5))
    (ids,) = feats.block_cells(y)
    expected = np.where(ids >= 0, score.weights[-1][np.maximum(ids, 0)], 0.0)
    for c, w in zip(feats.family(False), score.weights[:10], strict=True):
        expected = expected + w[c.cell(c.values(y))]
    assert np.allclose(score(y), expected)


def test_score_separates_the_pair_on_fresh_runs(fitted) -> None:
    m, _, _, score = fitted
    rng = np.random.default_rng(8)
    t0, t1 = score(m.sample(D0, 100_000, rng)), score(m.sample(D1, 100_000, rng))
    # the mean log-ratio gap (a sum of two KL divergences, ~0.001 per run here) is several
    # standard errors wide
    gap = t0.mean() - t1.mean()
    assert gap > 3 * np.sqrt(t0.var() / len(t0) + t1.var() / len(t1))


def test_a_query_that_does_not_move_is_not_read() -> None:
    # only query 0 moves (1 against 2): coordinate 10 is read on its d0 side (below); of the
    # nine others, whose sides are chance, a side 1 standard error clear is drawn with
    # probability 0.32 each, so at least three are left unread (P(fail) < 0.01)
    m, _ = dpsniper_suite(0.1)["NumericalSVT"]
    rng = np.random.default_rng(4)
    d1 = (2.0,) + (1.0,) * 9
    x0, x1 = m.sample(D0, 400_000, rng), m.sample(d1, 400_000, rng)
    scores, _ = structure_scores(x0, x1)
    score = next(s for s in scores if s.label == LABEL)
    coords = score.features.family(False)
    read = {c.col: bool(w.any()) for c, w in zip(coords, score.weights[:10], strict=True)}
    assert read[10] and sum(not read[j] for j in range(11, 20)) >= 3
    c, w = coords[0], score.weights[0]
    k = np.arange(len(w) - len(c.atoms))
    up = k > int(np.searchsorted(c.quartiles, c.median))
    assert np.all(w[len(c.atoms):][~up] > 0) and np.all(w[len(c.atoms):][up] < 0)
