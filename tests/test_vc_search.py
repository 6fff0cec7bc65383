"""Internals of the VC search: both cell-counting paths, the beam's inherited candidates, codes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory import HypothesisClass, catalog
from ltheory.catalog import planted_points
from ltheory.dims import symmetry, vc
from ltheory.dims.budget import Budget
from ltheory.dims.certificates import verify
from tests.reference import shatters, vc_reference


def _class(seed: int, m: int, n: int) -> HypothesisClass:
    rng = np.random.default_rng(seed)
    return HypothesisClass.from_matrix((rng.random((m, n)) < 0.5).astype(np.uint8), domain=n)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 200), st.integers(1, 20), st.integers(0, 9))
def test_matrix_product_and_sorted_counts_agree(seed: int, m: int, n: int, k: int) -> None:
    H = _class(seed, m, n)
    s = vc._VCSearch(H, None)
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 1 << k, len(H)).astype(vc._code_dtype(k))
    cand = np.flatnonzero(rng.random(n) < 0.7)
    sizes, ones = s._cell_counts(codes, k, cand)
    want = np.zeros((1 << k, len(cand)), dtype=np.int64)
    for h, c in enumerate(codes):
        want[c] += H.matrix[h, cand]
    assert (sizes == np.bincount(codes, minlength=1 << k)).all()
    assert (ones == want).all()


def test_sorted_counting_path_is_used_past_the_one_hot_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vc, "_ONE_HOT_CELLS", 0)  # force numpy.add.reduceat for every k
    for seed in range(20):
        H = _class(seed, 40, 7)
        r = vc.vc_exact(H)
        assert r.value == vc_reference(H)
        verify(H, r)


def _beam_reference(s: vc._VCSearch, width: int, target: int) -> list[int]:
    """The beam one set at a time (the per-set counts of the exhaustive search): the reference
    for the block-counted beam."""
    M, n = s.M, s.M.shape[1]
    level = [((), np.zeros(len(M), dtype=np.int64), np.arange(n))]
    best: tuple[int, ...] = ()
    for k in range(n):
        need = 1 << max(target - k - 1, 0)
        found = []
        for i, (_, codes, cand) in enumerate(level):
            sizes, ones = s._cell_counts(codes, k, cand)
            zeros = sizes[:, None] - ones
            ok = np.minimum(ones, zeros).min(axis=0) >= need
            sc = (ones * ones + zeros * zeros).sum(axis=0)
            found += [(int(sc[j]), i, int(cand[j]), cand[ok]) for j in np.flatnonzero(ok)]
        if not found:
            break
        nxt, seen = [], set()
        for _, i, y, passed in sorted(found, key=lambda t: t[0]):   # stable: ties in order
            key = tuple(sorted(level[i][0] + (y,)))
            if key not in seen:
                seen.add(key)
                nxt.append((key, level[i][1] * 2 + M[:, y], passed[passed != y]))
            if len(nxt) >= width:
                break
        level = nxt
        best = level[0][0]
    return list(best)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 300), st.integers(1, 14),
       st.integers(1, 64), st.integers(0, 9))
def test_block_counted_beam_equals_the_per_set_beam(seed: int, m: int, n: int, width: int,
                                                    target: int) -> None:
    H = _class(seed, m, n)
    a, b = vc._VCSearch(H, None), vc._VCSearch(H, None)
    assert a.beam(width, target) == _beam_reference(b, width, target)


def test_block_counted_beam_on_the_planted_family(monkeypatch: pytest.MonkeyPatch) -> None:
    # small blocks, so a level spans several sparse products
    monkeypatch.setattr(vc, "_BLOCK_ENTRIES", 1 << 14)
    H = catalog.from_spec("planted m=1024 n=60 d=9 p=0.5 seed=11")
    a, b = vc._VCSearch(H, None), vc._VCSearch(H, None)
    assert a.beam(64, 9) == _beam_reference(b, 64, 9)


def test_block_counted_beam_in_float64(monkeypatch: pytest.MonkeyPatch) -> None:
    # 4,096 hypotheses or more: the block counts switch to float64 (float32 sums of squares of
    # up to m^2 would pass 2^24); small blocks so a level spans several products
    monkeypatch.setattr(vc, "_BLOCK_ENTRIES", 1 << 12)
    H = _class(5, 6000, 14)
    assert len(H) >= 4096
    a, b = vc._VCSearch(H, None), vc._VCSearch(H, None)
    assert a._block_counts(np.zeros((1, len(H)), dtype=np.int16), 0)[0].dtype == np.float64
    assert a.beam(8, 12) == _beam_reference(b, 8, 12)


def test_beam_returns_shattered_sets_and_finds_a_planted_set() -> None:
    H = catalog.from_spec("planted m=1024 n=60 d=9 p=0.5 seed=0")
    s = vc._VCSearch(H, Budget(None))
    rows = frozenset(tuple(int(b) for b in r) for r in H.matrix)
    for width in (1, 16):
        S = s.beam(width, 9)
        assert len(S) >= 6 and shatters(rows, tuple(S))
    # the benchmark's seed 0: width 256 finds the planted set
    assert sorted(s.beam(256, 9)) == planted_points(1024, 60, 9, 0.5, 0)


def test_code_type_never_overflows() -> None:
    assert vc._code_dtype(14) == np.int16 and np.iinfo(np.int16).max >= (1 << 15) - 1
    assert vc._code_dtype(15) == np.int64


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 120), st.integers(2, 12), st.integers(0, 3),
       st.floats(0.2, 0.8))
def test_last_pair_step_finds_exactly_the_completing_pairs(
        seed: int, m: int, n: int, k: int, p: float) -> None:
    """The two-point step (one product per cell) against the definition: it returns a pair
    iff some pair of candidates completes the first k points to a shattered set, and the
    pair it returns does."""
    rng = np.random.default_rng(seed)
    H = HypothesisClass.from_matrix((rng.random((m, n)) < p).astype(np.uint8), domain=n)
    k = min(k, n - 2)
    s = vc._VCSearch(H, None)
    S = list(range(k))
    codes = np.zeros(len(H), dtype=np.int64)
    for x in S:
        codes = codes * 2 + H.matrix[:, x]
    cand = np.arange(k, n)
    rows = frozenset(tuple(int(b) for b in r) for r in H.matrix)
    want = [(y, z) for i, y in enumerate(cand.tolist()) for z in cand[i + 1:].tolist()
            if shatters(rows, tuple(S + [y, z]))]
    got = s._last_pair(codes, k, cand)
    assert (got is None) == (not want)
    if got is not None:
        assert shatters(rows, tuple(S + got))


def test_exact_vc_of_halfspaces_on_a_grid_and_conjunctions() -> None:
    """Refutations through the two-point step: halfplanes on a 6 x 6 grid (VC 3, Radon), and
    conjunctions n = 5 (VC 5, Natschlaeger and Schmitt 1996)."""
    for spec, want in (("halfspaces g=6 dim=2", 3), ("conjunctions n=5", 5)):
        H = catalog.from_spec(spec)
        r = vc.vc_exact(H)
        assert r.exact and r.value == want
        verify(H, r)


# ------------------------------------------------------------------------- symmetry
def _closed_under(seed: int, m: int, n: int, cycle: int) -> HypothesisClass:
    """A random class closed under the rotation of its first ``cycle`` points (so its
    automorphism group is nontrivial)."""
    rng = np.random.default_rng(seed)
    M = (rng.random((m, n)) < 0.5).astype(np.uint8)
    perm = np.arange(n)
    perm[:cycle] = np.roll(np.arange(cycle), 1)
    rows, cur = [M], M
    for _ in range(cycle - 1):
        cur = cur[:, perm]
        rows.append(cur)
    return HypothesisClass.from_matrix(np.unique(np.vstack(rows), axis=0), domain=n)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 30), st.integers(3, 9), st.integers(2, 6))
def test_symmetric_search_agrees_with_brute_force(seed: int, m: int, n: int, cycle: int) -> None:
    H = _closed_under(seed, m, n, min(cycle, n))
    sym = symmetry.point_symmetry(H)
    M = H.matrix
    rows = {r.tobytes() for r in M}
    for g in sym.generators:  # every generator kept is an automorphism of H
        assert {r.tobytes() for r in M[:, list(g)]} == rows
    for x, o in enumerate(sym.orbits):
        assert o <= x and sym.orbits[o] == o
    want = vc_reference(H)
    for flag in (True, False):
        r = vc.vc_exact(H, symmetry=flag)
        assert r.exact and r.value == want
        verify(H, r)


def test_point_symmetry_of_grids_and_conjunctions() -> None:
    """Halfplanes on a 4 x 4 grid: the square's 8 symmetries, 3 point orbits (corners, edge
    points, centre points); conjunctions n = 4: one orbit (bit flips and coordinate
    permutations act transitively on {0,1}^4)."""
    s = symmetry.point_symmetry(catalog.from_spec("halfspaces g=4 dim=2"))
    assert s.order == 8 and s.complete and len(s.representatives()) == 3
    s = symmetry.point_symmetry(catalog.from_spec("conjunctions n=4"))
    assert s.complete and s.representatives() == [0]
    r = vc.vc_exact(catalog.from_spec("halfspaces g=6 dim=2"))
    assert r.value == 3 and r.stats["symmetry"]["order"] == 8


def test_symmetry_argument_is_checked() -> None:
    from ltheory.errors import InvalidInputError
    with pytest.raises(InvalidInputError, match="symmetry"):
        vc.vc_exact(_class(0, 8, 4), symmetry="yes")  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.integers(3, 8), st.integers(2, 8))
def test_exhaustive_find_with_orbits_matches_brute_force_for_every_size(
        seed: int, m: int, n: int, cycle: int) -> None:
    """The exhaustive step alone (no heuristics to hide a miss): with the class's symmetry and
    without, ``find(d)`` returns a shattered d-set iff one exists, for every d -- also when the
    group is transitive (one orbit) and across restarts that skip exhausted branches."""
    H = _closed_under(seed, m, n, min(cycle, n))
    rows = frozenset(tuple(int(b) for b in r) for r in H.matrix)
    true = vc_reference(H)
    for sym in (symmetry.point_symmetry(H), None):
        s = vc._VCSearch(H, None)
        s.symmetry = sym
        s.group = sym.permutation_group() if sym is not None else None
        for d in range(1, n + 1):
            got = s.find(d)
            assert (got is not None) == (d <= true)
            if got is not None:
                assert len(set(got)) == d and shatters(rows, tuple(got))
        for d in range(1, n + 1):  # a second round reuses the exhausted branches
            assert (s.find(d) is not None) == (d <= true)


def _closed_under_group(seed: int, m: int, n: int, k: int, p: float) -> HypothesisClass:
    """A random class closed under every permutation of its first k points (the symmetric
    group S_k, generated by a k-cycle and a transposition): its automorphism group has
    nontrivial stabilisers of one, two, ... points, so the search prunes below the root."""
    rng = np.random.default_rng(seed)
    M = (rng.random((m, n)) < p).astype(np.uint8)
    cycle, swap = np.arange(n), np.arange(n)
    cycle[:k] = np.roll(np.arange(k), 1)
    swap[[0, 1]] = [1, 0]
    rows = {r.tobytes(): r for r in M}
    frontier = list(rows.values())
    while frontier:
        new = []
        for r in frontier:
            for p in (cycle, swap):
                img = r[p]
                if img.tobytes() not in rows:
                    rows[img.tobytes()] = img
                    new.append(img)
        frontier = new
    return HypothesisClass.from_matrix(np.array(list(rows.values())), domain=n)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 12), st.integers(3, 8), st.integers(2, 5),
       st.floats(0.1, 0.9))
def test_exhaustive_find_with_stabilisers_matches_brute_force(
        seed: int, m: int, n: int, k: int, p: float) -> None:
    """Orbits of the stabiliser of the points chosen so far (one child per orbit below the
    root): ``find(d)`` still returns a shattered d-set iff one exists, for every d."""
    H = _closed_under_group(seed, m, n, min(k, n), p)
    rows = frozenset(tuple(int(b) for b in r) for r in H.matrix)
    true = vc_reference(H)
    sym = symmetry.point_symmetry(H)
    s = vc._VCSearch(H, None)
    s.symmetry, s.group = sym, sym.permutation_group()
    for d in range(1, n + 1):
        got = s.find(d)
        assert (got is not None) == (d <= true)
        if got is not None:
            assert len(set(got)) == d and shatters(rows, tuple(got))


def test_stabilisers_prune_the_search_on_the_cube_grid() -> None:
    """Halfspaces on the 3 x 3 x 3 grid (VC 4 = dim + 1): the centre point's stabiliser is
    the cube's whole group of order 48, so the refutation of 5-sets visits fewer nodes with
    stabilisers than with the root orbits alone, and both refute."""
    H = catalog.from_spec("halfspaces g=3 dim=3")
    sym = symmetry.point_symmetry(H)
    nodes = {}
    for use in (True, False):
        s = vc._VCSearch(H, None)
        s.symmetry = sym
        s.group = sym.permutation_group() if use else None
        assert s.find(5) is None
        found = s.find(4)
        assert found is not None and shatters(frozenset(map(tuple, H.matrix.tolist())),
                                              tuple(found))
        nodes[use] = s.nodes
    assert nodes[True] < nodes[False]


def test_point_symmetry_survives_a_group_order_past_float_range() -> None:
    """Parities n = 8: every pair of the 256 points co-occurs equally often, so nauty's group
    of the co-occurrence graph is a symmetric group of order ~10^504 (it used to raise
    OverflowError); its generators fail verification on H, leaving the trivial group."""
    s = symmetry.point_symmetry(catalog.from_spec("parities n=8"))
    assert s.order == float("inf") and not s.complete and s.generators == ()
    assert s.permutation_group() is None


def test_exact_integer_counts_when_the_float_product_is_not_trusted(monkeypatch) -> None:
    """When a float32 product comes back non-finite (``vc._product`` returns None), the
    search counts in integers instead, and the answers are unchanged."""
    Hs = [_class(seed, 40, 8) for seed in range(6)] + [catalog.from_spec("halfspaces g=4 dim=2")]
    want = [vc.vc_exact(H).value for H in Hs]
    monkeypatch.setattr(vc, "_product", lambda A, B: None)
    for H, w in zip(Hs, want, strict=True):
        r = vc.vc_exact(H)
        assert r.exact and r.value == w == vc_reference(H)
        verify(H, r)
