"""Strategies for labelled samples and neighbouring datasets.

A labelled sample is a tuple of ``(x, y)`` pairs, ``x`` a domain point (index or label) and
``y ∈ {0, 1}``; it is *realizable* by H if some h ∈ H has h(x) = y for every pair.  Two datasets
are *neighbouring* under substitution if they have the same length and differ in exactly one
position (Dwork, McSherry, Nissim, Smith 2006), under add/remove if one is the other with one
pair inserted.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.strategies.classes import check_range

__all__ = ["labelled_samples", "neighbouring_datasets"]


def labelled_samples(H: HypothesisClass, realizable: bool = True, max_len: int = 8,
                     min_len: int = 0, as_labels: bool = False,
                     ) -> st.SearchStrategy[tuple[tuple[Any, int], ...]]:
    """Tuples of ``(x, y)`` pairs over H's domain, of length in [min_len, max_len].

    With ``realizable=True`` the labels come from one hypothesis h ∈ H (drawn first), so the
    sample is consistent with H; with ``realizable=False`` they are arbitrary bits (the sample may
    or may not be realizable).  ``x`` is a point index, or its label when ``as_labels=True``.
    Points may repeat (with the same label when realizable).

    Examples:
        >>> from hypothesis import find
        >>> H = HypothesisClass.from_strings(["01", "10"])
        >>> s = find(labelled_samples(H), lambda s: len(s) == 2)
        >>> len(H.version_space(s)) >= 1
        True
    """
    check_range(min_len, max_len, "len")
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

    ``relation="substitution"`` (default): both have ``n`` pairs and differ in exactly
    one position.  ``relation="add_remove"``: one has ``n`` pairs and the other is the same with one
    extra pair inserted (in either order).

    Examples:
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
