"""Hypothesis strategies for privacy tests of mechanisms on query answers (re-exported by
``ltheory.strategies``; labelled datasets: ``ltheory.strategies.samples``).

``neighbouring_query_answers(k)`` draws pairs of answer vectors of k sensitivity-Δ queries that
are neighbours in the sense of ``ltheory.privacy.mechanisms`` (relation ``"query_answers"``:
every coordinate moves by at most Δ; Lyu, Su & Li 2017; Ding et al. 2018, StatDP): d0 has
integer-valued answers in [low, high], d1 = d0 + Δ·s with s ∈ {−1, 0, 1}^k, s ≠ 0.  The moves
include StatDP's patterns (one above, all below, half-half, X-shape up to a shift, …).  Pairs
shrink towards all-zero answers and a single moved query.

Examples:
    >>> from hypothesis import find
    >>> d0, d1 = find(neighbouring_query_answers(3), lambda p: True)
    >>> len(d0) == len(d1) == 3 and 0 < max(abs(a - b) for a, b in zip(d0, d1)) <= 1
    True
"""

from __future__ import annotations

import math

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

__all__ = ["neighbouring_query_answers"]


@st.composite
def _answer_pairs(draw: st.DrawFn, k: int, sensitivity: float, low: int, high: int
                  ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    d0 = draw(st.lists(st.integers(low, high), min_size=k, max_size=k))
    moves = draw(st.lists(st.sampled_from((0, 1, -1)), min_size=k, max_size=k)
                 .filter(lambda s: any(s)))
    a = tuple(float(v) for v in d0)
    b = tuple(float(v + sensitivity * s) for v, s in zip(d0, moves, strict=True))
    return a, b


def neighbouring_query_answers(k: int, sensitivity: float = 1.0, low: int = -2, high: int = 2
                               ) -> st.SearchStrategy[tuple[tuple[float, ...],
                                                            tuple[float, ...]]]:
    """Pairs ``(d0, d1)`` of neighbouring answer vectors of ``k`` queries (see
    [`ltheory.strategies.query_answers`][ltheory.strategies.query_answers])."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k must be a positive integer, got {k!r}")
    try:
        sens = float(sensitivity)
    except (TypeError, ValueError):
        raise InvalidArgument(f"sensitivity must be a positive number, got {sensitivity!r}") \
            from None
    if not math.isfinite(sens) or sens <= 0:
        raise InvalidArgument(f"sensitivity must be a positive number, got {sensitivity!r}")
    for v, nm in ((low, "low"), (high, "high")):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidArgument(f"{nm} must be an integer, got {v!r}")
    if low > high:
        raise InvalidArgument(f"low={low} exceeds high={high}")
    return _answer_pairs(k, sens, low, high)
