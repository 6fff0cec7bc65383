"""Verified numerics for the equivalence proofs of the mutation harness (issue 41).

A proof's numerical step ("f ≤ c for every x in a range") is checked here over the *whole*
range, not on a grid: by interval arithmetic (``mpmath.iv``, outward-rounded, so an interval
result encloses every real value of the expression on its argument box) in a verified
branch-and-bound — the box is bisected until the interval enclosure of f on every piece lies
below c — or by a sign condition of a derivative evaluated on an interval (monotonicity plus an
endpoint).  A failure to verify (the budget of pieces exhausted) raises; it never passes
silently.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mpmath import iv, mpf

Box = tuple[tuple[Any, Any], ...]


class NotVerified(AssertionError):
    """The interval enclosure could not establish the inequality within the budget."""


def interval(lo: Any, hi: Any | None = None) -> Any:
    """The closed interval [lo, hi] (a point when ``hi`` is None), from exact decimal strings
    or numbers (strings avoid a float's rounding of the endpoint)."""
    return iv.mpf([lo, lo if hi is None else hi])


def upper(x: Any) -> float:
    """The upper end of an interval (an upper bound on every value it encloses)."""
    return float(x.b)


def lower(x: Any) -> float:
    return float(x.a)


def sup_on_box(f: Callable[..., Any], box: Sequence[tuple[Any, Any]], below: float,
               max_pieces: int = 200_000) -> dict[str, Any]:
    """Verify ``f(x) < below`` for every x of the box (a product of closed intervals) by
    branch-and-bound: a piece is done when the upper end of the interval enclosure of f on it
    is < ``below``, otherwise it is bisected along its widest side.  Returns the pieces used and
    the largest certified upper end (an upper bound on sup f over the box); raises
    `NotVerified` when ``max_pieces`` are used up."""
    stack = [tuple((mpf(a), mpf(b)) for a, b in box)]
    pieces, worst = 0, -float("inf")
    while stack:
        piece = stack.pop()
        pieces += 1
        if pieces > max_pieces:
            raise NotVerified(f"f < {below} not verified on {box} within {max_pieces} pieces")
        value = f(*(iv.mpf([a, b]) for a, b in piece))
        if upper(value) < below:
            worst = max(worst, upper(value))
            continue
        widths = [b - a for a, b in piece]
        k = max(range(len(piece)), key=widths.__getitem__)
        a, b = piece[k]
        if b - a < mpf(10) ** -12:
            raise NotVerified(f"f ≥ {below} is not excluded on {piece} (enclosure "
                              f"{value}); the inequality may be false there")
        mid = (a + b) / 2
        stack.append(piece[:k] + ((a, mid),) + piece[k + 1:])
        stack.append(piece[:k] + ((mid, b),) + piece[k + 1:])
    return {"pieces": pieces, "certified_sup": worst, "below": below}


def positive(x: Any) -> bool:
    """Whether an interval lies strictly above 0 (every value it encloses is > 0)."""
    return lower(x) > 0
