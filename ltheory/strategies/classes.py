"""Strategies for finite classes: domains, classes (optionally with bounded VC/Littlestone
dimension, built by construction), sub-classes and point permutations.

Everything is small by default (at most 6 points, at most 16 hypotheses) so that exponential
reference computations stay fast; raise the bounds explicitly for heavier runs.  All strategies
shrink towards fewer points, fewer hypotheses and all-zero bits.  A class is a finite set
H ⊆ {0,1}^X ([`HypothesisClass`][ltheory.HypothesisClass]).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dimensions import littlestone_dimension, vc_dimension

__all__ = ["domains", "hypothesis_classes", "point_permutations", "subclasses"]


_LABEL_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_"


def check_range(lo: int, hi: int, what: str) -> None:
    for v, nm in ((lo, f"min_{what}"), (hi, f"max_{what}")):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InvalidArgument(f"{nm} must be a non-negative integer, got {v!r}")
    if lo > hi:
        raise InvalidArgument(f"min_{what}={lo} exceeds max_{what}={hi}")


def domains(min_size: int = 0, max_size: int = 6) -> st.SearchStrategy[tuple[str, ...]]:
    """Tuples of distinct point labels (short strings), of length in [min_size, max_size].

    Examples:
        >>> from hypothesis import find
        >>> d = find(domains(2, 4), lambda d: True)
        >>> len(d) == len(set(d)) == 2 and all(isinstance(x, str) for x in d)
        True
    """
    check_range(min_size, max_size, "size")
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
    `ltheory.dims`; VC ≤ Ldim, so the VC test is skipped when the Ldim test implies it)."""
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
       (exact, see `_within`), until the drawn target size is reached or the tries run out.
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
    random distinct labels from [`domains`][ltheory.strategies.domains] when ``labelled=True``); the
    class has between
    ``max(min_size, 0 if allow_empty else 1)`` and ``min(max_size, 2**n)`` distinct hypotheses.
    The empty class (no hypotheses, dimensions -1) is only drawn when ``allow_empty=True``.

    Dimension bounds (keyword-only; ``None`` means no bound): every drawn class has
    ``VC(H) >= min_vc``, ``VC(H) <= max_vc`` and ``Ldim(H) <= max_ldim`` (VC and Littlestone
    dimensions as in `ltheory.dims`).  They hold by construction, not by filtering: a
    shattered set of ``min_vc`` points is planted first, then hypotheses are added one at a time
    and each is kept only if the exact VC / Littlestone dimension of the grown class stays within
    the bounds.  Cost: one exact dimension computation per tried hypothesis (about a millisecond
    on the default ≤ 6 points and ≤ 16 hypotheses, so tens of milliseconds per example); it
    grows exponentially with ``max_points``, so keep classes tiny.  A ``min_size`` above the
    Sauer–Shelah bound Σ_{i≤d} C(max_points, i), d = min(max_vc, max_ldim), is refused; close
    to it, an occasional draw that got stuck at a maximal class is rejected.  Without dimension
    bounds the strategy is the plain random-matrix one (no dimension is computed).

    Examples:
        >>> from hypothesis import find
        >>> H = find(hypothesis_classes(min_points=3, min_size=2), lambda H: True)
        >>> H.domain_size >= 3 and len(H) >= 2
        True
        >>> H = find(hypothesis_classes(min_vc=1, max_vc=1, min_size=3), lambda H: True)
        >>> vc_dimension(H).value == 1 and len(H) >= 3
        True
    """
    check_range(min_points, max_points, "points")
    check_range(min_size, max_size, "size")
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

    Examples:
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


def point_permutations(H: HypothesisClass) -> st.SearchStrategy[tuple[int, ...]]:
    """Permutations of ``range(H.domain_size)``; apply with ``H.permute_points(p)``.

    Examples:
        >>> from hypothesis import find
        >>> H = HypothesisClass.from_strings(["001", "011"])
        >>> p = find(point_permutations(H), lambda p: p != (0, 1, 2))
        >>> sorted(p) == [0, 1, 2] and H.permute_points(p).domain == tuple(str(i) for i in p)
        True
    """
    return st.permutations(list(range(H.domain_size))).map(tuple)
