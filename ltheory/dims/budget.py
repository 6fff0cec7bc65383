"""Time budgets for long searches: checked cheaply and often, never by raising deep inside."""

from __future__ import annotations

import math
import time

from ltheory.errors import InvalidInputError


def check_budget(seconds: object, what: str = "budget") -> float | None:
    """``seconds`` as a positive float, or None (unlimited); anything else is a clear error."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or (
            math.isnan(seconds) or seconds <= 0):
        raise InvalidInputError(f"{what} must be a positive number of seconds or None, "
                                f"got {seconds!r}")
    return float(seconds)


class Budget:
    """A wall-clock budget in seconds (``None`` = unlimited).

    ``expired()`` is cheap: it reads the clock only every ``stride`` calls.
    """

    def __init__(self, seconds: float | None, stride: int = 256) -> None:
        self.seconds = check_budget(seconds)
        self.start = time.perf_counter()
        self.deadline = None if seconds is None else self.start + float(seconds)
        self._stride = stride
        self._count = 0
        self._expired = False

    def expired(self) -> bool:
        if self.deadline is None:
            return False
        if self._expired:
            return True
        self._count += 1
        if self._count >= self._stride:
            self._count = 0
            if time.perf_counter() >= self.deadline:
                self._expired = True
        return self._expired

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


class BudgetExpired(Exception):
    """Internal signal used to unwind a search when its budget runs out (never escapes the API)."""
