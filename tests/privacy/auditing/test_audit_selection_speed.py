"""The selection's shortcuts give the numbers of the direct computations (issue 42: the
selection's cost).  Each shortcut only skips work: ``distinct_outputs(limit=...)``, the atom
encoder's pre-filter of rows that cannot repeat, and the sign count summed column by column."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ltheory.privacy.auditing import outputs
from ltheory.privacy.auditing.events import (
    MAX_THRESHOLDS,
    _repeat_candidates,
    isolated_cuts,
    make_atom_encoder,
    tail_ranks,
    threshold_cuts,
    threshold_grid,
)
from ltheory.privacy.auditing.features import StructureFeatures, as_float, structure_scores
from ltheory.privacy.auditing.memo import memoized, selection_memo
from ltheory.privacy.auditing.outputs import distinct_outputs, unique_rows

rows = st.integers(1, 3).flatmap(lambda k: arrays(
    np.float64, st.tuples(st.integers(1, 60), st.just(k)),
    elements=st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, np.nan])))


@settings(max_examples=80, deadline=None)
@given(x=rows, limit=st.integers(1, 5), prefix=st.integers(0, 8))
def test_distinct_outputs_limit_is_exact_up_to_the_limit(x, limit, prefix):
    full = distinct_outputs(x[: len(x) // 2], x[len(x) // 2:])
    old = outputs.PREFIX_ROWS
    outputs.PREFIX_ROWS = prefix             # short prefixes, so the early exit is exercised
    try:
        got = distinct_outputs(x[: len(x) // 2], x[len(x) // 2:], limit=limit)
    finally:
        outputs.PREFIX_ROWS = old
    assert (got > limit) == (full > limit)
    if full <= limit:
        assert got == full


@settings(max_examples=80, deadline=None)
@given(x=rows.filter(lambda a: a.shape[1] >= 2))
def test_atom_encoder_prefilter_keeps_every_repeated_row(x):
    h = len(x) // 2
    enc = make_atom_encoder(x[:h], x[h:])
    u, c = unique_rows(x, return_counts=True)
    want = u[c >= 2]
    if not len(want):
        assert enc is None
        return
    assert enc is not None
    got = enc.values
    assert got.shape == want.shape
    assert np.array_equal(np.nan_to_num(got, nan=7.0), np.nan_to_num(want, nan=7.0))


def test_repeat_prefilter_drops_every_row_holding_a_released_value():
    """A sparse vector's rows: 0 where a query was not released, a continuous value where it
    was.  Only the rows that released nothing can repeat, and the key over all columns keeps
    exactly those — the most varied column alone also kept every row that released another
    query."""
    rng = np.random.default_rng(3)
    x = np.zeros((5_000, 6))
    hit = rng.integers(-1, 6, size=len(x))               # −1: nothing released
    rows = np.flatnonzero(hit >= 0)
    x[rows, hit[rows]] = rng.normal(size=len(rows))
    kept = _repeat_candidates(x)
    assert len(kept) == int(np.count_nonzero(hit < 0))
    assert not kept.any()


def test_continuous_rows_have_no_atoms_and_are_not_few():
    rng = np.random.default_rng(3)
    x = rng.laplace(size=(50_000, 20))
    assert make_atom_encoder(x[:25_000], x[25_000:]) is None
    assert distinct_outputs(x[:25_000], x[25_000:], limit=64) > 64
    x[7] = x[11] = x[40_000]                 # one row three times
    enc = make_atom_encoder(x[:25_000], x[25_000:])
    assert enc is not None and np.array_equal(enc.values, x[7:8])


def test_sign_count_score_equals_indicators_times_signs():
    rng = np.random.default_rng(5)
    x0 = rng.laplace(size=(4_000, 6))
    x1 = rng.laplace(size=(4_000, 6)) + np.array([0.3, -0.3, 0.3, 0.0, -0.3, 0.3])
    x0[:300, 2] = 0.0                        # an atom on one coordinate
    scores, _ = structure_scores(x0, x1)
    signs = [s for s in scores if s.kind == "signs"]
    assert signs
    for s in signs:
        ind, w = s.signs(x1)
        assert np.array_equal(s(x1), ind @ w)


def _match_by_sorting(values, rows):
    """match_rows' general path: one sort of the row keys."""
    key = outputs.row_keys(np.concatenate([values, rows]))
    kv, kr = key[: len(values)], key[len(values):]
    order = np.argsort(kv, kind="stable")
    sk = kv[order]
    i = np.clip(np.searchsorted(sk, kr), 0, len(sk) - 1)
    return np.where(sk[i] == kr, order[i], -1).astype(np.int64)


@settings(max_examples=150, deadline=None)
@given(x=rows, y=st.data())
def test_match_rows_by_columns_equals_sorting(x, y):
    """The column lookup matches rows as values (−0.0 = 0.0, NaN = NaN), as the sort does."""
    values = unique_rows(x)
    other = y.draw(arrays(np.float64, st.tuples(st.integers(1, 40), st.just(x.shape[1])),
                          elements=st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, 7.0, np.nan])))
    assert np.array_equal(outputs.match_rows(values, other), _match_by_sorting(values, other))


@settings(max_examples=150, deadline=None)
@given(u=st.lists(st.sampled_from([-3.0, -1.0, 0.0, 0.5, 1.0, 2.0, 4.0, 9.0, 11.0, np.nan]),
                  min_size=1, max_size=10),
       x=arrays(np.float64, st.tuples(st.integers(1, 30), st.integers(1, 4)),
                elements=st.sampled_from([-5.0, -3.0, -0.0, 0.0, 0.25, 1.0, 3.0, 11.0, 20.0,
                                          np.nan])))
def test_value_index_by_comparisons_equals_the_binary_search(u, x):
    """Few values: the count of values below each entry (NaN where the search puts it), the
    clipped binary search's index exactly — entries among the values, between them, beyond
    both ends and NaN, with and without NaN among the values."""
    u = np.unique(np.asarray(u))
    ref = np.minimum(np.searchsorted(u, x), len(u) - 1)
    assert np.array_equal(outputs._value_index(u, x), ref)


@settings(max_examples=80, deadline=None)
@given(x=rows, head=st.integers(1, 8), ints=st.booleans())
def test_unique_rows_head_path_equals_sorting_every_row(x, head, ints):
    """`unique_rows` looks most rows up among the first rows' patterns: the same rows (first
    occurrences, so -0.0 and 0.0 as the sort gives them), order and counts as sorting all."""
    if ints:
        x = np.nan_to_num(x).astype(np.int64)
    old = outputs.HEAD_ROWS
    outputs.HEAD_ROWS = head                 # a short head, so the path and its misses run
    try:
        got, counts = unique_rows(x, return_counts=True)
    finally:
        outputs.HEAD_ROWS = old
    _, first, want_counts = np.unique(outputs.row_keys(x), return_index=True,
                                      return_counts=True)
    want = x[first]
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    assert np.array_equal(counts, want_counts)


def _grid_sorting_three_times(v: np.ndarray) -> np.ndarray:
    """``threshold_grid`` as it was before one sort served it (np.unique, np.sort, quantiles)."""
    grid = np.unique(v)
    if len(grid) <= MAX_THRESHOLDS:
        return grid
    s = np.sort(v)
    r = tail_ranks(len(s), 2 * len(s) // MAX_THRESHOLDS + 1)
    mid = np.quantile(s, np.linspace(0, 1, MAX_THRESHOLDS))
    return np.unique(np.concatenate([mid, s[len(s) - r], s[r - 1]]))


values = st.one_of(
    arrays(np.float64, st.integers(1, 300), elements=st.sampled_from([0.0, 1.0, -2.0, np.nan])),
    st.integers(0, 2**32 - 1).map(
        lambda s: np.random.default_rng(s).laplace(size=int(np.random.default_rng(s)
                                                            .integers(4001, 30_000)))),
    st.integers(0, 2**32 - 1).map(lambda s: np.round(np.random.default_rng(s).normal(
        size=20_000), 2)))


@settings(max_examples=40, deadline=None)
@given(v=values)
def test_threshold_grid_from_one_sort_equals_the_three_sorts(v):
    assert np.array_equal(threshold_grid(v), _grid_sorting_three_times(v), equal_nan=True)
    if not np.isnan(v).any():
        a, b = threshold_cuts(v), threshold_cuts(np.sort(v), presorted=True)
        assert np.array_equal(a[0], b[0]) and a[1] == b[1]
        assert isolated_cuts(np.sort(v), 9, presorted=True) == isolated_cuts(v, 9)


def test_memoized_keeps_one_value_per_owner_and_batch_inside_the_block_only():
    calls: list[int] = []
    x, y, owner = np.zeros(3), np.zeros(3), object()

    def f() -> list[int]:
        calls.append(1)
        return [len(calls)]

    assert memoized("t", owner, x, f) == [1] and memoized("t", owner, x, f) == [2]
    with selection_memo():
        first = memoized("t", owner, x, f)
        with selection_memo():                       # an inner block shares the store
            assert memoized("t", owner, x, f) is first
        assert memoized("t", owner, y, f) is not first      # another batch
        assert memoized("u", owner, x, f) is not first      # another tag
    assert memoized("t", owner, x, f) is not first          # released with the block


def test_pattern_ids_inside_a_selection_are_computed_once_and_read_only():
    rng = np.random.default_rng(3)
    x0 = np.hstack([rng.integers(0, 2, size=(4000, 4)).astype(float), rng.normal(size=(4000, 2))])
    x1 = np.hstack([rng.integers(0, 2, size=(4000, 4)).astype(float), rng.normal(size=(4000, 2))])
    feats = StructureFeatures.fit(x0, x1)
    assert feats is not None and feats.blocks and feats.blocks[0].patterns is not None
    bl = feats.blocks[0]
    plain = bl.pattern_ids(x0)
    with selection_memo():
        a = bl.pattern_ids(x0)
        assert bl.pattern_ids(as_float(x0)) is a and not a.flags.writeable
        ints = x0.astype(np.int64)                   # another batch: converted once, then kept
        assert bl.pattern_ids(as_float(ints)) is bl.pattern_ids(as_float(ints))
    assert np.array_equal(a, plain) and bl.pattern_ids(x0) is not a
    # every score gives the same values inside a selection (memoized) and outside
    scores, _ = structure_scores(x0, x1)
    outside = [s(x1) for s in scores]
    with selection_memo():
        assert all(np.array_equal(s(x1), o) for s, o in zip(scores, outside, strict=True))
