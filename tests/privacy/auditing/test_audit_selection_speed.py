"""The selection's shortcuts give the numbers of the direct computations (issue 42: the
selection's cost).  Each shortcut only skips work: ``distinct_outputs(limit=...)``, the atom
encoder's pre-filter of rows that cannot repeat, and the sign count summed column by column."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ltheory.privacy.auditing import outputs
from ltheory.privacy.auditing.events import make_atom_encoder
from ltheory.privacy.auditing.features import structure_scores
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
