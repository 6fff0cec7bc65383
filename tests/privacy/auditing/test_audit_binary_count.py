"""The sign count of two-valued discrete coordinates (``features._binary_count_scores``):
SVT6's ⊤/⊥ bits and RAPPOR's bits, each at the value its fit half says d0 favours."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.count_model import tilt_projections
from ltheory.privacy.auditing.events import _projected
from ltheory.privacy.auditing.exact import aligned
from ltheory.privacy.auditing.features import (
    BINARY_FDR,
    StructureFeatures,
    _binary_count_scores,
    structure_scores,
)
from ltheory.privacy.mechanisms import dpsniper_suite

PREFIX = "count of "
SUFFIX = "two-valued discrete coordinates at their d0 value"
D0, D1 = (1.0,) * 10, (2.0,) * 6 + (0.0,) * 4          # DP-Sniper's "half-half h=6"


def _count_score(x0: np.ndarray, x1: np.ndarray):
    scores, _ = structure_scores(x0, x1)
    found = [s for s in scores if s.label.startswith(PREFIX) and s.label.endswith(SUFFIX)]
    return found[0] if found else None


@pytest.fixture(scope="module")
def svt6():
    m, _ = dpsniper_suite(0.1)["SVT6"]
    rng = np.random.default_rng(5)
    return m, m.sample(D0, 60_000, rng), m.sample(D1, 60_000, rng)


def test_svt6_count_is_d0_sides_of_every_bit(svt6) -> None:
    m, x0, x1 = svt6
    score = _count_score(x0, x1)
    assert score is not None and score.label == f"count of 10 {SUFFIX}"
    # query 1 against 2 (d0 has fewer ⊤: −1) on the first six, 1 against 0 (+1) on the rest
    fresh = m.sample(D0, 5_000, np.random.default_rng(9))
    top = (np.asarray(fresh) == 1).astype(float)
    signs = np.r_[-np.ones(6), np.ones(4)]
    np.testing.assert_array_equal(score(fresh), top @ signs)


def test_same_count_with_patterns_listed_or_per_coordinate(svt6) -> None:
    """The count reads the block's values, not its pattern table: the same whether the fit
    half listed the block's patterns (five bits) or had too many to list (ten)."""
    _, x0, x1 = svt6
    full = StructureFeatures.fit(x0, x1)
    few = StructureFeatures.fit(x0[:, :5], x1[:, :5])
    assert full.blocks[0].patterns is None and few.blocks[0].patterns is not None
    (s_few,) = _binary_count_scores(few, x0[:, :5], x1[:, :5])
    fresh = x0[:2_000, :5]
    np.testing.assert_array_equal(s_few(fresh), (fresh == 1).astype(float) @ -np.ones(5))


def test_coordinate_read_only_where_its_side_is_clear() -> None:
    """Independent bits: four move (two each way, 9 standard errors clear), sixteen do not.
    The bits read are exactly those the Benjamini–Hochberg procedure at ``BINARY_FDR`` keeps
    (computed here from the definition: the largest k whose k-th smallest p-value is at most
    k·q/m), and at one standard error some bits that do not move would have come in."""
    rng = np.random.default_rng(3)
    n, m = 100_000, 20
    p0 = np.r_[0.52, 0.52, 0.48, 0.48, np.full(m - 4, 0.5)]
    x0 = (rng.random((n, m)) < p0).astype(float)
    x1 = (rng.random((n, m)) < 0.5).astype(float)
    (score,) = _binary_count_scores(StructureFeatures.fit(x0, x1), x0, x1)
    w = score(np.eye(m))
    m0, m1 = x0.mean(axis=0), x1.mean(axis=0)
    se = np.sqrt(m0 * (1 - m0) / n + m1 * (1 - m1) / n)
    pv = 2 * norm.sf(np.abs(m0 - m1) / se)
    order = np.sort(pv)
    passing = np.nonzero(order <= BINARY_FDR * np.arange(1, m + 1) / m)[0]
    cut = order[passing[-1]] if len(passing) else -1.0
    np.testing.assert_array_equal(w, np.where(pv <= cut, np.sign(m0 - m1), 0.0))
    np.testing.assert_array_equal(w[:4], [1.0, 1.0, -1.0, -1.0])
    assert score.label == f"count of {np.count_nonzero(w)} {SUFFIX}"
    assert (np.abs(m0 - m1)[4:] >= se[4:]).any()


def test_no_count_without_two_moving_two_valued_coordinates() -> None:
    rng = np.random.default_rng(4)
    n = 50_000
    x0 = (rng.random((n, 4)) < np.array([0.6, 0.5, 0.5, 0.5])).astype(float)
    x1 = (rng.random((n, 4)) < 0.5).astype(float)
    assert _binary_count_scores(StructureFeatures.fit(x0, x1), x0, x1) == []
    # three values per coordinate (a sparse vector with a cutoff: ⊤, ⊥, stopped): not counted
    m, _ = dpsniper_suite(0.1)["SVT1"]
    y0, y1 = m.sample(D0, 20_000, rng), m.sample(D1, 20_000, rng)
    assert _count_score(np.asarray(y0, float), np.asarray(y1, float)) is None


def test_count_cuts_reach_svt6_exact_ceiling() -> None:
    """What the docstring claims, on the exact distributions: the best cut of the count holds
    the ceiling of all 1,024 patterns (10^7 runs per dataset), where one bit's cut does not."""
    m, _ = dpsniper_suite(0.1)["SVT6"]
    outs, p0, p1 = aligned(m.output_distribution(D0), m.output_distribution(D1))
    outs = np.array([np.asarray(o, dtype=float) for o in outs])
    count = (outs == 1).astype(float) @ np.r_[-np.ones(6), np.ones(4)]
    levels = np.unique(count)
    q0 = np.array([p0[count == v].sum() for v in levels])
    q1 = np.array([p1[count == v].sum() for v in levels])
    n = 1e7
    full = certification_ceiling(p0, p1, n)
    assert math.isclose(certification_ceiling(q0, q1, n), full, rel_tol=1e-6)
    bit = outs[:, 0] == 1
    one = certification_ceiling(np.array([p0[bit].sum(), p0[~bit].sum()]),
                                np.array([p1[bit].sum(), p1[~bit].sum()]), n)
    assert one < 0.2 * full


# ----------------------------------------------------------------- the log-linear cell model
def _svt6_count_law():
    """The exact law of the count of SVT6's bits at their d0 value on ``D0``, ``D1``."""
    m, _ = dpsniper_suite(0.1)["SVT6"]
    outs, p0, p1 = aligned(m.output_distribution(D0), m.output_distribution(D1))
    outs = np.array([np.asarray(o, dtype=float) for o in outs])
    count = (outs == 1).astype(float) @ np.r_[-np.ones(6), np.ones(4)]
    levels = np.unique(count)
    return (levels, np.array([p0[count == v].sum() for v in levels]),
            np.array([p1[count == v].sum() for v in levels]))


def _runs_at_expectation(levels, p, n):
    """Eval-half values holding each level round(n·p) times (sorted, as ``events`` passes)."""
    return np.repeat(levels, np.rint(n * p).astype(int))


def test_tilt_places_svt6s_cut_at_its_deepest_cell() -> None:
    """At expected counts of a 5·10^5-run eval half (2·10^7 runs in all), the count's deepest
    cell certifies 0.35 and the next 0.30 with 9·10^6 certifying runs; the 98% bounds of their
    own counts (~200 runs in the deepest cell) rank the shallower first, the model the deeper,
    and the model's median log-ratio of the deepest cell is within 0.03 of its exact one
    (0.396)."""
    levels, q0, q1 = _svt6_count_law()
    n_ev, n_cert = 500_000, 9_000_000
    v0, v1 = _runs_at_expectation(levels, q0, n_ev), _runs_at_expectation(levels, q1, n_ev)
    grid = levels.astype(float)

    def project(ca, cb):
        return _projected(np.asarray(ca, float), np.asarray(cb, float), n_ev, n_cert, 0.025,
                          0.0, "binomial", 0.5)

    shrunk = tilt_projections(v0, v1, grid, project, 0.02)[(True, 0)]
    own = _projected(np.array([(v0 >= t).sum() for t in grid], float),
                     np.array([(v1 >= t).sum() for t in grid], float),
                     n_ev, n_cert, 0.025, 0.0, "binomial", 0.02)
    assert np.argmax(shrunk) == len(grid) - 1 and np.argmax(own) == len(grid) - 2
    seen = {}
    tilt_projections(v0, v1, grid, lambda ca, cb: seen.setdefault(len(seen), (ca, cb))[0],
                     0.5)
    ca, cb = seen[0]                        # (geq, d0) first: the deepest cell is the last cut
    assert abs(math.log(ca[-1] / cb[-1]) - math.log(q0[-1] / q1[-1])) < 0.03


def test_tilt_keeps_own_counts_where_no_line_fits() -> None:
    """Cells whose log-ratio is flat, then steep (0.4 per cell from cell 3 on).  The cuts in
    the steep half are modelled and their split is the data's (the cells are on their line);
    ``≥ 2`` has no window (the cells beside it are in the other half of the runs), so it keeps
    its own counts: a line through all eight cells would split it at e^0.23 where its counts
    say e^0.18."""
    levels = np.arange(8.0)
    lam = np.where(levels < 4, 0.0, 0.4 * (levels - 3))
    mass = np.array([40_000, 40_000, 40_000, 40_000, 20_000, 10_000, 4_000, 1_000.0])
    v0 = np.repeat(levels, np.rint(mass / (1 + np.exp(-lam))).astype(int))
    v1 = np.repeat(levels, np.rint(mass / (1 + np.exp(lam))).astype(int))
    seen = {}
    tilt_projections(v0, v1, levels, lambda ca, cb: seen.setdefault(len(seen), (ca, cb))[0],
                     0.5)
    ca, cb = seen[0]
    own = [(np.count_nonzero(v0 >= t), np.count_nonzero(v1 >= t)) for t in levels]
    for t in (4, 5, 6, 7):
        assert math.isclose(ca[t] / cb[t], own[t][0] / own[t][1], rel_tol=0.02)
    # ≥ 2: its own counts (their bootstrap median)
    assert math.isclose(ca[2], own[2][0], rel_tol=2e-3)
    assert math.isclose(cb[2], own[2][1], rel_tol=2e-3)


@pytest.mark.parametrize("v0, v1", [
    (np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 2.0])),       # not integers
    (np.array([0.0, 1.0]), np.array([0.0, 1.0])),                 # two levels
    (np.arange(200.0), np.arange(200.0)),                         # too many levels
    (np.array([np.nan]), np.array([1.0])),                        # nothing left
])
def test_tilt_declines_what_is_not_a_small_integer_count(v0, v1) -> None:
    assert tilt_projections(v0, v1, np.array([0.0]), lambda a, b: a - b, 0.02) is None
