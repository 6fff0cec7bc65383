"""k-wise independent linear colourings (ltheory.graphs.colourings) against brute force."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ltheory.graphs.colourings import IRREDUCIBLE, bch_vectors, gf_mul, independent_up_to


def _polymod(a: int, b: int) -> int:
    db = b.bit_length() - 1
    while a and a.bit_length() - 1 >= db:
        a ^= b << (a.bit_length() - 1 - db)
    return a


@pytest.mark.parametrize("s", sorted(IRREDUCIBLE))
def test_polynomials_are_irreducible(s: int) -> None:
    p = IRREDUCIBLE[s]
    assert p.bit_length() - 1 == s
    for d in range(1, s // 2 + 1):
        assert all(_polymod(p, q) for q in range(1 << d, 1 << (d + 1)))


def test_gf_multiplication_is_a_field_for_small_s() -> None:
    for s in range(1, 8):
        for a in range(1, 1 << s):          # every non-zero element has an inverse
            assert any(gf_mul(a, b, s) == 1 for b in range(1, 1 << s))


def _dependent_brute(vectors: list[int], k: int) -> bool:
    for size in range(1, k + 1):
        for A in itertools.combinations(range(len(vectors)), size):
            x = 0
            for i in A:
                x ^= vectors[i]
            if x == 0:
                return True
    return False


@given(st.lists(st.integers(0, 63), min_size=1, max_size=9), st.integers(1, 5))
def test_meet_in_the_middle_agrees_with_brute_force(vectors: list[int], k: int) -> None:
    found = independent_up_to(vectors, k)
    assert (found is not None) == _dependent_brute(vectors, k)
    if found is not None:          # the reported set is a real dependency of size <= k
        x = 0
        for i in found:
            x ^= vectors[i]
        assert x == 0 and 1 <= len(found) <= k


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 33, 100, 300])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_bch_vectors_are_k_wise_independent_and_short(n: int, k: int) -> None:
    if k > n:
        return
    vecs = bch_vectors(n, k)
    assert len(vecs) == n and independent_up_to(vecs, k) is None
    r = max(v.bit_length() for v in vecs)
    assert r <= min(n, 1 + (k // 2) * n.bit_length())


def test_labellings_are_exactly_k_wise_uniform() -> None:
    """On every k points, each of the 2^k patterns occurs 2^(r-k) times among the g_a."""
    n, k = 9, 3
    vecs = bch_vectors(n, k)
    r = max(v.bit_length() for v in vecs)
    for T in itertools.combinations(range(n), k):
        counts: dict[tuple[int, ...], int] = {}
        for a in range(1 << r):
            pat = tuple(bin(a & vecs[x]).count("1") % 2 for x in T)
            counts[pat] = counts.get(pat, 0) + 1
        assert len(counts) == 2 ** k and set(counts.values()) == {2 ** (r - k)}
