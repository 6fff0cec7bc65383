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

    ``expired()`` reads the clock every ``stride`` calls (every call by default: ~0.1 us, while a
    node of any exact engine costs microseconds to milliseconds on wide classes, and a stride of
    256 let whole seconds pass between two reads -- issue 30).  ``remaining()`` is the time left.
    """

    def __init__(self, seconds: float | None, stride: int = 1) -> None:
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

    def remaining(self) -> float | None:
        """Seconds left (negative once expired), or None without a deadline."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


class BudgetExpired(Exception):
    """Internal signal used to unwind a search when its budget runs out (never escapes the API)."""
