"""Hypothesis strategies for finite classes, samples and neighbouring datasets.

Reusable in your own CI (``pip install hypothesis``)::

    from hypothesis import given
    from ltheory import strategies as lst

    @given(lst.hypothesis_classes(max_points=5))
    def test_vc_at_most_log_size(H):
        ...

    @given(lst.hypothesis_classes(max_points=6, min_vc=1, max_ldim=2))
    def test_something_about_classes_of_small_dimension(H):
        ...

Boolean aggregations and composed classes G(H_1, ..., H_k) come from
:mod:`ltheory.strategies_boolean` and are re-exported here (``aggregations``,
``aggregation_expressions``, ``compositions``).

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

import math
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.littlestone import littlestone_dimension
from ltheory.dims.vc import vc_dimension

__all__ = [
    "aggregation_expressions",
    "aggregations",
    "compositions",
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


def _check_optional(v: int | None, nm: str) -> None:
    if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
        raise InvalidArgument(f"{nm} must be None or a non-negative integer, got {v!r}")


def _sauer(n: int, d: int) -> int:
    """Σ_{i≤d} C(n, i): the most hypotheses a class on n points with VC (or Ldim) ≤ d can have
    (Sauer–Shelah–Perles; Ldim ≥ VC, and the class of weight ≤ d vectors reaches it for both)."""
    return sum(math.comb(n, i) for i in range(min(d, n) + 1))


def _matrix(codes: list[int], n: int) -> np.ndarray:
    mat = np.array([[(c >> j) & 1 for j in range(n)] for c in codes], dtype=np.uint8)
    return mat.reshape(len(codes), n)


def _within(codes: list[int], n: int, max_vc: int | None, max_ldim: int | None) -> bool:
    """Whether the class of these codes has VC ≤ max_vc and Ldim ≤ max_ldim (exact values from
    :mod:`ltheory.dims`; VC ≤ Ldim, so the VC test is skipped when the Ldim test implies it)."""
    H = HypothesisClass.from_matrix(_matrix(codes, n), n)
    if max_ldim is not None and littlestone_dimension(H).value > max_ldim:
        return False
    if max_vc is not None and (max_ldim is None or max_vc < max_ldim):
        return vc_dimension(H).value <= max_vc
    return True


@st.composite
def _bounded_classes(draw: st.DrawFn, min_points: int, max_points: int, min_size: int,
                     max_size: int, labelled: bool, min_vc: int | None, max_vc: int | None,
                     max_ldim: int | None) -> HypothesisClass:
    """Grow a class one hypothesis at a time, keeping only additions that respect the bounds.

    1. ``min_vc = s``: plant a shattered set, i.e. all 2^s patterns on s drawn points with one
       drawn pattern elsewhere (a translate of "all functions on s points", VC = Ldim = s).
    2. Add drawn hypotheses, each kept iff the class still has VC ≤ max_vc and Ldim ≤ max_ldim
       (exact, see :func:`_within`), until the drawn target size is reached or the tries run out.
    3. Below ``min_size`` after that, complete greedily over every hypothesis in order; if the
       class is then maximal but still too small (rare: only when ``min_size`` is close to the
       Sauer–Shelah bound), the draw is rejected.
    """
    dmax = min(d for d in (max_vc, max_ldim, max_points) if d is not None)
    need = max(min_points, min_vc or 0)
    while _sauer(need, dmax) < min_size:  # validated: terminates by max_points
        need += 1
    n = draw(st.integers(need, max_points))
    hi = min(max_size, _sauer(n, dmax))
    target = draw(st.integers(min_size, hi))
    codes: list[int] = []
    if min_vc:
        where = draw(st.permutations(range(n)))[:min_vc]
        rest = draw(st.integers(0, 2 ** n - 1)) & ~sum(1 << j for j in where)
        for pattern in range(2 ** min_vc):
            codes.append(rest | sum(((pattern >> i) & 1) << j for i, j in enumerate(where)))
    bounded = max_vc is not None or max_ldim is not None
    seen = set(codes)
    for _ in range(3 * target + 8):
        if len(codes) >= target:
            break
        c = draw(st.integers(0, 2 ** n - 1))
        if c in seen:
            continue
        seen.add(c)
        if not bounded or _within([*codes, c], n, max_vc, max_ldim):
            codes.append(c)
    for c in range(2 ** n):
        if len(codes) >= min_size:
            break
        if c not in codes and (not bounded or _within([*codes, c], n, max_vc, max_ldim)):
            codes.append(c)
    assume(len(codes) >= min_size)
    dom: Any = draw(domains(n, n)) if labelled else n
    return HypothesisClass.from_matrix(_matrix(codes, n), dom)


def hypothesis_classes(min_points: int = 0, max_points: int = 6, min_size: int = 0,
                       max_size: int = 16, allow_empty: bool = False,
                       labelled: bool = False, *, min_vc: int | None = None,
                       max_vc: int | None = None, max_ldim: int | None = None,
                       ) -> st.SearchStrategy[HypothesisClass]:
    """Finite classes built from random bit matrices (rows deduplicated before building).

    The domain has between ``min_points`` and ``max_points`` points (labels ``"0".."n-1"``, or
    random distinct labels from :func:`domains` when ``labelled=True``); the class has between
    ``max(min_size, 0 if allow_empty else 1)`` and ``min(max_size, 2**n)`` distinct hypotheses.
    The empty class (no hypotheses, dimensions -1) is only drawn when ``allow_empty=True``.

    Dimension bounds (keyword-only; ``None`` means no bound): every drawn class has
    ``VC(H) >= min_vc``, ``VC(H) <= max_vc`` and ``Ldim(H) <= max_ldim`` (VC and Littlestone
    dimensions as in :mod:`ltheory.dims`).  They hold by construction, not by filtering: a
    shattered set of ``min_vc`` points is planted first, then hypotheses are added one at a time
    and each is kept only if the exact VC / Littlestone dimension of the grown class stays within
    the bounds.  Cost: one exact dimension computation per tried hypothesis (about a millisecond
    on the default ≤ 6 points and ≤ 16 hypotheses, so tens of milliseconds per example); it
    grows exponentially with ``max_points``, so keep classes tiny.  A ``min_size`` above the
    Sauer–Shelah bound Σ_{i≤d} C(max_points, i), d = min(max_vc, max_ldim), is refused; close
    to it, an occasional draw that got stuck at a maximal class is rejected.  Without dimension
    bounds the strategy is the plain random-matrix one (no dimension is computed).

    >>> from hypothesis import find
    >>> H = find(hypothesis_classes(min_points=3, min_size=2), lambda H: True)
    >>> H.domain_size >= 3 and len(H) >= 2
    True
    >>> H = find(hypothesis_classes(min_vc=1, max_vc=1, min_size=3), lambda H: True)
    >>> vc_dimension(H).value == 1 and len(H) >= 3
    True
    """
    _check_range(min_points, max_points, "points")
    _check_range(min_size, max_size, "size")
    for v, nm in ((min_vc, "min_vc"), (max_vc, "max_vc"), (max_ldim, "max_ldim")):
        _check_optional(v, nm)
    lo = max(min_size, 0 if allow_empty else 1)
    if lo > max_size:
        raise InvalidArgument(f"max_size={max_size} leaves no room for a non-empty class; pass "
                              "allow_empty=True or raise max_size")
    if min_vc is None and max_vc is None and max_ldim is None:
        return _classes(min_points, max_points, lo, max_size, labelled)
    if min_vc is not None:
        for v, nm in ((max_vc, "max_vc"), (max_ldim, "max_ldim (Ldim >= VC)"),
                      (max_points, "max_points")):
            if v is not None and min_vc > v:
                raise InvalidArgument(f"min_vc={min_vc} exceeds {nm}={v}")
        if 2 ** min_vc > max_size:
            raise InvalidArgument(f"min_vc={min_vc} needs at least 2**{min_vc} hypotheses, but "
                                  f"max_size={max_size}")
        lo = max(lo, 2 ** min_vc)
    dmax = min(d for d in (max_vc, max_ldim, max_points) if d is not None)
    if lo > _sauer(max_points, dmax):
        raise InvalidArgument(
            f"min_size={lo} exceeds the Sauer–Shelah bound {_sauer(max_points, dmax)} on the "
            f"size of a class on at most max_points={max_points} points with dimension "
            f"<= {dmax} (max_vc={max_vc}, max_ldim={max_ldim})")
    return _bounded_classes(min_points, max_points, lo, max_size, labelled, min_vc, max_vc,
                            max_ldim)


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


# Re-exported at the bottom: ltheory.strategies_boolean builds on hypothesis_classes (imported there
# lazily, so either module may be imported first).
from ltheory.strategies_boolean import (  # noqa: E402
    aggregation_expressions,
    aggregations,
    compositions,
)
