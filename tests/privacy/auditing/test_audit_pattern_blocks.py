"""Issue 42: the pattern-block cell family (`PatternEncoder`) — one per block of few-valued
coordinates of a mixed vector output — scored two-fold, so that ordering its patterns and
counting them does not happen on the same runs."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.privacy.auditing.events import (
    SCREEN,
    CellEvent,
    PatternEncoder,
    _cell_candidates,
    _lr_order,
    _pick,
    _projected,
    _sizes,
    _split,
    candidate_families,
    credible_positions,
    lr_prefixes,
    make_pattern_encoders,
    screen_level,
)
from ltheory.privacy.auditing.outputs import (
    block_patterns,
    column_values,
    true_runs,
    unique_rows,
)


def _mixed(rng: np.random.Generator, n: int, even: float) -> np.ndarray:
    """Rows of (5 bits whose parity is even with probability ``even``, 3 continuous, 1 bit,
    1 continuous): the bits' joint pattern carries the signal, no marginal or pair does."""
    bits = rng.integers(0, 2, size=(n, 5)).astype(float)
    odd = bits[:, :4].sum(axis=1) % 2
    want = (rng.random(n) >= even).astype(float)          # 0: even parity wanted
    bits[:, 4] = (odd + want) % 2
    return np.column_stack([bits, rng.normal(size=(n, 3)), rng.integers(0, 2, size=n),
                            rng.normal(size=n)])


def test_pattern_blocks_are_the_runs_of_few_valued_coordinates() -> None:
    rng = np.random.default_rng(0)
    x0, x1 = _mixed(rng, 2000, 0.5), _mixed(rng, 2000, 0.5)
    encs = make_pattern_encoders(x0, x1)
    # the 5-bit block; the lone bit (column 8) is no block
    assert [e.cols for e in encs] == [(0, 1, 2, 3, 4)]
    assert all(isinstance(e, PatternEncoder) for e in encs)
    assert make_pattern_encoders(x0[:, :5], x1[:, :5]) == []     # all few-valued: whole cells
    assert make_pattern_encoders(x0[:, 5:8], x1[:, 5:8]) == []   # nothing few-valued
    assert make_pattern_encoders(x0[:, 0], x1[:, 0]) == []       # scalar output
    two = np.column_stack([x0[:, :5], x0[:, 5], x0[:, :2]])
    assert [e.cols for e in make_pattern_encoders(two, two)] == [(0, 1, 2, 3, 4), (6, 7)]
    codes = encs[0].encode(x0)
    assert len(np.unique(codes)) == 32


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), cells=st.integers(2, 12), n=st.integers(4, 60))
def test_twofold_counts_count_what_each_order_did_not_see(seed: int, cells: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    p0, p1 = rng.dirichlet(np.ones(cells)), rng.dirichlet(np.ones(cells))
    rows = [rng.choice(cells, size=(n, 1), p=p).astype(float) for p in (p0, p1, p0, p1)]
    rows = [np.column_stack([r, np.zeros(n)]) for r in rows]
    enc = PatternEncoder((0, 1), np.column_stack([np.arange(cells, dtype=float),
                                                  np.zeros(cells)]))
    fit, ev = (rows[0], rows[1]), (rows[2], rows[3])
    w0, w1, n_all, orders = lr_prefixes(enc, fit, ev, twofold=True)
    g0, g1, c0, c1 = (np.bincount(enc.encode(b), minlength=len(w0)).astype(float)
                      for b in (*fit, *ev))
    assert n_all == 2 * n and np.array_equal(w0, g0 + c0) and np.array_equal(w1, g1 + c1)
    seen = np.nonzero(w0 + w1)[0]
    for direction, order, pa, pb in orders:
        assert np.array_equal(order, _lr_order(w0, w1, seen, direction))
        oa, ob = _lr_order(g0, g1, seen, direction), _lr_order(c0, c1, seen, direction)
        for i in range(len(seen)):
            a, b = oa[: i + 1], ob[: i + 1]            # fit half's prefix, eval half's prefix
            on = (c0, c1, g0, g1) if direction == 0 else (c1, c0, g1, g0)
            assert pa[i] == on[0][a].sum() + on[2][b].sum()
            assert pb[i] == on[1][a].sum() + on[3][b].sum()
    # without a fit/eval split there is nothing to cross: the usual one-fold prefixes
    assert lr_prefixes(enc, fit, fit, twofold=True)[2] == n


def test_twofold_counts_carry_no_winners_curse_on_a_null_pair() -> None:
    """Identical distributions, 32 patterns: the prefix ordered and cut on the whole split
    reads a ratio above 1 on the runs that ordered it; the two-fold counts of that prefix
    length do not."""
    enc = PatternEncoder(tuple(range(5)),
                         np.array([[(k >> (4 - j)) & 1 for j in range(5)] for k in range(32)],
                                  dtype=float))
    insample, twofold = [], []
    for seed in range(60):
        rng = np.random.default_rng(seed)
        s0, s1 = _mixed(rng, 4000, 0.5), _mixed(rng, 4000, 0.5)
        (a0, b0), (a1, b1) = _split(s0), _split(s1)
        w0, w1, n_all, orders = lr_prefixes(enc, (a0, a1), (b0, b1), twofold=True)
        _, order, pa, pb = orders[0]
        wa, wb = np.cumsum(w0[order]), np.cumsum(w1[order])
        i = int(np.argmax((wa - wb) / np.sqrt(wa + wb)))    # the in-sample best prefix
        insample.append((wa[i] - wb[i]) / np.sqrt(wa[i] + wb[i]))
        twofold.append((pa[i] - pb[i]) / np.sqrt(pa[i] + pb[i]))
    insample, twofold = np.array(insample), np.array(twofold)
    se = twofold.std() / np.sqrt(len(twofold))
    assert insample.mean() > 1.5                      # the winner's curse of 32 ordered cells
    assert abs(twofold.mean()) < 3 * se + 0.1         # none in the two-fold counts


def test_the_family_deploys_the_whole_split_prefix_scored_by_twofold_counts() -> None:
    rng = np.random.default_rng(3)
    s0, s1 = _mixed(rng, 40_000, 0.7), _mixed(rng, 40_000, 0.5)
    blocks = candidate_families(s0, s1)(360_000, 0.0125, 0.0, 0.02)
    mine = [b for b in blocks if isinstance(b.make(0, True).event, CellEvent)
            and isinstance(b.make(0, True).event.encoder, PatternEncoder)]
    assert len(mine) == 2                              # the block, in both directions
    b = max(mine, key=lambda b: float(np.max(b.proj)))
    i = int(np.argmax(b.proj))
    c = b.make(i, True, among=np.ones(len(b.proj), dtype=bool))
    # odd parity: 0.5 under d1 against 0.3 under d0, the larger ratio (5/3 against 7/5)
    assert c.direction == 1 and c.projected == b.proj[i] > 0.2
    # the event: odd-parity patterns only (of equal ratio: the cut on the whole selection
    # split keeps those whose counts read highest), ordered and cut on every selection run
    codes = c.event.encoder.encode(s0)
    odd = set(np.unique(codes[s0[:, :5].sum(axis=1) % 2 == 1]).tolist())
    assert len(odd) == 16 and set(c.event.cells.tolist()) <= odd and len(c.event.cells) >= 4
    # scored by the two-fold counts, out of every selection run
    assert c.sel_n == len(s0) and c.sel_counts == (int(b.cb[i]), int(b.ca[i]))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), even=st.sampled_from([0.5, 0.52, 0.6]),
       data=st.data())
def test_the_whole_split_cut_is_deployed_only_among_the_positions_passed(
        seed: int, even: float, data: st.DataObject) -> None:
    """The family deploys the whole split's best prefix among the positions it is handed
    (``among``: those the screen passed) whose two-fold counts project a positive bound,
    position i itself always allowed; handed none, position i's own length."""
    rng = np.random.default_rng(seed)
    s0, s1 = _mixed(rng, 3000, even), _mixed(rng, 3000, 0.5)
    (a0, b0), (a1, b1) = _split(s0), _split(s1)
    enc = make_pattern_encoders(a0, a1)[0]
    n_cert, a_each = 27_000, 0.0125
    blocks: list = []
    _cell_candidates((a0, a1), (b0, b1), n_cert, a_each, 0.0, blocks, enc, "binomial", 0.16)
    w0, w1, n_all, orders = lr_prefixes(enc, (a0, a1), (b0, b1), twofold=True)
    for b, (direction, order, _, _) in zip(blocks, orders, strict=True):
        wa, wb = (w0, w1) if direction == 0 else (w1, w0)
        whole = _projected(np.cumsum(wa[order]), np.cumsum(wb[order]), n_all, n_cert, a_each,
                           0.0, "binomial", 0.16)
        among = np.array(data.draw(st.lists(st.booleans(), min_size=len(order),
                                            max_size=len(order))))
        for i in {0, int(np.argmax(b.proj)), len(order) - 1}:
            assert np.array_equal(b.make(i, True).event.cells, np.sort(order[:i + 1]))
            ok = among & (b.proj > 0)
            ok[i] = True
            cut = int(np.argmax(np.where(ok, whole, -np.inf)))
            c = b.make(i, True, among=among)
            assert np.array_equal(c.event.cells, np.sort(order[:cut + 1]))
            assert c.projected == b.proj[i]                     # scored at i either way


def test_a_chance_short_prefix_the_screen_did_not_pass_is_not_deployed() -> None:
    """The selection deploys a pattern block's whole-split cut only at a position the
    credibility screen passed: on a weak signal a short prefix whose in-sample ratio is the
    winner's curse of ordering and cutting on the same runs (NumericalSVT at 2·10^6, seed 7:
    3 patterns of 56, certified 0) stays a candidate for nothing."""
    checked = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        s0, s1 = _mixed(rng, 6000, 0.56), _mixed(rng, 6000, 0.5)
        (a0, b0), (a1, b1) = _split(s0), _split(s1)
        enc = make_pattern_encoders(a0, a1)[0]
        blocks: list = []
        _cell_candidates((a0, a1), (b0, b1), 54_000, 0.0125, 0.0, blocks, enc, "binomial",
                         0.16)
        n_pos, n_fam = _sizes(blocks)
        for c in _pick(blocks, 0.0, SCREEN):
            b = blocks[c.direction]
            mask = credible_positions(b.ca, b.cb, b.n_ev, 0.0,
                                      screen_level(SCREEN, len(b.proj), n_pos, n_fam))
            size = len(c.event.cells)
            if c.credible:
                checked += 1
                assert mask[size - 1]                  # a length the screen passed
            else:                                      # nothing credible: its own length
                assert np.isclose(c.projected, b.proj[size - 1])
    assert checked >= 3

@settings(max_examples=60, deadline=None)
@given(flags=st.lists(st.booleans(), max_size=30))
def test_true_runs_are_the_maximal_runs(flags: list[bool]) -> None:
    runs = true_runs(flags)
    covered = [False] * len(flags)
    for a, b in runs:
        assert a < b and all(flags[a:b])
        assert (a == 0 or not flags[a - 1]) and (b == len(flags) or not flags[b])
        covered[a:b] = [True] * (b - a)
    assert covered == flags


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 400), k=st.integers(1, 6),
       values=st.integers(1, 20), head=st.integers(1, 50), nan=st.booleans())
def test_column_values_and_block_patterns_are_the_distinct_values_and_rows(
        seed: int, n: int, k: int, values: int, head: int, nan: bool) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, values, size=(n, k)).astype(float) - 0.0
    if nan:
        x[rng.random((n, k)) < 0.1] = np.nan
    vals = column_values(x, 8, head=head)
    for j, v in enumerate(vals):
        u = np.unique(x[:, j])
        assert (v is None) == (len(u) > 8)
        if v is not None:
            assert np.array_equal(v, u, equal_nan=True)
    if all(v is not None for v in vals):
        for limit in (3, 4096):
            rows = block_patterns(x, vals, limit)
            want = unique_rows(x)
            assert (rows is None) == (len(want) > limit)
            if rows is not None:
                assert np.array_equal(rows, want, equal_nan=True)


def test_a_long_block_of_many_values_is_coded_without_overflow() -> None:
    """14 coordinates of up to 16 values each (17^14 ≈ 10^17 codes in mixed radix, 808 PiB
    of counts before the encoder numbered the patterns it saw) from 60 patterns: 60 cells."""
    rng = np.random.default_rng(0)
    pats = rng.integers(0, 16, size=(60, 14)).astype(float)

    def runs(n: int) -> np.ndarray:
        return np.column_stack([pats[rng.integers(0, 60, size=n)], rng.normal(size=n)])

    s0, s1 = runs(4000), runs(4000)
    (a0, b0), (a1, b1) = _split(s0), _split(s1)
    enc, = make_pattern_encoders(a0, a1)
    assert enc.cols == tuple(range(14)) and len(enc.patterns) == 60
    w0, w1, n_all, orders = lr_prefixes(enc, (a0, a1), (b0, b1), twofold=True)
    assert len(w0) == 60 and w0.sum() == len(s0) and n_all == len(s0)
    # 20 coordinates of 16 values: no mixed radix fits an int64 (16^20 ≈ 10^24)
    wide = rng.integers(0, 16, size=(60, 20)).astype(float)
    wide = wide[np.unique(wide, axis=0, return_index=True)[1]]
    vals = column_values(wide, 16)
    assert math.prod(len(v) for v in vals) >= 2**62
    assert np.array_equal(block_patterns(wide, vals, 4096), unique_rows(wide))
    assert block_patterns(wide, vals, len(wide) - 1) is None
    enc = PatternEncoder(tuple(range(20)), unique_rows(wide))
    assert sorted(enc.encode(wide).tolist()) == list(range(len(wide)))
