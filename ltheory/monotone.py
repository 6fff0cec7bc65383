"""The smallest integer at which a monotone predicate holds: doubling, then bisection.

Used wherever a budget is sized from a yes/no question that only gets easier with more runs
(``privacy.auditing.stages.min_runs``: could a perfect event certify above the claim?;
``privacy.zoo``: does the oracle event certify the violation?).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["fewest_true"]


def fewest_true(ok: Callable[[int], bool], start: int, limit: int) -> int | None:
    """The smallest n ≥ 1 with ``ok(n)`` for a predicate false below some point and true from
    it on: ``ok`` is tried at ``start``, 2·start, 4·start, … while at most ``limit``, then the
    last bracket is bisected.  None when it is false at every doubling up to ``limit``.

    Examples:
        >>> fewest_true(lambda n: n * n >= 1000, 1, 10**6)
        32
        >>> fewest_true(lambda n: False, 2, 100) is None
        True
    """
    hi = start
    while not ok(hi):
        hi *= 2
        if hi > limit:
            return None
    lo = max(1, hi // 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
