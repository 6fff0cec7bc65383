"""Linear colourings: a compact fractional colouring of total 2^k of every contradiction graph.

For vectors v_x ∈ GF(2)^r, one per domain point, the labellings g_a(x) = ⟨a, v_x⟩ (a ∈ GF(2)^r)
are *k-wise independent* when every k of the vectors are linearly independent: then on any k
points the map a ↦ (g_a(x))_x is onto GF(2)^k with fibres of size 2^(r-k), so each labelling of k
points is consistent with exactly 2^(r-k) of the g_a.  Weighting each independent set I_{g_a}
(the samples consistent with g_a) by 2^k / 2^r therefore covers every vertex of the reduced
contradiction graph G'_m (labellings of k = min(m, |X|) distinct points) exactly once, with
total 2^k: a fractional colouring proving ω*_m ≤ 2^k (seed 002 §5; Alon, Moran, Schefler,
Yehudayoff 2024).  All labellings of X (v_x the unit vectors) is the special case r = |X|.

The vectors are the columns of the parity-check matrix of an extended binary BCH code
(MacWilliams and Sloane 1977, ch. 7 and 9): with α_x distinct non-zero elements of GF(2^s),
v_x = (1, α_x, α_x^3, ..., α_x^(2t-1)), any 2t columns of the BCH part are independent (designed
distance 2t + 1) and the all-ones row makes any 2t + 1 independent (an odd dependency would sum
the ones to 1).  So k ≤ 2t + 1 needs r = 1 + t·s bits with s = ⌈log2(|X| + 1)⌉, against |X| for
all labellings.  Nothing here is trusted: `independent_up_to` re-checks the property.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

__all__ = ["bch_vectors", "independent_up_to"]

# Irreducible (primitive) polynomials over GF(2) of degree s, as bit masks (Lidl and Niederreiter,
# "Finite Fields", table C); tests check irreducibility.
IRREDUCIBLE = {1: 0b11, 2: 0b111, 3: 0b1011, 4: 0b10011, 5: 0b100101, 6: 0b1000011,
               7: 0b10001001, 8: 0b100011101, 9: 0x211, 10: 0x409, 11: 0x805, 12: 0x1053,
               13: 0x201B, 14: 0x4443, 15: 0x8003, 16: 0x1100B}


def gf_mul(a: int, b: int, s: int) -> int:
    """a·b in GF(2^s) = GF(2)[x] / (IRREDUCIBLE[s])."""
    poly, out = IRREDUCIBLE[s], 0
    while b:
        if b & 1:
            out ^= a
        b >>= 1
        a <<= 1
        if a >> s & 1:
            a ^= poly
    return out


def bch_vectors(n: int, k: int) -> list[int]:
    """n vectors of GF(2)^r (as ints, r = 1 + t·s with 2t + 1 ≥ k), every k of them linearly
    independent; or the n unit vectors when those are shorter (r = n).  Needs n < 2^16."""
    if n < 1 or k < 1:
        raise ValueError("need n >= 1 points and k >= 1")
    s = max(1, n.bit_length())          # 2^s - 1 >= n non-zero field elements
    t = k // 2                          # 2t + 1 >= k
    if 1 + t * s >= n or s > max(IRREDUCIBLE):
        return [1 << x for x in range(n)]
    out = []
    for x in range(n):
        alpha = x + 1
        v, power = 1, alpha             # leading 1, then α, α^3, ..., α^(2t-1)
        sq = gf_mul(alpha, alpha, s)
        for _ in range(t):
            v = (v << s) | power
            power = gf_mul(power, sq, s)
        out.append(v)
    return out


def independent_up_to(vectors: Sequence[int], k: int) -> tuple[int, ...] | None:
    """None if every set of at most k of the vectors is linearly independent over GF(2);
    otherwise the indices of a dependent set (a non-empty set of at most k vectors with XOR 0).

    Meet in the middle: a dependency D (|D| ≤ k) splits into A, B with |A| = ⌈|D|/2⌉ ≤ ⌈k/2⌉,
    |B| ≤ ⌊k/2⌋ and equal XORs; conversely two distinct such sets with equal XORs give the
    dependency A Δ B.  Cost: the subsets of size ≤ ⌈k/2⌉.
    """
    n = len(vectors)
    half = k // 2
    seen: dict[int, tuple[int, ...]] = {}
    for size in range(half + 1):
        for A in itertools.combinations(range(n), size):
            x = 0
            for i in A:
                x ^= vectors[i]
            if x in seen:
                return tuple(sorted(set(A) ^ set(seen[x])))
            seen[x] = A
    if k % 2:
        for A in itertools.combinations(range(n), half + 1):
            x = 0
            for i in A:
                x ^= vectors[i]
            if x in seen:
                return tuple(sorted(set(A) ^ set(seen[x])))
    return None
