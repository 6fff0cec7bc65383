"""Brute-force reference values for tiny classes, written to be obviously correct, not fast.

Each function takes a :class:`~ltheory.HypothesisClass` (or anything with ``to_strings()`` and
``domain_size``) and works on plain Python tuples of bits.  Definitions follow Alon, Beimel, Moran,
Stemmer (COLT 2020), §3.1; the empty class has every dimension -1 by convention.  Intended for
classes on at most ~7 points.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import combinations, permutations, product
from typing import Any

Row = tuple[int, ...]


def rows(H: Any) -> frozenset[Row]:
    """The hypotheses of H as a frozenset of bit tuples."""
    return frozenset(tuple(int(c) for c in s) for s in H.to_strings())


def shatters(hyps: frozenset[Row], S: tuple[int, ...]) -> bool:
    """S is shattered iff every one of the 2^|S| patterns on S is some h restricted to S."""
    realised = {tuple(h[x] for x in S) for h in hyps}
    return all(p in realised for p in product((0, 1), repeat=len(S)))


def vc_reference(H: Any) -> int:
    """VC(H): the largest |S| with H|_S = {0,1}^S, by trying every subset (−1 if H is empty)."""
    hyps = rows(H)
    if not hyps:
        return -1
    n = H.domain_size
    best = 0
    for k in range(n + 1):
        if any(shatters(hyps, S) for S in combinations(range(n), k)):
            best = k
    return best


def _ldim_function(n: int) -> Callable[[frozenset[Row]], int]:
    """The memoised recursive definition (Littlestone 1987) on a domain of n points:

    Ldim(∅) = −1; for V ≠ ∅, Ldim(V) = max(0, max over x splitting V of
    1 + min(Ldim(V_x^0), Ldim(V_x^1))) where V_x^b = {h ∈ V : h(x) = b}.  (A point that does not
    split V would contribute 1 + Ldim(∅) = 0, so skipping it changes nothing.)
    """

    @cache
    def L(V: frozenset[Row]) -> int:
        if not V:
            return -1
        best = 0
        for x in range(n):
            V0 = frozenset(h for h in V if h[x] == 0)
            V1 = frozenset(h for h in V if h[x] == 1)
            if V0 and V1:
                best = max(best, 1 + min(L(V0), L(V1)))
        return best

    return L


def ldim_reference(H: Any) -> int:
    """Ldim(H) by the recursive definition, memoised on version spaces."""
    return _ldim_function(H.domain_size)(rows(H))


def is_threshold_ladder(hyps: frozenset[Row], xs: tuple[int, ...]) -> bool:
    """x_1..x_k is threshold-shattered iff for each i ≤ k some h ∈ H has h(x_j) = 1 iff i ≤ j,
    i.e. H restricted to (x_1..x_k) contains every 'staircase' pattern 0^(i-1) 1^(k-i+1)."""
    k = len(xs)
    realised = {tuple(h[x] for x in xs) for h in hyps}
    return all(tuple(1 if i <= j else 0 for j in range(k)) in realised for i in range(k))


def tdim_reference(H: Any) -> int:
    """T(H): the longest threshold-shattered sequence, by trying every ordered sequence of
    distinct points (−1 if H is empty; a non-empty class threshold-shatters the empty sequence).
    Points in a ladder are automatically distinct (h_j(x_j) = 1 ≠ 0 = h_j(x_i) for i < j)."""
    hyps = rows(H)
    if not hyps:
        return -1
    n = H.domain_size
    best = 0
    for k in range(1, n + 1):
        if any(is_threshold_ladder(hyps, xs) for xs in permutations(range(n), k)):
            best = k
    return best


def mistake_tree_is_shattered(H: Any, tree: Any) -> bool:
    """Plain recursive check of the Littlestone witness format: every root-to-leaf path is
    realised by the leaf's hypothesis and the leaf's hypothesis is in H."""
    hyps = set(H.to_strings())
    labels = list(H.domain)

    def walk(node: Any, path: list[tuple[int, int]]) -> bool:
        if "hypothesis" in node:
            h = node["hypothesis"]
            return h in hyps and all(int(h[x]) == y for x, y in path)
        x = labels.index(node["point"])
        return all(walk(node["children"][str(y)], [*path, (x, y)]) for y in (0, 1))

    return walk(tree, [])


# --------------------------------------------------------------------------- reference witnesses
def _bits(h: Row) -> str:
    return "".join(str(b) for b in h)


def vc_witness(H: Any) -> list[str] | None:
    """A largest shattered set, as domain labels (``None`` for the empty class)."""
    hyps = rows(H)
    if not hyps:
        return None
    n = H.domain_size
    for k in range(n, -1, -1):
        for S in combinations(range(n), k):
            if shatters(hyps, S):
                return [H.domain[x] for x in S]
    raise AssertionError("unreachable: the empty set is shattered by a non-empty class")


def ldim_witness(H: Any) -> dict[str, Any] | None:
    """A shattered complete mistake tree of depth Ldim(H), in the JSON witness format, built by
    following the recursive definition (``None`` for the empty class)."""
    n = H.domain_size
    L = _ldim_function(n)

    def tree(V: frozenset[Row], d: int) -> dict[str, Any]:
        if d == 0:
            return {"hypothesis": _bits(min(V))}
        for x in range(n):
            parts = [frozenset(h for h in V if h[x] == b) for b in (0, 1)]
            if all(L(P) >= d - 1 for P in parts):
                return {"point": H.domain[x],
                        "children": {str(b): tree(parts[b], d - 1) for b in (0, 1)}}
        raise AssertionError("unreachable: Ldim(V) >= d")

    V = rows(H)
    return tree(V, L(V)) if V else None


def tdim_witness(H: Any) -> dict[str, list[str]] | None:
    """A longest threshold ladder ``{"points", "hypotheses"}`` (``None`` for the empty class)."""
    hyps = rows(H)
    if not hyps:
        return None
    n = H.domain_size
    for k in range(n, -1, -1):
        for xs in permutations(range(n), k):
            if is_threshold_ladder(hyps, xs):
                chosen = []
                for i in range(k):
                    stair = tuple(1 if i <= j else 0 for j in range(k))
                    chosen.append(min(h for h in hyps if tuple(h[x] for x in xs) == stair))
                return {"points": [H.domain[x] for x in xs],
                        "hypotheses": [_bits(h) for h in chosen]}
    raise AssertionError("unreachable: the empty sequence is a ladder of a non-empty class")
