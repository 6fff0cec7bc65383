"""The vectorised sampling and feature paths give the numbers of the direct computations they
replace (the reference implementations below are the code before the change): the parallel
composition's fused Laplace draws, RAPPOR's randomised responses, the structure features'
groups, cells and sign counts, the batch that skips the float copy, and the cell encoder that
reads the first rows before sorting them all."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.privacy.auditing import coord_blocks, events, features
from ltheory.privacy.auditing.coord_blocks import above_matrix
from ltheory.privacy.auditing.events import ValueEncoder, make_encoder
from ltheory.privacy.auditing.features import (
    LinearScore,
    StructureFeatures,
    structure_scores,
)
from ltheory.privacy.auditing.outputs import column_values, normalise
from ltheory.privacy.mechanisms import dpsniper_suite
from ltheory.privacy.mechanisms.statdp import NoisyHist, Parallel, Rappor


# --------------------------------------------------------------------------- references
def parallel_reference(m: Parallel, dataset, n: int, rng) -> np.ndarray:
    outs = []
    for part in m.parts:
        o = np.asarray(part.sample(dataset, n, rng), dtype=float)
        outs.append(o[:, None] if o.ndim == 1 else o)
    return np.hstack(outs)


def rappor_reference(m: Rappor, value: int, n: int, rng) -> np.ndarray:
    b = m.bloom(value)
    u = rng.random((n, m.bits))
    prr = np.where(u < m.f / 2, True, np.where(u < m.f, False, b[None, :]))
    if not m.instantaneous:
        return prr.astype(float)
    v = rng.random((n, m.bits))
    return np.where(prr, v < m.q, v < m.p).astype(float)


def groups_reference(f: StructureFeatures, a: np.ndarray) -> list[np.ndarray]:
    out = []
    for c in f.coords:
        v = c.values(a)
        cols = [((v - c.mean) / c.sd).astype(np.float32), c.above(v)]
        cols += [(v == x).astype(np.float32) for x in c.atoms]
        out.append(np.column_stack(cols))
    for bl in f.blocks:
        sub = a[:, list(bl.cols)]
        if bl.patterns is not None:
            ids = bl.pattern_ids(a)
            oh = np.zeros((len(a), len(bl.patterns)), dtype=np.float32)
            ok = ids >= 0
            oh[np.nonzero(ok)[0], ids[ok]] = 1.0
            out.append(oh)
        else:
            out.append(np.column_stack([(sub[:, i] == v).astype(np.float32)
                                        for i in range(len(bl.cols)) for v in bl.values]))
        out.append(np.column_stack([(sub == v).sum(axis=1).astype(np.float32)
                                    for v in bl.values]))
    return out


def _block_cells_reference(f, a: np.ndarray) -> list[np.ndarray]:
    """``StructureFeatures.block_cells`` directly: a block's pattern ids, or each coordinate's
    index among the block's values by binary search (−1: not one of them)."""
    out = []
    for bl in f.blocks:
        if bl.patterns is not None:
            out.append(bl.pattern_ids(a))
            continue
        for j in bl.cols:
            i = np.clip(np.searchsorted(bl.values, a[:, j]), 0, len(bl.values) - 1)
            out.append(np.where(bl.values[i] == a[:, j], i, -1))
    return out


def score_reference(sc: LinearScore, a: np.ndarray) -> np.ndarray:
    if sc.kind == "linear":
        s = np.full(len(a), sc.intercept)
        for g, w in zip(groups_reference(sc.features, a), sc.weights, strict=True):
            s += g @ w
        return s
    if sc.kind in ("cells", "cells-diff"):
        f = sc.features
        if sc.kind == "cells-diff":      # the increments: each run's lead from 0, differences
            fam = [c for c in f.coords if not c.diff and c.col in f.leads] \
                + [c for c in f.coords if c.diff]
        else:
            fam = [c for c in f.coords if not c.diff]
        cells = [_cell_reference(c, c.values(a)) for c in fam]
        s = np.zeros(len(a))
        for c, w in zip(cells + _block_cells_reference(f, a), sc.weights, strict=True):
            s += np.where(c >= 0, w[np.maximum(c, 0)], 0.0)
        return s
    if sc.kind == "bits":            # each coordinate's weight where it holds the larger value
        s = np.zeros(len(a))
        for bl, w in zip(sc.features.blocks, sc.weights, strict=True):
            for j, wj in zip(bl.cols, w, strict=True):
                s += wj * (a[:, j] == bl.values[-1])
        return s
    s = np.zeros(len(a))
    for c, sign in sc.counted():
        s += sign * c.above(c.values(a))
    return s


# --------------------------------------------------------------------------- mechanisms
@settings(max_examples=40, deadline=None)
@given(scales=st.lists(st.sampled_from([1.0, 3.0, 200.0]), min_size=1, max_size=6),
       rappor_at=st.integers(-1, 6), n=st.integers(1, 300), seed=st.integers(0, 2**32 - 1),
       width=st.integers(1, 3))
def test_parallel_fused_laplace_draws_are_the_parts_draws(scales, rappor_at, n, seed, width):
    parts: list = [NoisyHist(0.1, scale=s) for s in scales]
    data: tuple = tuple(float(i) for i in range(width))
    if 0 <= rappor_at <= len(parts):            # a part of another kind breaks a run
        parts.insert(rappor_at, Rappor())
        data = (1.0,)
    m = Parallel(parts)
    got = m.sample(data, n, np.random.default_rng(seed))
    want = parallel_reference(m, data, n, np.random.default_rng(seed))
    assert got.dtype == want.dtype and got.flags.c_contiguous
    assert np.array_equal(got, want)


def test_laplace_parallel_of_the_suite_is_unchanged():
    m, _ = dpsniper_suite(0.1)["LaplaceParallel"]
    got = m.sample((1.0,), 5000, np.random.default_rng(11))
    assert np.array_equal(got, parallel_reference(m, (1.0,), 5000, np.random.default_rng(11)))


@settings(max_examples=40, deadline=None)
@given(f=st.sampled_from([0.25, 0.5, 0.75, 0.95]), p=st.floats(0.05, 0.95),
       q=st.floats(0.05, 0.95),
       inst=st.booleans(), value=st.integers(-10, 10), n=st.integers(1, 200),
       seed=st.integers(0, 2**32 - 1))
def test_rappor_sampling_is_the_direct_formula(f, p, q, inst, value, n, seed):
    m = Rappor(f=f, p=p, q=q, instantaneous=inst)
    got = m.sample((float(value),), n, np.random.default_rng(seed))
    want = rappor_reference(m, value, n, np.random.default_rng(seed))
    assert got.dtype == want.dtype and np.array_equal(got, want)


# --------------------------------------------------------------------------- features
@st.composite
def outputs_pair(draw):
    """Two batches of vector outputs with continuous coordinates (some with atoms, some
    shifted), and discrete blocks of few values."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(200, 1500))
    kinds = draw(st.lists(st.sampled_from(["laplace", "atoms", "bits", "codes"]),
                          min_size=2, max_size=7))
    cols0, cols1 = [], []
    for k in kinds:
        for cols, shift in ((cols0, 0.0), (cols1, 0.5)):
            if k == "laplace":
                cols.append(rng.laplace(shift, 1.0, n))
            elif k == "atoms":
                x = rng.laplace(shift, 1.0, n)
                x[rng.random(n) < 0.3] = 0.0
                x[rng.random(n) < 0.1] = -2.0
                cols.append(x)
            elif k == "bits":
                cols.append((rng.random(n) < 0.5 + shift / 5).astype(float))
            else:
                cols.append(rng.integers(0, 3 + int(shift * 2), n).astype(float))
    return np.column_stack(cols0), np.column_stack(cols1), seed


@settings(max_examples=30, deadline=None)
@given(data=outputs_pair(), rows=st.sampled_from([1, 7, 64, 1 << 13]))
def test_structure_scores_equal_the_direct_computations(data, rows):
    old = coord_blocks.ROWS
    coord_blocks.ROWS = rows             # small blocks, so that every path crosses blocks
    try:
        _check_structure_scores(*data)
    finally:
        coord_blocks.ROWS = old


def _check_structure_scores(x0, x1, seed):
    h = len(x0) // 2
    scores, _ = structure_scores(x0[:h], x1[:h], seed=seed % 1000)
    f = StructureFeatures.fit(x0[:h], x1[:h])
    if f is None:
        assert scores == []
        return
    # leads: a continuous column followed by a continuous one, first of its run
    disc = [v is not None for v in column_values(np.concatenate([x0[:h], x1[:h]]),
                                                 features.BINS)]
    k = len(disc)
    assert f.leads == tuple(j for j in range(k) if not disc[j] and j + 1 < k
                            and not disc[j + 1] and (j == 0 or disc[j - 1]))
    for a in (x0[h:], x1[h:]):
        got, want = f.groups(a), groups_reference(f, a)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype and g.shape == w.shape and g.flags.c_contiguous
            assert np.array_equal(g, w)
        for g, w in zip(f.groups(a, np.float64), want, strict=True):
            assert g.dtype == np.float64 and g.flags.c_contiguous
            assert np.array_equal(g, w.astype(np.float64))
        for c in f.coords:
            v = c.values(a)
            assert np.array_equal(c.cell(v), _cell_reference(c, v))
        if f.coords:
            ind = above_matrix(f.coords, a)
            want_ind = np.column_stack([c.above(c.values(a)) for c in f.coords])
            assert np.array_equal(ind.astype(np.float32), want_ind)
        assert {sc.kind for sc in scores} >= {"cells"}
        assert all(np.array_equal(c, w) for c, w in zip(
            f.cells(a), [_cell_reference(c, c.values(a)) for c in f.coords if not c.diff]
            + _block_cells_reference(f, a), strict=True))
        for sc in scores:
            got_s, want_s = sc(a), score_reference(sc, a)
            assert got_s.dtype == want_s.dtype
            assert np.array_equal(got_s, want_s), sc.label
            if sc.kind == "signs":
                ind, w = sc.signs(a)
                assert ind.dtype == np.float32
                want_ind = np.column_stack([c.above(c.values(a)) for c, _ in sc.counted()]) \
                    if sc.counted() else np.zeros((len(a), 0))
                assert np.array_equal(ind, want_ind)


def _cell_reference(c, v: np.ndarray) -> np.ndarray:
    out = len(c.atoms) + np.searchsorted(c.quartiles, v, side="right")
    for i, x in enumerate(c.atoms):
        out = np.where(v == x, i, out)
    return out


def test_quartile_cell_of_nan_is_the_last_as_searchsorted_puts_it():
    x = np.random.default_rng(0).laplace(size=(400, 2))
    f = StructureFeatures.fit(x[:200], x[200:] + 0.3)
    c = f.coords[0]
    v = np.array([np.nan, -np.inf, np.inf, 0.0, c.quartiles[0]])
    assert np.array_equal(c.cell(v), _cell_reference(c, v))


# --------------------------------------------------------------------------- batches
def test_normalise_without_copy_shares_a_float_array_and_keeps_its_values():
    raw = np.random.default_rng(1).random((50, 3))
    kept = normalise(raw, 50, copy=False)
    fresh = normalise(raw, 50)
    assert np.array_equal(kept, fresh)
    assert np.shares_memory(kept, raw) and not np.shares_memory(fresh, raw)
    ints = np.arange(50)
    assert normalise(ints, 50, copy=False).dtype == np.float64


@pytest.mark.parametrize("width", [20, 130])
def test_bit_blocks_with_many_patterns_equal_the_direct_computations(width):
    """RAPPOR-like outputs: one block of bits with more than ``MAX_PATTERNS`` patterns (one-hot
    per coordinate), 20 bits (counts by an int8 product) and 130 (by a reduction)."""
    rng = np.random.default_rng(width)
    x0 = (rng.random((3000, width)) < 0.45).astype(float)
    x1 = (rng.random((3000, width)) < 0.55).astype(float)
    f = StructureFeatures.fit(x0[:1500], x1[:1500])
    assert f is not None and f.blocks and f.blocks[0].patterns is None
    for a in (x0[1500:], x1[1500:]):
        for g, w in zip(f.groups(a), groups_reference(f, a), strict=True):
            assert g.dtype == w.dtype and np.array_equal(g, w)
    _check_structure_scores(x0, x1, 3)


# --------------------------------------------------------------------------- cell encoder
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 400), k=st.integers(2, 4),
       values=st.integers(1, 6), cells=st.integers(1, 40), prefix=st.integers(0, 30))
def test_cell_encoder_skips_the_row_sort_only_when_rows_are_many(seed, n, k, values, cells,
                                                                  prefix):
    """``make_encoder`` reads the first rows before sorting them all: the encoder is the one
    the full sort decides (exact cells when the distinct rows are few, else bins)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, values, size=(n, k)).astype(float)
    x[:, 0] += rng.random(n) * (rng.random(n) < 0.3)       # some continuous values
    h = n // 2
    old = events.MAX_EXACT_CELLS, events.PREFIX_ROWS
    try:
        events.MAX_EXACT_CELLS, events.PREFIX_ROWS = cells, 10**9      # the whole sort
        want = make_encoder(x[:h], x[h:])
        events.PREFIX_ROWS = prefix
        got = make_encoder(x[:h], x[h:])
    finally:
        events.MAX_EXACT_CELLS, events.PREFIX_ROWS = old
    assert type(got) is type(want)
    if isinstance(want, ValueEncoder):
        assert np.array_equal(got.values, want.values)
    else:
        assert got.cols == want.cols and got.exact == want.exact
        assert all(np.array_equal(a, b) for a, b in zip(got.edges, want.edges, strict=True))


def _coord_reference(pooled: np.ndarray, j: int, diff: bool):
    v = pooled[:, j] - pooled[:, j - 1] if diff else pooled[:, j]
    u, cnt = np.unique(v, return_counts=True)
    atoms = u[cnt >= features.ATOM_SHARE * len(v)]
    rest = v[~np.isin(v, atoms)] if len(atoms) else v
    if len(rest) == 0:
        rest = v
    med = float(np.median(rest))
    q = np.unique(np.quantile(rest, [0.25, 0.5, 0.75]))
    return atoms, med, q, float(v.mean()), float(v.std())


@settings(max_examples=40, deadline=None)
@given(data=outputs_pair())
def test_coordinate_statistics_from_the_sorted_values_are_the_same(data):
    x0, x1, _ = data
    pooled = np.concatenate([x0, x1])
    for j in range(pooled.shape[1]):
        for diff in (False, True) if j else (False,):
            c = features._coord(pooled, j, diff)
            atoms, med, q, mean, sd = _coord_reference(pooled, j, diff)
            assert np.array_equal(c.atoms, atoms) and np.array_equal(c.quartiles, q)
            assert c.median == med and c.mean == mean and c.sd == sd


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.one_of(st.sampled_from([0.0, 1.0, -2.5, np.nan]),
                                 st.floats(-1e3, 1e3, allow_nan=False)),
                       min_size=1, max_size=200))
def test_sorted_unique_is_numpys_unique(values) -> None:
    """``features._sorted_unique`` of a sorted array: ``np.unique`` with counts, NaNs as one."""
    sv = np.sort(np.asarray(values, dtype=float))
    u, c = features._sorted_unique(sv)
    ru, rc = np.unique(sv, return_counts=True)
    assert np.array_equal(u, ru, equal_nan=True)
    assert np.array_equal(c, rc)
