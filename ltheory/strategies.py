"""Hypothesis strategies for finite classes, samples and neighbouring datasets.

Reusable in your own CI (``pip install hypothesis``)::

    from hypothesis import given
    from ltheory import strategies as lst

    @given(lst.hypothesis_classes(max_points=5))
    def test_vc_at_most_log_size(H):
        ...

Everything is small by default (at most 6 points, at most 16 hypotheses) so that exponential
reference computations stay fast; raise the bounds explicitly for heavier runs.  All strategies
shrink towards fewer points, fewer hypotheses and all-zero bits.

Definitions: a class is a finite set H ⊆ {0,1}^X (DESIGN.md, ``HypothesisClass``); a labelled
sample is a tuple of ``(x, y)`` pairs, ``x`` a domain point (index or label), ``y ∈ {0, 1}``; it is
*realizable* by H if some h ∈ H has h(x) = y for every pair.  Two datasets are *neighbouring*
under substitution if they have the same length and differ in exactly one position (Dwork, McSherry,
Nissim, Smith 2006).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ltheory.core.hypothesis_class import HypothesisClass

__all__ = [
    "domains",
    "hypothesis_classes",
    "labelled_samples",
    "neighbouring_datasets",
    "point_permutations",
    "subclasses",
]

_LABEL_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_"


def _check_range(lo: int, hi: int, what: str) -> None:
    for v, nm in ((lo, f"min_{what}"), (hi, f"max_{what}")):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InvalidArgument(f"{nm} must be a non-negative integer, got {v!r}")
    if lo > hi:
        raise InvalidArgument(f"min_{what}={lo} exceeds max_{what}={hi}")


def domains(min_size: int = 0, max_size: int = 6) -> st.SearchStrategy[tuple[str, ...]]:
    """Tuples of distinct point labels (short strings), of length in [min_size, max_size].

    >>> from hypothesis import find
    >>> d = find(domains(2, 4), lambda d: True)
    >>> len(d) == len(set(d)) == 2 and all(isinstance(x, str) for x in d)
    True
    """
    _check_range(min_size, max_size, "size")
    label = st.text(_LABEL_ALPHABET, min_size=1, max_size=4)
    return st.lists(label, min_size=min_size, max_size=max_size, unique=True).map(tuple)


@st.composite
def _classes(draw: st.DrawFn, min_points: int, max_points: int, min_size: int, max_size: int,
             labelled: bool) -> HypothesisClass:
    # enough points to hold min_size distinct hypotheses: 2**n >= min_size
    need = max(min_points, (min_size - 1).bit_length() if min_size > 1 else 0)
    if need > max_points:
        raise InvalidArgument(f"min_size={min_size} distinct hypotheses need at least {need} "
                              f"points, but max_points={max_points}")
    n = draw(st.integers(need, max_points))
    hi = min(max_size, 2 ** n)
    codes = draw(st.lists(st.integers(0, 2 ** n - 1), min_size=min_size, max_size=hi,
                          unique=True))
    mat = np.array([[(c >> j) & 1 for j in range(n)] for c in codes], dtype=np.uint8)
    mat = mat.reshape(len(codes), n)
    dom: Any = draw(domains(n, n)) if labelled else n
    return HypothesisClass.from_matrix(mat, dom)


def hypothesis_classes(min_points: int = 0, max_points: int = 6, min_size: int = 0,
                       max_size: int = 16, allow_empty: bool = False,
                       labelled: bool = False) -> st.SearchStrategy[HypothesisClass]:
    """Finite classes built from random bit matrices (rows deduplicated before building).

    The domain has between ``min_points`` and ``max_points`` points (labels ``"0".."n-1"``, or
    random distinct labels from :func:`domains` when ``labelled=True``); the class has between
    ``max(min_size, 0 if allow_empty else 1)`` and ``min(max_size, 2**n)`` distinct hypotheses.
    The empty class (no hypotheses, dimensions -1) is only drawn when ``allow_empty=True``.

    >>> from hypothesis import find
    >>> H = find(hypothesis_classes(min_points=3, min_size=2), lambda H: True)
    >>> H.domain_size >= 3 and len(H) >= 2
    True
    """
    _check_range(min_points, max_points, "points")
    _check_range(min_size, max_size, "size")
    lo = max(min_size, 0 if allow_empty else 1)
    if lo > max_size:
        raise InvalidArgument(f"max_size={max_size} leaves no room for a non-empty class; pass "
                              "allow_empty=True or raise max_size")
    return _classes(min_points, max_points, lo, max_size, labelled)


def subclasses(H: HypothesisClass, allow_empty: bool = True) -> st.SearchStrategy[HypothesisClass]:
    """Sub-classes H' ⊆ H over the same domain (each hypothesis kept or dropped).

    >>> from hypothesis import find
    >>> H = HypothesisClass.from_strings(["00", "01", "11"])
    >>> G = find(subclasses(H, allow_empty=False), lambda G: len(G) == 2)
    >>> set(G.to_strings()) <= set(H.to_strings()) and G.domain == H.domain
    True
    """
    m = len(H)
    mask = st.lists(st.booleans(), min_size=m, max_size=m)
    if not allow_empty:
        if m == 0:
            raise InvalidArgument("the empty class has no non-empty sub-class")
        mask = mask.filter(any)
    return mask.map(lambda keep: H.subclass(np.array(keep, dtype=bool).reshape(m)))


def labelled_samples(H: HypothesisClass, realizable: bool = True, max_len: int = 8,
                     min_len: int = 0, as_labels: bool = False,
                     ) -> st.SearchStrategy[tuple[tuple[Any, int], ...]]:
    """Tuples of ``(x, y)`` pairs over H's domain, of length in [min_len, max_len].

    With ``realizable=True`` the labels come from one hypothesis h ∈ H (drawn first), so the
    sample is consistent with H; with ``realizable=False`` they are arbitrary bits (the sample may
    or may not be realizable).  ``x`` is a point index, or its label when ``as_labels=True``.
    Points may repeat (with the same label when realizable).

    >>> from hypothesis import find
    >>> H = HypothesisClass.from_strings(["01", "10"])
    >>> s = find(labelled_samples(H), lambda s: len(s) == 2)
    >>> len(H.version_space(s)) >= 1
    True
    """
    _check_range(min_len, max_len, "len")
    n = H.domain_size
    if n == 0:
        if min_len > 0:
            raise InvalidArgument("a class on an empty domain only has the empty sample")
        max_len = 0
    if realizable and len(H) == 0:
        raise InvalidArgument("no sample is realizable by the empty class")
    domain = H.domain

    def name(x: int) -> Any:
        return domain[x] if as_labels else x

    points = st.lists(st.integers(0, max(n - 1, 0)), min_size=min_len, max_size=max_len)
    if realizable:
        strings = H.to_strings()

        @st.composite
        def draw_realizable(draw: st.DrawFn) -> tuple[tuple[Any, int], ...]:
            h = strings[draw(st.integers(0, len(strings) - 1))]
            xs = draw(points)
            return tuple((name(x), int(h[x])) for x in xs)

        return draw_realizable()
    pair = st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, 1))
    return st.lists(pair, min_size=min_len, max_size=max_len).map(
        lambda s: tuple((name(x), y) for x, y in s))


_RELATIONS = ("substitution", "add_remove")


@st.composite
def _neighbours(draw: st.DrawFn, domain_size: int, n: int, relation: str
                ) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    pair = st.tuples(st.integers(0, domain_size - 1), st.integers(0, 1))
    d0 = draw(st.lists(pair, min_size=n, max_size=n))
    if relation == "substitution":
        i = draw(st.integers(0, n - 1))
        new = draw(pair.filter(lambda p: p != d0[i]))
        d1 = [*d0[:i], new, *d0[i + 1:]]
        return tuple(d0), tuple(d1)
    # add_remove: d1 is d0 with one pair inserted; either may come first
    i = draw(st.integers(0, n))
    d1 = [*d0[:i], draw(pair), *d0[i:]]
    if draw(st.booleans()):
        return tuple(d1), tuple(d0)
    return tuple(d0), tuple(d1)


def neighbouring_datasets(domain_size: int, n: int, relation: str = "substitution"
                          ) -> st.SearchStrategy[tuple[tuple[tuple[int, int], ...],
                                                       tuple[tuple[int, int], ...]]]:
    """Pairs ``(d0, d1)`` of neighbouring labelled datasets over points ``0..domain_size-1``.

    ``relation="substitution"`` (default, DESIGN.md): both have ``n`` pairs and differ in exactly
    one position.  ``relation="add_remove"``: one has ``n`` pairs and the other is the same with one
    extra pair inserted (in either order).

    >>> from hypothesis import find
    >>> d0, d1 = find(neighbouring_datasets(3, 2), lambda p: True)
    >>> len(d0) == len(d1) == 2 and sum(a != b for a, b in zip(d0, d1)) == 1
    True
    """
    if isinstance(domain_size, bool) or not isinstance(domain_size, int) or domain_size < 1:
        raise InvalidArgument(f"domain_size must be a positive integer, got {domain_size!r}")
    if relation not in _RELATIONS:
        raise InvalidArgument(f"unknown relation {relation!r}; expected one of {_RELATIONS}")
    low = 1 if relation == "substitution" else 0
    if isinstance(n, bool) or not isinstance(n, int) or n < low:
        raise InvalidArgument(f"n must be an integer >= {low} for relation {relation!r}, "
                              f"got {n!r}")
    return _neighbours(domain_size, n, relation)


def point_permutations(H: HypothesisClass) -> st.SearchStrategy[tuple[int, ...]]:
    """Permutations of ``range(H.domain_size)``; apply with ``H.permute_points(p)``.

    >>> from hypothesis import find
    >>> H = HypothesisClass.from_strings(["001", "011"])
    >>> p = find(point_permutations(H), lambda p: p != (0, 1, 2))
    >>> sorted(p) == [0, 1, 2] and H.permute_points(p).domain == tuple(str(i) for i in p)
    True
    """
    return st.permutations(list(range(H.domain_size))).map(tuple)
